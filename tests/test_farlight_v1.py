"""`farlight_v1` (#49): v0's game with the conventions of PettingZoo's classic games as its
defaults — plain numeric infos, an illegal action ends the game with -1 for the offender and 0
for the others, any integer-like action taken — registered in Gymnasium (with a vector entry
point) and PettingZoo; planning agents reach their view through `agent_info`."""

from __future__ import annotations

import copy

import gymnasium as gym
import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test

import farlight_env
from agents.registry import make
from farlight_env import farlight_v0, farlight_v1
from farlight_env.env.infos import NUMERIC_INFO_KEYS
from farlight_env.game.config import IllegalActionError


def _legal(env) -> int:
    observation, *_ = env.last()
    return int(np.flatnonzero(observation["action_mask"])[0])


def _illegal(env) -> int:
    observation, *_ = env.last()
    return int(np.flatnonzero(observation["action_mask"] == 0)[0])


def _decisions(module, name: str, num_players: int, seed: int, max_iter: int = 2**63) -> list[int]:
    """The actions seeded `name` agents choose at every seat of one game of `module`'s env,
    each given its seat's view through `agent_info`: the README's ten-line loop."""
    env = module.env(num_players=num_players)
    env.reset(seed=seed)
    bots = {a: make(name, seed=i) for i, a in enumerate(env.possible_agents)}
    actions = []
    for agent in env.agent_iter(max_iter=max_iter):
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        info = env.unwrapped.agent_info(agent)
        actions.append(
            bots[agent].act(observation["observation"], observation["action_mask"], info)
        )
        env.step(actions[-1])
    return actions


@pytest.mark.parametrize("num_players", [2, 5])
def test_pettingzoo_api_and_seed_tests_pass_on_v1(num_players: int) -> None:
    api_test(farlight_v1.env(num_players=num_players), num_cycles=200)
    seed_test(lambda: farlight_v1.env(num_players=num_players), num_cycles=40)


def test_v1_is_named_and_registered_as_v1() -> None:
    assert farlight_v1.raw_env().metadata["name"] == "farlight_v1"
    assert farlight_v0.raw_env().metadata["name"] == "farlight_v0"
    assert farlight_env.GYM_ID_V1 in gym.registry
    env = pettingzoo.make("aec", farlight_env.PETTINGZOO_ID_V1, num_players=3)
    assert env.unwrapped.metadata["name"] == "farlight_v1" and len(env.possible_agents) == 3


def test_infos_are_plain_numbers_that_copy_cheaply() -> None:
    """Every info value is an int or a numeric array, with the same keys from reset on, so
    SB3's deep copies and TorchRL's tensors take them (v0's default info holds the game)."""
    env = farlight_v1.env(num_players=3)
    env.reset(seed=3)
    for _ in range(60):
        for info in env.infos.values():
            assert tuple(info) == NUMERIC_INFO_KEYS
            for value in info.values():
                assert isinstance(value, int) or (
                    isinstance(value, np.ndarray) and value.dtype.kind in "iuf"
                ), value
            assert copy.deepcopy(info).keys() == info.keys()
        env.step(_legal(env))


def test_an_illegal_action_ends_the_game_with_minus_one_for_the_offender_only() -> None:
    env = farlight_v1.env(num_players=3)
    env.reset(seed=0)
    offender = env.agent_selection
    env.step(_illegal(env))
    assert all(env.terminations.values())
    assert env.rewards == {a: (-1.0 if a == offender else 0.0) for a in env.possible_agents}
    seat = env.unwrapped.agent_name_mapping[offender]
    assert all(info["illegal_action"] == seat for info in env.infos.values())


def test_illegal_action_raise_is_still_there_for_debugging() -> None:
    env = farlight_v1.env(num_players=2, illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError):
        env.step(_illegal(env))


