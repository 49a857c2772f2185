"""The library runs torch on one math thread by default where it builds a network or loads a
policy, unless the user chose a count (issue #26, item 2; agents/torch_threads.py).

Each case runs in a fresh subprocess: the default is applied once per process, and torch reads
OMP_NUM_THREADS when it is imported.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="needs the train extra (torch)")

ROOT = Path(__file__).resolve().parents[1]
CORES = os.cpu_count() or 1


def threads_after(code: str, **env: str) -> tuple[int, int]:
    """(torch's threads at import, after `code`) in a fresh process with `env` added."""
    base = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    base.pop("FARLIGHT_TORCH_THREADS", None)
    script = (
        "import torch\nbefore = torch.get_num_threads()\n"
        f"{code}\n"
        "print(before, torch.get_num_threads())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        env={**base, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    before, after = done.stdout.split()[-2:]
    return int(before), int(after)


LOAD_POLICY = "import agents\nagents.make('ppo')"
BUILD_MODEL = (
    "from training.farlight.config import PPOConfig\nfrom training.farlight.sb3 import train_ppo\n"
    "from training.farlight.sb3.ppo_model import build_model\n"
    "config = PPOConfig(run_dir='unused', n_envs=1, vec_env='dummy', opponents=['random'])\n"
    "build_model(config, train_ppo.build_env(config))"
)
TOURNAMENT = (
    "from evaluation.tournament import run_tournament\n"
    "run_tournament(['ppo', 'random'], num_players=2, games=2, workers=1, progress=False,"
    " config={'max_rounds': 1})"
)


@pytest.mark.parametrize(
    "code", [LOAD_POLICY, BUILD_MODEL, TOURNAMENT], ids=["load", "build", "tournament"]
)
def test_loading_a_policy_or_building_a_network_sets_one_thread(code: str) -> None:
    """agents.make('ppo'), a network built for training in a user's own loop, and
    run_tournament(workers=1) from Python (which used to keep torch's default)."""
    assert threads_after(code)[1] == 1


def test_omp_num_threads_is_left_as_the_user_set_it() -> None:
    assert threads_after(LOAD_POLICY, OMP_NUM_THREADS="2") == (2, 2)


def test_farlight_torch_threads_chooses_the_count_and_0_leaves_torch_alone() -> None:
    assert threads_after(LOAD_POLICY, FARLIGHT_TORCH_THREADS="3")[1] == 3
    before, after = threads_after(LOAD_POLICY, FARLIGHT_TORCH_THREADS="0")
    assert after == before


def test_a_count_the_user_already_set_is_kept() -> None:
    chosen = CORES + 3  # no default torch would pick on this machine
    code = f"torch.set_num_threads({chosen})\n{LOAD_POLICY}"
    assert threads_after(code)[1] == chosen


def test_a_training_runs_torch_threads_setting_is_not_overridden() -> None:
    """--torch-threads is deliberate (training.farlight.config): the library default never
    undoes it."""
    code = f"from agents.torch_threads import set_threads\nset_threads({CORES})\n{LOAD_POLICY}"
    assert threads_after(code)[1] == CORES
