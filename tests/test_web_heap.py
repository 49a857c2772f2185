"""The web server caps glibc's malloc arenas and hands freed pages back (#53): the calls take
effect on glibc, and trimming gives memory back after a large freed allocation."""

from __future__ import annotations

import platform
import time

import pytest

from farlight_web import heap

glibc = pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc only"
)


def _rss_kib() -> int:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:"))


@glibc
def test_the_arena_cap_and_trim_take_effect_on_glibc() -> None:
    assert heap.limit_arenas(8)  # a cap as large as the default leaves this process as it was
    assert heap.trim() in (True, False)  # True only when pages were handed back


@glibc
def test_trimming_hands_back_what_fragmentation_keeps() -> None:
    """Blocks freed between survivors stay in the heap (RSS does not fall) until a trim
    returns their pages: what a long-running server's thread arenas hold on to."""
    before = _rss_kib()
    blocks = [bytearray(1000) for _ in range(100_000)]  # malloc'd, not pymalloc's
    grown = _rss_kib()
    survivors = blocks[::50]
    del blocks
    freed = _rss_kib()
    heap.trim()
    trimmed = _rss_kib()
    assert grown - before > 80_000 and len(survivors) == 2_000
    assert freed > grown - 20_000  # freed, but kept by the allocator
    assert trimmed < freed - 60_000, (before, grown, freed, trimmed)


def test_the_trimming_thread_stops_when_told() -> None:
    stop = heap.start_trimming(every=0.01)
    time.sleep(0.05)
    stop.set()