@pytest.mark.parametrize("wrap", [int, np.int64, np.int8, np.uint16, np.array])
def test_any_integer_like_action_is_taken(wrap) -> None:
    """A 0-d integer array too, as Gymnasium's `Discrete.contains` accepts (Minari's tutorial
    steps one); v0 refuses it."""
    env, twin = farlight_v1.env(num_players=2), farlight_v1.env(num_players=2)
    env.reset(seed=1)
    twin.reset(seed=1)
    index = _legal(env)
    assert gym.spaces.Discrete(env.action_space(env.agent_selection).n).contains(wrap(index))
    before = env.unwrapped.game.to_json()
    env.step(wrap(index))
    twin.step(index)
    assert env.unwrapped.game.to_json() == twin.unwrapped.game.to_json() != before


@pytest.mark.parametrize("action", [True, 1.0, np.array([0]), np.array(0.0), "0"])
def test_actions_that_are_not_integers_are_still_refused(action) -> None:
    env = farlight_v1.env(num_players=2)
    env.reset(seed=1)
    with pytest.raises(TypeError, match="must be an int index"):
        env.step(action)


def test_v0_keeps_its_defaults() -> None:
    env = farlight_v0.env(num_players=2)
    env.reset(seed=0)
    assert "view" in env.infos["player_0"]
    with pytest.raises(IllegalActionError):
        env.step(_illegal(env))


@pytest.mark.parametrize("name", ["random", "heuristic", "ismcts@4"])
def test_agents_play_v1_through_agent_info_exactly_as_on_v0(name: str) -> None:
    """The ten-line loop: `agent_info` is the one call a planning agent needs on v1, and the
    same seeded agents play the same game on both versions."""

    v1 = _decisions(farlight_v1, name, num_players=3, seed=11)
    assert len(v1) > 100 and v1 == _decisions(farlight_v0, name, num_players=3, seed=11)


def test_gymnasium_v1_and_its_vector_entry_point_share_spaces() -> None:
    single = gym.make(farlight_env.GYM_ID_V1, num_players=2)
    vector = gym.make_vec(farlight_env.GYM_ID_V1, 3, num_players=2)
    assert vector.single_observation_space == single.observation_space
    assert vector.single_action_space == single.action_space
    observations, _ = vector.reset(seed=0)
    assert observations.shape == (3, *single.observation_space.shape)
    masks = vector.action_masks()
    actions = np.array([np.flatnonzero(m)[0] for m in masks])
    _, rewards, *_ = vector.step(actions)
    assert rewards.shape == (3,)
    _, info = single.reset(seed=0)
    assert set(info) == {"learner_seat", *NUMERIC_INFO_KEYS}
    single.step(np.array(int(np.flatnonzero(single.unwrapped.action_masks())[0])))


@pytest.mark.parametrize("name", ["heuristic", "ismcts"])
def test_a_planning_agent_given_v1s_numeric_info_names_the_call_that_gives_its_view(
    name: str,
) -> None:
    env = farlight_v1.env(num_players=2)
    env.reset(seed=0)
    observation, _, _, _, info = env.last()
    with pytest.raises(ValueError, match=r"env\.unwrapped\.agent_info\(agent\)"):
        make(name).act(observation["observation"], observation["action_mask"], info)


def test_a_v1_observation_is_compact_bounded_and_expands_to_v0s_exactly() -> None:
    """At most 16,400 bytes (v0: 65,224), inside its Box, and `compact_codec.expand` gives
    v0's float vector bit for bit at every decision of the same seeded game."""
    v0, v1 = farlight_v0.env(num_players=4), farlight_v1.env(num_players=4)
    v0.reset(seed=5)
    v1.reset(seed=5)
    codec = v1.unwrapped.compact_codec
    space = v1.observation_space("player_0")["observation"]
    for _ in range(150):
        old, *_ = v0.last()
        new, *_ = v1.last()
        assert new["observation"].nbytes <= 16_400 and space.contains(new["observation"])
        assert codec.expand(new["observation"]).tobytes() == old["observation"].tobytes()
        action = _legal(v0)
        v0.step(action)
        v1.step(action)


@pytest.mark.parametrize("name", ["ppo", "bidder"])
def test_the_shipped_policies_decide_the_same_on_v1(name: str) -> None:
    pytest.importorskip("torch", reason="the shipped networks need the train extra")

    v1 = _decisions(farlight_v1, name, num_players=2, seed=2, max_iter=120)
    assert v1 == _decisions(farlight_v0, name, num_players=2, seed=2, max_iter=120)
