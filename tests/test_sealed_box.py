"""The box a sealed agent plays in (agents.farlight.sealed.box, docs/safety.md): as root the child
runs as a uid of its own that reads neither the parent's memory nor the evaluation's files; its
import path is clean; nothing it starts outlives its game; the parent measures its time, and
a decision over budget is forfeited while the game goes on."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from agents.farlight.sealed import (
    MoveBudget,
    SealedAgent,
    box,
    close_children,
    fallback_action,
    protect_folder,
)
from agents.farlight.sealed.box import UID_BASE, dumpable
from evaluation.eval_v1 import evaluate
from evaluation.journal import read_eval_spec
from evaluation.tournament import GameFailure, GameSpec, play_game, schedule
from farlight_env.cards.io import card_set_to_dict
from farlight_env.env.aec import raw_env
from tests.sealed_agents import drop_folder

ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(
    not ROOT, reason="the uid drop happens only under root; a plain user's child keeps its uid"
)


@pytest.fixture
def drop() -> Iterator[Path]:
    """A folder the sealed children may write their reports to."""
    folder = Path(drop_folder())
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _sealed(agent: str, kwargs: dict | None = None, seed: int = 11, **extra) -> GameSpec:
    """One 2-player game: `agent` sealed in seat 0 against random."""
    return GameSpec(
        0,
        seed,
        ("x", "random"),
        {"num_players": 2},
        {"x": kwargs or {}},
        {"x": f"tests.sealed_agents:{agent}"},
        sealed=("x",),
        **extra,
    )


def _probe(drop: Path, targets: list[Path] = ()) -> dict:
    log = drop / "probe.json"
    play_game(_sealed("Probe", {"log": str(log), "targets": os.pathsep.join(map(str, targets))}))
    return json.loads(log.read_text())


@needs_root
def test_as_root_the_child_is_an_unprivileged_uid_of_its_own(drop: Path, tmp_path: Path) -> None:
    """No capabilities, no groups, and neither the parent's memory nor a protected journal
    can be read or written: each attempt is a PermissionError."""
    journal = tmp_path / "evaluation"
    journal.mkdir()
    (journal / "evaluation_games.jsonl").write_text('{"deck": "the live deck"}\n')
    protect_folder(journal)
    target = journal / "evaluation_games.jsonl"
    report = _probe(drop, [target])
    assert report["uid"] >= UID_BASE and report["gid"] == report["uid"]
    assert report["groups"] == [] and int(report["capabilities"], 16) == 0
    assert report["dumpable"] == 0
    assert report["parent_memory"] == "PermissionError"
    assert report["read"][str(target)] == "PermissionError"
    assert report["write"][str(target)] == "PermissionError"
    assert target.read_text() == '{"deck": "the live deck"}\n'


@needs_root
def test_a_root_without_uids_to_drop_to_refuses_to_seal() -> None:
    """Root in a user namespace that maps only itself (its children could read its memory
    there) gets one line saying so, not a child running as root."""
    if subprocess.run(["unshare", "--user", "--map-root-user", "true"]).returncode != 0:
        pytest.skip("this kernel offers no user namespace (unshare --user) to try it in")
    script = (
        "from evaluation.tournament import GameFailure, play_game, schedule\n"
        "try:\n    play_game(schedule(['random'], 2, 1, seed=1, sealed=True)[0])\n"
        "except GameFailure as exc:\n    print(exc)"
    )
    done = subprocess.run(
        ["unshare", "--user", "--map-root-user", sys.executable, "-c", script],
        capture_output=True,
        text=True,
        cwd=Path(__file__).parents[1],
        timeout=120,
    )
    assert "BoxError: this root maps no uid 0x7" in done.stdout, done.stdout + done.stderr


def test_the_child_has_a_scratch_folder_and_a_clean_environment(
    drop: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its working folder is its own and writable, removed after the game; the parent's
    other environment variables (a secret) do not reach it."""
    monkeypatch.setenv("FARLIGHT_TEST_SECRET", "hunter2")
    report = _probe(drop)
    scratch = Path(report["cwd"])
    assert scratch.name.startswith("farlight-sealed-") and report["cwd_writable"] == "ok"
    assert not scratch.exists()
    assert "FARLIGHT_TEST_SECRET" not in report["environment"]
    assert {"HOME", "TMPDIR"} <= set(report["environment"])


