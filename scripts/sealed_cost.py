"""What sealing costs per decision: the same games played with one seat in-process and sealed.

    python scripts/sealed_cost.py --agent heuristic --games 20 --seed 5

Each game is played twice from the same seed, the measured seat first in-process and then
sealed (agents.farlight.sealed: its own process, a redacted copy of the game per decision). The
seat's decisions are identical both ways (checked), so the difference is the sealing: the parent's
wall seconds per decision of that seat, in-process against sealed, side by side in one run.
Prints the CPU model; the ratio is the figure, the absolute times hold for that CPU only.
"""

from __future__ import annotations

import argparse
import statistics
from dataclasses import replace

from agents.farlight.sealed import close_children
from evaluation.tournament import play_game, schedule
from farlight_env.measure.timing import cpu_model


def seat_seconds_per_decision(record: dict, label: str) -> tuple[float, int]:
    seats = [s for s, name in enumerate(record["players"]) if name == label]
    timing = record["timing"]
    seconds = sum(timing["seconds"][s] for s in seats)
    decisions = sum(timing["decisions"][s] for s in seats)
    return seconds, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="heuristic", help="the measured agent (a name)")
    parser.add_argument("--opponent", default="heuristic")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()

    lineup = ["measured"] + [args.opponent] * (args.players - 1)
    specs = schedule(lineup, args.players, args.games, args.seed, {})
    aliases = {"measured": args.agent}
    plain_s = sealed_s = 0.0
    decisions = 0
    ratios = []
    try:
        for spec in specs:
            plain = play_game(replace(spec, aliases=aliases))
            sealed = play_game(replace(spec, aliases=aliases, sealed=("measured",)))
            assert plain["actions"] == sealed["actions"], "sealed play changed a decision"
            a, n = seat_seconds_per_decision(plain, "measured")
            b, _ = seat_seconds_per_decision(sealed, "measured")
            plain_s, sealed_s, decisions = plain_s + a, sealed_s + b, decisions + n
            ratios.append(b / a)
    finally:
        close_children()
    print(f"CPU: {cpu_model()}")
    print(
        f"{args.agent} at {args.players} players vs {args.opponent}, {args.games} games "
        f"(seed {args.seed}), {decisions} decisions of the measured seat, identical both ways"
    )
    print(f"in-process: {1e3 * plain_s / decisions:.3f} ms per decision")
    print(f"sealed:     {1e3 * sealed_s / decisions:.3f} ms per decision")
    print(
        f"sealed / in-process: {sealed_s / plain_s:.2f}x overall; per game median "
        f"{statistics.median(ratios):.2f}x (min {min(ratios):.2f}, max {max(ratios):.2f})"
    )


if __name__ == "__main__":
    main()
