"""Evaluation during training: the model being trained as an Agent, and its win rate against
an opponent in seat rotation."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.farlight.policy import PolicyAgent
from agents.registry import make
from evaluation.arena import play_episode
from training.farlight.envs import TRAINING_OBSERVATION


def evaluate_against(
    policy: PolicyAgent | Any,
    opponent: str,
    games: int,
    num_players: int,
    seed: int,
    options: dict[str, Any] | None = None,
) -> float:
    """Win rate (shared victories count as a fraction) of `policy` in seat rotation, in
    games with the given env `options` (card set, grid size, round cap)."""
    from farlight_env.env.aec import raw_env

    wins = 0.0
    for g in range(games):
        seat = g % num_players
        env = raw_env(num_players=num_players, observation=TRAINING_OBSERVATION, **(options or {}))
        env.reset(seed=seed + g)
        seats = [
            policy if s == seat else make(opponent, seed=seed * 7 + g * 11 + s)
            for s in range(num_players)
        ]
        play_episode(env, seats)
        winners = env.game.winners()
        if seat in winners:
            wins += 1.0 / len(winners)
    return wins / games


class LivePolicy:
    """The model being trained, as an Agent (masked, deterministic); a float32 observation is
    given to it in the compact form it trains on."""

    def __init__(self, model: Any) -> None:
        self.model = model

    def reset(self) -> None:
        pass

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Any) -> int:
        if observation.dtype == np.float32 and self.model.observation_space.dtype == np.uint8:
            codec = self.model.policy.pi_features_extractor.compact_input.codec
            observation = codec.compact(observation)
        action, _ = self.model.predict(
            observation, action_masks=action_mask.astype(bool), deterministic=True
        )
        return int(action)
