"""Any declared game as a Gymnasium env (#50), on the throw-away duel (tests/toy_game.py):
Gymnasium's own checker, seeded episodes that repeat, opponents of every kind, the vector form,
and MaskablePPO learning it."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from farlight_env import GAME_GYM_ID
from farlight_env.platform import GameError, register
from farlight_env.platform.gym import PlatformSingleAgentEnv
from farlight_env.platform.registry import unregister
from tests.toy_game import DUEL


@pytest.fixture(autouse=True)
def duel_registered():
    register(DUEL, replace=True)
    yield
    unregister("duel")


def _episode(env: gym.Env, seed: int, pick=lambda mask: int(np.flatnonzero(mask)[-1])):
    observation, info = env.reset(seed=seed)
    trace = [(observation.tolist(), info["learner_seat"])]
    done = False
    while not done:
        observation, reward, done, truncated, info = env.step(pick(env.action_masks()))
        trace.append((observation.tolist(), reward, done, truncated))
    return trace, info


def test_gymnasiums_checker_passes_through_make() -> None:
    env = gym.make(GAME_GYM_ID, game="duel", num_players=3)
    check_env(env.unwrapped, skip_render_check=True)
    assert env.unwrapped.action_space.n == 2 and env.unwrapped.observation_space.shape == (15,)


def test_a_seeded_episode_repeats_and_ends_with_the_generic_reward() -> None:
    env = PlatformSingleAgentEnv("duel", num_players=3, opponents="random")
    first, info = _episode(env, seed=4)
    again, _ = _episode(env, seed=4)
    assert first == again
    reward = first[-1][1]
    winners, seat = info["winners"], info["learner_seat"]
    assert reward == (0.0 if len(winners) == 3 else 1.0 if seat in winners else -1.0)


def test_the_learner_seat_and_opponents_of_every_kind() -> None:
    from agents import make

    seen = set()
    for opponents in (None, "ismcts", make("random", seed=3), lambda obs, mask: 0, ["random"]):
        env = PlatformSingleAgentEnv("duel", learner_seat=1, opponents=opponents)
        _trace, info = _episode(env, seed=1)
        assert info["learner_seat"] == 1 and len(info["scores"]) == 2
        seen.add(type(opponents).__name__)
    assert len(seen) == 5
    with pytest.raises(GameError, match="learner_seat must be 'random' or a seat 0..1"):
        PlatformSingleAgentEnv("duel", learner_seat=2)
    with pytest.raises(GameError, match="a list of 1 \\(one per other seat\\), got 3"):
        PlatformSingleAgentEnv("duel", opponents=["random"] * 3)
    with pytest.raises(GameError, match="duel has no option 'colour'"):
        PlatformSingleAgentEnv("duel", colour=1)


def test_an_illegal_learner_action_ends_the_episode_at_minus_one() -> None:
    env = PlatformSingleAgentEnv("duel", learner_seat=0)
    env.reset(seed=0)
    _obs, reward, done, _truncated, info = env.step(5)
    assert done and reward == -1.0 and info["illegal_action"] == 0
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)


def test_the_vector_form_is_gymnasiums_own() -> None:
    envs = gym.make_vec(GAME_GYM_ID, num_envs=3, game="duel", vectorization_mode="sync")
    observations, _infos = envs.reset(seed=0)
    assert observations.shape == (3, 12)
    masks = np.stack(envs.call("action_masks"))
    assert masks.shape == (3, 2) and masks.all()
    envs.close()


def test_maskable_ppo_learns_the_duel() -> None:
    """A few thousand steps of MaskablePPO take the learner from random play's share of the
    wins (one half) to staying with high cards and folding with low ones."""
    sb3_contrib = pytest.importorskip("sb3_contrib")

    env = PlatformSingleAgentEnv("duel", opponents="random")
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, seed=0)
    model.learn(6_000)
    won = 0.0
    for seed in range(400):
        observation, _ = env.reset(seed=10_000 + seed)
        done = False
        while not done:
            action, _ = model.predict(
                observation, action_masks=env.action_masks(), deterministic=True
            )
            observation, reward, done, _truncated, info = env.step(int(action))
        won += (info["learner_seat"] in info["winners"]) / len(info["winners"])
    assert won / 400 > 0.6  # measured here: 0.7025 (random play: 0.5)
