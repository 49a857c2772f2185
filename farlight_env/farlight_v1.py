"""Versioned entry point, as in `pettingzoo.classic`: `farlight_v1.env()` / `raw_env()`, and
`rllib_env()` for Ray RLlib. v1 plays v0's game with the classic games' defaults: plain numeric
infos, an illegal action ends the game (-1 for the offender), integer-like actions taken
(`farlight_env.env.aec_v1`). `farlight_v0` stays as it was."""

from __future__ import annotations

from typing import Any

from farlight_env.env.aec_v1 import env, raw_env

__all__ = ["env", "raw_env", "rllib_env"]


def rllib_env(**kwargs: Any) -> Any:
    """RLlib's own `PettingZooEnv` around `env(**kwargs)` (v1's defaults are what RLlib needs:
    its env check steps unmasked actions, and its runners ship infos). Needs `ray[rllib]`."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    return PettingZooEnv(env(**kwargs))
