"""`farlight replay FILE`: step through a recorded game in the terminal, or write PNG frames
(Farlight's replay is farlight_cli/farlight/replay.py; another game's is here, from its record)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from farlight_cli import argtypes, flags
from farlight_cli.farlight.text import ALL, Viewer
from farlight_env.platform.records import PLATFORM_RECORD


# ------------------------------------------------------------------------------- command
def viewer_arg(text: str) -> Viewer:
    if text.strip().lower() == ALL:
        return ALL
    try:
        return argtypes.non_negative_int(text)
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"expected a seat number or 'all', got {text!r}") from exc


HELP = "step through a recorded game (from play or a tournament)"
DESCRIPTION = """\
Replay a game record (farlight play's file, or one game of a tournament's results.json with
--game): prints every decision and the board at each round start and at the end, as one seat (or
a spectator, or everyone) could see it; can write PNG frames.
"""


def add(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", type=Path, metavar="FILE", help="a game record or results.json")
    p.add_argument(
        "--game",
        type=argtypes.non_negative_int,
        default=None,
        metavar="N",
        help="which game of a tournament results.json (default: none; required there)",
    )
    p.add_argument(
        "--viewer",
        type=viewer_arg,
        default=None,
        metavar="SEAT|all",
        help="see the game as this seat (its own tiles only); 'all' lists every hidden value "
        "(default: a spectator, no hidden values)",
    )
    p.add_argument(
        "--step",
        action="store_true",
        help="wait for Enter between decisions (b + Enter: show the board, q: stop)",
    )
    flags.folder(
        p,
        "--frames",
        "write render_rgb frames as PNG files into DIR (drawn from the viewer's seat; a "
        "spectator's picture for 'all'; default: no frames)",
    )
    p.add_argument(
        "--every",
        type=argtypes.positive_int,
        default=1,
        metavar="K",
        help="with --frames: a frame every K actions (plus the start and the end)",
    )
    flags.no_progress(p, "no progress bar for frames")


def error(message: str) -> int:
    print(f"farlight replay: error: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    from farlight_cli.farlight import replay as farlight_replay
    from farlight_env.platform.records import RecordError

    try:  # Farlight's reader takes every record format and a tournament's results.json
        record = farlight_replay.load(args.file, args.game)
        if record.get("format") == PLATFORM_RECORD:  # a game other than Farlight
            return _replay_other_game(record, args)
        return farlight_replay.replay(record, args)
    except RecordError as exc:
        return error(str(exc))


def _replay_other_game(record: dict[str, Any], args: argparse.Namespace) -> int:
    """A record of another registered game (farlight_env.platform): checked by replaying it,
    then each decision as the game names it and the end as the viewer sees it."""
    from farlight_env.platform import GameError
    from farlight_env.platform.records import game_of_record, verify_record

    if args.frames is not None or args.step:
        return error("--frames and --step are for Farlight's records")
    try:
        game = game_of_record(record)
        verify_record(record)
    except GameError as exc:
        return error(str(exc))
    players = [str(p) for p in record["players"]]
    viewer = args.viewer
    if isinstance(viewer, int) and not 0 <= viewer < len(players):
        last = len(players) - 1
        return error(f"--viewer {viewer}: this game has seats 0..{last} (or use 'all')")
    seat = None if viewer in (None, ALL) else viewer
    state = game.start(len(players), record["game_seed"], record["config"])
    print(f"replay of {args.file}: {game.title}, {len(record['actions'])} recorded decisions")
    print("players: " + ", ".join(f"P{s} {name}" for s, name in enumerate(players)))
    for i, action in enumerate(record["actions"], 1):
        actor = state.current_player
        print(f"[{i:>4}] P{actor} {state.describe_action(action)}")
        state.apply_action(action)
    print(state.render_text(seat))  # the end as the viewer (None: a spectator) sees it
    print("winners: " + ", ".join(f"P{s} {players[s]}" for s in state.winners()))
    return 0
