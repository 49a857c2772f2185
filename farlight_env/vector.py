"""Vectorised Farlight for batch learners: many single-agent games stepped as one.

SuperSuit's AEC vectorizer hands back an object array of observation dicts in-process and
cannot run workers for Farlight (docs/interop/supersuit.md); `make_vector_env` is the
documented replacement: a Gymnasium `VectorEnv` of `FarlightSingleAgentEnv` whose
observations are batched dicts ``{"observation": (n, 16306) float32, "action_mask": (n, 496)
int8}``, with same-step autoreset (a finished game's next observation, with a legal mask, comes
back in the step that ended it; the last one is in ``infos["final_obs"]``), per-env seeds
drawn from one seed, and games in this process or in worker processes over shared memory.
`action_masks()` gives the current masks as booleans, as sb3-contrib's MaskablePPO asks.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv, VectorWrapper

from farlight_env.env.single_agent import FarlightSingleAgentEnv
from farlight_env.env.subgame import LearnerDecisions

MASK = "action_mask"


class MaskInObservation(gym.ObservationWrapper):
    """`FarlightSingleAgentEnv` with the learner's mask in its observation, as the AEC env
    gives it: {"observation": float32 vector, "action_mask": int8 vector}."""

    def __init__(self, env: FarlightSingleAgentEnv) -> None:
        super().__init__(env)
        size = int(env.action_space.n)
        self.observation_space = gym.spaces.Dict(
            {
                "observation": env.observation_space,
                MASK: gym.spaces.Box(0, 1, (size,), dtype=np.int8),
            }
        )

    def observation(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        mask = self.env.unwrapped.action_masks().astype(np.int8)
        return {"observation": observation, MASK: mask}


def make_masked_env(
    env_class: type[FarlightSingleAgentEnv] = FarlightSingleAgentEnv, **env_kwargs: Any
) -> MaskInObservation:
    """One `env_class(**env_kwargs)` whose observation carries its mask."""
    return MaskInObservation(env_class(**env_kwargs))


class _Builder:
    """A picklable env factory (worker processes get it by pickle or fork)."""

    def __init__(self, env_kwargs: dict[str, Any], env_class: type[FarlightSingleAgentEnv]) -> None:
        self.env_kwargs = env_kwargs
        self.env_class = env_class

    def __call__(self) -> MaskInObservation:
        return make_masked_env(self.env_class, **self.env_kwargs)


class FarlightVectorEnv(VectorWrapper):
    """A Gymnasium vector env of masked Farlight games that also answers `action_masks()`.
    With `mask_in_observation=False` its observations are the single env's vectors alone
    (the spaces of `gymnasium.make`'s env, as Gymnasium's `vector_entry_point` expects)."""

    def __init__(self, env: gym.vector.VectorEnv, mask_in_observation: bool = True) -> None:
        super().__init__(env)
        self.mask_in_observation = mask_in_observation
        if not mask_in_observation:
            self.observation_space = env.observation_space["observation"]
            self.single_observation_space = env.single_observation_space["observation"]
        self._masks = np.zeros((self.num_envs, int(self.single_action_space.n)), dtype=bool)

    def reset(self, **kwargs: Any) -> tuple[Any, dict[str, Any]]:
        observations, infos = self.env.reset(**kwargs)
        return self._keep_masks(observations), infos

    def step(self, actions: Any) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict]:
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        if not self.mask_in_observation and "final_obs" in infos:
            final = infos["final_obs"]
            infos["final_obs"] = np.array(
                [None if o is None else o["observation"] for o in final], dtype=object
            )
        return self._keep_masks(observations), rewards, terminations, truncations, infos

    def _keep_masks(self, observations: dict[str, np.ndarray]) -> Any:
        self._masks = observations[MASK].astype(bool)
        return observations if self.mask_in_observation else observations["observation"]

    def action_masks(self) -> np.ndarray:
        """The legal actions of every env now, (num_envs, 496) booleans."""
        return self._masks.copy()


def make_vector_env(
    num_envs: int,
    *,
    workers: bool = False,
    context: str | None = None,
    env_class: type[FarlightSingleAgentEnv] = FarlightSingleAgentEnv,
    mask_in_observation: bool = True,
    **env_kwargs: Any,
) -> FarlightVectorEnv:
    """`num_envs` masked Farlight games as one Gymnasium vector env.

    `workers=True` runs each game in its own process (Gymnasium's AsyncVectorEnv, with
    observations in shared memory; `context` is its multiprocessing start method); otherwise
    they share this process. `env_kwargs` go to every `env_class` (num_players, opponents,
    learner_seat, reward_mode, ...). `reset(seed=s)` seeds env i with s + i.
    """
    if num_envs < 1:
        raise ValueError(f"num_envs must be at least 1, got {num_envs}")
    if "learner_decisions" in env_kwargs:  # parsed once here, every env handed the typed value
        env_kwargs["learner_decisions"] = LearnerDecisions.of(env_kwargs["learner_decisions"])
    builders = [_Builder(env_kwargs, env_class) for _ in range(num_envs)]
    mode = AutoresetMode.SAME_STEP
    if workers:
        env = AsyncVectorEnv(builders, shared_memory=True, context=context, autoreset_mode=mode)
    else:
        env = SyncVectorEnv(builders, autoreset_mode=mode)
    return FarlightVectorEnv(env, mask_in_observation)


def make_vector_env_v1(num_envs: int, **kwargs: Any) -> FarlightVectorEnv:
    """`farlight_env/Farlight-v1`'s `vector_entry_point`: `num_envs` v1 games whose batched
    observations have the single env's space; the masks come from `action_masks()`."""
    from farlight_env.env.single_agent import FarlightSingleAgentEnvV1

    kwargs.setdefault("mask_in_observation", False)
    return make_vector_env(num_envs, env_class=FarlightSingleAgentEnvV1, **kwargs)


def random_legal_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of `masks` (for tests, demos and timing)."""
    noise = rng.random(masks.shape)
    return np.where(masks.astype(bool), noise, -1.0).argmax(axis=1)
