"""A killed `farlight evaluate --out DIR` loses at most the games in flight: `--resume DIR`
plays only the missing ones and gives the scorecard of an uninterrupted run (timing aside)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from evaluation_runs import farlight, without_timing

import evaluation
from evaluation.eval_v1 import resume_evaluation
from evaluation.formats.journal import EVAL_GAMES, EVAL_SPEC
from evaluation.journal import JournalError

SHORT = ["--quick", "--max-rounds", "2"]  # 15 short games: a few seconds


@pytest.fixture(scope="module")
def uninterrupted() -> dict:
    return evaluation.evaluate("random", quick=True, config={"max_rounds": 2})


def test_a_journal_cut_short_resumes_to_the_same_scorecard(tmp_path: Path, uninterrupted) -> None:
    out = tmp_path / "card"
    whole = evaluation.evaluate("random", quick=True, config={"max_rounds": 2}, out_dir=out)
    assert without_timing(whole) == without_timing(uninterrupted)
    journal = out / EVAL_GAMES
    lines = journal.read_text().splitlines(keepends=True)
    assert len(lines) == 15
    journal.write_text("".join(lines[:6]) + lines[6][:40])  # six games and a torn seventh
    again = resume_evaluation(out)
    assert without_timing(again) == without_timing(uninterrupted)
    assert len(journal.read_text().splitlines()) == 15


def test_cli_killed_mid_run_then_resumed(tmp_path: Path, uninterrupted) -> None:
    out = tmp_path / "card"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "farlight_cli",
            "evaluate",
            "random",
            *SHORT,
            "--out",
            str(out),
            "--no-progress",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 240
    journal = out / EVAL_GAMES
    while time.monotonic() < deadline and proc.poll() is None:
        if journal.is_file() and journal.read_text().count("\n") >= 4:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "finished before the kill: " + proc.stderr.read().decode()
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    proc.stderr.close()
    assert not (out / "scorecard.json").exists()
    done = farlight("evaluate", "--resume", str(out), "--no-progress")
    assert done.returncode == 0, done.stderr
    card = json.loads((out / "scorecard.json").read_text())
    assert without_timing(card) == without_timing(uninterrupted)
    assert (out / "scorecard.png").is_file()


@pytest.fixture(scope="module")
def killed_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A journal with its spec and two games, as a killed run leaves it."""
    out = tmp_path_factory.mktemp("template") / "card"
    evaluation.evaluate("random", quick=True, config={"max_rounds": 2}, out_dir=out)
    journal = out / EVAL_GAMES
    journal.write_text("".join(journal.read_text().splitlines(keepends=True)[:2]))
    (out / "scorecard.json").unlink(missing_ok=True)
    return out


@pytest.fixture
def started(killed_template: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(killed_template, tmp_path / "card"))


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["random", "--resume", "{out}"], "drop POLICY"),
        (["--resume", "{out}", "--quick"], "drop --quick"),
        (["--resume", "{out}", "--rule", "token_rounding=down"], "drop --rule"),
        (["--resume", "{out}", "--move-seconds", "5"], "drop --move-seconds"),
        (["--resume", "{tmp}/nowhere"], "no such folder"),
        (["--resume", "{tmp}"], f"no {EVAL_SPEC}"),
        (["random", "--quick", "--out", "{out}"], "already holds an evaluation"),
        ([], "give POLICY"),
    ],
)
def test_resume_mistakes_are_one_line(
    started: Path, tmp_path: Path, argv: list[str], fragment: str
) -> None:
    before = (started / EVAL_GAMES).read_bytes()
    args = [a.format(out=started, tmp=tmp_path) for a in argv]
    proc = farlight("evaluate", *args, "--no-progress", timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert fragment in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) <= 2
    assert (started / EVAL_GAMES).read_bytes() == before


def test_a_journal_of_another_schedule_is_refused(started: Path) -> None:
    """Even signed with the run's own key, a game of another schedule is not this run's."""
    from evaluation.run_key import MAC_FIELD, read_run_key, sign

    journal = started / EVAL_GAMES
    record = json.loads(journal.read_text().splitlines()[0])
    del record[MAC_FIELD]
    record["env_seed"] += 1
    journal.write_text(json.dumps(sign(read_run_key(started), record)) + "\n")
    with pytest.raises(JournalError, match="not in this tournament"):
        resume_evaluation(started)


