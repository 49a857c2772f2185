"""Versioned entry point, as in `pettingzoo.classic`: `farlight_v0.env()` / `raw_env()`, and
`rllib_env()` for Ray RLlib (docs/interop/rllib.md)."""

from __future__ import annotations

from typing import Any

from farlight_env.env.aec import env, raw_env

__all__ = ["env", "raw_env", "rllib_env"]


def rllib_env(**kwargs: Any) -> Any:
    """RLlib's own `PettingZooEnv` around `env(**kwargs)`, with defaults RLlib needs.

    `illegal_action="terminate"`: RLlib's environment check steps an action drawn from the
    action space without the mask, which the default "raise" refuses (the env runner then
    dies, blaming the Gymnasium API). `infos="numeric"`: numbers only, cheap to ship from env
    runners to learners. Either can be overridden; with "raise", switch the check off
    (`config.environment(disable_env_checking=True)`). Needs `ray[rllib]`.
    """
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    kwargs.setdefault("illegal_action", "terminate")
    kwargs.setdefault("infos", "numeric")
    return PettingZooEnv(env(**kwargs))
