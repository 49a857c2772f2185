"""Time Python's garbage collector takes from the env's steps, this checkout against another.

    python scripts/collector_time.py --baseline 205f752
    python scripts/collector_time.py --baseline 205f752 --learner-decisions bidding
    python scripts/collector_time.py --baseline 205f752 --train --steps 8192 --rounds 1
    python scripts/collector_time.py --baseline 3b70182 --tournament ppo,heuristic --steps 16

Plays the Gymnasium env at 2 players against the heuristic with random legal learner moves
(`--learner-decisions bidding`: the bidding sub-game, the heuristic as autopilot), torch
imported as in training, and times every collection with `gc.callbacks` (thread CPU time);
with `--train`, a `farlight train ppo` run instead (the stage-2 settings of docs/training.md:
structured network warm-started from the shipped policy, margin reward against the heuristic,
seed 1, default environments, no evaluations or checkpoints), timed over the whole run; with
`--tournament AGENTS`, a 2-player tournament of those agents in this process (seed 0), per game.
Each tree runs in its own child process, `--rounds` times in turn; the table gives the median
per learner step of the step itself and of the collector's part, by generation, and the game
copies left alive at the end, and the child's peak resident memory. A full (generation 2)
collection walks every object alive, so what long-lived caches keep shows up here first.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

from speed_vs import (  # noqa: E402  (this folder is sys.path[0])
    baseline_checkout,
    measurement_failed,
    run_in_tree,
    short_head,
)

MEASURE = r"""
import gc, json, sys, time
import numpy as np
import torch  # noqa: F401 - the objects a training process holds
from farlight_env.env.single_agent import FarlightSingleAgentEnv
from farlight_env.game import FarlightGame

kinds, steps, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
options = {} if kinds == "all" else {"learner_decisions": kinds, "autopilot": "heuristic"}
if mode == "play":
    env = FarlightSingleAgentEnv(num_players=2, opponents="heuristic", **options)
rng = np.random.default_rng(0)
spent, begun = [0.0, 0.0, 0.0], [0.0]

def train(n):
    import tempfile
    from pathlib import Path
    from training.farlight.config import PPOConfig
    from training.farlight.sb3.train_ppo import train
    subgame = dict(options)
    if "learner_decisions" in subgame:
        subgame["learner_decisions"] = kinds.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        config = PPOConfig(
            run_dir=str(Path(tmp) / "run"), init_from="agents/data/ppo.pt",
            learning_rate=0.0006, total_steps=n, opponents=["heuristic"],
            reward_mode="margin", eval_every=0, checkpoint_every=0, seed=1,
            arch="structured", ship_features=32, **subgame,
        )
        train(config, progress=False)

def timed(phase, info):
    if phase == "start":
        begun[0] = time.thread_time()
    else:
        spent[info["generation"]] += time.thread_time() - begun[0]

def play(n):
    env.reset(seed=1)
    for _ in range(n):
        legal = np.flatnonzero(env.action_masks())
        _, _, over, cut, _ = env.step(int(rng.choice(legal)))
        if over or cut:
            env.reset()

if mode == "play":
    play(200)
gc.callbacks.append(timed)
start = time.thread_time()
def tournament(n):
    from evaluation.tournament import run_tournament
    run_tournament(kinds.split(","), num_players=2, games=n, seed=0, workers=1, progress=False)

{"play": play, "train": train, "tournament": tournament}[mode](steps)
total = time.thread_time() - start
gc.callbacks.remove(timed)
alive = sum(isinstance(o, FarlightGame) for o in gc.get_objects())
import resource
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
print(json.dumps({"step": total / steps, "gc": [s / steps for s in spent], "games": alive,
                  "peak_mb": peak}))
"""


def measure(tree: Path, kinds: str, steps: int, mode: str) -> dict:
    return run_in_tree(tree, MEASURE, kinds, str(steps), mode)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="git commit to compare against")
    parser.add_argument("--learner-decisions", default="all", help="all, or e.g. bidding")
    parser.add_argument("--steps", type=int, default=6000, help="learner steps per run")
    parser.add_argument("--rounds", type=int, default=3, help="runs per tree (median kept)")
    parser.add_argument("--train", action="store_true", help="time a training run instead")
    parser.add_argument(
        "--tournament",
        metavar="AGENTS",
        help="time a 2-player tournament of these agents in this process instead (e.g. "
        "ppo,heuristic); --steps is then the number of games",
    )
    args = parser.parse_args()
    if args.steps < 1 or args.rounds < 1:
        sys.exit("collector_time: --steps and --rounds must be at least 1")
    runs: dict[str, list[dict]] = {"baseline": [], "current": []}
    mode = "tournament" if args.tournament else "train" if args.train else "play"
    kinds = args.tournament or args.learner_decisions
    with baseline_checkout(args.baseline, "collector_time") as base:
        try:
            for _ in range(args.rounds):
                for name, tree in (("baseline", base), ("current", ROOT)):
                    runs[name].append(measure(tree, kinds, args.steps, mode))
        except subprocess.CalledProcessError as exc:
            measurement_failed("collector_time", exc)
    head = short_head()
    what = {"tournament": "tournament", "train": "training run", "play": "env loop"}[mode]
    unit = "game" if args.tournament else "learner step"
    setting = f"agents {kinds}" if args.tournament else f"learner decisions {kinds}"
    print(
        f"{what}, median of {args.rounds} runs, {args.steps} {unit}s, {setting}, thread CPU "
        f"time, baseline {args.baseline}, current {head}"
    )
    print(f"{'us per ' + unit:<28}{'baseline':>10}{'current':>10}")
    rows = [(unit, lambda r: r["step"])]
    rows += [(f"collector, generation {g}", lambda r, g=g: r["gc"][g]) for g in range(3)]
    rows += [("collector, all", lambda r: sum(r["gc"]))]
    for label, pick in rows:
        cells = [1e6 * statistics.median(pick(r) for r in runs[name]) for name in runs]
        print(f"{label:<28}{cells[0]:>10.1f}{cells[1]:>10.1f}")
    games = [statistics.median(r["games"] for r in runs[name]) for name in runs]
    print(f"{'game copies alive at the end':<28}{games[0]:>10.0f}{games[1]:>10.0f}")
    peaks = [statistics.median(r["peak_mb"] for r in runs[name]) for name in runs]
    print(f"{'peak memory, MB':<28}{peaks[0]:>10.0f}{peaks[1]:>10.0f}")


if __name__ == "__main__":
    main()