def test_a_policy_file_changed_since_the_start_is_refused(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="saved policies need the train extra")
    from agents.farlight.policy import SHIPPED_POLICY

    policy = tmp_path / "mine.pt"
    shutil.copy(SHIPPED_POLICY, policy)
    out = tmp_path / "card"
    from evaluation.eval_v1 import PROTOCOL, _file_hash
    from evaluation.farlight.scorecard import card_set_hash
    from evaluation.formats.journal import EvaluationSpec
    from evaluation.journal import Journal

    spec = EvaluationSpec(
        "farlight-eval-spec",
        1,
        PROTOCOL,
        str(policy),
        _file_hash(str(policy)),
        True,
        card_set_hash(None),
    )
    Journal.create(out, spec, EVAL_SPEC, EVAL_GAMES, "an evaluation")
    with policy.open("ab") as fh:
        fh.write(b"\0")
    with pytest.raises(JournalError, match="changed since the evaluation began"):
        resume_evaluation(out)


def refused_after_changing(policy: Path, spec, out: Path) -> None:
    """Journal `spec` in `out`, append a byte to `policy`: the resume is refused."""
    from evaluation.journal import Journal

    Journal.create(out, spec, EVAL_SPEC, EVAL_GAMES, "an evaluation")
    with policy.open("ab") as fh:
        fh.write(b"\0")
    with pytest.raises(JournalError, match="changed since the evaluation began"):
        resume_evaluation(out)


def test_a_shipped_policy_changed_since_the_start_is_refused(tmp_path: Path, monkeypatch) -> None:
    """`ppo` names whatever file is shipped: a journal started with one file is not finished
    with another."""
    pytest.importorskip("torch", reason="saved policies need the train extra")
    import agents.farlight.policy
    from evaluation.eval_v1 import PROTOCOL, _file_hash
    from evaluation.farlight.scorecard import card_set_hash
    from evaluation.formats.journal import EvaluationSpec

    shipped = tmp_path / "shipped.pt"
    shutil.copy(agents.farlight.policy.SHIPPED_POLICY, shipped)
    monkeypatch.setattr(agents.farlight.policy, "SHIPPED_POLICY", shipped)
    spec = EvaluationSpec(
        "farlight-eval-spec", 1, PROTOCOL, "ppo", _file_hash("ppo"), True, card_set_hash(None)
    )
    assert spec.agent_file_hash is not None
    refused_after_changing(shipped, spec, tmp_path / "card")


def test_ppo_with_its_own_path_is_hashed_and_checked_by_that_file(tmp_path: Path) -> None:
    """`ppo` given `path=` plays that file, so the card names it and a resume checks it (not
    the shipped file)."""
    pytest.importorskip("torch", reason="saved policies need the train extra")
    import hashlib

    import agents.farlight.policy
    from evaluation.eval_v1 import PROTOCOL, _file_hash
    from evaluation.farlight.scorecard import card_set_hash
    from evaluation.formats.journal import EvaluationSpec

    mine = tmp_path / "mine.pt"
    shutil.copy(agents.farlight.policy.SHIPPED_POLICY, mine)
    with mine.open("ab") as fh:
        fh.write(b"\0")  # another file than the shipped one
    kwargs = {"path": str(mine)}
    assert _file_hash("ppo", kwargs) == "sha256:" + hashlib.sha256(mine.read_bytes()).hexdigest()
    assert _file_hash("ppo", kwargs) != _file_hash("ppo")
    spec = EvaluationSpec(
        "farlight-eval-spec",
        1,
        PROTOCOL,
        "ppo",
        _file_hash("ppo", kwargs),
        True,
        card_set_hash(None),
        kwargs,
    )
    refused_after_changing(mine, spec, tmp_path / "card")


def test_a_foreign_spec_is_refused(started: Path) -> None:
    (started / EVAL_SPEC).write_text('{"format": "farlight-eval-spec", "version": 1}')
    with pytest.raises(JournalError, match="not an evaluation spec"):
        resume_evaluation(started)
