"""Ctrl-C says what was kept and how to carry on (issue #48: it printed only "interrupted").

Each case runs the real `farlight` in a subprocess, sends it SIGINT as a terminal does, and
reads the one line it leaves on stderr; a resumed tournament says how far it had got.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from processes import terminal_sigint

from evaluation.formats.journal import EVAL_GAMES, GAMES


def start(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "farlight_cli", *args, "--no-progress"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        preexec_fn=terminal_sigint,
    )


def interrupt_once(proc: subprocess.Popen, journal: Path, games: int) -> str:
    """SIGINT once `journal` holds `games` games (the command still running); its stderr."""
    deadline = time.monotonic() + 240
    while not (journal.is_file() and journal.read_text().count("\n") >= games):
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() < deadline, "no game finished"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err
    return err


def kept(journal: Path) -> int:
    return journal.read_text().count("\n")


def test_a_tournament_says_its_games_are_kept_and_resumes_saying_how_many(tmp_path: Path):
    out = tmp_path / "t"
    proc = start("tournament", "--agents", "random,heuristic", "--games", "40", "--out", str(out))
    err = interrupt_once(proc, out / GAMES, 3)
    played = kept(out / GAMES)
    assert err.strip().splitlines() == [
        f"farlight tournament: interrupted; {played} finished games are kept in {out}: "
        f"finish with farlight tournament --resume {out}"
    ]
    done = subprocess.run(
        [sys.executable, "-m", "farlight_cli", "tournament", "--resume", str(out), "--no-progress"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == f"resuming: {played} of 40 games already played"
    assert kept(out / GAMES) == 40


def test_a_tournament_without_out_says_nothing_is_kept(tmp_path: Path):
    proc = start("tournament", "--agents", "heuristic,ismcts", "--games", "399")
    assert proc.stdout is not None
    assert proc.stdout.readline().startswith("playing 400 games")  # said as the games start
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err, err
    assert err.strip().splitlines() == [
        "farlight tournament: interrupted; no game is kept without --out DIR "
        "(which saves each game as it ends)"
    ]


def test_an_evaluation_says_its_games_are_kept_and_how_to_finish(tmp_path: Path):
    out = tmp_path / "card"
    err = interrupt_once(
        start("evaluate", "random", "--quick", "--out", str(out)), out / EVAL_GAMES, 2
    )
    played = kept(out / EVAL_GAMES)
    assert err.strip().splitlines() == [
        f"farlight evaluate: interrupted; {played} finished games are kept in {out}: "
        f"finish with farlight evaluate --resume {out}"
    ]


def test_a_training_run_names_its_checkpoint_and_the_resume_command(tmp_path: Path):
    """Per kind: the checkpoint it would continue from (RLlib's is a folder)."""
    from farlight_cli.interrupts import checkpoint_name, interrupted_text
    from farlight_cli.main import build_parser

    for kind in ("ppo", "self-play", "rllib"):
        run = tmp_path / kind
        args = build_parser().parse_args(["train", kind, "--run-dir", str(run)])
        command = f"farlight train {kind}"
        before = interrupted_text(command, args)
        assert before == (
            f"{command}: interrupted; before its first checkpoint: start it again in an "
            "empty --run-dir"
        )
        (run / checkpoint_name(kind)).mkdir(parents=True)
        assert interrupted_text(command, args) == (
            f"{command}: interrupted; the last checkpoint is kept in {run}: continue with "
            f"{command} --resume --run-dir {run}"
        )
