"""The OpenSpiel game is known by name in every process that imports farlight_env (#49), in
either import order and without farlight_env importing pyspiel itself; Ray workers, which
name the game without importing farlight_env, register it through Ray's setup hook."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("pyspiel", reason="the interop extra brings OpenSpiel")


def _python(code: str, timeout: float = 120) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize(
    "imports",
    [
        "import farlight_env\nimport pyspiel",
        "import pyspiel\nimport farlight_env",
        "import farlight_env\nfrom open_spiel.python import rl_environment\nimport pyspiel",
    ],
)
def test_the_game_is_known_by_name_whatever_the_import_order(imports: str) -> None:
    out = _python(f"{imports}\nprint(pyspiel.load_game('python_farlight(players=3)'))")
    assert out.startswith("python_farlight(") and "players=3" in out


def test_importing_farlight_env_does_not_import_pyspiel() -> None:
    assert _python("import sys, farlight_env\nprint('pyspiel' in sys.modules)").strip() == "False"


def test_ray_workers_know_the_game_through_the_setup_hook() -> None:
    """RLlib's OpenSpiel example builds the game inside env runners, which import pyspiel but
    not farlight_env: `worker_process_setup_hook` registers it there (docs/interop/openspiel.md)."""
    pytest.importorskip("ray")
    out = _python(
        """
        import ray

        ray.init(
            num_cpus=1,
            include_dashboard=False,
            runtime_env={"worker_process_setup_hook": "farlight_env.register_openspiel"},
        )

        @ray.remote
        def game_name():
            import pyspiel

            return pyspiel.load_game("python_farlight").get_type().short_name

        print(ray.get(game_name.remote()))
        ray.shutdown()
        """,
        timeout=240,
    )
    assert out.strip().splitlines()[-1] == "python_farlight"
