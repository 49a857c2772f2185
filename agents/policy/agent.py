"""`PolicyAgent`: plays a saved policy, the most probable legal action (or a sample)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.policy.file import SHIPPED_POLICY, load_policy


class PolicyAgent:
    """Plays a saved policy: the most probable legal action (or a sample, if stochastic)."""

    def __init__(
        self, path: str | Path = SHIPPED_POLICY, seed: int | None = None, deterministic: bool = True
    ) -> None:
        self.path = Path(path)
        self.net, self.config = load_policy(self.path)
        self.name = str(self.config.get("name", self.path.stem))
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """Stateless between games."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        logits = self.logits(observation, action_mask)
        if self.deterministic:
            return int(np.argmax(logits))
        probs = np.exp(logits - logits.max())
        probs /= probs.sum()
        return int(self.rng.choice(len(probs), p=probs))

    def logits(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The network's logits for one position, illegal actions at -inf (float64)."""
        self._check_shapes(len(observation), len(action_mask))
        with torch.no_grad():
            logits = self.net(torch.as_tensor(observation, dtype=torch.float32)[None])[0]
        logits = logits.numpy().astype(np.float64)
        logits[np.asarray(action_mask) == 0] = -np.inf
        return logits

    def best_moves(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The favourite legal action of each row, in one network call (search play-outs)."""
        self._check_shapes(observations.shape[1], action_masks.shape[1])
        with torch.no_grad():
            logits = self.net(torch.as_tensor(observations, dtype=torch.float32)).numpy()
        return np.where(action_masks != 0, logits, -np.inf).argmax(axis=1)

    def _check_shapes(self, observation_size: int, actions: int) -> None:
        size = self.config["action_size"]
        if actions != size or observation_size != self.config["obs_size"]:
            raise ValueError(
                f"policy {self.path.name} expects observations of {self.config['obs_size']} and "
                f"{size} actions; got {observation_size} and {actions} (another card "
                "set or grid size?)"
            )
