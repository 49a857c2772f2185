"""Every expected failure of a non-training `farlight` command: one or two lines, no traceback.

(Training runs: tests/test_training_jobs.py and tests/test_rllib.py; serve: test_cli_serve.py.)

Each case runs the real command in a subprocess, as a user would, and checks the exit status
(2 for usage and input mistakes, 130 for Ctrl-C, 0 for a reader that closed the pipe early).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from processes import terminal_sigint

from farlight_env.game import FarlightGame
from farlight_env.platform.records import save_record
from farlight_env.records.record import build_record

STANDARD = Path(__file__).parent.parent / "farlight_env" / "cards" / "data" / "standard.toml"


def farlight(*args: str, stdin: str = "", timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "farlight_cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def assert_one_clear_error(proc: subprocess.CompletedProcess, *fragments: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert 1 <= len(lines) <= 2, proc.stderr
    for fragment in fragments:
        assert fragment in proc.stderr, proc.stderr


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("inputs")
    malformed = folder / "malformed.toml"
    malformed.write_text('name = "x"\n[[parts]\nname = 1\n')
    nameless = folder / "nameless.toml"
    text = STANDARD.read_text(encoding="utf-8")
    nameless.write_text(text.replace('name = "standard"\n', "", 1))
    corrupt = folder / "corrupt.pt"
    corrupt.write_bytes(b"this is not a policy\n" * 10)
    record = folder / "game.json"
    game = FarlightGame(2, seed=4, max_rounds=4)
    rng = np.random.default_rng(4)
    while not game.is_over:
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
    save_record(
        build_record(game, ["random", "random"], 4, {"num_players": 2, "max_rounds": 4}), record
    )
    broken = folder / "broken.json"
    broken.write_text('{"format": "farlight-record", "version": 1,')
    deep = folder / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    return {
        "malformed": malformed,
        "nameless": nameless,
        "corrupt": corrupt,
        "record": record,
        "broken": broken,
        "deep": deep,
        "missing_pt": folder / "missing.pt",
        "folder": folder,
    }


@pytest.mark.parametrize(
    ("case", "argv", "fragments"),
    [
        ("malformed card file", ["random", "--card-set", "{malformed}"], ["not valid TOML"]),
        (
            "card file without a set-level field",
            ["tournament", "--card-set", "{nameless}"],
            ["field 'name'", "missing"],
        ),
        ("bad grid size", ["tournament", "--grid-size", "4"], ["--grid-size", "odd"]),
        ("corrupt policy", ["tournament", "--agents", "random,{corrupt}"], ["corrupt.pt"]),
        (
            "corrupt policy with workers",
            ["tournament", "--agents", "random,{corrupt}", "--workers", "2"],
            ["corrupt.pt"],
        ),
        ("corrupt policy in play", ["play", "--opponents", "{corrupt}"], ["corrupt.pt"]),
        (
            "missing policy",
            ["tournament", "--agents", "random,{missing_pt}"],
            ["no such policy file", "missing.pt"],
        ),
        ("missing policy in play", ["play", "--opponents", "{missing_pt}"], ["no such policy"]),
        ("missing record", ["replay", "{missing_pt}.json"], ["no such file"]),
        ("truncated record", ["replay", "{broken}"], ["not valid JSON"]),
        ("record nested 100,000 deep", ["replay", "{deep}"], ["nested too deeply"]),
        ("replay a bad viewer", ["replay", "{record}", "--viewer", "7"], ["--viewer"]),
        ("unknown command", ["fly"], ["invalid choice"]),
        (
            "tournament output under a file",
            ["tournament", "--out", "{record}/results"],
            ["--out", "cannot write there"],
        ),
        (
            "evaluate output under a file (refused before 15 games are played)",
            ["evaluate", "random", "--quick", "--out", "{record}/card"],
            ["--out", "cannot write there"],
        ),
        (
            "play record in a missing folder (refused before the game, not after it)",
            ["play", "--seed", "1", "--record", "{folder}/nowhere/game.json"],
            ["--record", "no such directory"],
        ),
        ("play record is a folder", ["play", "--seed", "1", "--record", "{folder}"], ["--record"]),
        ("bench: a player count out of range", ["bench", "--players", "2,7"], ["2..5"]),
        ("bench: a card file without a name", ["bench", "--card-set", "{nameless}"], ["'name'"]),
        ("bench: no time budget", ["bench", "--seconds", "0"], ["--seconds", "positive"]),
        ("random: no games", ["random", "--games", "0"], ["--games", "positive"]),
        ("random: an unknown rule option", ["random", "--rule", "x=1"], ["unknown rule option"]),
        ("evaluate: a corrupt policy", ["evaluate", "{corrupt}"], ["corrupt.pt"]),
        ("evaluate: an unknown policy", ["evaluate", "nobody"], ["unknown policy 'nobody'"]),
        ("serve: a port out of range", ["serve", "--port", "70000"], ["--port 70000"]),
        ("rules takes no arguments", ["rules", "extra"], ["unrecognized arguments"]),
        (
            "an unknown flag is the command's, which names itself",
            ["random", "--bogus"],
            ["farlight random: error: unrecognized arguments: --bogus"],
        ),
    ],
)
def test_user_mistakes_get_one_or_two_lines_and_status_2(files, case, argv, fragments):
    proc = farlight(*(arg.format(**files) for arg in argv))
    assert_one_clear_error(proc, *fragments)


@pytest.mark.parametrize(
    ("address", "fragments"),
    [
        ("127.0.0.1:1", ["--ray-address 127.0.0.1:1", "no Ray cluster reachable"]),
        ("nonsense", ["--ray-address must be auto, HOST:PORT"]),
        ("auto", ["cannot join the Ray cluster at auto"]),  # no cluster runs here
    ],
)
def test_an_unreachable_ray_cluster_is_one_line_in_seconds(address, fragments):
    """Ray itself retries an unreachable address for minutes, and `auto` without a cluster
    ended in a traceback."""
    pytest.importorskip("ray")
    start = time.perf_counter()
    argv = ["tournament", "--backend", "ray", "--ray-address", address, "--games", "2"]
    assert_one_clear_error(farlight(*argv, "--no-progress"), *fragments)
    assert time.perf_counter() - start < 60


def test_a_ray_address_without_the_ray_backend_is_refused():
    proc = farlight("tournament", "--ray-address", "127.0.0.1:1", "--games", "2")
    assert_one_clear_error(proc, "--ray-address needs --backend ray")


def test_a_non_policy_torch_file_is_refused_in_a_line(tmp_path):
    torch = pytest.importorskip("torch")
    path = tmp_path / "weights.pt"
    torch.save({"just": "a dict"}, path)
    assert_one_clear_error(farlight("tournament", "--agents", f"random,{path}"), "weights.pt")


def test_a_corrupt_policy_is_never_advised_to_be_loaded_unsafely(files, tmp_path):
    """torch's own message suggests weights_only=False; the user is told what the file is not:
    a text file is not a PyTorch file, a PyTorch zip holding a class is refused unread."""
    torch = pytest.importorskip("torch")
    pickled_class = tmp_path / "pickled_class.pt"
    torch.save({"format": "farlight-policy", "config": Path("x")}, pickled_class)
    for path, says in ((files["corrupt"], "not a PyTorch file"), (pickled_class, "tensors")):
        proc = farlight("tournament", "--agents", f"random,{path}")
        assert_one_clear_error(proc, f"{path.name}: not a loadable policy file", says)
        assert "weights_only" not in proc.stderr and "trusted source" not in proc.stderr


def test_workers_are_not_started_for_a_corrupt_policy(files):
    start = time.perf_counter()
    proc = farlight("tournament", "--agents", f"random,{files['corrupt']}", "--workers", "2")
    assert_one_clear_error(proc, "corrupt.pt")
    assert "concurrent.futures" not in proc.stderr
    assert time.perf_counter() - start < 60


def _head(argv: list[str], lines: int) -> tuple[int, str, list[str]]:
    """Run `farlight argv | head -lines`: read `lines` lines, then close the pipe."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "farlight_cli", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None and proc.stderr is not None
    got = [proc.stdout.readline() for _ in range(lines)]
    proc.stdout.close()
    err = proc.stderr.read()
    return proc.wait(timeout=120), err, got


