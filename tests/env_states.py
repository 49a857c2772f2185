"""Shared test helper: agent inputs sampled from random games through the PettingZoo env."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from farlight_env import farlight_v0


def random_states(
    num_players: int, seed: int, every: int = 7
) -> Iterator[tuple[np.ndarray, np.ndarray, dict]]:
    """(observation, mask, info) at every `every`-th decision of a random game."""
    env = farlight_v0.raw_env(num_players=num_players)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for k, agent in enumerate(env.agent_iter()):
        obs, _r, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        mask = obs["action_mask"]
        if k % every == 0:
            view = {**info, "seat": env.agent_name_mapping[agent], "view": env.player_view(agent)}
            yield obs["observation"], mask, view
        env.step(int(rng.choice(np.flatnonzero(mask))))
