"""How much of an ismcts search its play-outs take: how fast a cheaper play-out could make it.

    OMP_NUM_THREADS=1 python scripts/ismcts_playout_share.py --players 2,4 --rounds 3

Runs `scripts/speed_vs.py`'s ismcts measurement (a fresh `ISMCTSAgent(seed=0)`, 60 iterations
on each of 12 heuristic self-play positions) and times, in thread CPU seconds, the part spent in
the play-outs (`_rollout`: the heuristic's moves to the round's end, the engine's steps and the
evaluation). If the play-outs cost nothing, the search could run at most `1 / (1 - share)` times
as fast with the same tree; the rest (candidates, determinization, clones, the tree) is the floor.
"""

from __future__ import annotations

import argparse
import statistics
import time

from agents.farlight.ismcts import ISMCTSAgent
from farlight_cli.farlight.bench import search_positions  # speed_vs.py's positions too
from farlight_env.game import FarlightGame
from farlight_env.game.hidden import PlayerView


class TimedSearch(ISMCTSAgent):
    """ISMCTS that adds up the thread CPU time of its play-outs (decisions unchanged)."""

    playout_seconds = 0.0

    def _rollout(self, game: FarlightGame) -> list[float]:
        start = time.thread_time()
        try:
            return super()._rollout(game)
        finally:
            self.playout_seconds += time.thread_time() - start


def measure(players: int) -> tuple[float, float]:
    """(iterations per CPU-second, the play-outs' share of the search's CPU time)."""
    agent, games = TimedSearch(seed=0), search_positions(players, 12, seed=0)
    start = time.thread_time()
    for game in games:
        agent.search(PlayerView(game, game.current_player))
    total = time.thread_time() - start
    return len(games) * agent.iterations / total, agent.playout_seconds / total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="2,4", help="comma-separated seat counts")
    parser.add_argument("--rounds", type=int, default=3, help="measurements per seat count")
    args = parser.parse_args()
    print(f"{'players':>7}  {'iterations/CPU-s':>16}  {'play-out share':>14}  {'bound':>6}")
    for players in (int(p) for p in args.players.split(",")):
        runs = [measure(players) for _ in range(args.rounds)]
        rate = statistics.median(r for r, _ in runs)
        share = statistics.median(s for _, s in runs)
        print(f"{players:>7}  {rate:>16,.0f}  {share:>14.1%}  {1 / (1 - share):>5.2f}x")


if __name__ == "__main__":
    main()
