"""Uniform random play over legal actions: the floor every policy must clear."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np


class RandomAgent:
    """Picks uniformly among the mask's legal actions with its own seeded Generator."""

    name = "random"
    needs_observation = False  # the mask is enough

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """Keeps its Generator running: a tournament seeds agents per game instead."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        legal = np.flatnonzero(action_mask)
        if len(legal) == 0:
            raise ValueError("random agent asked to act with an all-zero action mask")
        return int(legal[self.rng.integers(len(legal))])
