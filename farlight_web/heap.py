"""The server's heap held near what it uses: fewer malloc arenas, freed pages handed back.

glibc gives each thread that allocates its own arena (up to 8 per core), and keeps freed
memory inside them; Starlette's thread pool runs the games in up to 40 threads, so a server
under load grew by a few MiB a minute without holding more (docs/safety.md, "Memory under a
long load"). Two arenas and a `malloc_trim` every half minute bound that. Elsewhere than
glibc (musl, macOS) both calls are skipped.
"""

from __future__ import annotations

import ctypes
import threading

#: mallopt's parameter number for the arena cap (glibc's malloc.h).
M_ARENA_MAX = -8
#: Arenas the server allocates from: the event loop's and one for the pool's threads.
ARENAS = 2
#: Seconds between hand-backs of freed pages.
TRIM_EVERY = 30.0


def _glibc() -> ctypes.CDLL | None:
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return None
    return libc if hasattr(libc, "mallopt") and hasattr(libc, "malloc_trim") else None


def limit_arenas(count: int = ARENAS) -> bool:
    """Cap glibc's malloc arenas (before the worker threads start); False where not glibc."""
    libc = _glibc()
    return bool(libc and libc.mallopt(M_ARENA_MAX, count) == 1)


def trim() -> bool:
    """Hand freed heap pages back to the OS; whether glibc did (False elsewhere)."""
    libc = _glibc()
    return bool(libc and libc.malloc_trim(0) == 1)


def start_trimming(every: float = TRIM_EVERY) -> threading.Event:
    """Trim every `every` seconds in a daemon thread until the returned event is set."""
    stop = threading.Event()

    def loop() -> None:
        while not stop.wait(every):
            trim()

    threading.Thread(target=loop, name="heap-trim", daemon=True).start()
    return stop
