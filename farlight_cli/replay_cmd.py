"""`farlight replay FILE`: step through a recorded game in the terminal, optionally as PNG frames.

Also holds the move texts `farlight play` shares: a move as a given viewer may know it (an
opponent's bid during bidding shows where the tile went, never its value) and the reveal of
all tiles once bidding ends (R-BID-5).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from farlight_env import bench
from farlight_env.game import Action, Bid, ChooseEngine, FarlightGame, Phase, Target, TargetKind

#: A viewer: a seat, None (a spectator: no hidden values) or "all" (omniscient).
Viewer = int | str | None
ALL = "all"


# ------------------------------------------------------------------------ shared move texts
def target_label(game: FarlightGame, target: Target) -> str:
    """A bidding target with what it holds now: 'part space 3 (Ion Drive)', 'Hire (+3 crew)'."""
    from farlight_env.env.render import FACILITY_EFFECTS  # Pillow: imported only when needed

    if target.kind is TargetKind.PART:
        part = game.spaces[target.index]
        name = "empty" if part is None else game.cards.parts[part].name
        return f"part space {target.index} ({name})"
    if target.kind is TargetKind.FACILITY:
        return f"{target} ({FACILITY_EFFECTS[target.index]})"
    stack = game.stacks[target.index]
    name = game.cards.missions[stack[0]].name if stack else "empty"
    return f"mission stack {target.index} ({name})"


def action_text(game: FarlightGame, action: Action) -> str:
    """The action in words for the player who takes it (`game` is the state before it)."""
    if isinstance(action, Bid):
        crew = " +crew" if action.crew else ""
        return f"bid {action.tile}{crew} on {target_label(game, action.target)}"
    if isinstance(action, ChooseEngine):
        value = game.engine_values.get(action.rank)
        return f"{action} (now {value})" if value is not None else str(action)
    return str(action)


def move_text(game: FarlightGame, seat: int, action: Action, viewer: Viewer) -> str:
    """Seat `seat`'s move as `viewer` may know it; `game` is the state before the move.

    During bidding a tile lies face down: only its owner (or an omniscient viewer) sees its
    value; everyone sees where it went and whether crew rides on it.
    """
    if isinstance(action, Bid) and viewer != ALL and viewer != seat:
        crew = " with crew" if action.crew else ""
        return f"P{seat} placed a tile on {target_label(game, action.target)}{crew}"
    return f"P{seat}: {action_text(game, action)}"


@dataclass
class _Snapshot:
    round: int
    first_player: int
    bids: list[list[tuple[int, int, bool]]]
    labels: list[str]


class BiddingWatch:
    """Notices the end of a bidding phase and describes the flipped tiles (R-BID-5, R-RES-2).

    Call `before(game, action)` before applying each action and `after(game)` just after.
    """

    def __init__(self) -> None:
        self._snap: _Snapshot | None = None

    def before(self, game: FarlightGame, action: Action) -> None:
        self._snap = None
        if game.phase is not Phase.BIDDING or not isinstance(action, Bid):
            return
        bids = [list(b) for b in game.bids]
        bids[game.target_slot[action.target]].append(
            (game.current_player, action.tile, action.crew)
        )
        labels = [target_label(game, t) for t in game.targets]
        self._snap = _Snapshot(game.round, game.first_player, bids, labels)

    def after(self, game: FarlightGame) -> list[str]:
        snap = self._snap
        self._snap = None
        if snap is None:
            return []
        if game.phase is Phase.BIDDING and game.round == snap.round and not game.is_over:
            return []  # still bidding
        n = game.num_players
        lines = ["  Bids revealed (all tiles flip):"]
        for slot, placed in enumerate(snap.bids):
            if not placed:
                continue
            totals: dict[int, int] = {}
            shown: dict[int, list[str]] = {}
            for seat, tile, crew in placed:
                totals[seat] = totals.get(seat, 0) + tile + int(crew)
                shown.setdefault(seat, []).append(f"{tile}{'+c' if crew else ''}")
            best = None
            for seat in sorted(totals, key=lambda s: (s - snap.first_player) % n):
                if totals[seat] >= 1 and (best is None or totals[seat] > totals[best]):
                    best = seat
            who = "no winner (no bid of 1 or more)" if best is None else f"P{best} wins"
            tiles = ", ".join(
                f"P{s} {' '.join(v)} (={totals[s]})" for s, v in sorted(shown.items())
            )
            lines.append(f"    {snap.labels[slot]}: {tiles} → {who}")
        return lines


def omniscient_text(game: FarlightGame) -> str:
    """Every hidden fact, for an omniscient replay (never shown to a player)."""
    out = ["ALL HIDDEN VALUES (omniscient replay view — no player sees this during the game)"]
    for seat in range(game.num_players):
        hand = " ".join(str(t) for t in sorted(game.hands[seat])) or "none"
        out.append(f"  P{seat} tiles in hand: {hand}")
    for slot, placed in enumerate(game.bids):
        if placed:
            tiles = "  ".join(f"P{s} {t}{'+c' if c else ''}" for s, t, c in placed)
            out.append(f"  tiles on {target_label(game, game.targets[slot])}: {tiles}")
    out.append(f"  face-down awards: {', '.join(game.awards_down) or 'none'}")
    upcoming = [game.cards.parts[p].name for p in reversed(game.deck[-5:])]
    out.append(f"  part deck ({len(game.deck)} cards), next: {', '.join(upcoming) or 'none'}")
    return "\n".join(out) + "\n"


def picture(game: FarlightGame, viewer: Viewer) -> str:
    """The board as `viewer` sees it (a seat, None for a spectator, "all" for everything)."""
    from farlight_env.env.render import render_ansi

    if viewer == ALL:
        return render_ansi(game, None) + omniscient_text(game)
    return render_ansi(game, viewer)  # type: ignore[arg-type]


def outcome_lines(game: FarlightGame, players: list[str]) -> list[str]:
    """Scores, winners and why the game ended (or that it did not)."""
    from farlight_env.env.render import END_REASONS

    names = [f"P{seat} ({name})" for seat, name in enumerate(players)]
    scores = ", ".join(f"{names[s]} {v}" for s, v in enumerate(game.scores()))
    if not game.is_over:
        return [
            f"game unfinished: stopped in round {game.round} ({game.phase.value}) after "
            f"{len(game.history)} recorded actions",
            f"points so far: {scores}",
        ]
    winners = game.winners()
    title = "winner" if len(winners) == 1 else "shared victory"
    reason = END_REASONS.get(game.end_reason, str(game.end_reason)) if game.end_reason else "?"
    return [
        f"final scores: {scores}",
        f"{title}: {', '.join(names[s] for s in winners)}",
        f"the game ended in round {game.round}: {reason}",
    ]


# ------------------------------------------------------------------------------- command
def viewer_arg(text: str) -> Viewer:
    if text.strip().lower() == ALL:
        return ALL
    try:
        return bench.non_negative_int(text)
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"expected a seat number or 'all', got {text!r}") from exc


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "replay",
        help="step through a recorded game (from play or a tournament)",
        description="Replay a game record (farlight play's file, or one game of a tournament's "
        "results.json with --game): prints every decision and the board at each round start "
        "and at the end, as one seat (or a spectator, or everyone) could see it; can write "
        "PNG frames.",
    )
    p.add_argument("file", type=Path, metavar="FILE", help="a game record or results.json")
    p.add_argument(
        "--game",
        type=bench.non_negative_int,
        default=None,
        metavar="N",
        help="index of the game to replay in a tournament results.json",
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
    p.add_argument(
        "--frames",
        type=Path,
        default=None,
        metavar="DIR",
        help="write render_rgb frames as PNG files into DIR (drawn from the viewer's seat; "
        "a spectator's picture for 'all')",
    )
    p.add_argument(
        "--every",
        type=bench.positive_int,
        default=1,
        metavar="K",
        help="with --frames: a frame every K actions (plus the start and the end; default 1)",
    )
    p.add_argument("--no-progress", action="store_true", help="no progress bar for frames")
    p.set_defaults(func=run, parser=p)


def _error(message: str) -> int:
    print(f"farlight replay: error: {message}", file=sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    from farlight_env.record import (
        RecordError,
        load_record,
        new_game,
        record_actions,
        verify_record,
    )

    try:
        record = load_record(args.file, args.game)
        verify_record(record)
    except RecordError as exc:
        return _error(str(exc))
    players = [str(p) for p in record["players"]]
    n = len(players)
    viewer: Viewer = args.viewer
    if isinstance(viewer, int) and not 0 <= viewer < n:
        return _error(f"--viewer {viewer}: this game has seats 0..{n - 1} (or use 'all')")
    game = new_game(record)
    actions = record_actions(record)
    who = {None: "a spectator (no hidden tile values)", ALL: "everyone (all hidden values)"}
    seen_as = who.get(viewer, f"P{viewer} ({players[viewer]})" if isinstance(viewer, int) else "")
    label = f"{args.file}" + (f" game {args.game}" if args.game is not None else "")
    print(f"replay of {label}: {len(actions)} recorded decisions, seen as {seen_as}")
    print("players: " + ", ".join(f"P{s} {name}" for s, name in enumerate(players)))
    config = ", ".join(f"{k}={v}" for k, v in sorted(record["config"].items()))
    print(f"config: {config}; game seed {record['game_seed']}")
    print()

    frames = _Frames(args.frames, args.every, viewer, len(actions), args.no_progress)
    stepping = args.step
    stopped_at = None
    watch = BiddingWatch()
    print(f"── round {game.round} ──")
    print(picture(game, viewer))
    frames.write(game, 0)
    try:
        for i, action in enumerate(actions, 1):
            round_before, phase, actor = game.round, game.phase, game.current_player
            assert actor is not None
            text = move_text(game, actor, action, viewer)
            watch.before(game, action)
            game.apply(action)
            print(f"[{i:>4}] round {round_before} {phase.value:<8} {text}")
            for line in watch.after(game):
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

        from farlight_env.env.render import render_rgb

        image = Image.fromarray(render_rgb(game, self.viewer))  # type: ignore[arg-type]
        image.save(self.folder / f"frame_{done:05d}.png")
        self.count += 1

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
