"""How a Farlight dataset stores observations and masks: the compact form (#49) or v0's floats.

"compact", written by `farlight dataset` since #49: each observation is `farlight_v1`'s compact
uint8 vector (16,351 bytes), so the dataset's observation space is the registered Gymnasium
env's (`gymnasium.make("farlight_env/Farlight-v1", num_players=n).observation_space`); the
action mask of every observation is `infos["action_mask"]` (int8, one row per observation);
the dataset carries an `env_spec` of that env with the recorded agents as opponents, so
`dataset.recover_environment()` builds it.

"float", written before: observations `{"observation": float32[16306], "action_mask":
int8[496]}` (v0's AEC observation), no `env_spec`. It still reads; a description without an
"observations" entry is of this form.

`CompactCodec.expand` turns compact observations into the float ones bit for bit, so readers
give float32 observations whatever the form.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.envs.registration import EnvSpec

from farlight_env import GYM_ID_V1
from farlight_env.encode.compact import CompactCodec
from farlight_env.env.aec import OBSERVATION_FORMS as ENV_OBSERVATION_FORMS
from farlight_env.env.aec import check_observation_form as check_form
from farlight_env.env.aec import raw_env
from training.farlight.datasets.errors import DatasetError, check_array

#: The forms a dataset's observations may take: the env's own (`raw_env(observation=...)`).
OBSERVATION_FORMS = ENV_OBSERVATION_FORMS
DEFAULT_OBSERVATIONS = "compact"
#: The form of a description that names none (datasets written before #49).
LEGACY_OBSERVATIONS = "float"
#: Where the compact form keeps each observation's action mask.
MASK_INFO = "action_mask"


@functools.lru_cache(maxsize=8)
def _aec(num_players: int) -> raw_env:
    """A v0 AEC env of the standard game (its spaces and codec; never reset here)."""
    return raw_env(num_players=num_players)


def codec(num_players: int) -> CompactCodec:
    """The compact codec of the standard game's observations (`farlight_v1`'s)."""
    return _aec(num_players).compact_codec


def observation_space(form: str, num_players: int) -> spaces.Space:
    """The dataset's observation space: v1's compact Box, or v0's AEC observation Dict."""
    if check_form(form) == "compact":
        return codec(num_players).space()
    return _aec(num_players).observation_space("player_0")


def action_space(num_players: int) -> spaces.Discrete:
    """Discrete(496): one action space for every decision, as both envs have."""
    return _aec(num_players).action_space("player_0")


def env_spec(agents: list[str] | tuple[str, ...]) -> EnvSpec:
    """The EnvSpec of `farlight_env/Farlight-v1` playing the recorded table: seat i's agent as
    opponent i (the learner's own entry is ignored), the learner at a random seat. Its kwargs
    are plain JSON, as Minari's `EnvSpec.to_json` needs (importing farlight_env registered
    the id)."""
    kwargs = {"num_players": len(agents), "opponents": list(agents), "learner_seat": "random"}
    return dataclasses.replace(gymnasium.spec(GYM_ID_V1), kwargs=kwargs)


# ---- writing ------------------------------------------------------------------------------
def stored_observations(
    form: str, num_players: int, observations: list[np.ndarray], masks: list[np.ndarray]
) -> tuple[Any, dict[str, np.ndarray]]:
    """One episode's float observations and masks as the form stores them: (observations,
    what goes into its infos besides the seat)."""
    floats, stacked = np.stack(observations), np.stack(masks).astype(np.int8)
    if check_form(form) == "float":
        return {"observation": floats, "action_mask": stacked}, {}
    return codec(num_players).compact(floats), {MASK_INFO: stacked}


# ---- reading (from anyone: every field checked) -------------------------------------------
def read_observations(
    form: str, episode: Any, where: str, rows: int, num_players: int
) -> tuple[np.ndarray, np.ndarray]:
    """An episode's float32 observations and int8 masks, `rows` of each, checked against the
    form's space (a compact byte above its bound is a DatasetError); compact ones expanded."""
    if form == "float":
        return _float_form(episode, where, rows, num_players)
    space = observation_space("compact", num_players)
    codes = check_array(episode.observations, where, "observations", np.uint8, (rows, *space.shape))
    infos = episode.infos if isinstance(episode.infos, dict) else {}
    shape = (rows, action_space(num_players).n)
    masks = check_array(infos.get(MASK_INFO), where, f"infos[{MASK_INFO!r}]", np.int8, shape)
    over = np.flatnonzero((codes > space.high).any(axis=0))
    if len(over):
        raise DatasetError(f"{where}: observations: byte {over[0]} exceeds its bound")
    return codec(num_players).expand(codes), masks


def _float_form(episode: Any, where: str, rows: int, num_players: int) -> tuple[Any, Any]:
    """The float form's `{"observation", "action_mask"}`, checked for dtypes and shapes."""
    space = observation_space("float", num_players)
    observations = episode.observations
    if not isinstance(observations, dict) or set(observations) != set(space.spaces):
        raise DatasetError(f"{where}: observations must be a dict of {sorted(space.spaces)}")
    size, width = space["observation"].shape, space["action_mask"].shape
    vectors = check_array(
        observations["observation"], where, "observation", np.float32, (rows, *size)
    )
    masks = check_array(observations["action_mask"], where, "action_mask", np.int8, (rows, *width))
    return vectors, masks


# ---- Minari's DataCollector ---------------------------------------------------------------
class MaskInInfos:
    """A `step_data_callback` for `minari.DataCollector` on `farlight_env/Farlight-v1`: each
    step's info gains the learner's action mask (int8), where `farlight dataset` keeps it, so
    imitation learners can mask. Use with `record_infos=True` (Minari drops infos otherwise)."""

    def __call__(
        self,
        env: Any,
        obs: Any,
        info: dict[str, Any],
        action: Any = None,
        rew: Any = None,
        terminated: bool | None = None,
        truncated: bool | None = None,
    ) -> dict[str, Any]:
        """Minari's step data (its `StepDataCallback` contract) with the mask in the info."""
        mask = np.asarray(env.unwrapped.action_masks(), dtype=np.int8)
        return {
            "action": action,
            "observation": obs,
            "reward": rew,
            "terminated": terminated,
            "truncated": truncated,
            "info": {**info, MASK_INFO: mask},
        }
