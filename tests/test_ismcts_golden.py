"""Golden decisions: ismcts and the heuristic choose exactly what they chose before the speed work.

Positions come from heuristic self-play with fixed seeds (every 11th decision) at 2, 3 and 4
players, plus one game under non-default rule options. One search agent (fixed seed, small
budget) and one heuristic walk all of them in order, so warm caches are exercised as in play.
Any cache that answers from stale facts changes a choice here. Regenerate the data only when a
decision change is intended:

    python -m tests.test_ismcts_golden --write
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from agents.farlight.heuristic import HeuristicAgent
from agents.farlight.ismcts import ISMCTSAgent
from farlight_env.game import FarlightGame
from farlight_env.game.hidden import PlayerView

DATA = Path(__file__).parent / "data" / "ismcts_golden.json"
ITERATIONS = 20
EVERY = 11
#: (players, game seeds, positions kept, rule options)
SETUPS: tuple[tuple[int, tuple[int, ...], int, dict], ...] = (
    (2, (0, 1), 14, {}),
    (3, (2,), 12, {}),
    (4, (3,), 12, {}),
    (
        2,
        (4,),
        8,
        {
            "lone_zero_mission_chance": False,
            "temp_biotech_lasts": "mission",
            "edge_connectors": "blocked",
        },
    ),
)


def positions() -> list[tuple[str, FarlightGame, list[str]]]:
    """Fixed positions, each with a label and the self-play moves that led to it."""
    out = []
    for players, seeds, count, rules in SETUPS:
        kept = 0
        for seed in seeds:
            game = FarlightGame(players, seed=seed, rule_options=rules)
            policy, step = HeuristicAgent(seed), 0
            while not game.is_over and kept < count:
                if step % EVERY == 0 and len(game.legal_actions()) > 1:
                    label = f"{players}p seed {seed} step {step}"
                    out.append((label, game.clone(), [repr(a) for a in game.history]))
                    kept += 1
                game.apply(policy.choose(game, game.current_player))
                step += 1
    return out


def decisions() -> list[dict]:
    """Each position's self-play history length, heuristic choice and ismcts choice."""
    search, heuristic = ISMCTSAgent(seed=0, iterations=ITERATIONS), HeuristicAgent(seed=5)
    out = []
    for label, game, history in positions():
        seat = game.current_player
        out.append(
            {
                "position": label,
                "history": len(history),
                "history_sha1": hashlib.sha1("\n".join(history).encode()).hexdigest()[:16],
                "heuristic": repr(heuristic.choose(game, seat)),
                "ismcts": repr(search.search(PlayerView(game, seat))),
            }
        )
    return out


def test_decisions_match_golden_data() -> None:
    """Same seeds, same choices at every stored position (speed work changes no decision)."""
    expected = json.loads(DATA.read_text())
    got = decisions()
    assert len(got) == len(expected)
    for want, have in zip(expected, got, strict=True):
        assert have == want, f"{want['position']}: expected {want}, got {have}"


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python -m tests.test_ismcts_golden --write")
    DATA.parent.mkdir(exist_ok=True)
    DATA.write_text(json.dumps(decisions(), indent=1) + "\n")
    print(f"wrote {DATA}")
