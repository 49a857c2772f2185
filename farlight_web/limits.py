"""The web server's resource limits in one place, and per-client rate limiting.

Every bound the server keeps is a named constant here with its reason; `Limits` gathers them
so `make_app(limits=...)` (and `farlight serve`'s options) can change them, and tests can use
tiny values. docs/safety.md states the same figures.

Rate limits are token buckets per client (`farlight_web.clients`: the socket's peer, every
loopback address one client, IPv6 per /64, or the address a `--trusted-proxy` forwards): a
client may make `burst` requests at once, then one every `60 / per_minute` seconds.
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
#: Bot thinking per request (seconds): after it, the request returns ("thinking": true).
THINK_SECONDS = 2.0
MAX_MOVES_SHOWN = 200  # moves a live game keeps for clients to catch up on (above a round's)
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
#: Replays one client may open (each replays a whole game on the server's CPU).
REPLAYS_PER_MINUTE = 30
REPLAYS_BURST = 10
#: Replays kept open at once, in all and per client (the least recently used closed first);
#: each holds at most `farlight_web.farlight.replays.REPLAY_BYTES_BOUND` (docs/safety.md).
MAX_OPEN_REPLAYS = 16
REPLAYS_PER_CLIENT = 4
#: Clients whose buckets are remembered; past this, the least recently seen are forgotten.
MAX_CLIENTS = 10_000

# ---- connections (`farlight_web.server`: uvicorn's settings and the read deadlines)
#: A request's line and headers must arrive within this many seconds of its first byte (of the
#: connection opening, for the first request): a client sending them byte by byte is cut off.
HEADER_SECONDS = 10.0
#: Its body must then arrive within this many (32 MB at 1 MB/s fits).
BODY_SECONDS = 60.0
#: An idle keep-alive connection is closed after this many seconds (uvicorn's own timer).
KEEP_ALIVE_SECONDS = 5.0
#: Connections held at once; a request past it is answered 503 (uvicorn's limit_concurrency).
MAX_CONNECTIONS = 256
#: A request line and headers larger than this are refused (h11's incomplete event bound).
MAX_HEADER_BYTES = 16 << 10


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
    replays: Rate = field(default_factory=lambda: Rate(REPLAYS_PER_MINUTE, REPLAYS_BURST))
    open_replays: int = MAX_OPEN_REPLAYS
    replays_per_client: int = REPLAYS_PER_CLIENT
    header_seconds: float = HEADER_SECONDS
    body_seconds: float = BODY_SECONDS
    keep_alive_seconds: float = KEEP_ALIVE_SECONDS
    max_connections: int = MAX_CONNECTIONS

    def __post_init__(self) -> None:
        if self.max_live_games < 1 or self.idle_seconds <= 0:
            raise ValueError("max_live_games must be >= 1 and idle_seconds > 0")
        if min(self.upload_files, self.upload_bytes, self.concurrent_uploads) < 1:
            raise ValueError("upload_files, upload_bytes and concurrent_uploads must be >= 1")
        if min(self.open_replays, self.replays_per_client, self.max_connections) < 1:
            raise ValueError("open_replays, replays_per_client and max_connections must be >= 1")
        if min(self.header_seconds, self.body_seconds, self.keep_alive_seconds) <= 0:
            raise ValueError("header_seconds, body_seconds and keep_alive_seconds must be > 0")


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
