"""Python's cyclic garbage collector during long runs: young objects collected less often.

Training and tournaments allocate thousands of short-lived objects per step or decision (the
env's infos, the heuristic's keys and copies, SB3's and torch's wrappers). At CPython's default
of a young collection every 700 net allocations, enough of them live through a collection or
two to be promoted, and full collections then walk every object alive, the ~300,000 that torch
and SB3 create at import among them: 3-7% of a training step or of a policy's tournament here
(`scripts/collector_time.py`). Collecting the young generation every 20,000 allocations instead
promotes almost nothing, so full collections all but stop; the garbage itself is still freed
(reference counting frees all but cycles).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

#: CPython's own threshold for collecting the youngest generation.
CPYTHON_DEFAULT = 700
#: Net allocations between young collections in a long run (docs/performance-history.md,
#: "Fewer garbage collections during training").
LONG_RUN_THRESHOLD = 20_000


def _untouched() -> bool:
    """Whether the collector runs with CPython's first threshold (not disabled or tuned)."""
    return gc.isenabled() and gc.get_threshold()[0] == CPYTHON_DEFAULT


@contextlib.contextmanager
def fewer_collections(threshold: int = LONG_RUN_THRESHOLD) -> Iterator[None]:
    """Within the block (or the decorated call: `train` of training/farlight/sb3/train_ppo.py and
    training/farlight/sb3/self_play.py), collect the youngest generation every `threshold`
    allocations; the settings before are restored after (they are process-wide). A collector the
    user disabled or tuned (a first threshold other than CPython's 700) is left as it is."""
    before = gc.get_threshold()
    if not _untouched():
        yield
        return
    gc.set_threshold(threshold, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def fewer_collections_for_good(threshold: int = LONG_RUN_THRESHOLD) -> None:
    """`fewer_collections` for the rest of a process that exists only to do the work (a
    tournament's pool worker); a collector tuned or disabled is left as it is."""
    if _untouched():
        gc.set_threshold(threshold, *gc.get_threshold()[1:])
