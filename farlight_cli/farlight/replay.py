"""Farlight's `farlight replay`: a record replayed decision by decision as one seat, a spectator
or everyone could see it, the board at each round start and the end, and PNG frames."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from farlight_cli import argtypes
from farlight_cli.errors import InputError
from farlight_cli.farlight.text import ALL, Viewer, event_lines, move_text, outcome_lines, picture
from farlight_env.game import FarlightGame
from farlight_env.game.config import OPTION_SPECS
from farlight_env.records.record import load_record, new_game, record_actions, verify_record


def load(path: Path, game: int | None) -> dict[str, Any]:
    """A record file, or game `game` of a tournament's results.json (RecordError if neither):
    Farlight's records read the platform's format too."""
    return load_record(path, game)


def replay(record: dict[str, Any], args: argparse.Namespace) -> int:
    """Check a Farlight record by replaying it (RecordError if it does not), then show it."""
    verify_record(record)
    if args.frames is not None:  # before the header: a bad folder is the whole answer
        argtypes.check_out_dir("--frames", args.frames)
    players = [str(p) for p in record["players"]]
    n = len(players)
    viewer: Viewer = args.viewer
    if isinstance(viewer, int) and not 0 <= viewer < n:
        raise InputError(f"--viewer {viewer}: this game has seats 0..{n - 1} (or use 'all')")
    game = new_game(record)
    actions = record_actions(record)
    who = {None: "a spectator (no hidden tile values)", ALL: "everyone (all hidden values)"}
    seen_as = who.get(viewer, f"P{viewer} ({players[viewer]})" if isinstance(viewer, int) else "")
    label = f"{args.file}" + (f" game {args.game}" if args.game is not None else "")
    print(f"replay of {label}: {len(actions)} recorded decisions, seen as {seen_as}")
    print("players: " + ", ".join(f"P{s} {name}" for s, name in enumerate(players)))
    groups = [name for name, spec in OPTION_SPECS.items() if spec.group is not None]
    config = ", ".join(f"{k}={v}" for k, v in sorted(record["config"].items()) if k not in groups)
    cards = record.get("card_set", {}).get("name", "standard")
    print(f"config: {config}, cards {cards}; {seed_text(record)}")
    for name in groups:  # as played (a legacy record: the old reading), one line per group
        spec = OPTION_SPECS[name]
        given = spec.plain(getattr(game.config, name))
        print(f"{spec.member}s: " + ", ".join(f"{k}={v}" for k, v in given.items()))
    print()

    frames = _Frames(args.frames, args.every, viewer, len(actions), args.no_progress)
    stepping = args.step
    stopped_at = None
    print(f"── round {game.round} ──")
    print(picture(game, viewer))
    frames.write(game, 0)
    try:
        for i, action in enumerate(actions, 1):
            round_before, phase, actor = game.round, game.phase, game.current_player
            assert actor is not None
            text = move_text(game, actor, action, viewer)
            happened = event_lines(game, action)
            game.apply(action)
            print(f"[{i:>4}] round {round_before} {phase.value:<8} {text}")
            for line in happened:
                print(line)
            frames.write(game, i)
            if game.round != round_before and not game.is_over:
                print(f"\n── round {game.round} ──")
                print(picture(game, viewer))
            if stepping and i < len(actions):
                stepping, stop = _wait(game, viewer)
                if stop:
                    stopped_at = i
                    break
    finally:
        frames.close()
    print()
    if stopped_at is not None:
        print(f"stopped after decision {stopped_at} of {len(actions)}")
    else:
        print("── end ──")
        print(picture(game, viewer))
    for line in outcome_lines(game, players):
        print(line)
    if args.frames is not None:
        print(f"wrote {frames.count} PNG frames to {args.frames}")
    return 0


def seed_text(record: dict[str, Any]) -> str:
    """The seed as the player typed it (`--seed 3`: the record's env_seed), which replays the
    deal; the engine's seed derived from it only for a record that has no env seed."""
    if record.get("env_seed") is not None:
        return f"seed {record['env_seed']}"
    return f"engine seed {record['game_seed']}"


def _wait(game: FarlightGame, viewer: Viewer) -> tuple[bool, bool]:
    """Wait for Enter. Returns (keep stepping, stop now); EOF plays on to the end."""
    while True:
        print("-- Enter: next decision · b: board · q: stop -- ", end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            print()
            return False, False
        command = line.strip().lower()
        if command == "q":
            return False, True
        if command == "b":
            print(picture(game, viewer))
            continue
        if command:
            print(
                f"  {line.strip()!r}? Press Enter for the next decision, b for the board, q to stop"
            )
            continue
        return True, False


class _Frames:
    """PNG frames of render_rgb: after actions 0, K, 2K, ... and the final one."""

    def __init__(
        self, folder: Path | None, every: int, viewer: Viewer, total: int, quiet: bool
    ) -> None:
        self.folder = folder
        self.every = every
        self.viewer = None if viewer == ALL else viewer
        self.total = total
        self.count = 0
        self.bar: Any = None
        if folder is not None:
            folder.mkdir(parents=True, exist_ok=True)
            from tqdm.auto import tqdm

            self.bar = tqdm(
                total=total + 1, desc="frames", unit="state", disable=quiet, file=sys.stderr
            )

    def write(self, game: FarlightGame, done: int) -> None:
        if self.folder is None:
            return
        self.bar.update(1)
        if done % self.every and done != self.total:
            return
        from PIL import Image

        from farlight_env.env.render_picture import render_rgb

        image = Image.fromarray(render_rgb(game, self.viewer))  # type: ignore[arg-type]
        image.save(self.folder / f"frame_{done:05d}.png")
        self.count += 1

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
