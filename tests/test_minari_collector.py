"""Minari's own DataCollector on the registered env (#49): `farlight_env/Farlight-v1` collected
with masked random actions, written, loaded and recovered, its masks kept by
`training.farlight.datasets.format.MaskInInfos` where `farlight dataset` keeps them."""

from __future__ import annotations

from pathlib import Path

import gymnasium
import numpy as np
import pytest

minari = pytest.importorskip("minari")

from farlight_env import GYM_ID_V1  # noqa: E402
from training.farlight.datasets.format import MaskInInfos  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def test_the_interop_extra_brings_what_data_collector_needs() -> None:
    """#49: DataCollector's episode buffers import jax (minari's `create` extra), which the
    interop extra lacked; it names it now, with jax pinned as the extra's other libraries."""
    from packaging.requirements import Requirement

    from farlight_env.cards.io import tomllib  # tomli on Python 3.10

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    interop = {
        Requirement(r).name: Requirement(r) for r in extras["optional-dependencies"]["interop"]
    }
    assert {"arrow", "hdf5", "create"} <= interop["minari"].extras
    assert str(interop["jax"].specifier).startswith("==")


def test_data_collector_records_the_registered_env_and_recovers_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """#49: three masked random episodes through minari.DataCollector(gymnasium.make(v1)):
    the dataset's space is the env's, each observation's mask is in its infos, and
    recover_environment() builds the same env again."""
    pytest.importorskip("jax", reason="minari[create], in the interop extra")
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    env = minari.DataCollector(
        gymnasium.make(GYM_ID_V1, num_players=2), step_data_callback=MaskInInfos, record_infos=True
    )
    rng = np.random.default_rng(0)
    for episode in range(3):
        env.reset(seed=episode)
        done = False
        while not done:
            action = rng.choice(np.flatnonzero(env.unwrapped.action_masks()))
            _, _, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
    env.create_dataset(
        "farlight/collected-v0",
        algorithm_name="masked random",
        author="tests",
        code_permalink="tests/test_minari_collector.py",
        description="three masked random episodes",
    )
    env.close()

    dataset = minari.load_dataset("farlight/collected-v0")
    assert dataset.total_episodes == 3
    assert dataset.observation_space == gymnasium.make(GYM_ID_V1, num_players=2).observation_space
    for episode in dataset.iterate_episodes():
        rows = len(episode.actions) + 1
        masks = episode.infos["action_mask"]
        assert masks.shape == (rows, 496) and masks.dtype == np.int8
        assert masks[np.arange(rows - 1), episode.actions].all() and not masks[-1].any()
        assert episode.observations.shape == (rows, 16351)
        assert episode.observations.dtype == np.uint8
        assert episode.terminations[-1] and episode.rewards[-1] in (-1.0, 0.0, 1.0)
        assert (episode.infos["illegal_action"] == -1).all()
    recovered = dataset.recover_environment()
    assert recovered.spec.id == GYM_ID_V1 and recovered.spec.kwargs == {"num_players": 2}
    obs, _ = recovered.reset(seed=0)
    assert obs in dataset.observation_space
