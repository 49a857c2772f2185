"""Process helpers for the kill tests (tests/test_*_jobs.py): who is still running, from /proc."""

from __future__ import annotations

import signal
from pathlib import Path


def terminal_sigint() -> None:
    """`preexec_fn` for the Ctrl-C tests: SIGINT as a terminal's foreground job has it. A test
    run started in the background (`cmd &` in a script) passes SIGINT on ignored, and a Python
    started so never raises KeyboardInterrupt, which is the POSIX convention it follows."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie, already dead but not yet reaped, does not count)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status
