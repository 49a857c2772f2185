"""Scripted agents (needs_observation = False) are not given an encoded observation: loops pass
a blank read-only vector and the real mask, and games come out exactly the same."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from evaluation.arena import play_episode
from farlight_env import farlight_v0
from farlight_env.env.single_agent import FarlightSingleAgentEnv


class Recorder:
    """Wraps an agent and keeps what it was given; `needs` sets needs_observation."""

    def __init__(self, inner, needs: bool) -> None:
        self.inner, self.needs_observation, self.name = inner, needs, inner.name
        self.vectors: list[np.ndarray] = []

    def reset(self) -> None:
        self.inner.reset()

    def act(self, observation, action_mask, info) -> int:
        self.vectors.append(observation)
        return self.inner.act(observation, action_mask, info)


def test_scripted_agents_declare_they_ignore_the_vector() -> None:
    assert agents.make("random").needs_observation is False
    assert agents.make("heuristic").needs_observation is False
    assert agents.make("ismcts").needs_observation is False
    assert getattr(agents.make("ppo"), "needs_observation", True) is True


@pytest.mark.parametrize("needs", [False, True])
def test_arena_gives_a_blank_vector_only_to_agents_that_ignore_it(needs: bool) -> None:
    env = farlight_v0.raw_env(num_players=3)
    env.reset(seed=5)
    seats = [Recorder(agents.make("heuristic", seed=s), needs) for s in range(3)]
    play_episode(env, seats)
    vectors = [v for seat in seats for v in seat.vectors]
    assert vectors
    if needs:
        assert all(v.flags.writeable and v.any() for v in vectors)
    else:
        assert all(not v.flags.writeable and not v.any() for v in vectors)


def final_state(needs: bool, seed: int) -> str:
    env = farlight_v0.raw_env(num_players=3)
    env.reset(seed=seed)
    play_episode(env, [Recorder(agents.make("heuristic", seed=s), needs) for s in range(3)])
    return env.game.to_json()


@pytest.mark.parametrize("seed", [0, 1])
def test_skipping_the_encoding_changes_no_game(seed: int) -> None:
    assert final_state(False, seed) == final_state(True, seed)


def test_single_agent_env_opponents_skip_encoding_and_play_the_same() -> None:
    def episode(needs: bool) -> tuple[list[float], str]:
        opponents = [Recorder(agents.make("heuristic", seed=9), needs)]
        env = FarlightSingleAgentEnv(num_players=2, opponents=opponents)
        obs, _ = env.reset(seed=3)
        rng, rewards = np.random.default_rng(0), []
        done = False
        while not done:
            legal = np.flatnonzero(env.action_masks())
            obs, reward, terminated, truncated, _ = env.step(int(rng.choice(legal)))
            rewards.append(reward)
            done = terminated or truncated
        blank = not opponents[0].vectors[0].any()
        assert blank is (not needs)
        return rewards, env.aec.game.to_json()

    assert episode(False) == episode(True)