def test_the_parent_is_not_dumpable(drop: Path) -> None:
    """Even a child of the parent's own uid cannot ptrace it or read /proc/PID/mem."""
    _probe(drop)
    assert not dumpable()


def test_a_msgspec_in_the_working_folder_or_on_a_relative_path_is_not_imported(
    drop: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (drop / "msgspec.py").write_text("raise ImportError('the planted msgspec.py ran')\n")
    monkeypatch.chdir(drop)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([".", os.environ.get("PYTHONPATH", "")]))
    report = _probe(drop)  # would fail if the planted module ran
    assert "" not in report["sys_path"] and "." not in report["sys_path"]
    assert str(drop) not in report["sys_path"]
    assert Path(report["msgspec"]).parent.name == "msgspec"  # the package, not a planted file


def _running(pid: int) -> bool:
    """Whether `pid` is a live (not zombie) process."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("ending", ["the game ends", "the game fails"])
def test_nothing_the_child_started_outlives_its_game(drop: Path, ending: str) -> None:
    """A sleeping grandchild, one in its own session and an orphan are all gone once the
    game is over, whether it ended or failed."""
    log = drop / "pids.json"
    spec = _sealed("Lingerer", {"log": str(log), "fail": ending == "the game fails"})
    if ending == "the game fails":
        with pytest.raises(GameFailure, match="lingered"):
            play_game(spec)
    else:
        play_game(spec)
    pids = json.loads(log.read_text())
    assert len(pids) == 3
    assert [pid for pid in pids if _running(pid)] == []


def test_a_terminated_parent_ends_its_children_first(drop: Path) -> None:
    """SIGTERM to the process playing (a pool worker the tournament stops on a failure) closes
    its boxes before it dies: the helpers its agent started do not outlive it."""
    log = drop / "pids.json"
    script = (
        "from tests.test_sealed_box import _sealed; from evaluation.tournament import play_game; "
        f"play_game(_sealed('Lingerer', {{'log': {str(log)!r}, 'stall': 120}}))"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], cwd=Path(__file__).parents[1])
    try:
        for _ in range(600):
            if log.exists() and log.read_text():
                break
            time.sleep(0.05)  # waiting for the agent to start its helpers, not timing it
        pids = json.loads(log.read_text())
        parent.terminate()
        assert parent.wait(timeout=60) == -signal.SIGTERM
    finally:
        parent.kill()
    assert len(pids) == 3 and [pid for pid in pids if _running(pid)] == []


def test_scratch_folders_of_dead_parents_are_removed_by_the_next_one() -> None:
    """A parent that died without closing its boxes (killed, or a forked worker that skips
    exit handlers) leaves its scratch folders; the next process to seal removes them, and
    never those of a parent still alive."""
    ended = subprocess.Popen(["true"])
    ended.wait()
    dead = Path(tempfile.gettempdir()) / f"{box.SCRATCH_PREFIX}{ended.pid}-left"
    alive = Path(tempfile.gettempdir()) / f"{box.SCRATCH_PREFIX}{os.getpid()}-mine"
    for folder in (dead, alive):
        folder.mkdir()
        (folder / "notes.txt").write_text("left by an agent\n")
    try:
        script = (
            "from evaluation.tournament import play_game, schedule; "
            "play_game(schedule(['random'], 2, 1, seed=1, sealed=True)[0])"
        )
        subprocess.run([sys.executable, "-c", script], check=True, cwd=Path(__file__).parents[1])
        assert not dead.exists() and alive.exists()
    finally:
        shutil.rmtree(dead, ignore_errors=True)
        shutil.rmtree(alive, ignore_errors=True)


def test_a_box_without_the_uid_drop_still_ends_everything(
    drop: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A plain user's box (here: root's, told to keep its uid): the child keeps the parent's
    uid but is not dumpable (other children cannot ptrace it), and the helpers it started, the
    one in its own session included, still end with it."""
    monkeypatch.setattr(box, "drops_uid", lambda: False)
    close_children()  # spares made with the uid drop
    report = _probe(drop)
    assert report["uid"] == os.getuid() and report["dumpable"] == 0  # no ptrace by its peers
    log = drop / "pids.json"
    play_game(_sealed("Lingerer", {"log": str(log)}))
    assert [pid for pid in json.loads(log.read_text()) if _running(pid)] == []
    close_children()


