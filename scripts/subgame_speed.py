"""Training throughput of the bidding sub-game against the full game, side by side.

    nice -n 10 python scripts/subgame_speed.py --rounds 3

Runs the same short MaskablePPO run twice per turn in child processes of this checkout, once on the
full game and once with `--learner-decisions bidding --autopilot heuristic` (the stage-2 settings of
docs/training.md: structured network warm-started from the shipped policy, against the heuristic,
seed 1; no evaluations or checkpoints; `farlight train ppo`'s default environments and updates, or
with `--vec-env subproc` the earlier 2 SubprocVecEnv workers), taking turns so load from other
jobs falls on both alike. Figures are per CPU-second of the whole process tree (the learner and
its env workers) over `model.learn` only: learner steps, with `--vec-env subproc` the same per
CPU-second of the learner's own process (network and updates; the env workers, which play the
opponents and the autopilot, left out), learner steps per wall second (what a user waits on),
and games (learner steps divided by the mean learner
steps per game of the run's episodes); and the CPU of one learner step split into the PPO
updates (`MaskablePPO.train`, thread CPU time) and the rest (rollouts: games and forward passes).
Both runs take `--ship-encoder` (default auto: the warm-started bidding learner freezes the ship
CNN, the full game's learner, which places parts, trains it); `--ship-encoder train` measures the
sub-game with the network training as in the full game.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INIT_FROM = ROOT / "agents" / "data" / "ppo.pt"

from speed_vs import run_in_tree  # noqa: E402  (this folder is sys.path[0])
from train_speed_vs import MEASURE  # noqa: E402  (this folder is sys.path[0])

#: What the measured run changes in train_speed_vs's: the learner's decision kinds as a fourth
#: argument, and the learner process's own CPU time and the steps per game printed too.
EDITS = (
    (
        "steps, vec_env, init_from = int(sys.argv[1]), sys.argv[2], sys.argv[3]",
        "steps, vec_env, init_from, kinds = int(sys.argv[1]), sys.argv[2], sys.argv[3], "
        "sys.argv[4]\nencoder = sys.argv[5]",
    ),
    (
        "checkpoint_every=0, seed=1,",
        "checkpoint_every=0, seed=1, learner_decisions=kinds.split(','), autopilot='heuristic', "
        "ship_encoder=encoder,",
    ),
    ("    train(config, progress=False)\n", "    model = train(config, progress=False)\n"),
    (
        "sb3_contrib.MaskablePPO.learn = timed_learn\n",
        "sb3_contrib.MaskablePPO.learn = timed_learn\n"
        "import time\n"
        "update, update_cpu = sb3_contrib.MaskablePPO.train, [0.0]\n"
        "def timed_update(self):\n"
        "    start = time.thread_time()\n"
        "    update(self)\n"
        "    update_cpu[0] += time.thread_time() - start\n"
        "sb3_contrib.MaskablePPO.train = timed_update\n",
    ),
    (
        "    start, steps = tree_cpu(self), self.num_timesteps\n",
        "    start, steps = tree_cpu(self), self.num_timesteps\n"
        "    own = cpu_seconds(os.getpid())\n",
    ),
    (
        '    spent["cpu"], spent["steps"] = tree_cpu(self) - start, self.num_timesteps - steps\n',
        '    spent["cpu"], spent["steps"] = tree_cpu(self) - start, self.num_timesteps - steps\n'
        '    spent["learner"] = cpu_seconds(os.getpid()) - own\n',
    ),
    (
        'print(json.dumps({"rate": spent["steps"] / spent["cpu"], "cpu": spent["cpu"]}))',
        "import numpy as np\n"
        'per_game = float(np.mean([e["l"] for e in model.ep_info_buffer]))\n'
        'print(json.dumps({"rate": spent["steps"] / spent["cpu"], "cpu": spent["cpu"], '
        '"per_game": per_game, "learner": spent["steps"] / spent["learner"], '
        '"update_ms": 1000 * update_cpu[0] / spent["steps"], '
        '"wall": spent["steps"] / spent["wall"]}))',
    ),
)


def edited(text: str) -> str:
    """`text` with every edit applied; a line train_speed_vs no longer has stops the script
    (a silently skipped edit would measure something else)."""
    for old, replacement in EDITS:
        if old not in text:
            sys.exit(f"subgame_speed: train_speed_vs.MEASURE no longer has {old.strip()!r}")
        text = text.replace(old, replacement)
    return text


SUBGAME_MEASURE = edited(MEASURE)


def measure(steps: int, kinds: str, vec_env: str, encoder: str) -> dict[str, float]:
    return run_in_tree(ROOT, SUBGAME_MEASURE, str(steps), vec_env, str(INIT_FROM), kinds, encoder)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="turns per variant (median kept)")
    parser.add_argument("--steps", type=int, default=8192, help="learner steps per run")
    parser.add_argument(
        "--vec-env",
        choices=("default", "subproc"),
        default="default",
        help="default: `farlight train ppo`'s own settings (16 envs in one process); subproc: "
        "the earlier 2 worker processes, which also splits out the learner's own CPU",
    )
    parser.add_argument(
        "--ship-encoder",
        choices=("auto", "train", "freeze"),
        default="auto",
        help="both runs' --ship-encoder (auto, the default: the sub-game's warm-started learner "
        "freezes the ship CNN, the full game's trains it)",
    )
    args = parser.parse_args()
    results: dict[str, list[dict[str, float]]] = {"all": [], "bidding": []}
    for turn in range(args.rounds):
        for kinds in results:
            result = measure(args.steps, kinds, args.vec_env, args.ship_encoder)
            results[kinds].append(result)
            games = result["rate"] / result["per_game"]
            print(
                f"turn {turn + 1} {kinds:<8} {result['rate']:7.1f} learner steps/CPU-s "
                f"{games:6.2f} games/CPU-s ({result['per_game']:.1f} learner steps per game) "
                f"{result['wall']:7.1f} learner steps/wall s",
                flush=True,
            )

    def median(kinds: str, key) -> float:
        values = sorted(key(r) for r in results[kinds])
        return values[len(values) // 2]

    print(
        f"median of {args.rounds} turns, {args.steps} learner steps, {args.vec_env} envs, "
        f"--ship-encoder {args.ship_encoder}, process-tree CPU time"
    )
    print(f"{'figure':<26}{'full game':>10}{'bidding':>10}{'ratio':>8}")
    rows = [("learner steps/CPU-s", lambda r: r["rate"])]
    if args.vec_env == "subproc":  # in one process the learner's CPU is the whole run's
        rows.append(("  learner process alone", lambda r: r["learner"]))
    rows.append(("learner steps/wall s", lambda r: r["wall"]))
    rows.append(("games/CPU-s", lambda r: r["rate"] / r["per_game"]))
    # CPU per learner step: the PPO updates, and everything else (games, forward passes)
    rows.append(("  update, ms/learner step", lambda r: r["update_ms"]))
    rows.append(("  rest, ms/learner step", lambda r: 1000 / r["rate"] - r["update_ms"]))
    for label, key in rows:
        full, bids = median("all", key), median("bidding", key)
        print(f"{label:<26}{full:>10,.2f}{bids:>10,.2f}{bids / full:>7.2f}x")


if __name__ == "__main__":
    main()
