"""The Agent protocol shared by env loops, tournaments and training, for every game."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """Anything that picks an action index from an observation, its mask and the info dict.

    `info["view"]` is the acting seat's `PlayerView` (public facts only) when the caller has a
    game; agents that plan on game states use it, learned policies ignore it. An agent may set
    `needs_observation = False` to say it never reads the observation vector: game loops then
    skip encoding it and pass a blank vector (the mask and info are always real).
    """

    name: str

    def act(
        self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]
    ) -> int: ...

    def reset(self) -> None: ...
