"""The web server's resource limits in one place, and per-client rate limiting.

Every bound the server keeps is a named constant here with its reason; `Limits` gathers them
so `make_app(limits=...)` (and `farlight serve`'s options) can change them, and tests can use
tiny values. docs/safety.md states the same figures.

Rate limits are token buckets per client address (`request.client.host`): a client may make
`burst` requests at once, then one every `60 / per_minute` seconds. Behind a reverse proxy
every client has the proxy's address and shares one bucket: raise the rates there.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

#: Live games kept in memory (least recently used evicted first, reloaded from their record on
#: the next request): a game with bots takes 0.3 MB (heuristic, random) to 7 MB (four ppo bots).
MAX_LIVE_GAMES = 32
#: A live game untouched this long is evicted too, so an idle server gives its memory back.
IDLE_SECONDS = 15 * 60
#: Uploads kept under --data/uploads (deduplicated by content); the oldest are removed first.
MAX_UPLOAD_FILES = 100
MAX_UPLOAD_STORE_BYTES = 256 << 20  # their total size; one upload is at most 32 MB
#: Uploads read and parsed at once (each up to 32 MB, at most about 5 times that in memory
#: while parsed); more get a 503 with Retry-After: uploads hold at most about 350 MB together.
CONCURRENT_UPLOADS = 2
#: New games one client may start: a burst, then this many per minute.
GAMES_PER_MINUTE = 10
GAMES_BURST = 10
#: Uploads one client may send: each is up to 32 MB of parsing and replaying.
UPLOADS_PER_MINUTE = 4
UPLOADS_BURST = 4
#: Clients whose buckets are remembered; past this, the least recently seen are forgotten.
MAX_CLIENTS = 10_000


@dataclass(frozen=True)
class Rate:
    """`burst` requests at once, refilled at `per_minute` per minute (0: no limit)."""

    per_minute: float
    burst: int

    def __post_init__(self) -> None:
        if self.per_minute < 0 or self.burst < 1:
            raise ValueError(f"a rate needs per_minute >= 0 and burst >= 1, got {self}")


@dataclass(frozen=True)
class Limits:
    """What one server may hold and accept; the defaults are the constants above."""

    max_live_games: int = MAX_LIVE_GAMES
    idle_seconds: float = IDLE_SECONDS
    upload_files: int = MAX_UPLOAD_FILES
    upload_bytes: int = MAX_UPLOAD_STORE_BYTES
    concurrent_uploads: int = CONCURRENT_UPLOADS
    new_games: Rate = field(default_factory=lambda: Rate(GAMES_PER_MINUTE, GAMES_BURST))
    uploads: Rate = field(default_factory=lambda: Rate(UPLOADS_PER_MINUTE, UPLOADS_BURST))

    def __post_init__(self) -> None:
        if self.max_live_games < 1 or self.idle_seconds <= 0:
            raise ValueError("max_live_games must be >= 1 and idle_seconds > 0")
        if min(self.upload_files, self.upload_bytes, self.concurrent_uploads) < 1:
            raise ValueError("upload_files, upload_bytes and concurrent_uploads must be >= 1")


class RateLimiter:
    """Token buckets keyed by client address; `take(key)` spends one token or says how long
    to wait. `clock` is injectable so tests need no sleeps."""

    def __init__(
        self,
        rate: Rate,
        clock: Callable[[], float] = time.monotonic,
        max_clients: int = MAX_CLIENTS,
    ) -> None:
        self.rate = rate
        self.clock = clock
        self.max_clients = max_clients
        self.buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # tokens, time
        self.lock = threading.Lock()

    def take(self, key: str) -> float | None:
        """None when `key` may go ahead (a token spent); else the seconds until it may."""
        if self.rate.per_minute == 0:
            return None
        per_second = self.rate.per_minute / 60
        with self.lock:
            now = self.clock()
            tokens, then = self.buckets.pop(key, (float(self.rate.burst), now))
            tokens = min(float(self.rate.burst), tokens + (now - then) * per_second)
            if tokens >= 1:
                self.buckets[key] = (tokens - 1, now)
                self._forget()
                return None
            self.buckets[key] = (tokens, now)
            return (1 - tokens) / per_second

    def _forget(self) -> None:
        """Keep at most max_clients buckets, dropping the least recently used (most likely
        full again: a dropped client only gets its burst back)."""
        while len(self.buckets) > self.max_clients:
            self.buckets.popitem(last=False)


def retry_after(seconds: float) -> str:
    """The Retry-After header's value: whole seconds, at least 1."""
    return str(max(1, math.ceil(seconds)))
