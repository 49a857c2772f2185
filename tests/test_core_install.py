"""The core install (`pip install -e .`, no torch) never shows a traceback (issue #26, item 1).

CI installs every extra, so each case runs the real `farlight` command in a subprocess whose
`sitecustomize` puts None in sys.modules["torch"]: Python's own way of saying a module is absent
(`import torch` raises ModuleNotFoundError, importlib.util.find_spec gives None), the same
mechanism tests/test_bench_env.py uses for pygame. The commands that need the `train` extra say
so in one line, with how to install it, and exit with status 2.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INSTALL = "pip install torch==2.13.0 && pip install -e '.[train]'"


@pytest.fixture(scope="module")
def no_torch(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a process in which torch is not installed."""
    folder = tmp_path_factory.mktemp("no_torch")
    (folder / "sitecustomize.py").write_text('import sys\nsys.modules["torch"] = None\n')
    path = os.pathsep.join([str(folder), str(ROOT)])
    return {**os.environ, "PYTHONPATH": path, "OMP_NUM_THREADS": "1"}


def farlight(env: dict[str, str], cwd: Path, *args: str, stdin: str = ""):
    return subprocess.run(
        [sys.executable, "-m", "farlight_cli", *args],
        env=env,
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_the_blocker_hides_torch(no_torch, tmp_path) -> None:
    code = "import importlib.util, sys; print(importlib.util.find_spec('torch'))\nimport torch"
    done = subprocess.run(
        [sys.executable, "-c", code], env=no_torch, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == "None"
    assert "ModuleNotFoundError" in done.stderr


@pytest.mark.parametrize(
    ("args", "stdin", "said"),
    [
        (("train", "ppo", "--run-dir", "r", "--total-steps", "64"), "", "needs the train extra"),
        (("train", "ppo"), "", "needs the train extra"),  # every option at its default
        (("train", "self-play", "--run-dir", "r2"), "", "needs the train extra"),
        (("evaluate", "ppo", "--quick"), "", "agent ppo needs the train extra"),
        (("exploit", "heuristic", "--quick", "--run-dir", "r"), "", "needs the train extra"),
        (("play", "--opponents", "ppo", "--seed", "1"), "q\ny\n", "agent ppo needs the train"),
        (("tournament", "--agents", "ppo,random", "--games", "2"), "", "agent ppo needs the"),
        (
            ("tournament", "--agents", "rollout,random", "--games", "2", "--workers", "2"),
            "",
            "agent rollout needs the train extra",
        ),
    ],
    ids=[
        "train-ppo",
        "train-ppo-defaults",
        "train-self-play",
        "evaluate-ppo",
        "exploit",
        "play-vs-ppo",
        "tournament",
        "rollout",
    ],
)
def test_commands_that_need_torch_name_the_train_extra_in_one_line(
    no_torch, tmp_path, args, stdin, said
) -> None:
    quiet = [] if args[0] == "play" else ["--no-progress"]
    done = farlight(no_torch, tmp_path, *args, *quiet, stdin=stdin)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert said in lines[0] and INSTALL in lines[0], lines[0]
    assert not (tmp_path / "r").exists() or not any((tmp_path / "r").iterdir())


def test_the_core_commands_still_play_without_torch(no_torch, tmp_path) -> None:
    done = farlight(
        no_torch, tmp_path, "tournament", "--agents", "random,heuristic", "--games", "2",
        "--no-progress",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "2-player tournament, 2 games" in done.stdout


def test_agent_lists_say_which_agents_need_the_train_extra(no_torch, tmp_path) -> None:
    for command in ("tournament", "play", "evaluate"):
        done = farlight(no_torch, tmp_path, command, "--help")
        assert done.returncode == 0
        assert "need the train extra" in " ".join(done.stdout.split()), command
    done = farlight(no_torch, tmp_path, "tournament", "--agents", "nosuch")
    assert "ppo, rollout and *.pt need the train extra (torch)" in done.stderr


def test_agents_make_names_the_extra_from_python_too(no_torch) -> None:
    code = (
        "import agents\n"
        "try:\n    agents.make('ppo')\n"
        "except ModuleNotFoundError as exc:\n    print(exc.name, '|', exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=no_torch, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.startswith("torch | agent ppo needs the train extra"), done.stderr


def test_every_missing_extra_hint_is_written_one_way() -> None:
    """Hints differed per command ("pip install 'farlight-env[ray]'", "pip install '.[train]'",
    the torch-first line): every one now comes from farlight_cli.errors, in the README's form,
    torch pinned first for the extras that pull it in."""
    import re

    from agents.registry import TRAIN_EXTRA
    from farlight_cli.errors import INSTALL_EXTRA, TORCH_VERSION, install_line, needs_extra

    pinned = re.search(r'train = \["torch==([\d.]+)"', (ROOT / "pyproject.toml").read_text())
    assert pinned is not None and pinned.group(1) == TORCH_VERSION
    assert TRAIN_EXTRA == install_line("train") == INSTALL
    assert install_line("ray") == "pip install -e '.[ray]'"
    for extra, line in INSTALL_EXTRA.items():
        assert re.fullmatch(
            rf"(pip install torch==[\d.]+ && )?pip install -e '\.\[{extra}\]'", line
        )
    assert needs_extra("ray", "ray", "--backend ray") == (
        "--backend ray needs the ray extra (ray is not installed): pip install -e '.[ray]'"
    )
    # no command writes an install line of its own (docs_cmd says how the clone is installed;
    # evaluate_cmd and serve_cmd are edited elsewhere, #48)
    own = {"errors.py", "docs_cmd.py", "serve_cmd.py", "evaluate_cmd.py"}
    for source in sorted((ROOT / "farlight_cli").glob("*.py")):
        if source.name not in own:
            assert "pip install" not in source.read_text(), source.name


def test_bench_without_torch_names_the_train_extra_as_the_others_do(no_torch, tmp_path) -> None:
    code = (
        "import argparse\nfrom farlight_cli.farlight.bench import train_figure\n"
        "print(train_figure(argparse.Namespace(seed=0)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], env=no_torch, capture_output=True, text=True, timeout=60
    )
    assert done.stdout.strip() == (
        f"training: skipped: needs the train extra (torch is not installed): {INSTALL}"
    ), done.stderr
