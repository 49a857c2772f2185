"""`farlight`: one parser for every subcommand; a user's mistake is one line, never a traceback.

Each subcommand lives in its own `farlight_cli/<name>_cmd.py` (a command of one game only, such
as `rules` or `dataset`, in that game's package `farlight_cli/<game>/`): `HELP` (its line in
`farlight --help`), `DESCRIPTION`, an `add(parser)` that declares its options (the shared ones
from `flags.py`) and a `run(args)` that returns the exit status; `add_command` declares it here.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any, NoReturn

from agents import torch_threads
from farlight_cli import (
    bench_cmd,
    docs_cmd,
    evaluate_cmd,
    exploit_cmd,
    play_cmd,
    random_cmd,
    replay_cmd,
    serve_cmd,
    tournament_cmd,
    train_cmd,
)
from farlight_cli.errors import EXPECTED_ERRORS, missing_extra_message
from farlight_cli.farlight import dataset_cmd, rules_cmd
from farlight_cli.interrupts import interrupted_text
from farlight_env import __version__
from farlight_env.untrusted.messages import clip_message

#: Commands whose game loops make many small network calls in this process (bots in play and
#: serve, policies in a one-worker tournament or evaluation): torch's default of one math thread
#: per core makes each call several times slower as soon as another process is busy (5x for
#: `rollout` beside one busy process), so they run with one, unless OMP_NUM_THREADS is set.
GAME_LOOP_COMMANDS = frozenset({"tournament", "evaluate", "exploit", "play", "serve"})

#: The subcommands, in the order `farlight --help` lists them.
COMMANDS: tuple[ModuleType, ...] = (
    random_cmd,
    bench_cmd,
    rules_cmd,
    tournament_cmd,
    dataset_cmd,
    play_cmd,
    replay_cmd,
    train_cmd,
    evaluate_cmd,
    exploit_cmd,
    serve_cmd,
    docs_cmd,
)


class HelpFormatter(argparse.HelpFormatter):
    """Every option's help ends with its default, lists written as they are typed (4,5)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (
            action.help == argparse.SUPPRESS
            or not action.option_strings
            or default is None
            or default is False
            or default == argparse.SUPPRESS
            or "default" in text.lower()
        ):
            return action.help
        if isinstance(default, (list, tuple)):
            shown = ",".join(str(v) for v in default)
        else:
            shown = str(default)
        shown = shown or "none"  # an empty list or text: "(default: )" said nothing
        return f"{text} (default: {shown.replace('%', '%%')})"


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose help (and its subcommands' help) uses `HelpFormatter`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        """A usage mistake in two lines: what is wrong, and where the options are listed."""
        self.exit(2, f"{self.prog}: error: {message}\n(see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    """The `farlight` parser with every subcommand."""
    parser = Parser(
        prog="farlight",
        description="Farlight-Env: the board game Farlight as a reinforcement-learning "
        "environment.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        add_command(sub, command)
    return parser


def add_command(sub: argparse._SubParsersAction, command: ModuleType) -> None:
    """`farlight NAME` from its module `NAME_cmd`, declared the same way for every command; its
    `run` and parser ride on the parsed arguments (`args.parser.error` for a late usage error)."""
    name = command.__name__.rpartition(".")[2].removesuffix("_cmd")
    parser = sub.add_parser(name, help=command.HELP, description=command.DESCRIPTION)
    command.add(parser)
    parser.set_defaults(func=command.run, parser=parser)


def main(argv: Sequence[str] | None = None) -> int:
    """Run `farlight` with `argv` (default: sys.argv[1:]); returns the exit status.

    Expected failures (bad files, bad options, Ctrl-C, a closed pipe) end in one line on
    stderr; anything else is a bug and keeps its traceback.
    """
    command = "farlight"
    args = None
    try:
        args, extra = build_parser().parse_known_args(argv)
        if extra:  # said by the command's own parser: its usage, `farlight NAME: error: ...`
            args.parser.error(f"unrecognized arguments: {' '.join(extra)}")
        command = " ".join(["farlight", args.command, *([args.kind] if "kind" in args else [])])
        torch_threads.requested()  # a bad FARLIGHT_TORCH_THREADS: one line, before any work
        if args.command in GAME_LOOP_COMMANDS:
            _one_math_thread()
        return int(args.func(args))
    except BrokenPipeError:
        _silence_stdout()  # `farlight ... | head`: the reader left; that is not an error
        return 0
    except KeyboardInterrupt:
        print(f"\n{interrupted_text(command, args)}", file=sys.stderr)
        return 130
    except EXPECTED_ERRORS as exc:
        print(f"{command}: error: {clip_message(str(exc))}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:  # an optional extra not installed: say which one
        message = missing_extra_message(command, exc)
        if message is None:
            raise
        print(message, file=sys.stderr)
        return 2


def _one_math_thread() -> None:
    """One math thread for torch (read when it is imported), unless the user chose a count
    (the variables `agents.torch_threads` respects: OMP, MKL or FARLIGHT_TORCH_THREADS)."""
    if {"OMP_NUM_THREADS", "MKL_NUM_THREADS", torch_threads.ENV} & set(os.environ):
        return
    os.environ["OMP_NUM_THREADS"] = "1"
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
