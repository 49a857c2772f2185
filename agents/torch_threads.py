"""One torch math thread by default where this library builds a network or loads a policy.

Torch starts with one math thread per core. The networks here are small, so in a game loop or
a short MaskablePPO run those threads mostly wait for one another, and as soon as another
process is busy they fight it for the cores: on a shared 2-core machine a 2,048-step MaskablePPO
run took several times longer with torch's default than with one thread (figures in
docs/training.md, "Torch threads in your own scripts"). So the first time the library builds a
network (`agents.farlight.policy`) or loads a policy (`agents.make("ppo")`, a `*.pt`), it sets torch
to one thread, unless the user chose:

- `OMP_NUM_THREADS` or `MKL_NUM_THREADS` is set (torch read it at import);
- `FARLIGHT_TORCH_THREADS=N` is set: N threads; `FARLIGHT_TORCH_THREADS=0` leaves torch alone;
- the count was already changed from torch's default (`torch.set_num_threads(k)` before,
  detected as a count other than the machine's cores or half of them);
- the library set the count itself before (`set_threads`: training's --torch-threads, the
  CLI's game loops, tournament workers).

It happens once per process and changes a global of torch, so it is said here, in docs/training.md
and in `agents.farlight.policy`'s docstring. A script that builds its own SB3 policy never meets
this code: set `torch.set_num_threads(1)` there yourself.
"""

from __future__ import annotations

import os
import sys

#: The environment variable that overrides the library's choice (0: leave torch alone).
ENV = "FARLIGHT_TORCH_THREADS"
_decided = False


def set_threads(count: int) -> None:
    """Set torch's math threads deliberately (a flag, a worker's one thread): the library's
    default will not touch them afterwards."""
    global _decided
    _decided = True
    import torch

    torch.set_num_threads(count)


def _torch_defaults() -> set[int]:
    """Counts torch may start with on this machine: its cores, or half of them (physical
    cores where each has two hardware threads)."""
    counts = {os.cpu_count() or 1}
    if hasattr(os, "sched_getaffinity"):
        counts.add(len(os.sched_getaffinity(0)))
    return counts | {max(1, c // 2) for c in counts}


class ThreadSettingError(ValueError):
    """FARLIGHT_TORCH_THREADS is set to something that is no count of threads."""


def requested() -> int | None:
    """FARLIGHT_TORCH_THREADS as a count (0: leave torch alone), None when unset;
    ThreadSettingError when it is not a whole number >= 0. Reads no torch."""
    chosen = os.environ.get(ENV)
    if chosen is None:
        return None
    try:
        count = int(chosen)
    except ValueError:
        raise ThreadSettingError(
            f"{ENV} must be a whole number of threads (0: torch's own), got {chosen[:40]!r}"
        ) from None
    if count < 0:
        raise ThreadSettingError(f"{ENV} must be >= 0, got {count}")
    return count


def library_default() -> int | None:
    """Apply the default described above once per process; returns the count set, or None
    when torch was left as it was."""
    global _decided
    if _decided:
        return None
    _decided = True
    torch = sys.modules.get("torch")
    if torch is None:
        import torch
    count = requested()
    if count is not None:
        if count:
            torch.set_num_threads(count)
        return count or None
    if "OMP_NUM_THREADS" in os.environ or "MKL_NUM_THREADS" in os.environ:
        return None
    if torch.get_num_threads() not in _torch_defaults():
        return None  # the user already chose a count
    torch.set_num_threads(1)
    return 1


def single_threaded_worker() -> None:
    """One math thread per worker process: with N workers on N cores, torch's default of one
    thread per core oversubscribes them (30x slower policy decisions, as measured)."""
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = "1"
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)