@pytest.mark.parametrize(
    ("argv", "lines"),
    [
        (["rules"], 1),
        (["replay", "{record}", "--viewer", "all"], 3),
        (["random", "--players", "2", "--games", "3", "--no-progress"], 1),
        (["--help"], 1),
    ],
)
def test_output_piped_into_head_ends_quietly(files, argv, lines):
    status, err, got = _head([arg.format(**files) for arg in argv], lines)
    assert status == 0, err
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
    assert all(got)


def test_ctrl_c_is_one_line_and_status_130():
    proc = subprocess.Popen(
        [sys.executable, "-m", "farlight_cli", "bench", "--engine-only", "--seconds", "60"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        preexec_fn=terminal_sigint,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().startswith("machine:")
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert [line for line in err.splitlines() if "interrupted" in line] == [
        "farlight bench: interrupted"
    ]


@pytest.mark.parametrize("value", ["abc", "-2"])
@pytest.mark.parametrize(
    "args",
    [
        ("play", "--players", "2", "--opponents", "random"),
        ("tournament", "--agents", "random,heuristic", "--games", "2", "--players", "2"),
    ],
)
def test_a_bad_torch_thread_setting_is_one_line_before_any_work(
    value: str, args: tuple[str, ...]
) -> None:
    """FARLIGHT_TORCH_THREADS is read before the command runs (a traceback in play, a failed
    game in a tournament worker, before)."""
    proc = subprocess.run(
        [sys.executable, "-m", "farlight_cli", *args],
        input="",
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "FARLIGHT_TORCH_THREADS": value},
    )
    assert_one_clear_error(proc, "FARLIGHT_TORCH_THREADS must be")


def test_a_run_config_with_thousands_of_unknown_fields_is_one_short_line(tmp_path: Path) -> None:
    """Fields are named a few at a time and every line is bounded (it was 880 KB)."""
    pytest.importorskip("torch", reason="farlight train needs the train extra")
    run = tmp_path / "run"
    run.mkdir()
    (run / "run_config.json").write_text("{" + ",".join(f'"k{i}": 1' for i in range(40_000)) + "}")
    proc = farlight("train", "ppo", "--resume", "--run-dir", str(run))
    assert_one_clear_error(proc, "do not belong to a PPOConfig run", "more)")
    assert len(proc.stderr) < 600


@pytest.mark.parametrize("kind", ["ppo", "self-play", "rllib"])
def test_a_file_given_as_run_dir_is_one_line_and_status_2(tmp_path: Path, kind: str) -> None:
    """It used to end the run with '[Errno 17] File exists'; the file stays as it was."""
    path = tmp_path / "notes.txt"
    path.write_text("mine")
    proc = subprocess.run(
        [sys.executable, "-m", "farlight_cli", "train", kind, "--run-dir", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2, proc.stderr
    expected = f"farlight train {kind}: error: --run-dir {path}: exists and is not a directory"
    assert lines == [expected]
    assert path.read_text() == "mine"


@pytest.mark.parametrize(
    ("kind", "default"),
    [("ppo", "runs/ppo"), ("self-play", "runs/league"), ("rllib", "runs/rllib")],
)
def test_train_without_run_dir_checks_the_default_one(
    tmp_path: Path, kind: str, default: str
) -> None:
    """`farlight train KIND` with no --run-dir uses the config's default folder: it once
    ended in a traceback before starting (the flag, not given, is absent from the options)."""
    path = tmp_path / default
    path.parent.mkdir()
    path.write_text("mine")
    proc = subprocess.run(
        [sys.executable, "-m", "farlight_cli", "train", kind],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
    )
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert proc.returncode == 2, proc.stderr
    expected = f"farlight train {kind}: error: --run-dir {default}: exists and is not a directory"
    assert lines == [expected]
    assert path.read_text() == "mine"


@pytest.mark.parametrize(
    "argv",
    [
        ["tournament", "--agents", "ppo,heuristic", "--games", "2", "--no-progress"],
        ["tournament", "--agents", "heuristic,rollout", "--games", "2", "--no-progress"],
        ["play", "--opponents", "ppo", "--seed", "1"],
        ["play", "--players", "3", "--opponents", "random,bidder", "--seed", "1"],
    ],
)
def test_a_policy_for_another_grid_is_refused_before_any_game(argv, tmp_path):
    """The shipped networks read grid-13 observations: a tournament stopped at game 0 with
    "ValueError: policy ppo.pt expects ...", status 1, and play ended in a traceback."""
    pytest.importorskip("torch")
    record = ["--record", str(tmp_path / "g.json")] if argv[0] == "play" else []
    proc = farlight(*argv, *record, "--grid-size", "7", stdin="a0\na1\na2\n1\n")
    assert_one_clear_error(proc, "cannot play this game", "--grid-size 13")
    assert "ValueError" not in proc.stderr and proc.stdout == ""
    assert not (tmp_path / "g.json").exists()


def test_the_fit_check_passes_what_can_play() -> None:
    """Agents without a network play any grid; the shipped policies play their own."""
    pytest.importorskip("torch")
    from agents.farlight.fit import AgentUnfit, check_fit

    check_fit(["random", "heuristic", "ismcts@5"], 3, {"grid_size": 7})
    check_fit(["ppo", "rollout", "bidder"], 4, {"grid_size": 13})
    with pytest.raises(AgentUnfit, match="agent bidder cannot play"):
        check_fit(["heuristic", "bidder"], 2, {"grid_size": 15})
