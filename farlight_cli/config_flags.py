"""`farlight train`'s flags, built from a run-config dataclass (CleanRL's tyro `Args`, by hand).

One --flag per field, typed and documented from it: `Literal` fields become `{a,b}` choices,
lists are comma-separated, bools are --name/--no-name, and the game options (the fields of
`training.farlight.game_options.GameOptions`, declared once in GameConfig) take their declared flags
(typed and checked by their declaration; the rule options are --rule NAME=VALUE,
repeatable) in a group of their own. Flags not given are
absent from the parsed namespace (`given_options` tells which were), so a resumed run can tell
an option given from a default.
"""

from __future__ import annotations

import argparse
import dataclasses
import typing
from typing import Any

from farlight_cli.farlight.game_flags import option_argument
from training.farlight.config import PPOConfig
from training.farlight.game_options import GAME_FLAGS
from training.run_config import flag_name, literal_choices, shown

__all__ = ["add_config_arguments", "config_from_args", "given_options"]


def add_config_arguments(
    parser: argparse.ArgumentParser, cls: type = PPOConfig, skip: tuple[str, ...] = ()
) -> None:
    """One --flag per dataclass field of `cls` (but those in `skip`, which the command declares
    itself, e.g. as a positional argument, and those marked `opt(flag=False)`), typed and
    documented from it."""
    hints = typing.get_type_hints(cls)
    fields = [
        f for f in dataclasses.fields(cls) if f.name not in skip and f.metadata.get("flag", True)
    ]
    game = parser
    if any(f.name in GAME_FLAGS for f in fields):
        game = parser.add_argument_group(
            "game", "which game the run plays (stored in run_config.json)"
        )
    for f in fields:
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        flag = GAME_FLAGS.get(f.name) or "--" + flag_name(f.name)
        text = f"{f.metadata.get('help', '')} (default: {shown(default)})".replace("%", "%%")
        hint = hints[f.name]
        where = game if f.name in GAME_FLAGS else parser
        common = {"dest": f.name, "default": argparse.SUPPRESS, "help": text}
        if f.name in GAME_FLAGS:  # typed by the game's declaration, checked with the config
            where.add_argument(flag, **option_argument(f.name, checked=False), **common)
        elif literal_choices(hint):
            where.add_argument(flag, choices=literal_choices(hint), **common)
        elif hint is bool:
            where.add_argument(flag, action=argparse.BooleanOptionalAction, **common)
        elif isinstance(default, list):
            item = typing.get_args(hint)[0]
            where.add_argument(
                flag,
                type=lambda s, t=item: [t(x.strip()) for x in s.split(",") if x.strip()],
                metavar="A,B",
                **common,
            )
        else:
            metavar = f.metadata.get("metavar") or (
                "PATH" if hint is str else hint.__name__.upper()
            )
            where.add_argument(flag, type=hint, metavar=metavar, **common)


def given_options(args: argparse.Namespace, cls: type = PPOConfig) -> set[str]:
    """The config fields given on the command line."""
    return {f.name for f in dataclasses.fields(cls) if hasattr(args, f.name)}


def config_from_args(args: argparse.Namespace, cls: type = PPOConfig) -> Any:
    """The config of a command line: given flags over the defaults (ValueError if unsound)."""
    return cls(**{name: getattr(args, name) for name in given_options(args, cls)})
