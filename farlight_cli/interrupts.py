"""What `farlight` says on Ctrl-C: what the stopped command kept, and the command that carries
on from it (a tournament's or an evaluation's finished games, a training run's checkpoint)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from evaluation.formats.journal import EVAL_GAMES, EVAL_SPEC, GAMES, SPEC

#: How much of a journal is read at a time to count its games.
CHUNK = 1 << 20


def interrupted_text(command: str, args: argparse.Namespace | None) -> str:
    """'farlight tournament: interrupted; 12 finished games are kept in DIR: finish them with
    farlight tournament --resume DIR' (only 'interrupted' where nothing is kept)."""
    hint = HINTS.get(args.command) if args is not None else None
    return f"{command}: interrupted" + (hint(args) if hint is not None else "")


def journalled_games(path: Path) -> int:
    """Games in a journal: its complete lines (a line is written, whole, as its game ends)."""
    count = 0
    with path.open("rb") as fh:
        while chunk := fh.read(CHUNK):
            count += chunk.count(b"\n")
    return count


def kept_games(command: str, spec: str, games: str) -> Callable[[argparse.Namespace], str]:
    """The hint of a command that journals each game in --out DIR and finishes with --resume."""

    def hint(args: argparse.Namespace) -> str:
        out = args.resume if args.resume is not None else args.out
        if out is None:
            return "; no game is kept without --out DIR (which saves each game as it ends)"
        if not (out / spec).is_file():
            return f"; no game had started, nothing is kept in {out}"
        played = journalled_games(out / games) if (out / games).is_file() else 0
        shown = "1 finished game is" if played == 1 else f"{played} finished games are"
        return f"; {shown} kept in {out}: finish with farlight {command} --resume {out}"

    return hint


def kept_checkpoint(args: argparse.Namespace) -> str:
    """The hint of `farlight train KIND`: the run's last checkpoint, if one was written."""
    run_dir = Path(getattr(args, "run_dir", args.default_run_dir))
    if not (run_dir / checkpoint_name(args.kind)).exists():
        return "; before its first checkpoint: start it again in an empty --run-dir"
    return (
        f"; the last checkpoint is kept in {run_dir}: continue with farlight train {args.kind} "
        f"--resume --run-dir {run_dir}"
    )


def checkpoint_name(kind: str) -> str:
    """The file (or folder, on RLlib) a training run of `kind` checkpoints into."""
    if kind == "rllib":
        from training.farlight.rllib.config import CHECKPOINT_DIR

        return CHECKPOINT_DIR
    from training.checkpoints import CHECKPOINT

    return CHECKPOINT


HINTS: dict[str, Callable[[argparse.Namespace], str]] = {
    "tournament": kept_games("tournament", SPEC, GAMES),
    "evaluate": kept_games("evaluate", EVAL_SPEC, EVAL_GAMES),
    "train": kept_checkpoint,
}
