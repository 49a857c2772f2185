"""RLlib training of the bidding sub-game against the full game, side by side.

    OMP_NUM_THREADS=1 python scripts/subgame_speed_rllib.py --rounds 3 --iterations 4

Runs `farlight train rllib` with its defaults (one env runner with 4 games, the learner in the
driver, 4,000 steps per iteration, league of random and heuristic, seed 0; no snapshots,
evaluations or checkpoints but the last) on a local Ray instance of `--num-cpus` CPUs, once on
the full game and once with `--learner-decisions bidding --autopilot heuristic`, taking turns
so load from other jobs falls on both alike. Figures come from each run's `logs/progress.csv`:
RLlib's own timers of sampling (`time/sample_s`) and learning (`time/learn_s`), which run one
after the other, summed over every iteration but the first (Ray and the workers warming up),
per learner step (RLlib's env steps: in `LeagueEnv` the autopilot and league opponents move
inside a step, so each step is one learner decision). Wall time of an idle machine: Ray's
workers are not children of this process, so their CPU time is not read. `--init-from` starts
both runs from a saved policy (e.g. agents/data/ppo.pt), where `--ship-encoder auto` (or the
value given) freezes the bidding learner's ship CNN as `farlight train ppo` does.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = {"all": [], "bidding": ["--learner-decisions", "bidding", "--autopilot", "heuristic"]}


def run(kinds: str, iterations: int, num_cpus: int, extra: list[str]) -> dict[str, float]:
    """One `farlight train rllib` run; its per-learner-step timings after the first iteration."""
    with tempfile.TemporaryDirectory() as tmp:
        run_dir = Path(tmp) / "run"
        command = [
            sys.executable, "-m", "farlight_cli", "train", "rllib", "--run-dir", str(run_dir),
            "--iterations", str(iterations), "--snapshot-every", "0", "--eval-every", "0",
            "--checkpoint-every", str(iterations), "--num-cpus", str(num_cpus), "--no-progress",
            *VARIANTS[kinds], *extra,
        ]  # fmt: skip
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        if done.returncode != 0:
            tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
            sys.exit(f"subgame_speed_rllib: the {kinds} run failed: {tail}")
        with (run_dir / "logs" / "progress.csv").open() as fh:
            rows = list(csv.DictReader(fh))
    if len(rows) < 2:
        sys.exit("subgame_speed_rllib: give at least 2 iterations (the first is left out)")
    steps = float(rows[-1]["time/total_timesteps"]) - float(rows[0]["time/total_timesteps"])
    sample = sum(float(r["time/sample_s"]) for r in rows[1:])
    learn = sum(float(r["time/learn_s"]) for r in rows[1:])
    return {
        "rate": steps / (sample + learn),
        "sample_ms": 1000 * sample / steps,
        "learn_ms": 1000 * learn / steps,
        "per_game": float(rows[-1]["rollout/ep_len_mean"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="turns per variant (median kept)")
    parser.add_argument("--iterations", type=int, default=4, help="iterations per run (>= 2)")
    parser.add_argument("--num-cpus", type=int, default=2, help="CPUs of the local Ray instance")
    parser.add_argument("--init-from", default="", help="saved policy both runs start from")
    parser.add_argument("--ship-encoder", choices=("auto", "train", "freeze"), default="auto")
    args = parser.parse_args()
    extra = ["--ship-encoder", args.ship_encoder]
    if args.init_from:
        extra += ["--init-from", str(Path(args.init_from).resolve())]
    if args.rounds < 1 or args.iterations < 2:
        sys.exit("subgame_speed_rllib: --rounds must be >= 1 and --iterations >= 2")
    results: dict[str, list[dict[str, float]]] = {kinds: [] for kinds in VARIANTS}
    for turn in range(args.rounds):
        for kinds, runs in results.items():
            result = run(kinds, args.iterations, args.num_cpus, extra)
            runs.append(result)
            print(
                f"turn {turn + 1} {kinds:<8} {result['rate']:7.1f} learner steps/s "
                f"(sampling {result['sample_ms']:.2f} ms, learning {result['learn_ms']:.2f} ms "
                f"per step; {result['per_game']:.1f} steps per game)",
                flush=True,
            )
    print(
        f"median of {args.rounds} turns, {args.iterations} iterations each (the first left out), "
        f"farlight train rllib defaults, {args.num_cpus} CPUs, RLlib's sample and learn timers, "
        f"{' '.join(extra)}"
    )
    print(f"{'figure':<28}{'full game':>10}{'bidding':>10}{'ratio':>8}")
    rows = [
        ("learner steps/s", "rate"),
        ("  sampling, ms/learner step", "sample_ms"),
        ("  learning, ms/learner step", "learn_ms"),
    ]
    for label, key in rows:
        full = statistics.median(r[key] for r in results["all"])
        bids = statistics.median(r[key] for r in results["bidding"])
        print(f"{label:<28}{full:>10,.2f}{bids:>10,.2f}{bids / full:>7.2f}x")
    turns = [b["rate"] / a["rate"] for a, b in zip(results["all"], results["bidding"], strict=True)]
    print("per turn, learner steps/s: " + ", ".join(f"{t:.2f}x" for t in turns))


if __name__ == "__main__":
    main()
