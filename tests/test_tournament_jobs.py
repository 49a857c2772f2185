"""Long tournaments survive kills and failures: each game is journalled as it ends, --resume
finishes a killed tournament with the same results file byte for byte, a failing agent stops
the tournament by name, and no worker process outlives a killed parent."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from processes import alive

from evaluation.formats.journal import GAMES, SPEC
from evaluation.journal import JournalError
from evaluation.tournament import GameFailure, format_table, run_tournament, short_labels
from farlight_env.processes import descendants, start_time

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["--agents", "random,heuristic", "--players", "2", "--seed", "4", "--no-progress"]


def farlight(*argv: str, **kw) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "farlight_cli", *argv],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


def finished(out: Path) -> int:
    try:
        return (out / GAMES).read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def wait_for(condition, timeout: float, proc: subprocess.Popen | None = None, describe=str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if proc is not None and proc.poll() is not None:
            pytest.fail(f"exited early ({proc.returncode}): {proc.stderr.read()[-2000:]}")
        if time.monotonic() > deadline:
            pytest.fail(f"condition not met within {timeout} s: {describe()}")
        time.sleep(0.02)


def test_killed_tournament_resumes_to_the_same_results_file(tmp_path: Path) -> None:
    games = 40
    whole, killed = tmp_path / "whole", tmp_path / "killed"
    done = farlight("tournament", *ARGS, "--games", str(games), "--out", str(whole))
    assert done.wait(timeout=300) == 0, done.stderr.read()
    proc = farlight("tournament", *ARGS, "--games", str(games), "--out", str(killed))
    try:
        wait_for(lambda: finished(killed) >= games // 2, 300, proc)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    kept = finished(killed)
    assert games // 2 <= kept < games, kept
    assert not (killed / "results.json").exists()
    resumed = farlight("tournament", "--resume", str(killed), "--no-progress")
    out, err = resumed.communicate(timeout=300)
    assert resumed.returncode == 0, err
    assert f"{games} games" in out
    assert (killed / "results.json").read_bytes() == (whole / "results.json").read_bytes()
    assert finished(killed) == games


def test_a_torn_last_line_is_dropped_and_the_game_replayed(tmp_path: Path) -> None:
    out = tmp_path / "t"
    whole = run_tournament(["random", "heuristic"], 2, games=4, seed=1, progress=False)
    run_tournament(["random", "heuristic"], 2, games=4, seed=1, progress=False, out_dir=out)
    lines = (out / GAMES).read_bytes().splitlines(keepends=True)
    (out / GAMES).write_bytes(b"".join(lines[:2]) + lines[2][:50])  # killed mid-write
    from evaluation.tournament import resume_tournament

    resumed = resume_tournament(out, progress=False)
    strip = [{k: v for k, v in r.items() if k != "timing"} for r in whole.records]
    assert [{k: v for k, v in r.items() if k != "timing"} for r in resumed.records] == json.loads(
        json.dumps(strip)
    )
    assert finished(out) == 4


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b"{not json}\n", "not a game record"),
        (b'{"format": "farlight-record"}\n', "not a game record"),
    ],
)
def test_a_corrupt_journal_is_refused_naming_the_line(
    tmp_path: Path, line: bytes, message: str
) -> None:
    out = tmp_path / "t"
    run_tournament(["random", "heuristic"], 2, games=2, seed=1, progress=False, out_dir=out)
    with (out / GAMES).open("ab") as fh:
        fh.write(line)
    from evaluation.tournament import resume_tournament

    with pytest.raises(JournalError, match=f"{GAMES}:3: {message}"):
        resume_tournament(out, progress=False)


def test_a_record_from_another_tournament_is_refused(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    run_tournament(["random", "heuristic"], 2, games=2, seed=1, progress=False, out_dir=a)
    run_tournament(["random", "heuristic"], 2, games=2, seed=2, progress=False, out_dir=b)
    (a / GAMES).write_bytes((b / GAMES).read_bytes())
    from evaluation.tournament import resume_tournament

    with pytest.raises(JournalError, match="is not in this tournament"):
        resume_tournament(a, progress=False)


def test_out_refuses_a_folder_holding_a_tournament(tmp_path: Path) -> None:
    run_tournament(["random"], 2, games=1, progress=False, out_dir=tmp_path)
    with pytest.raises(JournalError, match="already holds a tournament.*--resume"):
        run_tournament(["random"], 2, games=1, progress=False, out_dir=tmp_path)


def test_cli_resume_refuses_options_it_would_ignore(tmp_path: Path) -> None:
    (tmp_path / SPEC).write_text("{}")
    proc = farlight("tournament", "--resume", str(tmp_path), "--games", "8")
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2
    assert "drop --games" in err and "Traceback" not in err


def test_cli_resume_of_a_foreign_folder_is_one_line(tmp_path: Path) -> None:
    (tmp_path / SPEC).write_text('{"format": "x"}')
    proc = farlight("tournament", "--resume", str(tmp_path))
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 2 and len(err.strip().splitlines()) == 1, err
    assert SPEC in err


# ------------------------------------------------------------------------------ failures
@pytest.fixture(scope="module")
def broken_policy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A well-formed policy for another action space: loading works, acting raises."""
    torch = pytest.importorskip("torch")
    from agents.farlight.policy import PolicyNet, save_policy
    from farlight_env import farlight_v0

    fields = farlight_v0.raw_env(num_players=2).encoder.fields
    config = {
        "name": "misfit",
        "layout": {k: [f.start, f.start + f.size, list(f.shape)] for k, f in fields.items()},
        "embed": 4,
        "ship_features": 2,
        "pi": [4],
        "obs_size": farlight_v0.raw_env(num_players=2).encoder.size,
        "action_size": 7,
    }
    torch.manual_seed(0)
    path = tmp_path_factory.mktemp("policies") / "misfit.pt"
    save_policy(PolicyNet(config).state_dict(), config, path)
    return path


