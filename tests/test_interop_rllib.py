"""`farlight_v0.rllib_env`: RLlib's own `PettingZooEnv` with the settings its environment check
needs; the check passes, and docs/interop/rllib.md (one PPO iteration with the project's masked
module, then a greedy game on an env that raises on illegal actions) runs in a fresh process,
so that the Ray it starts ends with it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the rllib extra needs torch")
pytest.importorskip("ray.rllib", reason="needs the rllib extra")

from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402

from farlight_env import farlight_v0  # noqa: E402
from farlight_env.env.infos import NUMERIC_INFO_KEYS  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def test_rllib_env_passes_rllibs_environment_check_every_time() -> None:
    """The check steps an unmasked random action: "terminate" ends that game instead of
    raising, whatever the action."""
    env = farlight_v0.rllib_env(num_players=3)
    for _ in range(20):
        check_multiagent_environments(env)
    inner = env.env.unwrapped
    assert (inner.illegal_action, inner.info_mode) == ("terminate", "numeric")
    _obs, infos = env.reset(seed=0)
    assert tuple(inner.infos["player_0"]) == NUMERIC_INFO_KEYS
    assert infos == {}  # RLlib's PettingZooEnv passes reset()'s None on as {}


def test_with_raise_the_check_fails_as_the_docs_say() -> None:
    """Why the default is "terminate": the env's "raise" fails RLlib's check on most random
    actions (about 2 in 3 at the first decision; 20 tries never all pass)."""
    env = farlight_v0.rllib_env(num_players=3, illegal_action="raise")
    failures = 0
    for _ in range(20):
        try:
            check_multiagent_environments(env)
        except ValueError as exc:
            assert "step()" in str(exc) and "illegal action" in str(exc.__cause__)
            failures += 1
    assert failures >= 1


def test_rllib_env_keeps_given_options() -> None:
    env = farlight_v0.rllib_env(num_players=2, infos="full", reward_mode="margin")
    inner = env.env.unwrapped
    assert (inner.info_mode, inner.reward_mode, len(env.possible_agents)) == ("full", "margin", 2)


def test_the_rllib_page_runs_one_ppo_iteration_and_plays_legally() -> None:
    code = "from doc_snippets import run_page; print(run_page('docs/interop/rllib.md', 3))"
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'tests'}"}
    env["OMP_NUM_THREADS"] = "1"
    proc = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.strip().splitlines()
    assert lines[-3:] == ["['player_0'] ['action_mask', 'observation']", "256", "True True"]
