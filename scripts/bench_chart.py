"""Draw the env's speed against PettingZoo's Connect Four, measured side by side in one run.

    OMP_NUM_THREADS=1 python scripts/bench_chart.py --seconds 3 --out docs/images/bench_env.png

Each bar is one player count's steps per second through the wrapped PettingZoo env (random
masked play, observation and mask every step), measured in turns with `connect_four_v3` as
`farlight bench --env-only` does; the label is its ratio to Connect Four, the whiskers the
spread of that ratio over the run's turns. The title names the CPU: absolute rates hold only
for it, the ratios carry over.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from farlight_env.measure.timing import cpu_model
from farlight_env.tools.bench import bench_env_suite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="budget per measurement")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("docs/images/bench_env.png"))
    args = parser.parse_args()
    suite = bench_env_suite((2, 3, 4, 5), seconds=args.seconds, seed=args.seed)
    if suite.connect_four is None:
        raise SystemExit(f"bench_chart: {suite.note}")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.8))
    reference = suite.connect_four.steps_per_s
    labels = ["Connect Four"] + [f"Farlight, {r.num_players} players" for r in suite.farlight]
    rates = [reference] + [r.steps_per_s for r in suite.farlight]
    colours = ["#8C8C8C"] + ["#4C72B0"] * len(suite.farlight)
    ax.barh(labels, rates, color=colours)
    for y, result in enumerate(suite.farlight, start=1):
        turns = suite.turn_ratios(result)
        spread = f" (turns {min(turns):.2f}–{max(turns):.2f}x)" if turns else ""
        ax.text(result.steps_per_s, y, f" {suite.ratio(result):.2f}x{spread}", va="center")
    ax.set_xlim(0, max(rates) * 1.55)
    ax.invert_yaxis()
    ax.set_xlabel("env steps per wall second (random masked play)")
    ax.set_title(f"PettingZoo env against connect_four_v3, one run, seed {args.seed}\n"
                 f"{cpu_model()}; the ratios carry over, the rates do not", fontsize=9)  # fmt: skip
    fig.tight_layout()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out}")
    for result in suite.farlight:
        print(f"{result.num_players} players: {suite.ratio(result):.2f}x connect_four_v3")


if __name__ == "__main__":
    main()