@pytest.mark.parametrize("how", ["thread", "process"])
def test_the_parent_counts_cpu_the_child_spends_elsewhere(how: str) -> None:
    """An agent that burns 0.6 s of CPU in another thread or a child process (and whose
    time.process_time says 0) is charged for it: the parent reads /proc."""
    spec = _sealed("Burner", {"seconds": 0.6, "how": how, "at": "0"})
    record = play_game(spec)
    assert record["timing"]["cpu_seconds"][0] >= 0.5
    assert record["forfeits"] == [0, 0]


@pytest.mark.parametrize(
    ("budget", "how"),
    [(MoveBudget(cpu_seconds=0.3), "thread"), (MoveBudget(seconds=2.0), "sleep")],
)
def test_a_decision_over_budget_is_forfeited_and_the_game_goes_on(
    budget: MoveBudget, how: str, drop: Path
) -> None:
    kwargs = {"seconds": 30.0, "how": how, "at": "1,4", "once": str(drop)}
    spec = _sealed("Burner", kwargs, move_budget=budget)
    record = play_game(spec)
    assert record["forfeits"] == [2, 0]  # its two slow decisions; the others in time
    assert record["winners"] and record["timing"]["decisions"][0] > 4  # played to its end


def test_a_forfeited_decision_plays_the_lowest_legal_action(drop: Path) -> None:
    env = raw_env(num_players=2)
    env.reset(seed=3)
    agent_name = env.agent_selection
    vector, mask = env.observe_for(agent_name, None)
    info = {"seat": 0, "view": env.player_view(agent_name)}
    cards = card_set_to_dict(env.game.cards)
    burner = {"how": "sleep", "seconds": 30.0, "at": "0", "once": str(drop)}
    sealed = SealedAgent("tests.sealed_agents:Burner", 1, cards, MoveBudget(seconds=2.0), **burner)
    try:
        assert sealed.act(vector, mask, info) == fallback_action(mask) == np.flatnonzero(mask)[0]
        assert sealed.forfeits == 1 and sealed.last_seconds >= 2.0
        assert mask[sealed.act(vector, mask, info)]  # a fresh child plays the next decision
        assert sealed.forfeits == 1
    finally:
        sealed.close()


def test_a_desync_is_that_childs_loss_only() -> None:
    """A child that writes a forged answer is killed and its game fails by name; the next
    sealed games play."""
    with pytest.raises(GameFailure, match="seat 0 \\(x\\): SealedAgentError: out of protocol"):
        play_game(_sealed("Desync"))
    assert play_game(schedule(["random", "heuristic"], 2, 2, seed=1, sealed=True)[1])["sealed"]


def test_module_state_never_reaches_another_agent_or_game(drop: Path) -> None:
    """Each game of each agent has a fresh child: what one leaves in its modules, the next
    game (of another agent, or its own) never sees."""
    logs = [drop / f"memory-{k}.json" for k in range(5)]
    for log, label in zip(logs, ("a", "b", "a"), strict=False):
        play_game(_sealed("Marker", {"log": str(log), "label": label}))
    both = GameSpec(
        0,
        5,
        ("a", "b"),
        {"num_players": 2},
        {"a": {"log": str(logs[3]), "label": "a"}, "b": {"log": str(logs[4]), "label": "b"}},
        {"a": "tests.sealed_agents:Marker", "b": "tests.sealed_agents:Marker"},
        sealed=("a", "b"),
    )
    play_game(both)
    seen = [json.loads(log.read_text()) for log in logs]
    assert [s["label"] for s in seen] == ["a", "b", "a", "a", "b"]
    assert all(s["saw"] == {} for s in seen)


def test_a_sealed_evaluation_keeps_its_folder_private_and_its_budget(tmp_path: Path) -> None:
    """The journal's folder is the parent's alone (0700); the move budget is in the spec (for
    --resume) and the scorecard, with the forfeits counted."""
    out = tmp_path / "ev"
    budget = MoveBudget(seconds=30.0, cpu_seconds=20.0)
    card = evaluate("random", quick=True, sealed=True, out_dir=out, move_budget=budget)
    assert stat.S_IMODE(out.stat().st_mode) == 0o700
    assert card["budgets"]["move_seconds"] == 30.0
    assert card["budgets"]["move_cpu_seconds"] == 20.0
    assert card["forfeits"] == 0 and card["sealed"] is True
    spec = read_eval_spec(out)
    assert (spec.move_seconds, spec.move_cpu_seconds) == (30.0, 20.0)
    with pytest.raises(ValueError, match="sealed"):
        evaluate("random", quick=True, move_budget=budget)
