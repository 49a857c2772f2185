"""Argument types every `farlight` subcommand shares, and the checks of what they name.

An argparse type turns one command-line string into a value or raises ArgumentTypeError with
a message that says what a right value looks like; argparse then prints it as
``farlight CMD: error: argument --flag: ...`` and exits with status 2.

The shared flags that parse with them are declared in flags.py; the flags of the game options
themselves are built from each game's declaration (Farlight's in farlight/game_flags.py).
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from farlight_env.platform import DEFAULT_GAME, get_game

__all__ = [
    "agent_list",
    "agent_names_text",
    "check_out_dir",
    "check_record_path",
    "count_list",
    "non_negative_int",
    "player_count",
    "player_list",
    "positive_float",
    "positive_int",
    "tcp_port",
    "train_extra_text",
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
tcp_port = _number_parser(
    int, lambda n: 1 <= n <= 65535, "a TCP port number", "a TCP port in 1..65535"
)
positive_float = _number_parser(
    float, lambda x: x > 0 and x != float("inf"), "a positive number", "a positive number (> 0)"
)


# ---- players and agents ------------------------------------------------------------------
def default_seat_range() -> tuple[int, int]:
    """The seats of the default game (Farlight: 2..5), the range a flag checks as it parses
    when it is not told which game is played."""
    game = get_game(DEFAULT_GAME)
    return game.min_players, game.max_players


def player_count(text: str) -> int:
    """One player count in the default game's range (Farlight's 2..5)."""
    low, high = default_seat_range()
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise argparse.ArgumentTypeError(
            f"players must be an integer in {low}..{high}, got {text!r}"
        )
    return value


def held_out_secret(text: str) -> str:
    """A held-out evaluation's secret as its scorecard shows it: 64 hex digits."""
    secret = text.strip().lower()
    if len(secret) != 64 or any(c not in "0123456789abcdef" for c in secret):
        raise argparse.ArgumentTypeError(
            f"expected the 64 hexadecimal digits of a held-out scorecard's secret, got {text!r}"
        )
    return secret


def _int_list(text: str, bounds: str) -> list[int]:
    """The integers of "4" or "2,3,4,5", each once, in order; `bounds` ends the error."""
    out: list[int] = []
    for part in text.split(","):
        try:
            n = int(part.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"players must be integers{bounds} (e.g. 4 or 2,3,4,5), got {text!r}"
            ) from None
        if n not in out:
            out.append(n)
    return out


def player_list(text: str) -> list[int]:
    """Parse "4" or "2,3,4,5" into player counts, each in the default game's range."""
    low, high = default_seat_range()
    out = _int_list(text, f" in {low}..{high}")
    for n in out:
        if not low <= n <= high:
            raise argparse.ArgumentTypeError(f"players must be in {low}..{high}, got {n}")
    return out


def count_list(text: str) -> list[int]:
    """Parse "4" or "2,3,4,5" into positive player counts whose range is checked once the game
    is known (a game other than Farlight declares its own)."""
    low, high = default_seat_range()
    out = _int_list(text, f" in {low}..{high} (another --game: its own range)")
    for n in out:
        if n < 1:
            raise argparse.ArgumentTypeError(f"players must be at least 1, got {n}")
    return out


def agent_names_text(budgets: bool = True) -> str:
    """'random, heuristic, ismcts, ismcts@N, ppo, rollout, bidder or a saved policy (*.pt)':
    the registry's names, for help texts (so a new agent appears in every one)."""
    from agents.registry import AGENT_NAMES

    names = [*AGENT_NAMES]
    if budgets:
        names.insert(names.index("ismcts") + 1, "ismcts@N")
    return ", ".join(names) + " or a saved policy (*.pt)"


def train_extra_text() -> str:
    """'ppo, rollout, bidder and *.pt need the train extra (torch)', from the registry."""
    from agents.registry import AGENT_NAMES, needs_torch

    return ", ".join(n for n in AGENT_NAMES if needs_torch(n)) + " and *.pt need the train extra"


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


def check_agents_play(names: list[str], game: str) -> None:
    """Every agent in `names` plays `game` (random and ismcts play any game, a policy file
    the game it was trained for), or an InputError naming the first that does not."""
    from agents.registry import ANY_GAME_AGENTS, plays_game, policy_file_game
    from farlight_cli.errors import InputError

    for name in names:
        if not plays_game(name, game):
            able = ", ".join(sorted(ANY_GAME_AGENTS))
            played = policy_file_game(name) if name.endswith(".pt") else None
            raise InputError(
                f"agent {name} plays only {played or 'farlight'}; agents for {game}: {able}"
                + (f" or a policy file trained for {game}" if name.endswith(".pt") else "")
            )


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


def refuse_a_file(flag: str, out: Path) -> None:
    """InputError when the folder a flag names is an existing file."""
    from farlight_cli.errors import InputError

    if out.exists() and not out.is_dir():
        raise InputError(f"{flag} {out}: exists and is not a directory")


def check_out_dir(flag: str, out: Path) -> None:
    """Refuse, before any game is played, an output folder that cannot be written: a file, a
    folder without write access, or a path where no folder can be made. Leaves nothing behind."""
    from farlight_cli.errors import InputError

    refuse_a_file(flag, out)
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


def option_assignment(text: str) -> tuple[str, object]:
    """NAME=VALUE of a game's option: the value as JSON (a number, true/false, a quoted
    string), else as the text it is."""
    import json

    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, got {text!r}")
    try:
        parsed: object = json.loads(value)
    except ValueError:
        parsed = value
    return name.strip(), parsed
