"""Behaviour cloning from the heuristic: a warm start for PPO's actor.

Games are generated in chunks and discarded after one gradient pass, so memory stays small
however many games are used (an observation is ~16k bytes: the compact form training stores).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch.nn import functional as F

from agents.registry import make
from evaluation.arena import play_episode
from farlight_env.env.aec import raw_env
from training.farlight.envs import TRAINING_OBSERVATION


class Recorder:
    """Wraps a teacher agent and keeps every non-forced decision it makes."""

    def __init__(self, teacher: Any, log: list[tuple[np.ndarray, np.ndarray, int]]) -> None:
        self.teacher = teacher
        self.log = log

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Any) -> int:
        action = self.teacher.act(observation, action_mask, info)
        if action_mask.sum() > 1:  # forced moves teach nothing
            self.log.append((observation, action_mask.astype(bool), action))
        return action


def heuristic_decisions(
    games: int,
    num_players: int,
    seed: int,
    teacher: str = "heuristic",
    options: dict[str, Any] | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(observations, masks, actions) of every decision in `games` teacher self-play games
    played with the env `options` (card set, grid size, round cap)."""
    log: list[tuple[np.ndarray, np.ndarray, int]] = []
    for g in range(games):
        env = raw_env(num_players=num_players, observation=TRAINING_OBSERVATION, **(options or {}))
        env.reset(seed=seed + g)
        teachers = [make(teacher, seed=seed * 31 + g * 7 + s) for s in range(num_players)]
        play_episode(env, [Recorder(t, log) for t in teachers])
    observations, masks, actions = zip(*log, strict=True)
    return np.stack(observations), np.stack(masks), np.asarray(actions, dtype=np.int64)


def actor_logits(policy: Any, obs: torch.Tensor) -> torch.Tensor:
    features = policy.extract_features(obs, policy.pi_features_extractor)
    latent = policy.mlp_extractor.forward_actor(features)
    return policy.action_net(latent)


def behaviour_clone(
    model: Any,
    games: int,
    num_players: int,
    seed: int,
    epochs: int = 2,
    chunk: int = 20,
    batch: int = 256,
    progress: bool = True,
    options: dict[str, Any] | None = None,
) -> list[float]:
    """Train the model's actor to imitate the heuristic; returns the mean loss per chunk."""
    from tqdm.auto import tqdm

    policy = model.policy
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-3)
    rng = np.random.default_rng(seed)
    losses = []
    chunks = max(1, games // chunk)
    for c in tqdm(range(chunks), desc="imitation", unit="chunk", disable=not progress):
        obs, masks, actions = heuristic_decisions(
            chunk, num_players, seed + c * chunk, options=options
        )
        chunk_losses = []
        for _ in range(epochs):
            order = rng.permutation(len(actions))
            for start in range(0, len(order), batch):
                idx = order[start : start + batch]
                o = torch.as_tensor(obs[idx], device=policy.device)
                m = torch.as_tensor(masks[idx], device=policy.device)
                a = torch.as_tensor(actions[idx], device=policy.device)
                logits = actor_logits(policy, o).masked_fill(~m, -1e9)
                loss = F.cross_entropy(logits, a)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                chunk_losses.append(float(loss.detach()))
        losses.append(float(np.mean(chunk_losses)))
    return losses
