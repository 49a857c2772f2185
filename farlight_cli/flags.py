"""The flags several `farlight` commands share, each declared once: its name, type, metavar and
wording here, the command giving only what is its own (what the seed seeds, what the folder holds).

The types they parse with are in argtypes.py; the flags of the game options and of the run
configs are built from their declarations in game_flags.py and config_flags.py.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from farlight_cli import argtypes

__all__ = [
    "ISMCTS_ITERATIONS_HELP",
    "ISMCTS_SECONDS_HELP",
    "agents",
    "folder",
    "game",
    "game_options",
    "games",
    "host",
    "ismcts_iterations",
    "ismcts_options",
    "ismcts_seconds",
    "move_budget",
    "move_budget_flags",
    "no_progress",
    "player_counts",
    "players",
    "policy",
    "port",
    "rerun",
    "seed",
    "workers",
]

#: A parser, or one of its groups (game, limits, a mutually exclusive group).
Where = argparse.ArgumentParser | argparse._ArgumentGroup

#: What --ismcts-iterations means wherever ismcts is one of several agents.
ISMCTS_ITERATIONS_HELP = "search iterations per ismcts decision (default: the agent's, 60)"
ISMCTS_SECONDS_HELP = "time budget per ismcts decision instead of iterations (default: unset)"


# ---- what is played ----------------------------------------------------------------------
def game(parser: Where) -> None:
    """--game NAME and --game-option NAME=VALUE: the game played, from the platform's registry
    (farlight_env.platform), and the options of a game other than Farlight (whose own options
    have flags of their own, game_flags.py)."""
    parser.add_argument(
        "--game",
        default="farlight",
        metavar="NAME",
        help="the game: farlight, or one an installed package declares (entry point "
        "farlight_env.games)",
    )
    parser.add_argument(
        "--game-option",
        type=argtypes.option_assignment,
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an option of a --game other than farlight, checked by its declaration; repeatable "
        "(default: its defaults)",
    )


def game_options(args: argparse.Namespace) -> dict[str, Any]:
    """The --game-option values as a dict (the game's declaration checks them)."""
    return dict(args.game_option)


def seed(parser: Where, help: str, default: int | None = 0) -> None:
    """--seed N: `help` says what it seeds (one game, the first of many, a whole run)."""
    parser.add_argument(
        "--seed", type=argtypes.non_negative_int, default=default, metavar="N", help=help
    )


def games(parser: Where, default: int | None, help: str) -> None:
    """--games N: how many games, `help` says per what."""
    parser.add_argument(
        "--games", type=argtypes.positive_int, default=default, metavar="N", help=help
    )


def players(parser: Where, default: int | None, help: str, checked_later: bool = False) -> None:
    """--players N, one player count; `checked_later` where its range is checked once the
    command knows its default (play: 1 + the opponents)."""
    kind = argtypes.positive_int if checked_later else argtypes.player_count
    parser.add_argument("--players", type=kind, default=default, metavar="N", help=help)


def player_counts(
    parser: Where, default: list[int], help: str, checked_later: bool = False
) -> None:
    """--players N[,N...]: several player counts, one measurement or table row each;
    `checked_later` where the range is the chosen game's (game_flags.played_player_counts)."""
    kind = argtypes.count_list if checked_later else argtypes.player_list
    parser.add_argument("--players", type=kind, default=default, metavar="N[,N...]", help=help)


def agents(parser: Where, default: list[str], help: str, flag: str = "--agents") -> None:
    """A comma list of agents; the help ends with the registry's note of which need torch, so
    every list names the same ones."""
    parser.add_argument(
        flag,
        type=argtypes.agent_list,
        default=default,
        metavar="A,B[,...]",
        help=f"{help}; {argtypes.train_extra_text()}",
    )


def policy(parser: Where, help: str, **extra: Any) -> None:
    """The optional POLICY argument of the commands that study one policy (evaluate, exploit);
    optional because --resume takes the stored one."""
    parser.add_argument("policy", metavar="POLICY", nargs="?", help=help, **extra)


def ismcts_iterations(parser: Where, help: str = ISMCTS_ITERATIONS_HELP) -> None:
    """--ismcts-iterations N, the search budget of the ismcts agents a command plays."""
    parser.add_argument(
        "--ismcts-iterations", type=argtypes.positive_int, default=None, metavar="N", help=help
    )


def ismcts_seconds(parser: Where) -> None:
    """--ismcts-seconds SECONDS, a time budget in place of the iterations."""
    parser.add_argument(
        "--ismcts-seconds",
        type=argtypes.positive_float,
        default=None,
        metavar="SECONDS",
        help=ISMCTS_SECONDS_HELP,
    )


def ismcts_options(args: argparse.Namespace) -> dict[str, object]:
    """The keyword arguments of ismcts that the --ismcts-* flags a command has give."""
    given = {
        "iterations": args.ismcts_iterations,
        "seconds": getattr(args, "ismcts_seconds", None),
    }
    return {name: value for name, value in given.items() if value is not None}


def move_budget_flags(parser: Where, player: str, when: str) -> None:
    """--move-seconds and --move-cpu-seconds, one wording for every command that plays sealed:
    `player` names whose decisions are bounded, `when` the play they bound."""
    wall = (
        f"{when}: wall seconds {player}'s decision may take, measured by this process; a slower "
        "one is forfeited to the lowest-numbered legal action and counted"
    )
    cpu = (
        f"{when}: CPU seconds per decision of {player}'s process and its descendants, read from "
        "/proc; more is forfeited likewise"
    )
    for flag, text in (("--move-seconds", wall), ("--move-cpu-seconds", cpu)):
        budget = f"{text} (default: no budget)"
        parser.add_argument(
            flag, type=argtypes.positive_float, default=None, metavar="S", help=budget
        )


def move_budget(args: argparse.Namespace, sealed: bool, needs: str) -> Any:
    """The MoveBudget the two flags give (None if neither); a budget without sealed play is
    refused, naming what it `needs`."""
    from agents.farlight.sealed import MoveBudget
    from farlight_cli.errors import InputError

    budget = MoveBudget.given(args.move_seconds, args.move_cpu_seconds)
    if budget is not None and not sealed:
        raise InputError(f"--move-seconds and --move-cpu-seconds need {needs}")
    return budget


# ---- how it runs -------------------------------------------------------------------------
def workers(parser: Where, note: str) -> None:
    """--workers N; `note` says what else it means for this command."""
    parser.add_argument(
        "--workers",
        type=argtypes.positive_int,
        default=1,
        metavar="N",
        help=f"parallel worker processes ({note})",
    )


def no_progress(parser: Where, help: str = "no progress bar") -> None:
    """--no-progress: the progress bars on stderr off (for logs and scripts)."""
    parser.add_argument("--no-progress", action="store_true", help=help)


def rerun(parser: Where, help: str) -> None:
    """--resume, a switch: carry on the run in --run-dir (train, exploit)."""
    parser.add_argument("--resume", action="store_true", help=help)


# ---- where things are --------------------------------------------------------------------
def folder(parser: Where, flag: str, help: str, default: Path | None = None) -> None:
    """A folder flag (--out DIR, --resume DIR, --frames DIR, ...), read as a Path."""
    parser.add_argument(flag, type=Path, default=default, metavar="DIR", help=help)


def host(parser: Where, help: str) -> None:
    """--host ADDR of a local server, localhost unless given."""
    parser.add_argument("--host", default="127.0.0.1", metavar="ADDR", help=help)


def port(parser: Where, default: int, kind: Callable[[str], int] = argtypes.tcp_port) -> None:
    """--port N of a local server; serve's `kind` also takes 0 (any free port)."""
    parser.add_argument("--port", type=kind, default=default, metavar="N", help="TCP port")
