"""The scorecards the README and docs/scorecards.md publish are of the files that ship, under the
full protocol.

A new policy file shipped without re-running `farlight evaluate` would leave their tables
describing another network; the recorded file hash catches that. The rollout scorecard must
also still show the bars of the benchmark issue that docs/scorecards.md says it meets.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import msgspec
import pytest

from evaluation.formats.scorecard import ScorecardFile

ROOT = Path(__file__).resolve().parents[1]
SCORECARDS = ROOT / "docs" / "scorecards"
SHIPPED = ROOT / "agents" / "data" / "ppo.pt"
#: The benchmark issue's bars for the shipped multi-player policy: win rate against N-1
#: heuristics per player count, and against ismcts at 2 players.
HEURISTIC_BARS = {2: 0.90, 3: 0.75, 4: 0.75, 5: 0.75}
ISMCTS_BAR_2P = 0.65


def scorecard(name: str) -> dict:
    return json.loads((SCORECARDS / name / "scorecard.json").read_text())


def rate(card: dict, players: int, opponent: str) -> float:
    (cell,) = [c for c in card["cells"] if c["players"] == players and c["opponent"] == opponent]
    return cell["win_rate"]


@pytest.mark.parametrize("name", ["ppo", "rollout"])
def test_published_scorecard_is_of_the_shipped_file_under_the_full_protocol(name: str) -> None:
    card = scorecard(name)
    assert card["protocol"] == "farlight-eval-v1"
    assert card["quick"] is False and card["standard_game"] is True
    assert card["games"] == 483
    shipped = hashlib.sha256(SHIPPED.read_bytes()).hexdigest()
    assert card["agent_file_hash"] == f"sha256:{shipped}", "re-run farlight evaluate " + name


def test_rollout_scorecard_meets_the_benchmark_bars() -> None:
    card = scorecard("rollout")
    for players, bar in HEURISTIC_BARS.items():
        assert rate(card, players, "heuristic") >= bar, players
    assert rate(card, 2, "ismcts") >= ISMCTS_BAR_2P


@pytest.mark.parametrize("name", ["ppo", "heuristic"])
def test_published_v2_scorecard_is_sealed_and_its_cells_are_v1s(name: str) -> None:
    """farlight-eval-v2 of a shipped agent: the same cells as its v1 scorecard (a greedy
    network and the heuristic decide the same sealed), plus the exploitability cell at the
    protocol's budget."""
    v2, v1 = scorecard(f"v2/{name}"), scorecard(name)
    assert v2["protocol"] == "farlight-eval-v2" and v2["sealed"] is True
    assert v2["quick"] is False and v2["standard_game"] is True
    assert v2["agent_file_hash"] == v1["agent_file_hash"]
    assert v2["cells"] == v1["cells"]
    cell = v2["exploitability"]
    assert (cell["players"], cell["budget"], cell["games"]) == (2, 50_000, 200)
    assert cell["sealed"] is True and cell["init_from"] == "ppo"


@pytest.mark.parametrize(
    "path", sorted(SCORECARDS.rglob("scorecard.json")), ids=lambda p: p.parent.name
)
def test_published_scorecard_fits_the_format(path: Path) -> None:
    """Scorecards written before `sealed` and the auction diagnostics existed still read."""
    msgspec.convert(json.loads(path.read_text()), ScorecardFile, strict=True)
