"""The documentation site (issue #32): it builds with no warning, and every page's code runs.

`farlight docs --build DIR` runs `mkdocs build --strict`: a broken link or anchor, a page left
out of the nav, an API reference that cannot be collected or a docstring that does not render
is an error. Every ```python block of every page runs somewhere in the suite: here, the cheap
way here (said per page), or in the test file named for it.
"""

from __future__ import annotations

import inspect
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from doc_snippets import ROOT, python_blocks, run_page

DOCS = ROOT / "docs"
STANDARD = ROOT / "farlight_env" / "cards" / "data" / "standard.toml"

#: Pages whose blocks run here as written, top to bottom in one namespace.
RUN_HERE = ("docs/environment.md", "docs/gymnasium.md", "docs/development.md", "docs/rules.md")
#: What those pages say their code prints.
PRINTED = {
    "docs/environment.md": (
        "Discrete(496) (16306,) 160\nbid 0 on part space 0 bidding\nuint8 16351 65224 True\n"
    ),
    "docs/gymnasium.md": "(16306,) -1.0\n",
}
#: Pages whose blocks run in another test file (that file names the page).
RUN_ELSEWHERE = {
    "docs/quickstart.md": "tests/test_docs_site.py",  # below: the README's loop, then the rest
    "docs/evaluation.md": "tests/test_docs_site.py",  # below: the call, not the 483 games
    "docs/exploitability.md": "tests/test_docs_site.py",  # below: the call, not the training
    "docs/subgames.md": "tests/test_subgames.py",
    "docs/circadians/components.md": "tests/test_circadians_components.py",
    "docs/training.md": "tests/test_collector.py",
    "docs/device.md": "tests/test_device.py",
    "docs/interop/agilerl.md": "tests/test_interop_agilerl.py",
    "docs/interop/minari.md": "tests/test_dataset.py",
    "docs/interop/openspiel.md": "tests/test_interop_openspiel.py",
    "docs/interop/rllib.md": "tests/test_interop_rllib.py",
    "docs/interop/supersuit.md": "tests/test_vector_env.py",
    "docs/interop/tianshou.md": "tests/test_interop_tianshou.py",
    "docs/interop/torchrl.md": "tests/test_interop_torchrl.py",
}


def test_the_site_builds_strict_with_no_warning(tmp_path: Path) -> None:
    """`farlight docs --build` (mkdocs build --strict) on this tree: status 0, no warning."""
    site = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "farlight_cli", "docs", "--build", str(site)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    assert "WARNING" not in output and "ERROR" not in output, output[-3000:]
    reference = (site / "cli-reference" / "index.html").read_text()
    assert "farlight tournament" in reference and "farlight train rllib" in reference
    assert (site / "notebooks" / "01_quickstart" / "index.html").is_file()
    assert "FarlightGame" in (site / "api" / "game" / "index.html").read_text()


def test_every_page_with_python_code_is_run_by_a_test() -> None:
    pages = {str(page.relative_to(ROOT)) for page in DOCS.rglob("*.md") if python_blocks(page)}
    covered = set(RUN_HERE) | set(RUN_ELSEWHERE)
    assert pages <= covered, f"add these pages to RUN_HERE or RUN_ELSEWHERE: {pages - covered}"
    for page, test in RUN_ELSEWHERE.items():
        assert page in (ROOT / test).read_text(), f"{test} does not run {page}"


@pytest.mark.parametrize("page", RUN_HERE)
def test_page_code_runs(page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from an empty folder holding `my_cards.toml`, the rules page's transcription (here
    a copy of the standard set)."""
    shutil.copy(STANDARD, tmp_path / "my_cards.toml")
    monkeypatch.chdir(tmp_path)
    printed = run_page(page)
    if page in PRINTED:
        assert printed == PRINTED[page]
        text = (ROOT / page).read_text()
        assert all(line in text for line in printed.splitlines()), "the page says what it prints"


def test_quickstart_code_runs() -> None:
    """The quickstart's loop is the README's "API in ten lines", which tests/test_env_info_view.py
    plays to the end; the engine block after it runs here."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## The API in ten lines", 1)[1]
    readme_loop = section.split("```python\n", 1)[1].split("```", 1)[0]
    loop, engine = python_blocks("docs/quickstart.md")
    assert loop == readme_loop
    namespace: dict = {}
    exec(compile(engine, "docs/quickstart.md", "exec"), namespace)
    game = namespace["g"]
    assert type(game).from_json(game.to_json()).to_json() == game.to_json()


def _bind_only(function, result):
    """A stand-in that checks the call against `function`'s real signature, then returns
    `result` instead of running it."""

    def stand_in(*args, **kwargs):
        inspect.signature(function).bind(*args, **kwargs)
        return result

    return stand_in


