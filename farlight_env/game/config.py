"""The game's fixed facts, its options and its errors, declared once (OpenSpiel's _GAME_TYPE).

Farlight is a sequential game of 2-5 players with chance (station dice, the shuffled deck and
awards) and imperfect information (face-down bidding tiles, the deck's order, the face-down
awards). Rewards arrive only when the game ends. Rule IDs refer to docs/rules.md.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum
from typing import Any

from farlight_env.cards.loader import CardFileError
from farlight_env.game.rules_options import RuleOptionError, RuleOptions

# --- players, grid and game length --------------------------------------------------------------
MIN_PLAYERS = 2  # R-COMP-1
MAX_PLAYERS = 5  # R-COMP-1
#: Largest ship grid. The observation holds grid² cells per seat and the action space one install
#: index per cell: at 41 that is 144,826 floats (16,306 at 13) and 2,008 actions (496 at 13),
#: still fine for a network, while real ships of 10-20 parts never come near its edge.
MAX_GRID_SIZE = 41
#: Largest round cap. Real games end by the deck or a climactic mission within ~15 rounds; the
#: cap only stops games in which nobody takes parts, so 10,000 is far more than any use needs.
MAX_ROUNDS = 10_000
#: Largest value any counter (crew, science, points, bonus crew, benefit icons) may hold in a
#: saved game. Crew and science are unlimited by the rules (R-COMP-2), but no game of
#: MAX_ROUNDS rounds can gain more than a few hundred a round; 10**9 refuses absurd files.
MAX_COUNT = 10**9
#: Seeds are non-negative integers below this (numpy's PCG64 takes 128 bits).
SEED_LIMIT = 2**128

# --- the components (R-SETUP) -------------------------------------------------------------------
TILES: tuple[int, ...] = (0, 1, 2, 3, 4)  # R-SETUP-1
TILES_PER_PASS: tuple[int, ...] = (2, 2, 1)  # R-BID-1
PART_SPACES: dict[int, int] = {2: 7, 3: 9, 4: 10, 5: 12}  # R-SETUP-4
REGULAR_PER_STACK: dict[int, int] = {2: 2, 3: 2, 4: 3, 5: 3}  # R-SETUP-3
NUM_STACKS = 3
NUM_FACE_UP_AWARDS = 3
AWARD_POINTS = 5
HIRE_CREW = 3
TEMP_BIOTECH_COST = 3  # R-MIS-5
START_CREW = 3
MIN_ENGINE, MAX_ENGINE = 1, 6  # engine dice (R-SETUP-5)
REFIT, HIRE, DISCOVER, ENGINEER = range(4)  # facilities in resolution order (R-RES-1)


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


class IllegalActionError(ValueError):
    """An action that is not legal now; the game state is left unchanged."""


class ConfigError(ValueError):
    """A game configuration that cannot be played."""


class CardSetError(ConfigError, CardFileError):
    """A card file given as configuration was missing or invalid (catch either base)."""


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Every option besides the seed and the card set that fixes a game's rules and size.

    The single declaration of game options: `FarlightGame`, `to_json`, `raw_env` and game
    records all iterate over `dataclasses.fields(GameConfig)`, so a new option is one field
    here, one check in `validate` and the code that reads it.
    """

    #: Seats 0..n-1 (R-COMP-1).
    num_players: int = 4
    #: Odd width of the square ship grid, the core in the centre (R-INST-2).
    grid_size: int = 13
    #: The game ends after this round at the latest (R-RESET-6).
    max_rounds: int = 50
    #: Draw the first player at random instead of seat 0 (R-SETUP-6).
    random_first_player: bool = False
    #: The rulebook's ambiguities, each playable both ways (docs/rules.md, "Rule options").
    rule_options: RuleOptions = RuleOptions()

    @classmethod
    def from_options(cls, **options: Any) -> GameConfig:
        """A validated config; an unknown option name raises ConfigError listing the known."""
        unknown = sorted(set(options) - set(GAME_OPTIONS))
        if unknown:
            raise ConfigError(
                f"unknown game option {unknown[0]}={options[unknown[0]]!r}; "
                f"the options are {', '.join(GAME_OPTIONS)}"
            )
        if "rule_options" in options:
            try:
                options["rule_options"] = RuleOptions.from_mapping(options["rule_options"])
            except RuleOptionError as exc:
                raise ConfigError(str(exc)) from exc
        config = cls(**options)
        config.validate()
        return config

    def as_dict(self) -> dict[str, Any]:
        """The options as plain JSON-able data (the `config` of saved games and records)."""
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        data["rule_options"] = self.rule_options.to_dict()
        return data

    def validate(self) -> None:
        n = self.num_players
        if not _is_int(n):
            raise ConfigError(
                f"num_players must be an integer {MIN_PLAYERS}..{MAX_PLAYERS}, got {n!r}"
            )
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise ConfigError(
                f"num_players must be {MIN_PLAYERS}..{MAX_PLAYERS} (R-COMP-1), got {n}"
            )
        size = self.grid_size
        if not _is_int(size):
            raise ConfigError(
                f"grid_size must be an odd integer 3..{MAX_GRID_SIZE}, got {self.grid_size!r}"
            )
        if size < 3 or size % 2 == 0 or size > MAX_GRID_SIZE:
            raise ConfigError(
                f"grid_size must be odd (the core sits in the centre) and 3..{MAX_GRID_SIZE}, "
                f"got {size} (R-INST-2)"
            )
        if not _is_int(self.max_rounds):
            raise ConfigError(
                f"max_rounds must be an integer 1..{MAX_ROUNDS}, got {self.max_rounds!r}"
            )
        if not 1 <= self.max_rounds <= MAX_ROUNDS:
            raise ConfigError(
                f"max_rounds must be 1..{MAX_ROUNDS} (R-RESET-6), got {self.max_rounds}"
            )
        if not isinstance(self.random_first_player, bool):
            raise ConfigError(
                f"random_first_player must be True or False, got {self.random_first_player!r}"
            )
        if not isinstance(self.rule_options, RuleOptions):
            raise ConfigError(
                f"rule_options must be a RuleOptions or a mapping, got {self.rule_options!r}"
            )


#: The names of the game options, in declaration order.
GAME_OPTIONS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(GameConfig))
