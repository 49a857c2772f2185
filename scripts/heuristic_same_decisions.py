"""Whether this checkout's heuristic decides exactly as an earlier commit's, bit for bit.

    python scripts/heuristic_same_decisions.py --baseline fdc0b5f --games 200

Plays heuristic self-play games (2 to 5 players in turn, game i with seed i, one agent per
seat) in this tree and in the baseline (exported with `git archive` to a temporary folder),
each in a child process, and compares one digest per game of every decision and of the raw
bytes of every bid score array. Speed work on the heuristic must leave them all equal.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

from speed_vs import run_in_tree  # noqa: E402  (this folder is sys.path[0])

PLAY = r"""
import hashlib, json, sys
import numpy as np
from agents.farlight.heuristic import HeuristicAgent
from farlight_env.game import FarlightGame, Phase

def digest(seed, players):
    game = FarlightGame(players, seed=seed)
    agents = [HeuristicAgent(seed=1000 * seed + p) for p in range(players)]
    h = hashlib.sha256()
    while not game.is_over:
        seat = game.current_player
        agent = agents[seat]
        if game.phase is Phase.BIDDING:  # as `_bid`, keeping the scores for the digest
            legal = game.legal_actions()
            scores = agent.bid_scores(game, seat, legal)
            h.update(scores.tobytes())
            action = legal[int(np.argmax(scores))]
        else:
            action = agent.choose(game, seat)
        h.update(repr(action).encode())
        game.apply(action)
    return h.hexdigest()

games = int(sys.argv[1])
print(json.dumps([digest(i, 2 + i % 4) for i in range(games)]))
"""


def digests(tree: Path, games: int) -> list[str]:
    """One digest per game, played in a child process with `tree` first on the path."""
    return run_in_tree(tree, PLAY, str(games))


def export(ref: str, folder: Path) -> None:
    """The commit `ref`'s files in `folder` (no worktree registered, nothing left behind)."""
    archive = subprocess.run(["git", "archive", ref], cwd=ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="git commit to compare against")
    parser.add_argument("--games", type=int, default=200, help="self-play games per tree")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        export(args.baseline, Path(tmp))
        old = digests(Path(tmp), args.games)
    new = digests(ROOT, args.games)
    differ = [i for i, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]
    if differ:
        sys.exit(f"heuristic_same_decisions: games {differ[:10]} differ ({len(differ)} in all)")
    print(f"{args.games} games (2-5 players): every decision and bid score identical")


if __name__ == "__main__":
    main()
