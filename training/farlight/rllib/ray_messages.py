"""Ray's own start-up chatter kept off the terminal and in the run's folder instead.

Starting Ray and building RLlib's algorithm print lines a user cannot act on: RLlib's notice
that PPO runs on its new API stack, and the core worker's note (an `E` line) that env runners
restart with constructor arguments in the object store. Both are about how this project
configures RLlib, not about the run. While Ray starts, the process's stderr (file descriptor
2, which Ray's C++ core writes to directly) goes to a temporary file; the run keeps it as
RUN/ray.log. An error is still raised as usual and reaches the terminal through the command.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

#: Where a run keeps what Ray printed while it started.
RAY_LOG = "ray.log"
#: RLlib's `log_once` keys of notices about this project's own configuration.
KNOWN_NOTICES = ("PPO_on_new_api_stack",)
#: At most this much of what Ray printed is kept (a log, not a dump).
MAX_LOG = 1 << 20


def silence_known_notices() -> None:
    """Mark RLlib's notices about the new API stack as already shown (this project chose it)."""
    from ray.util import log_once

    for key in KNOWN_NOTICES:
        log_once(key)


@contextlib.contextmanager
def ray_stderr_captured() -> Iterator[list[bytes]]:
    """Send file descriptor 2 to a temporary file for the block; the list it yields holds
    what was written once the block ends. If the block raises, what Ray printed is shown after
    all (it may say why), before the error goes on."""
    sys.stderr.flush()
    captured: list[bytes] = []
    saved = os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        failed = True
        try:
            yield captured
            failed = False
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            captured.append(sink.read(MAX_LOG))
            if failed and captured[-1]:
                os.write(2, captured[-1])


def keep_ray_log(run_dir: Path, captured: list[bytes]) -> None:
    """Append what Ray printed to RUN/ray.log (the folder exists by then)."""
    text = b"".join(captured)
    if text:
        with open(run_dir / RAY_LOG, "ab") as log:
            log.write(text)
