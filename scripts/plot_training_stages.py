"""One learning-curve picture for a chain of training runs (each --init-from the last).

    python scripts/plot_training_stages.py --out docs/images/ppo_training.png \
        "2-5 players, margin=runs/ppo_multi:1560576" "win reward=runs/ppo:880640"

Each stage is LABEL=RUN_DIR[:STEPS]: the run's training evaluations against the heuristic per
player count, up to STEPS (the checkpoint the next stage started from), drawn after the stages
before it on one step axis.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from training.curves import Stage, plot_stage_curves  # noqa: E402


def parse_stage(text: str) -> Stage:
    """LABEL=RUN_DIR[:STEPS] as a Stage; argparse turns a ValueError into a usage error."""
    label, sep, rest = text.partition("=")
    if not sep or not label or not rest:
        raise argparse.ArgumentTypeError(f"expected LABEL=RUN_DIR[:STEPS], got {text!r}")
    run_dir, _, steps = rest.partition(":")
    if not (Path(run_dir) / "logs" / "progress.csv").is_file():
        raise argparse.ArgumentTypeError(f"{run_dir}: no logs/progress.csv (not a run folder)")
    if steps and not steps.isdigit():
        raise argparse.ArgumentTypeError(f"steps must be a whole number, got {steps!r}")
    return Stage(label, Path(run_dir), int(steps) if steps else None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("stages", nargs="+", type=parse_stage, metavar="LABEL=RUN_DIR[:STEPS]")
    parser.add_argument("--out", type=Path, required=True, help="PNG to write")
    args = parser.parse_args()
    print(plot_stage_curves(args.stages, args.out))


if __name__ == "__main__":
    main()
