"""The shared-memory SubprocVecEnv hands the learner exactly what SB3's SubprocVecEnv does:
the same observations, rewards, dones, infos (terminal observations included) and action
masks, step after step across episode ends; other env calls still reach the workers."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason="training needs the train extra (sb3-contrib)")

from sb3_contrib.common.maskable.utils import get_action_masks  # noqa: E402
from stable_baselines3.common.vec_env import SubprocVecEnv  # noqa: E402

from training.farlight.config import PPOConfig  # noqa: E402
from training.farlight.envs import make_env_fn, probe_env  # noqa: E402
from training.farlight.sb3.vec_env import SharedMemoryVecEnv  # noqa: E402

CONFIG = PPOConfig(n_envs=2, opponents=["random"], reward_mode="margin", seed=3)


def vec_envs() -> list[SubprocVecEnv]:
    fns = [make_env_fn(CONFIG, rank) for rank in range(CONFIG.n_envs)]
    probe = probe_env(CONFIG)
    return [
        SubprocVecEnv(fns, start_method="fork"),
        SharedMemoryVecEnv(fns, probe.observation_space, probe.action_space, "fork"),
    ]


def same_info(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    for key, value in a.items():
        if isinstance(value, np.ndarray):
            if not np.array_equal(value, b[key]) or value.dtype != b[key].dtype:
                return False
        elif value != b[key]:
            return False
    return True


def test_steps_match_sb3s_subproc_vec_env() -> None:
    envs = vec_envs()
    try:
        rng = np.random.default_rng(0)
        first = [env.reset() for env in envs]
        assert np.array_equal(*first) and first[0].dtype == first[1].dtype
        ends = 0
        for _step in range(400):
            masks = [get_action_masks(env) for env in envs]
            assert np.array_equal(*masks) and masks[0].dtype == masks[1].dtype == bool
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks[0]])
            results = [env.step(actions) for env in envs]
            (obs, rewards, dones, infos), (obs2, rewards2, dones2, infos2) = results
            assert np.array_equal(obs, obs2) and obs.dtype == obs2.dtype
            assert np.array_equal(rewards, rewards2) and rewards.dtype == rewards2.dtype
            assert np.array_equal(dones, dones2)
            assert all(same_info(a, b) for a, b in zip(infos, infos2, strict=True))
            assert envs[0].reset_infos == envs[1].reset_infos
            ends += int(dones.sum())
        assert ends >= 2, "the comparison should cross episode ends"
    finally:
        for env in envs:
            env.close()


def test_other_calls_reach_the_workers_and_masks_follow() -> None:
    _stock, env = vec_envs()
    _stock.close()
    try:
        env.reset()
        assert env.has_attr("action_masks")
        assert env.get_attr("num_players") == [2, 2]
        seats = env.get_attr("learner_seat")
        env.set_attr("learner_seat_option", 0)
        assert env.get_attr("learner_seat") == seats
        assert env.env_method("action_masks", indices=[1])[0].shape == (env.action_space.n,)
        remote = env.env_method("action_masks")  # asked of the workers: set_attr came between
        env.step(np.array([int(np.flatnonzero(m)[0]) for m in remote]))
        shared = env.env_method("action_masks")
        asked = SharedMemoryVecEnv.__mro__[1].env_method(env, "action_masks")
        assert all(np.array_equal(a, b) for a, b in zip(shared, asked, strict=True))
    finally:
        env.close()