def test_a_failing_agent_stops_the_tournament_naming_game_seat_and_agent(
    broken_policy: Path, tmp_path: Path
) -> None:
    with pytest.raises(GameFailure, match=r"game 0, seat 1 \(.*misfit.pt\): ValueError"):
        run_tournament(["random", str(broken_policy)], 2, games=4, progress=False, out_dir=tmp_path)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_cli_refuses_an_agent_that_cannot_play_before_game_0(
    broken_policy: Path, tmp_path: Path, workers: str
) -> None:
    out = tmp_path / "t"
    agents = f"random,heuristic,{broken_policy}"
    proc = farlight(
        "tournament",
        "--agents",
        agents,
        "--players",
        "2",
        "--games",
        "30",
        "--workers",
        workers,
        "--out",
        str(out),
        "--no-progress",
    )
    _stdout, err = proc.communicate(timeout=120)
    assert proc.returncode == 2
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert "misfit.pt" in err and "7 actions" in err, err
    assert not out.exists(), "nothing is written for a tournament that cannot start"


# ------------------------------------------------------------------------------ orphans
def children(pid: int) -> set[int]:
    """Direct child pids of `pid` (Linux /proc)."""
    kids = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        kids |= {int(k) for k in text}
    return kids


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_pool_workers_die_with_a_killed_tournament(tmp_path: Path) -> None:
    proc = farlight(
        "tournament", *ARGS, "--games", "4000", "--workers", "2", "--out", str(tmp_path / "t")
    )
    try:
        wait_for(lambda: finished(tmp_path / "t") >= 2, 120, proc)
        workers = {k for k in children(proc.pid) if alive(k)}
        assert len(workers) >= 2, workers
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        wait_for(lambda: not any(alive(w) for w in workers), 10)
    finally:
        if proc.poll() is None:
            proc.kill()


# ------------------------------------------------------------------------------ labels
def test_long_policy_paths_get_short_distinct_labels() -> None:
    names = [
        "heuristic",
        "runs/a/very/deep/folder/run_one/policy.pt",
        "runs/a/very/deep/folder/run_two/policy.pt",
        "/tmp/snapshot_000123456_of_a_long_league.pt",
    ]
    labels = short_labels(names)
    assert labels["heuristic"] == "heuristic"
    assert labels[names[1]] == "run_one/policy" and labels[names[2]] == "run_two/policy"
    assert len(set(labels.values())) == 4
    assert all(len(label) <= 20 for label in labels.values())


def test_table_columns_stay_aligned_with_long_names(tmp_path: Path) -> None:
    result = run_tournament(["random", "heuristic"], 2, games=2, progress=False)
    long = "runs/" + "x" * 60 + "/policy.pt"
    rows = [replace(r, agent=long) if r.agent == "random" else r for r in result.summary]
    lines = format_table(rows).splitlines()
    header, table = lines[0], lines[2:4]
    assert all(len(line) == len(header) for line in table), lines
    assert any(long in line for line in lines[4:])


def session_members(sid: int) -> set[int]:
    """Processes of session `sid` (a session of our own: no one else's processes are in it)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[3]) == sid and alive(int(entry.name)):
                found.add(int(entry.name))
    return found


def describe(pids: set[int]) -> str:
    """What is still running, for a failure message."""
    lines = []
    for pid in sorted(pids):
        with contextlib.suppress(OSError):
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")[:120]
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[:2]
            lines.append(f"{pid} {state} {cmd.decode(errors='replace')}")
    return "; ".join(lines) or "nothing"


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_local_ray_instance_dies_with_a_killed_tournament(tmp_path: Path) -> None:
    """All of it, Ray's own agents included (alone, they linger for a minute), within the
    issue's 10 s (measured here: under 1 s)."""
    pytest.importorskip("ray")
    out = tmp_path / "t"
    argv = ["--backend", "ray", "--games", "4000", "--workers", "1", "--out", str(out)]
    proc = farlight("tournament", *ARGS, *argv, start_new_session=True)
    started: dict[int, str] = {}
    try:
        wait_for(lambda: finished(out) >= 2, 50, proc)  # Ray is up and plays
        started = {p: start_time(p) for p in session_members(proc.pid) | descendants(proc.pid)}
        names = " ".join(Path(f"/proc/{p}/cmdline").read_text() for p in started if alive(p))
        assert "raylet" in names and "ray::" in names, names
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        left = lambda: {p for p, t in started.items() if alive(p) and start_time(p) == t}  # noqa: E731
        gone = lambda: not left() and not session_members(proc.pid)  # noqa: E731
        wait_for(gone, 10, describe=lambda: describe(left() | session_members(proc.pid)))
    finally:
        if proc.poll() is None:
            proc.kill()
        for pid in session_members(proc.pid) | {
            p for p, t in started.items() if start_time(p) == t
        }:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
