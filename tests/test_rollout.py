"""The rollout agent: the policy itself where it is sure, rollouts where it hesitates; legal,
seeded, blind to hidden facts, and able to overrule the policy it improves."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch", reason="the rollout agent plays a saved policy (the train extra)")

from test_agents import (  # noqa: E402
    PLAYER_COUNTS,
    act,
    bidding_states_with_hidden_tiles,
    kind,
    random_states,
    tools,
)
from test_hidden import board_tiles, with_other_hidden_facts  # noqa: E402

from agents import make  # noqa: E402
from agents.rollout import RolloutAgent  # noqa: E402
from farlight_env.game import FarlightGame  # noqa: E402

#: Rollouts forced at every decision with more than one legal move, kept cheap.
FORCED = {"confidence": 1.0, "candidates": 2, "determinizations": 1}


@pytest.fixture(scope="module")
def states() -> dict[int, dict[str, list[FarlightGame]]]:
    """Random-play states per player count and decision kind (two games per count)."""
    out: dict[int, dict[str, list[FarlightGame]]] = {}
    for n in PLAYER_COUNTS:
        by_kind: dict[str, list[FarlightGame]] = {}
        for seed in (0, 1):
            for game in random_states(n, seed):
                by_kind.setdefault(kind(game), []).append(game)
        out[n] = by_kind
    return out


def late_states(states, per_count: int = 2) -> list[FarlightGame]:
    """Bidding states from the last rounds of random games (short play-outs)."""
    found = []
    for n in PLAYER_COUNTS:
        bids = states[n]["bidding"]
        found += bids[-per_count * 7 :: 7][:per_count]
    return found


def test_a_sure_policy_plays_exactly_like_ppo(states) -> None:
    """With a confidence every favourite meets, no rollout runs: the decisions are ppo's."""
    sure = make("rollout", seed=0, confidence=1e-9)
    ppo = make("ppo")
    for n in PLAYER_COUNTS:
        for game in states[n]["bidding"][::9] + states[n].get("install-place", [])[::9]:
            assert act(sure, game) == act(ppo, game)


def test_forced_rollouts_return_legal_moves_and_leave_the_game_alone(states) -> None:
    agent = make("rollout", seed=1, **FORCED)
    for game in late_states(states):
        before = game.to_json()
        index = act(agent, game)
        assert tools(game)[0].mask(game)[index] == 1
        assert game.to_json() == before


def test_rollouts_can_overrule_the_policy(states) -> None:
    """The search is real: somewhere the rollouts prefer the policy's second choice."""
    agent = make("rollout", seed=2, **FORCED)
    ppo = make("ppo")
    games = [g for n in PLAYER_COUNTS for g in states[n]["bidding"][-30:]]
    assert any(act(agent, game) != act(ppo, game) for game in games[::3])


def test_same_seed_same_decisions_and_reset_restarts(states) -> None:
    games = late_states(states, per_count=1)
    first = [act(make("rollout", seed=5, **FORCED), g) for g in games]
    assert first == [act(make("rollout", seed=5, **FORCED), g) for g in games]
    agent = make("rollout", seed=5, **FORCED)
    once = act(agent, games[0])
    agent.reset()
    assert act(agent, games[0]) == once


def test_decision_is_blind_to_hidden_facts(states) -> None:
    """R-BID-5, R-SETUP-2: the rollouts start from determinizations of what the seat saw."""
    rng = np.random.default_rng(0)
    for game in bidding_states_with_hidden_tiles(states, count=3):
        seat = game.current_player
        other = with_other_hidden_facts(game, seat, rng)
        assert any(board_tiles(game, q) != board_tiles(other, q) for q in range(game.num_players))
        a = act(make("rollout", seed=11, **FORCED), game)
        b = act(make("rollout", seed=11, **FORCED), other)
        assert a == b, f"rollout at {game.num_players}p: {a} became {b} with only hidden changes"


def test_bad_settings_and_a_foreign_action_space_are_refused() -> None:
    with pytest.raises(ValueError, match="candidates and determinizations"):
        RolloutAgent(candidates=0)
    with pytest.raises(ValueError, match="confidence"):
        RolloutAgent(confidence=0.0)
    agent = RolloutAgent()
    with pytest.raises(ValueError, match="expects .* actions"):
        agent.act(np.zeros(3, np.float32), np.ones(7, np.int8), {})
