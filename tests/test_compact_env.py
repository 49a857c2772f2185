"""The envs' `observation="compact"` option (#49): the same games as the float envs, whose
observations expand back bit for bit, inside the compact Box; the default stays float."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from farlight_env import farlight_v0
from farlight_env.env.single_agent import FarlightSingleAgentEnv
from farlight_env.game.config import ConfigError
from farlight_env.vector import make_vector_env


def play_side_by_side(num_players: int, seed: int, **kwargs) -> tuple[int, str]:
    """Step a float and a compact AEC env with the same random actions; every agent's
    observation must match after expanding. Returns (decisions, the final game's JSON)."""
    plain = farlight_v0.env(num_players=num_players, **kwargs)
    small = farlight_v0.env(num_players=num_players, observation="compact", **kwargs)
    codec = small.unwrapped.compact_codec
    space = small.observation_space("player_0")["observation"]
    for env in (plain, small):
        env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    for agent in plain.agent_iter():
        assert small.agent_selection == agent
        floats, codes = plain.observe(agent), small.observe(agent)
        assert codes["observation"].dtype == np.uint8 and space.contains(codes["observation"])
        assert codec.expand(codes["observation"]).tobytes() == floats["observation"].tobytes()
        assert np.array_equal(codes["action_mask"], floats["action_mask"])
        other = plain.possible_agents[(plain.agent_name_mapping[agent] + 1) % num_players]
        assert codec.expand(small.observe(other)["observation"]).tobytes() == (
            plain.observe(other)["observation"].tobytes()
        )
        _obs, reward, term, trunc, _info = plain.last()
        assert small.last()[1:4] == (reward, term, trunc)
        action = None if term or trunc else int(rng.choice(np.flatnonzero(floats["action_mask"])))
        plain.step(action)
        small.step(action)
        steps += 1
    assert plain.unwrapped.game.to_json() == small.unwrapped.game.to_json()
    return steps, small.unwrapped.game.to_json()


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_compact_aec_env_plays_the_float_env_games_with_exact_observations(
    num_players: int,
) -> None:
    """#49: same seeds and actions, same games; every observation expands to the float one."""
    for seed in (num_players, 10 + num_players):
        steps, _game = play_side_by_side(num_players, seed)
        assert steps > 50


def test_compact_subgame_autopilot_reads_compact_observations() -> None:
    """#49: a shipped policy as the autopilot gets compact observations and plays the same
    decisions as on floats (the games end identical)."""
    play_side_by_side(3, 7, learner_decisions={"bidding"}, autopilot="ppo")


def test_compact_env_passes_pettingzoo_tests_and_keeps_its_spaces() -> None:
    """#49: api_test and seed_test with compact observations; spaces are served from dicts."""
    api_test(farlight_v0.env(num_players=3, observation="compact"), num_cycles=200)
    seed_test(lambda: farlight_v0.env(num_players=2, observation="compact"), num_cycles=100)
    env = farlight_v0.raw_env(observation="compact")
    space = env.observation_space("player_0")
    assert space is env.observation_space("player_0")
    assert space["observation"] == env.compact_codec.space()
    assert space["observation"].shape == (16_351,) and space["observation"].dtype == np.uint8


def test_default_observation_stays_the_float_vector() -> None:
    """#49: without the option, nothing changes: float32 in Box(0, inf), as farlight_v0 was."""
    env = farlight_v0.raw_env()
    assert env.observation_form == "float"
    box = env.observation_space("player_0")["observation"]
    assert box == gymnasium.spaces.Box(0.0, np.inf, (16_306,), dtype=np.float32)
    env.reset(seed=0)
    assert env.observe("player_0")["observation"].dtype == np.float32
    single = FarlightSingleAgentEnv()
    assert single.observation_space == box


@pytest.mark.parametrize("bad", ["bytes", "Compact", None, 1])
def test_an_unknown_observation_form_is_a_config_error(bad: object) -> None:
    """#49: a clear ConfigError naming the choices, from either env."""
    with pytest.raises(ConfigError, match=r"observation must be one of \('float', 'compact'\)"):
        farlight_v0.env(observation=bad)
    with pytest.raises(ConfigError, match="observation must be one of"):
        FarlightSingleAgentEnv(observation=bad)


def test_compact_single_agent_env_matches_the_float_one_against_a_policy() -> None:
    """#49: the learner and its opponents (here the shipped bidder, which reads observations)
    get compact observations; the episodes are the float env's, observation for observation."""
    kwargs = {"num_players": 3, "opponents": "bidder", "learner_seat": 1}
    plain = FarlightSingleAgentEnv(**kwargs)
    small = gymnasium.make("farlight_env/Farlight-v0", observation="compact", **kwargs)
    codec = small.unwrapped.aec.compact_codec
    rng = np.random.default_rng(3)
    for episode in range(2):
        floats, _ = plain.reset(seed=episode)
        codes, _ = small.reset(seed=episode)
        done = False
        while not done:
            assert small.observation_space.contains(codes)
            assert codec.expand(codes).tobytes() == floats.tobytes()
            mask = plain.action_masks()
            assert np.array_equal(mask, small.unwrapped.action_masks())
            action = int(rng.choice(np.flatnonzero(mask)))
            floats, reward, term, trunc, _ = plain.step(action)
            codes, reward_c, term_c, trunc_c, _ = small.step(action)
            assert (reward, term, trunc) == (reward_c, term_c, trunc_c)
            done = term or trunc
        assert codec.expand(codes).tobytes() == floats.tobytes()


def test_vector_env_batches_compact_observations() -> None:
    """#49: `make_vector_env` passes the option on: uint8 batches inside the batched Box."""
    envs = make_vector_env(2, num_players=2, observation="compact")
    obs, _ = envs.reset(seed=0)
    assert obs["observation"].dtype == np.uint8 and obs["observation"].shape == (2, 16_351)
    assert envs.observation_space.contains(obs)
    envs.close()
