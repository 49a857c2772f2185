"""`farlight_v1`'s AEC env: `farlight_v0`'s game with the defaults of PettingZoo's classic games.

What changes against v0 (docs/environment.md, "Versions"): the observation is the compact
uint8 form (a quarter of the bytes, bounded, `compact_codec.expand` gives v0's floats back),
infos hold plain numbers only (the numeric infos, which every library can copy and turn into
tensors), an illegal action ends the game with -1 for the offender and 0 for the others, and
any integer-like action is taken (a Python int, a numpy integer or a 0-d integer array, as
Gymnasium's `Discrete` accepts).
Planning agents read their seat's view through `env.unwrapped.agent_info(agent)`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv

from farlight_env.env import aec
from farlight_env.env.order import FastOrderWrapper

#: v1's defaults, where they differ from v0's (`aec.raw_env`).
V1_DEFAULTS: dict[str, Any] = {
    "illegal_action": "terminate",
    "infos": "numeric",
    "observation": "compact",
}


def action_index(action: Any) -> Any:
    """A 0-d integer array as the int it holds; anything else as it is (step checks it)."""
    if (
        isinstance(action, np.ndarray)
        and action.ndim == 0
        and np.issubdtype(action.dtype, np.integer)
    ):
        return int(action)
    return action


class raw_env(aec.raw_env):  # noqa: N801 - PettingZoo naming convention
    """Farlight for 2–5 players with PettingZoo's classic conventions (see the module)."""

    metadata = {**aec.raw_env.metadata, "name": "farlight_v1"}

    def __init__(self, num_players: int = 4, card_set: Any = None, **kwargs: Any) -> None:
        """The arguments of `farlight_env.env.aec.raw_env`, with `V1_DEFAULTS`."""
        super().__init__(num_players, card_set, **{**V1_DEFAULTS, **kwargs})

    def step(self, action: Any) -> None:
        """v0's step, taking any integer-like action index."""
        super().step(action_index(action))


def env(**kwargs: Any) -> AECEnv:
    """The wrapped v1 environment (call order enforced, as `farlight_env.env.aec.env`)."""
    return FastOrderWrapper(raw_env(**kwargs))
