"""The command-line flags of the game options, built from their one declaration (GameConfig).

`add_game_config_arguments(parser)` gives a command ``--card-set`` and one flag per option
`GameConfig` offers (``--grid-size``, ``--max-rounds``, ``--rule NAME=VALUE``, ...): its type,
default, metavar and help come from the option's `OptionSpec`, and each value is read and
checked by that declaration as it is parsed, so a bad one is argparse's one-line error,
status 2.
`game_config(args)` turns them back into the keyword arguments `FarlightGame` and the envs take.
A new option in GameConfig is a new flag here with no edit.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from farlight_cli import flags
from farlight_cli.errors import InputError
from farlight_env.cards.io import load_card_set
from farlight_env.cards.model import CardSet
from farlight_env.cards.schema import CardFileError
from farlight_env.game.config import (
    OFFERED_OPTIONS,
    OPTION_DEFAULTS,
    OPTION_SPECS,
    option_flag,
)
from farlight_env.game.facts import MAX_PLAYERS, MIN_PLAYERS
from farlight_env.platform import DEFAULT_GAME, get_game

__all__ = [
    "GAME_ARGUMENTS",
    "Assignments",
    "LoadedCardSet",
    "add_game_config_arguments",
    "card_set_file",
    "card_set_flag",
    "describe_game_config",
    "game_config",
    "game_flag",
    "option_argument",
    "option_type",
    "played_game_config",
    "played_player_counts",
]

#: The parsed names (argparse dests) of the game's flags: the card set, then every option
#: offered, in declaration order (what a resumed job takes from its stored options).
GAME_ARGUMENTS: tuple[str, ...] = ("card_set", *OFFERED_OPTIONS)


@dataclass(frozen=True)
class LoadedCardSet:
    """A card file given on the command line, read and validated once at parse time."""

    path: Path
    cards: CardSet

    def __str__(self) -> str:
        return f"{self.path} ({self.cards.name})"


def card_set_file(text: str) -> LoadedCardSet:
    """A card file (.toml or .json), loaded now so a bad file is one line, not a traceback."""
    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"no such file: {text}")
    try:
        return LoadedCardSet(path, load_card_set(path))
    except CardFileError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def card_set_flag(parser: flags.Where, help: str) -> None:
    """--card-set PATH, read and checked as it is parsed (a bad file is argparse's one line)."""
    parser.add_argument("--card-set", type=card_set_file, default=None, metavar="PATH", help=help)


def game_flag(name: str) -> str:
    """The flag of a parsed argument: a game option's declared flag ('rule_options' ->
    --rule), else --name-with-dashes ('card_set' -> --card-set)."""
    return option_flag(name) if name in OFFERED_OPTIONS else "--" + name.replace("_", "-")


def assignment(name: str) -> Callable[[str], tuple[str, Any]]:
    """argparse type of a group option's flag (--rule): one 'NAME=VALUE', typed by the member's
    declaration, or a usage error listing the valid members."""

    def parse(text: str) -> tuple[str, Any]:
        try:
            return OPTION_SPECS[name].parse_assignment(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = name
    return parse


class Assignments(argparse.Action):
    """Collects a group option's repeated NAME=VALUE into one dict; a name twice is an error."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:  # noqa: ANN001
        name, value = values
        given = dict(getattr(namespace, self.dest, None) or {})
        if name in given:
            member = OPTION_SPECS[self.dest].member
            parser.error(f"argument {option_string}: {member} {name} given twice")
        given[name] = value
        setattr(namespace, self.dest, given)


def option_type(name: str, checked: bool = True) -> Callable[[str], Any]:
    """The argparse type of an int or str option: the text read by the option's declaration,
    which checks it (unless not `checked`: a command that checks its options as a whole, in
    one line, after parsing)."""
    spec, default = OPTION_SPECS[name], OPTION_DEFAULTS[name]

    def parse(text: str) -> Any:
        try:
            return spec.parse(name, text, default, check=checked)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = name
    return parse


def option_argument(name: str, checked: bool = True) -> dict[str, Any]:
    """`add_argument`'s keywords (but dest, default, help) for option `name`, by its kind: a
    group is a repeatable NAME=VALUE, a bool --name/--no-name, others typed (and checked)."""
    spec, default = OPTION_SPECS[name], OPTION_DEFAULTS[name]
    kind = spec.kind(default)
    if kind == "group":
        return {"type": assignment(name), "action": Assignments, "metavar": spec.metavar}
    if kind == "bool":
        return {"action": argparse.BooleanOptionalAction}
    if spec.choices:
        return {"type": option_type(name, checked), "choices": spec.choices}
    return {"type": option_type(name, checked), "metavar": spec.metavar}


def _help(name: str) -> str:
    spec, default = OPTION_SPECS[name], OPTION_DEFAULTS[name]
    if spec.group is None:
        return f"{spec.help} ({spec.rule})"
    names = ", ".join(spec.plain(default))
    return (
        f"a {spec.member}, repeatable ({names}; `farlight rules` lists their values) "
        "(default: the rulebook's literal reading)"
    )


def _add_option(group: argparse._ArgumentGroup, name: str) -> None:
    spec, default = OPTION_SPECS[name], OPTION_DEFAULTS[name]
    value = {} if spec.group is not None else default  # a group: only the members given
    group.add_argument(
        option_flag(name), dest=name, default=value, help=_help(name), **option_argument(name)
    )


def add_game_config_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that fix which game is played: --card-set and one flag per option
    GameConfig offers (--grid-size, --max-rounds, --rule NAME=VALUE, ...).

    Read them back with `game_config(args)`. (Player counts differ per command, so each
    command declares its own.)
    """
    group = parser.add_argument_group("game", "which game is played (recorded in the outputs)")
    card_set_flag(
        group,
        "a card file (.toml or .json, the format of the shipped standard.toml) to play with "
        "(default: the shipped standard set)",
    )
    for name in OFFERED_OPTIONS:
        _add_option(group, name)


def game_config(args: argparse.Namespace) -> dict[str, Any]:
    """Keyword arguments for FarlightGame / farlight_v0.env from the parsed game options:
    every option offered (the rule options only when some are given), then the card set
    when one is given."""
    config: dict[str, Any] = {}
    for name in OFFERED_OPTIONS:
        value = getattr(args, name)
        if OPTION_SPECS[name].group is None:
            config[name] = value
        elif value:  # a group: only when some member is given
            config[name] = dict(value)
    if args.card_set is not None:
        config["card_set"] = args.card_set.cards
    return config


def describe_game_config(args: argparse.Namespace) -> str:
    """One line for a command's report: 'cards standard, grid 13, round cap 50, rules ...'."""
    parts = ["cards " + ("standard" if args.card_set is None else str(args.card_set))]
    for name in OFFERED_OPTIONS:
        spec, value = OPTION_SPECS[name], getattr(args, name)
        if spec.group is not None:
            changed = spec.changed(value)
            value = ", ".join(f"{k}={v}" for k, v in changed.items()) or "defaults"
        parts.append(f"{spec.label or name} {value}")
    return ", ".join(parts)


def played_game_config(args: argparse.Namespace) -> dict[str, Any]:
    """The game's options: Farlight's from their own flags; another game's from --game-option,
    checked by its declaration (Farlight's flags are refused there, being Farlight's)."""
    game = get_game(args.game)  # GameError (a ValueError) names the known games
    if game.name == DEFAULT_GAME:
        if args.game_option:
            raise InputError("--game-option is for another --game; Farlight's options have flags")
        return game_config(args)
    parser = args.parser
    given = [n for n in GAME_ARGUMENTS if getattr(args, n) != parser.get_default(n)]
    if given:
        named = ", ".join(map(game_flag, given))
        raise InputError(f"{named}: Farlight's options, not {game.name}'s (use --game-option)")
    options = flags.game_options(args)
    game.checked_options(options)  # GameError (a ValueError) naming a wrong one, before game 0
    return options


def played_player_counts(args: argparse.Namespace) -> list[int]:
    """--players (a `flags.player_counts(checked_later=True)`) for the chosen game: Farlight's
    2..5 refused as argparse refuses them; another game's bounded by its declaration, where the
    command's default keeps the counts it allows (else its fewest)."""
    game = get_game(args.game)
    if game.name == DEFAULT_GAME:
        for n in args.players:
            if not MIN_PLAYERS <= n <= MAX_PLAYERS:
                args.parser.error(
                    f"argument --players: players must be in {MIN_PLAYERS}..{MAX_PLAYERS}, got {n}"
                )
        return list(args.players)
    if args.players == args.parser.get_default("players"):
        allowed = [n for n in args.players if game.min_players <= n <= game.max_players]
        return allowed or [game.min_players]
    for n in args.players:
        game.check_players(n)  # GameError (a ValueError): 'duel is for 2-4 players, not 5'
    return list(args.players)
