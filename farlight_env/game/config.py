"""The game's options and its errors, declared once (OpenSpiel's parameter_specification).

Farlight is a sequential game of 2-5 players with chance (station dice, the shuffled deck and
awards) and imperfect information (face-down bidding tiles, the deck's order, the face-down
awards). Rewards arrive only when the game ends. Rule IDs refer to docs/rules.md. Its fixed
facts (player bounds, limits, the components' numbers) live in facts.py.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from farlight_env.cards.schema import CardFileError
from farlight_env.game.facts import MAX_GRID_SIZE, MAX_PLAYERS, MAX_ROUNDS, MIN_PLAYERS
from farlight_env.game.options import OptionSpec, option
from farlight_env.game.rules_options import RULES, RuleOptions
from farlight_env.platform.protocol import GameError, IllegalMove


class Phase(str, Enum):
    """The kind of decision the acting player faces (OVER when the game has ended)."""

    BIDDING = "bidding"
    REFIT = "refit"
    ENGINEER = "engineer"
    INSTALL = "install"
    UPGRADE = "upgrade"
    OVERHAUL = "overhaul"
    MISSION = "mission"
    OVER = "over"

    def __str__(self) -> str:
        return self.value


class EndReason(str, Enum):
    CLIMACTIC = "climactic"  # R-RESET-1
    DECK = "deck"  # R-RESET-3
    ROUND_CAP = "round_cap"  # R-RESET-6

    def __str__(self) -> str:
        return self.value


class Resume(str, Enum):
    """Where the engine's driver continues after an action (None: wait for the next action)."""

    RESOLVE = "resolve"  # resolve the next part space or facility (R-RES-1)
    INSTALL = "install"  # the next installer in turn order (R-INST-1)
    BENEFITS = "benefits"  # the next upgrade/overhaul decision (R-BEN-3)
    MISSIONS = "missions"  # the next mission decision (R-MIS-2)
    RESET = "reset"  # the round reset (R-RESET)


class IllegalActionError(IllegalMove):
    """An action that is not legal now; the game state is left unchanged."""


class ConfigError(GameError):
    """A game configuration that cannot be played."""


class CardSetError(ConfigError, CardFileError):
    """A card file given as configuration was missing or invalid (catch either base)."""


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Every option besides the seed and the card set that fixes a game's rules and size.

    The only list of game options. A new option is one field here, declared with `option`;
    everything else derives from these fields: validation (`validate`), the engine's and envs'
    keyword arguments, saved games and records, the command line's flags
    (farlight_cli/farlight/game_flags.py), the web's new-game body and /api/options
    (farlight_web/farlight/schemas.py), and training run configs
    (training/farlight/game_options.py).

    Every instance is valid: construction (`GameConfig(...)`, `from_options`,
    `dataclasses.replace`) checks it once, so whoever receives one (the engine, the envs)
    takes it as it is.
    """

    num_players: int = option(
        4, "R-COMP-1", "seats 0..n-1", low=MIN_PLAYERS, high=MAX_PLAYERS, offered=False
    )
    grid_size: int = option(
        13,
        "R-INST-2",
        f"side of each ship's square grid, odd, 3..{MAX_GRID_SIZE}",
        low=3,
        high=MAX_GRID_SIZE,
        odd="the core sits in the centre",
        label="grid",
    )
    max_rounds: int = option(
        50,
        "R-RESET-6",
        "round cap: the game ends after this round",
        low=1,
        high=MAX_ROUNDS,
        label="round cap",
    )
    random_first_player: bool = option(
        False, "R-SETUP-6", "draw the first player at random instead of seat 0", offered=False
    )
    rule_options: RuleOptions = field(default=RuleOptions(), metadata={"option": RULES})

    @classmethod
    def from_options(cls, **options: Any) -> GameConfig:
        """A validated config; an unknown option name raises ConfigError listing the known."""
        unknown = sorted(set(options) - set(GAME_OPTIONS))
        if unknown:
            raise ConfigError(
                f"unknown game option {unknown[0]}={options[unknown[0]]!r}; "
                f"the options are {', '.join(GAME_OPTIONS)}"
            )
        for name, value in options.items():
            problem = OPTION_SPECS[name].problem(name, value, OPTION_DEFAULTS[name])
            if problem:
                raise ConfigError(problem)
            options[name] = OPTION_SPECS[name].coerce(value)  # a group's mapping: its class
        return cls(**options)

    @classmethod
    def check_option(cls, name: str, value: Any) -> Any:
        """`value` as the option `name` takes it (a mapping of rule options becomes
        RuleOptions); ConfigError saying why it is not valid."""
        return getattr(cls.from_options(**{name: value}), name)

    def as_dict(self) -> dict[str, Any]:
        """The options as plain JSON-able data (the `config` of saved games and records)."""
        return {name: OPTION_SPECS[name].plain(getattr(self, name)) for name in GAME_OPTIONS}

    def __post_init__(self) -> None:
        self.validate()
        for name, spec in OPTION_SPECS.items():  # a group given as a mapping: its class
            object.__setattr__(self, name, spec.coerce(getattr(self, name)))

    def validate(self) -> None:
        """ConfigError naming the first option, in declaration order, that is not valid."""
        for name, f in _FIELDS.items():
            problem = f.metadata["option"].problem(name, getattr(self, name), f.default)
            if problem:
                raise ConfigError(problem)


_FIELDS: dict[str, dataclasses.Field] = {f.name: f for f in dataclasses.fields(GameConfig)}
#: The names of the game options, in declaration order.
GAME_OPTIONS: tuple[str, ...] = tuple(_FIELDS)
#: Each option's declaration.
OPTION_SPECS: dict[str, OptionSpec] = {n: f.metadata["option"] for n, f in _FIELDS.items()}
#: Each option's default.
OPTION_DEFAULTS: dict[str, Any] = {n: f.default for n, f in _FIELDS.items()}
#: The options offered by name on command lines, the web form and run configs.
OFFERED_OPTIONS: tuple[str, ...] = tuple(n for n, s in OPTION_SPECS.items() if s.offered)


def option_flag(name: str) -> str:
    """The command-line flag of an option: its declared `flag`, else --name-with-dashes."""
    return OPTION_SPECS[name].flag or "--" + name.replace("_", "-")


def plain(name: str, value: Any) -> Any:
    """Option `name`'s value as JSON-able data (a group as a name -> value dict)."""
    return OPTION_SPECS[name].plain(value)


def describe_options(names: tuple[str, ...] = OFFERED_OPTIONS) -> list[dict[str, Any]]:
    """JSON-able declarations of the options `names` (the web's /api/options)."""
    out = []
    for name in names:
        spec, default = OPTION_SPECS[name], OPTION_DEFAULTS[name]
        kind = spec.kind(default)
        entry = {"name": name, "kind": kind, "default": spec.plain(default), "rule": spec.rule}
        entry |= {"help": spec.help, "flag": option_flag(name)}
        if kind == "int":
            entry |= {"low": spec.low, "high": spec.high, "odd": bool(spec.odd)}
        if spec.choices:
            entry["choices"] = list(spec.choices)
        out.append(entry)
    return out
