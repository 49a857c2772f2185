"""The shipped networks on compact observations (#49): `ppo`, `bidder` and `rollout` decide
exactly as on the float observations they were trained on."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np
import pytest
from env_states import random_states

from agents.farlight.policy import SHIPPED_POLICY, PolicyAgent
from agents.registry import make
from farlight_env import farlight_v0
from farlight_env.encode.compact import CompactCodec

CODEC = CompactCodec(farlight_v0.raw_env().encoder.fields)


def positions(count: int) -> Iterator[tuple[np.ndarray, np.ndarray, dict]]:
    """(float observation, mask, info) from seeded random games at 2-5 players; the info's
    view is live, so each position is used before the next is drawn."""
    for num_players in (2, 3, 4, 5):
        states = random_states(num_players, seed=40 + num_players, every=5)
        yield from itertools.islice(states, count)


@pytest.mark.parametrize("name", ["ppo", "bidder"])
def test_policy_agents_decide_the_same_on_compact_observations(name: str) -> None:
    """#49: the same logits, bit for bit, and the same action at every sampled position."""
    agent = make(name, seed=0)
    for floats, mask, info in positions(12):
        codes = CODEC.compact(floats)
        assert agent.act(codes, mask, info) == agent.act(floats, mask, info)
        assert np.array_equal(agent.logits(codes, mask), agent.logits(floats, mask))


def test_best_moves_take_compact_batches() -> None:
    """#49: the batched call of search play-outs expands a compact batch too."""
    agent = PolicyAgent(SHIPPED_POLICY)
    states = [(floats.copy(), mask.copy()) for floats, mask, _info in positions(6)]
    floats = np.stack([s[0] for s in states])
    masks = np.stack([s[1] for s in states])
    assert np.array_equal(
        agent.best_moves(CODEC.compact(floats), masks), agent.best_moves(floats, masks)
    )


def test_rollout_decides_the_same_on_compact_observations() -> None:
    """#49: two rollout agents of one seed, one given floats and one the compact form of the
    same positions, make the same decisions (play-outs included)."""
    on_floats, on_codes = make("rollout", seed=3, worlds=2), make("rollout", seed=3, worlds=2)
    for floats, mask, info in positions(2):
        codes = CODEC.compact(floats)
        assert on_codes.act(codes, mask, info) == on_floats.act(floats, mask, info)
    assert on_codes.searches == on_floats.searches > 0  # some went to play-outs


def test_a_compact_vector_of_another_layout_is_refused() -> None:
    """#49: a compact vector of another grid is a ValueError, never a silent misreading."""
    agent = PolicyAgent(SHIPPED_POLICY)
    other = farlight_v0.raw_env(grid_size=9)
    other.reset(seed=0)
    codes = CompactCodec(other.encoder.fields).compact(other.observe("player_0")["observation"])
    with pytest.raises(ValueError, match="compact observations of 16351"):
        agent.act(codes, np.ones(496, np.int8), {})