def test_evaluation_page_code_calls_the_real_api(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's `evaluation.evaluate("ppo", workers=2)` is the full 483-game protocol (minutes):
    its arguments are checked against `evaluation.eval_v1.evaluate` instead (tests/test_evaluate.py
    plays the protocol's quick subset)."""
    import evaluation
    import evaluation.eval_v1

    real = evaluation.eval_v1.evaluate
    monkeypatch.setattr(evaluation, "evaluate", _bind_only(real, {"cells": []}))
    namespace = {}
    for block in python_blocks("docs/evaluation.md"):
        exec(compile(block, "docs/evaluation.md", "exec"), namespace)
    assert namespace["card"] == {"cells": []}


def test_exploitability_page_code_calls_the_real_api(monkeypatch: pytest.MonkeyPatch) -> None:
    """The page's `exploit(...)` trains for 200,000 steps: its arguments are checked against
    `training.farlight.sb3.exploit.exploit`, and the result is read as the page reads it, from the
    shape `exploit.json` has (tests/test_exploit.py runs the quick protocol)."""
    pytest.importorskip("torch", reason="training.farlight.sb3.exploit needs the train extra")
    import training.farlight.sb3.exploit

    result = {"budgets": [{"budget": 0, "gap": 0.39}, {"budget": 200_000, "gap": 0.36}]}
    monkeypatch.setattr(
        training.farlight.sb3.exploit,
        "exploit",
        _bind_only(training.farlight.sb3.exploit.exploit, result),
    )
    for block in python_blocks("docs/exploitability.md"):
        exec(compile(block, "docs/exploitability.md", "exec"), {})


def test_farlight_docs_without_mkdocs_is_one_line_naming_the_dev_extra() -> None:
    code = (
        "import sys; sys.modules['mkdocs'] = None\n"
        "from farlight_cli.main import main\n"
        "sys.exit(main(['docs', '--build', 'site']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT
    )
    assert done.returncode == 2, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert lines == [
        "farlight docs: error: needs the dev extra (mkdocs is not installed): "
        "pip install -e '.[dev]'"
    ]


def test_farlight_docs_serves_the_site(tmp_path: Path) -> None:
    """`farlight docs` runs `mkdocs serve` on the given port until stopped."""
    import socket
    import time
    import urllib.request

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [sys.executable, "-m", "farlight_cli", "docs", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    try:
        deadline = time.monotonic() + 300
        page = ""
        direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # no proxy
        while time.monotonic() < deadline and not page:
            try:
                with direct.open(f"http://127.0.0.1:{port}/quickstart/", timeout=10) as answer:
                    page = answer.read().decode()
            except OSError:
                assert proc.poll() is None, "farlight docs exited"
                time.sleep(1)
        assert "The API in ten lines" in page
    finally:
        proc.terminate()
        proc.wait(timeout=60)
    with pytest.raises(OSError):  # the server went with it (no orphaned mkdocs serving on)
        direct.open(f"http://127.0.0.1:{port}/quickstart/", timeout=10)


def _farlight_docs(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "farlight_cli", "docs", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def _one_clear_error(done: subprocess.CompletedProcess, fragment: str) -> None:
    """Status 2, one or two lines naming the problem, and no site built first (no MkDocs
    output: it logs "Building documentation" before it could fail)."""
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "Building" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert 1 <= len(lines) <= 2 and fragment in done.stderr, done.stderr


def test_farlight_docs_on_a_port_in_use_says_so_before_building() -> None:
    """It used to build the site for ~10 s, then end in MkDocs' 40-line traceback."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = _farlight_docs("--port", str(port))
    _one_clear_error(done, f"cannot serve on 127.0.0.1:{port}: in use")
    assert "--port" in done.stderr


def test_farlight_docs_refuses_a_port_out_of_range_before_building() -> None:
    """--port 99999 used to build the site, then end in an OverflowError."""
    _one_clear_error(_farlight_docs("--port", "99999"), "1..65535, got 99999")


def test_farlight_docs_build_into_a_file_is_refused_before_building(tmp_path: Path) -> None:
    """--build FILE used to end in a NotADirectoryError traceback."""
    file = tmp_path / "notes.txt"
    file.write_text("mine\n")
    _one_clear_error(_farlight_docs("--build", str(file)), "exists and is not a directory")
    _one_clear_error(_farlight_docs("--build", str(file / "site")), "cannot write there")
    assert file.read_text() == "mine\n"


def test_farlight_docs_and_serve_default_to_different_ports() -> None:
    """`farlight serve`, then `farlight docs`, with no --port: both used to want 8000."""
    from farlight_cli.main import build_parser

    def default_port(command: str) -> int:
        return build_parser().parse_args([command]).port

    assert default_port("docs") != default_port("serve")
    assert f"--port {default_port('docs')}" in (ROOT / "docs" / "cli.md").read_text()
