"""Helpers shared by the `farlight evaluate` tests (test_evaluate.py, test_evaluate_resume.py)."""

from __future__ import annotations

import subprocess
import sys

from evaluation.eval_v1 import TIMING_FIELDS


def farlight(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """The command as a user runs it, in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "farlight_cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def without_timing(card: dict) -> dict:
    """A scorecard without its wall-clock fields, which differ from run to run."""
    return {k: v for k, v in card.items() if k not in TIMING_FIELDS}
