"""PettingZoo's own conversion to the parallel API works on Farlight (README, Bring your own
library): its parallel API test passes and a masked game plays to the end."""

from __future__ import annotations

import numpy as np
from pettingzoo.test import parallel_api_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from farlight_env import farlight_v0


def test_turn_based_aec_to_parallel_passes_the_parallel_api_test() -> None:
    parallel_api_test(turn_based_aec_to_parallel(farlight_v0.env(num_players=3)), num_cycles=200)


def test_a_parallel_game_plays_to_the_end_with_masks() -> None:
    """Only the seat to move has a legal action; the others' masks are empty (their action
    is ignored), and the game ends with the env's final rewards."""
    env = turn_based_aec_to_parallel(farlight_v0.env(num_players=2))
    obs, _infos = env.reset(seed=3)
    rng = np.random.default_rng(0)
    rewards: dict = {}
    while env.agents:
        movers = [a for a in env.agents if obs[a]["action_mask"].any()]
        assert len(movers) == 1
        actions = dict.fromkeys(env.agents, 0)
        actions[movers[0]] = int(rng.choice(np.flatnonzero(obs[movers[0]]["action_mask"])))
        obs, rewards, _terms, _truncs, _infos = env.step(actions)
    assert sorted(rewards.values()) == [-1.0, 1.0]
