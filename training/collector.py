"""Python's cyclic garbage collector during a training run: young objects collected less often.

A learner step allocates thousands of short-lived objects (the env's infos, the heuristic's
keys and copies, SB3's and torch's wrappers). At CPython's default of a young collection every
700 net allocations, enough of them live through a collection or two to be promoted, and full
collections then walk every object alive, the ~300,000 that torch and SB3 create at import
among them: 4-7% of a training step here (`scripts/collector_time.py --train`). Collecting the
young generation every 20,000 allocations instead promotes almost nothing, so full collections
all but stop; the garbage itself is still freed (reference counting frees all but cycles).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

#: CPython's own threshold for collecting the youngest generation.
CPYTHON_DEFAULT = 700
#: Net allocations between young collections while learning (docs/performance.md).
TRAINING_THRESHOLD = 20_000


@contextlib.contextmanager
def fewer_collections(threshold: int = TRAINING_THRESHOLD) -> Iterator[None]:
    """Within the block (or the decorated call: `train` of training/train_ppo.py and
    training/self_play.py), collect the youngest generation every `threshold` allocations;
    the settings before are restored after (they are process-wide). A collector the user
    disabled or tuned (a first threshold other than CPython's 700) is left as it is."""
    before = gc.get_threshold()
    if not gc.isenabled() or before[0] != CPYTHON_DEFAULT:
        yield
        return
    gc.set_threshold(threshold, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
