"""The game a training run plays: the run-config fields of the game options, derived from
their one declaration (GameConfig), and their check by the engine's own validation before
anything is written or any worker starts (a worker that cannot build its environment ends
the run in a traceback from another process).

`GameOptions` holds one field per option GameConfig offers, as plain JSON-able data (the rule
options as a name -> value dict); the run configs (`PPOConfig`, `RLlibConfig`) extend it, so
a new option in GameConfig is a new field of every run config, a new flag of `farlight
train` and a new key of run_config.json with no edit here.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from farlight_env.game.config import (
    OFFERED_OPTIONS,
    OPTION_DEFAULTS,
    OPTION_SPECS,
    ConfigError,
    GameConfig,
    option_flag,
)

__all__ = ["GAME_FLAGS", "GameOptions", "check_game_options", "game_kwargs", "game_problems"]

#: Run config fields that fix the game, with the command-line flag that sets each.
GAME_FLAGS: dict[str, str] = {name: option_flag(name) for name in OFFERED_OPTIONS}


def _field(name: str) -> tuple[str, Any, dataclasses.Field]:
    """(name, type, field) of the run-config field of a game option."""
    spec, default = OPTION_SPECS[name], OPTION_DEFAULTS[name]
    help = f"{spec.help} ({spec.rule})"
    if spec.group is not None:  # only the members given, as a NAME -> value dict
        help = f"{spec.member}s of {spec.rule}, as {option_flag(name)} {spec.metavar} (repeatable)"
        given = dataclasses.field(default_factory=dict, metadata={"help": help})
        return name, dict[str, Any], given
    kind: Any = Literal[spec.choices] if spec.choices else type(default)
    return name, kind, dataclasses.field(default=default, metadata={"help": help})


#: One field per offered game option, typed and documented from its declaration.
GameOptions = dataclasses.make_dataclass("GameOptions", [_field(n) for n in OFFERED_OPTIONS])
GameOptions.__module__ = __name__
GameOptions.__doc__ = "The game options of a run (GameConfig's offered options, as plain data)."


def game_kwargs(config: Any) -> dict[str, Any]:
    """The game options of a run config as keyword arguments of FarlightGame and the envs."""
    return {name: _copy(getattr(config, name)) for name in OFFERED_OPTIONS}


def _copy(value: Any) -> Any:
    return dict(value) if isinstance(value, dict) else value


def game_problems(config: Any) -> list[str]:
    """What the engine refuses in a run config's game options, one '--flag: why' each."""
    problems = []
    for name, flag in GAME_FLAGS.items():
        try:
            GameConfig.check_option(name, getattr(config, name))
        except ConfigError as exc:
            problems.append(f"{flag}: {exc}")
    return problems


def check_game_options(config: Any) -> None:
    """ValueError naming the flag of the first game option the engine refuses (the card set
    is loaded, and so checked, by the run itself)."""
    problems = game_problems(config)
    if problems:
        raise ValueError(problems[0])
