"""Tiny training runs shared by the training tests: configurations a few hundred steps long,
and the checks run on what they produce."""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import env_states
import numpy as np

from training.farlight.config import PPOConfig, SelfPlayConfig

if TYPE_CHECKING:
    from sb3_contrib import MaskablePPO

    from agents.farlight.policy import PolicyAgent

PLAYER_COUNTS = (2, 3, 4, 5)
#: One rollout is N_STEPS x N_ENVS = 256 steps; checkpoints and evaluations every rollout.
N_STEPS, N_ENVS, BATCH = 128, 2, 64
ROLLOUT = N_STEPS * N_ENVS
#: Adam steps per PPO update: one epoch of ROLLOUT / BATCH minibatches.
ADAM_STEPS_PER_UPDATE = ROLLOUT // BATCH


def tiny_ppo(run_dir: Path, **overrides: object) -> PPOConfig:
    settings = dict(
        run_dir=str(run_dir),
        total_steps=2 * ROLLOUT,
        n_steps=N_STEPS,
        batch_size=BATCH,
        n_epochs=1,
        n_envs=N_ENVS,
        vec_env="dummy",
        checkpoint_every=ROLLOUT,
        eval_every=ROLLOUT,
        eval_games=1,
        opponents=["random"],
        torch_threads=1,
    )
    settings.update(overrides)
    return PPOConfig(**settings)


def tiny_league(run_dir: Path, **overrides: object) -> SelfPlayConfig:
    settings = dict(
        run_dir=str(run_dir),
        total_steps=512,
        n_steps=128,
        batch_size=64,
        n_epochs=1,
        n_envs=1,
        vec_env="dummy",
        snapshot_every=256,
        checkpoint_every=256,
        eval_games=1,
        rating_games=2,
        torch_threads=1,
    )
    settings.update(overrides)
    return SelfPlayConfig(**settings)


def random_states(
    num_players: int, seed: int, every: int = 9
) -> Iterator[tuple[np.ndarray, np.ndarray, dict]]:
    return env_states.random_states(num_players, seed, every)


def assert_acts_legally(agent: PolicyAgent, num_players: int, seed: int) -> None:
    count = 0
    for obs, mask, info in random_states(num_players, seed):
        action = agent.act(obs, mask, info)
        assert mask[action] == 1, (num_players, action)
        count += 1
    assert count > 10


def adam_steps(model: MaskablePPO) -> set[int]:
    """The step count of every parameter's Adam state (empty for a fresh optimiser)."""
    state = model.policy.optimizer.state_dict()["state"]
    return {int(s["step"]) for s in state.values()}


def csv_rows(run_dir: Path) -> list[dict[str, str]]:
    with (run_dir / "logs" / "progress.csv").open() as fh:
        return list(csv.DictReader(fh))
