"""Tianshou 2.0's `PettingZooEnv` in a `DummyVectorEnv` under `MultiAgentOffPolicyAlgorithm`:
docs/interop/tianshou.md trains one masked DQN per seat for 600 steps, across game ends,
and never plays a masked action."""

from __future__ import annotations

import pytest
from doc_snippets import run_page

pytest.importorskip("tianshou", reason="needs the interop extra (tianshou)")


def test_the_tianshou_page_trains_with_legal_actions_only() -> None:
    """The page's last line prints env steps, gradient updates, finished games and whether
    every stored action was legal under the mask stored with it."""
    out = run_page("docs/interop/tianshou.md", expected_blocks=2)
    lines = out.strip().splitlines()
    assert lines[0] == "['player_0', 'player_1']"
    steps, updates, games, legal = lines[-1].split()
    assert int(steps) >= 600 and int(updates) >= 20
    assert int(games) >= 1  # rewards reached the learners at least once
    assert legal == "True"
