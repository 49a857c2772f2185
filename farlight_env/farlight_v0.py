"""Versioned entry point, as in `pettingzoo.classic`: `farlight_v0.env()` / `raw_env()`."""

from farlight_env.env.aec import env, raw_env

__all__ = ["env", "raw_env"]
