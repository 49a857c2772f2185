"""Training throughput of this checkout against an earlier commit, measured side by side.

    nice -n 10 python scripts/train_speed_vs.py --baseline main --rounds 3

Runs the same short MaskablePPO run (the README's stage-2 command: structured network with 32
ship features warm-started from the shipped policy, margin reward against the heuristic, seed
1; no evaluations or checkpoints; environments, rollout and update settings each tree's
defaults unless `--vec-env` pins the earlier 2-environment setup) in a child process per tree,
taking turns so load from other jobs falls on both alike. The baseline is checked out into a
temporary `git worktree`. Figures are learner steps per CPU-second of the whole process tree
(the learner and its env workers, user + system time, read from /proc) over `model.learn`
only, so imports, model building and the final export do not count; the table gives each
tree's median and best round and their ratios.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Both trees warm-start from this checkout's shipped policy, so they learn the same network.
INIT_FROM = ROOT / "agents" / "data" / "ppo.pt"

from speed_vs import (  # noqa: E402  (this folder is sys.path[0])
    baseline_checkout,
    build_line,
    measurement_failed,
    run_in_tree,
    short_head,
)

MEASURE = r"""
import json, os, sys, tempfile, time
from pathlib import Path
import sb3_contrib

TICK = os.sysconf("SC_CLK_TCK")

def cpu_seconds(pid):
    # user + system time of one process, from /proc (fields 14 and 15 after the name)
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK

def tree_cpu(model):
    venv = model.get_env()
    while hasattr(venv, "venv"):
        venv = venv.venv
    pids = [os.getpid()] + [p.pid for p in getattr(venv, "processes", [])]
    return sum(cpu_seconds(pid) for pid in pids)

learn = sb3_contrib.MaskablePPO.learn
spent = {}

def timed_learn(self, total_timesteps, *args, **kwargs):
    start, steps = tree_cpu(self), self.num_timesteps
    began = time.perf_counter()
    out = learn(self, total_timesteps, *args, **kwargs)
    spent["wall"] = time.perf_counter() - began
    spent["cpu"], spent["steps"] = tree_cpu(self) - start, self.num_timesteps - steps
    return out

sb3_contrib.MaskablePPO.learn = timed_learn
from training.farlight.config import PPOConfig
from training.farlight.sb3.train_ppo import train

# --vec-env subproc|dummy: the environments and updates of the defaults before 2026-11-28
PINNED = {"n_envs": 2, "n_steps": 512, "batch_size": 256, "n_epochs": 4}

steps, vec_env, init_from = int(sys.argv[1]), sys.argv[2], sys.argv[3]
with tempfile.TemporaryDirectory() as tmp:
    config = PPOConfig(
        run_dir=str(Path(tmp) / "run"), init_from=init_from,
        learning_rate=0.0006, total_steps=steps, opponents=["heuristic"],
        reward_mode="margin", eval_every=0,
        checkpoint_every=0, seed=1, arch="structured", ship_features=32,
        **({} if vec_env == "default" else dict(PINNED, vec_env=vec_env)),
    )
    train(config, progress=False)
print(json.dumps({"rate": spent["steps"] / spent["cpu"], "cpu": spent["cpu"]}))
"""


def measure(tree: Path, steps: int, vec_env: str) -> dict[str, float]:
    """One training run in `tree`: learner steps per CPU-second of its process tree."""
    return run_in_tree(tree, MEASURE, str(steps), vec_env, str(INIT_FROM))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="git commit to compare against")
    parser.add_argument(
        "--rounds", type=int, default=3, help="turns per tree (median and best shown)"
    )
    parser.add_argument("--steps", type=int, default=8192, help="training steps per run")
    parser.add_argument(
        "--vec-env",
        choices=("default", "subproc", "dummy"),
        default="default",
        help="default: each tree's own defaults for the envs, rollouts and updates (what "
        "`farlight train ppo` does); subproc or dummy: 2 such envs, 512 steps each per "
        "rollout, minibatches of 256, 4 epochs (the defaults before 2026-11-28)",
    )
    args = parser.parse_args()
    if args.rounds < 1 or args.steps < 1024:
        sys.exit("train_speed_vs: --rounds must be at least 1 and --steps at least 1024")
    rates: dict[str, list[float]] = {"baseline": [], "current": []}
    with baseline_checkout(args.baseline, "train_speed_vs") as base:
        try:
            for label, tree in (("baseline", base), ("current", ROOT)):
                print(f"{label}: {build_line(tree)}", flush=True)
            for turn in range(args.rounds):
                for label, tree in (("baseline", base), ("current", ROOT)):
                    result = measure(tree, args.steps, args.vec_env)
                    print(
                        f"turn {turn + 1} {label:<8} {result['rate']:7.1f} steps/CPU-s "
                        f"({result['cpu']:.1f} CPU-s)",
                        flush=True,
                    )
                    rates[label].append(result["rate"])
        except subprocess.CalledProcessError as exc:
            measurement_failed("train_speed_vs", exc)
    print(
        f"{args.rounds} turns, {args.steps} steps, {args.vec_env} envs, process-tree CPU "
        f"time, baseline {short_head(args.baseline)}, current {short_head('HEAD')}"
    )
    print(f"{'learner steps/CPU-s':<34}{'baseline':>10}{'current':>10}{'ratio':>8}")
    for label, pick in (("median", statistics.median), ("best", max)):
        old, new = pick(rates["baseline"]), pick(rates["current"])
        print(f"{label:<34}{old:>10,.1f}{new:>10,.1f}{new / old:>7.2f}x")


if __name__ == "__main__":
    main()
