"""Argument types and option groups every `farlight` subcommand shares.

An argparse type turns one command-line string into a value or raises ArgumentTypeError with
a message that says what a right value looks like; argparse then prints it as
``farlight CMD: error: argument --flag: ...`` and exits with status 2.

`add_game_config_arguments(parser)` gives a command the options that fix which game is played
(``--card-set``, ``--grid-size``, ``--max-rounds``), checked by the engine's own validation, and
`game_config(args)` turns them back into the keyword arguments `FarlightGame` and the envs take.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from farlight_env.bench import MAX_PLAYERS, MIN_PLAYERS
from farlight_env.cards.loader import CardFileError, load_card_set
from farlight_env.cards.model import CardSet
from farlight_env.game.game import MAX_GRID_SIZE, ConfigError, GameConfig
from farlight_env.game.rules_options import RuleOptionError, RuleOptions, parse_rule_assignment

__all__ = [
    "LoadedCardSet",
    "add_game_config_arguments",
    "agent_list",
    "card_set_file",
    "check_out_dir",
    "check_record_path",
    "game_config",
    "grid_size",
    "max_rounds",
    "non_negative_int",
    "player_count",
    "player_list",
    "positive_float",
    "positive_int",
]


# ---- numbers -----------------------------------------------------------------------------
def _number_parser(
    cast: Callable[[str], Any], accept: Callable[[Any], bool], loose: str, strict: str
) -> Callable[[str], Any]:
    """An argparse type: `cast` the text, then refuse values `accept` rejects, saying why."""

    def parse(text: str) -> Any:
        try:
            value = cast(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {loose}, got {text!r}") from None
        if not accept(value):
            raise argparse.ArgumentTypeError(f"must be {strict}, got {text}")
        return value

    return parse


positive_int = _number_parser(
    int, lambda n: n >= 1, "a positive integer", "a positive integer (>= 1)"
)
non_negative_int = _number_parser(int, lambda n: n >= 0, "an integer >= 0", "an integer >= 0")
positive_float = _number_parser(
    float, lambda x: x > 0 and x != float("inf"), "a positive number", "a positive number (> 0)"
)


# ---- players and agents ------------------------------------------------------------------
def player_count(text: str) -> int:
    """One player count in 2..5."""
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not MIN_PLAYERS <= value <= MAX_PLAYERS:
        raise argparse.ArgumentTypeError(
            f"players must be an integer in {MIN_PLAYERS}..{MAX_PLAYERS}, got {text!r}"
        )
    return value


def player_list(text: str) -> list[int]:
    """Parse "4" or "2,3,4,5" into player counts, each in 2..5."""
    out: list[int] = []
    for part in text.split(","):
        try:
            n = int(part.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"players must be integers in {MIN_PLAYERS}..{MAX_PLAYERS} "
                f"(e.g. 4 or 2,3,4,5), got {text!r}"
            ) from None
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise argparse.ArgumentTypeError(
                f"players must be in {MIN_PLAYERS}..{MAX_PLAYERS}, got {n}"
            )
        if n not in out:
            out.append(n)
    return out


def agent_list(text: str) -> list[str]:
    """Comma-separated agent names or saved-policy paths; a missing *.pt file is named as such."""
    from agents.registry import agent_names_help, unknown_agents

    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("give at least one agent, e.g. random,heuristic")
    missing = [n for n in names if n.endswith(".pt") and not Path(n).is_file()]
    if missing:
        raise argparse.ArgumentTypeError(f"no such policy file: {', '.join(missing)}")
    unknown = unknown_agents(names)
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown agent(s) {', '.join(unknown)}; choose from {agent_names_help()}"
        )
    return names


# ---- the game being played ---------------------------------------------------------------
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


def _config_field(name: str, cast: Callable[[str], Any]) -> Callable[[str], Any]:
    """An argparse type checked by the engine's own GameConfig.validate()."""

    def parse(text: str) -> Any:
        try:
            value = cast(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
        try:
            GameConfig(**{name: value}).validate()
        except ConfigError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        return value

    parse.__name__ = name
    return parse


grid_size = _config_field("grid_size", int)
max_rounds = _config_field("max_rounds", int)

_DEFAULTS = GameConfig()


def rule_assignment(text: str) -> tuple[str, object]:
    """argparse type of --rule: 'NAME=VALUE' typed, or a usage error listing the valid ones."""
    try:
        return parse_rule_assignment(text)
    except RuleOptionError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


class RuleAssignments(argparse.Action):
    """Collects repeated --rule NAME=VALUE into one dict; the same name twice is an error."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:  # noqa: ANN001
        name, value = values
        rules = dict(getattr(namespace, self.dest, None) or {})
        if name in rules:
            parser.error(f"argument {option_string}: rule option {name} given twice")
        rules[name] = value
        setattr(namespace, self.dest, rules)


def add_game_config_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that fix which game is played: --card-set, --grid-size, --max-rounds and
    --rule NAME=VALUE (repeatable; the rule options of docs/rules.md).

    Read them back with `game_config(args)`. (Player counts differ per command, so each
    command declares its own.)
    """
    group = parser.add_argument_group("game", "which game is played (recorded in the outputs)")
    group.add_argument(
        "--card-set",
        type=card_set_file,
        default=None,
        metavar="PATH",
        help="a card file (.toml or .json, the format of the shipped standard.toml) to play "
        "with (default: the shipped standard set)",
    )
    group.add_argument(
        "--grid-size",
        type=grid_size,
        default=_DEFAULTS.grid_size,
        metavar="N",
        help=f"side of each ship's square grid, odd, 3..{MAX_GRID_SIZE} (R-INST-2)",
    )
    group.add_argument(
        "--max-rounds",
        type=max_rounds,
        default=_DEFAULTS.max_rounds,
        metavar="N",
        help="round cap: the game ends after this round (R-RESET-6)",
    )
    group.add_argument(
        "--rule",
        dest="rule_options",
        type=rule_assignment,
        action=RuleAssignments,
        default={},
        metavar="NAME=VALUE",
        help=f"a rule option, repeatable ({', '.join(RuleOptions.names())}; `farlight rules` "
        "lists their values) (default: the rulebook's literal reading)",
    )


def game_config(args: argparse.Namespace) -> dict[str, Any]:
    """Keyword arguments for FarlightGame / farlight_v0.env from the parsed game options."""
    config: dict[str, Any] = {"grid_size": args.grid_size, "max_rounds": args.max_rounds}
    if args.rule_options:
        config["rule_options"] = dict(args.rule_options)
    if args.card_set is not None:
        config["card_set"] = args.card_set.cards
    return config


def describe_game_config(args: argparse.Namespace) -> str:
    """One line for a command's report: 'cards standard, grid 13, round cap 50'."""
    cards = "standard" if args.card_set is None else str(args.card_set)
    rules = RuleOptions.from_mapping(args.rule_options).changed()
    shown = ", ".join(f"{k}={v}" for k, v in rules.items()) or "defaults"
    return f"cards {cards}, grid {args.grid_size}, round cap {args.max_rounds}, rules {shown}"


def check_agents(names: list[str]) -> None:
    """Load every saved policy among `names` once, here, before any game or worker starts.

    A corrupt or foreign `.pt` file becomes an InputError naming the file, instead of a
    traceback from inside a worker process.
    """
    from agents.registry import missing_extra
    from farlight_cli.errors import InputError

    for name in dict.fromkeys(names):
        if missing_extra(name):  # ppo, rollout or *.pt without torch: say which extra
            raise InputError(missing_extra(name))
        if not name.endswith(".pt"):
            continue
        if not Path(name).is_file():
            raise InputError(f"no such policy file: {name}")
        from agents import make

        try:
            make(name)
        except (ValueError, OSError) as exc:
            message = str(exc)
            raise InputError(message if name in message else f"{name}: {message}") from None
        except ImportError as exc:
            raise InputError(
                f"{name}: saved policies need the train extra (torch): {exc}"
            ) from None


# ---- where results go --------------------------------------------------------------------
def _probe(folder: Path) -> None:
    """Create and remove a scratch file in `folder`: the only test of writability that also
    holds for root and for read-only or virtual file systems."""
    fd, name = tempfile.mkstemp(prefix=".farlight-probe-", dir=folder)
    os.close(fd)
    os.unlink(name)


def check_out_dir(flag: str, out: Path) -> None:
    """Refuse, before any game is played, an output folder that cannot be written: a file, a
    folder without write access, or a path where no folder can be made. Leaves nothing behind."""
    from farlight_cli.errors import InputError

    if out.exists() and not out.is_dir():
        raise InputError(f"{flag} {out}: exists and is not a directory")
    missing = [p for p in (out, *out.parents) if not p.exists()]
    try:
        out.mkdir(parents=True, exist_ok=True)
        _probe(out)
    except OSError as exc:
        raise InputError(f"{flag} {out}: cannot write there ({exc.strerror or exc})") from None
    finally:
        for folder in missing:  # innermost first
            try:
                folder.rmdir()
            except OSError:
                break


def check_record_path(flag: str, path: Path) -> None:
    """Refuse, before the game starts, a record file that could not be saved at the end."""
    from farlight_cli.errors import InputError

    if path.is_dir():
        raise InputError(f"{flag} {path}: is a directory; give a file name")
    folder = path.parent
    if not folder.is_dir():
        raise InputError(f"{flag} {path}: no such directory {folder}")
    try:
        _probe(folder)
    except OSError as exc:
        raise InputError(f"{flag} {path}: cannot write there ({exc.strerror or exc})") from None
