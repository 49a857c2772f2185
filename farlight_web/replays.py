"""Open replays of any game, by id, in bounded memory: the bounds every game's replay keeps to
(Farlight's `farlight_web.farlight.replays`, another game's `farlight_web.platform_replays`)
and `Replays`, the open ones, at most a number in all and per client."""

from __future__ import annotations

import hashlib
import secrets
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Protocol

from farlight_web.limits import MAX_OPEN_REPLAYS, REPLAYS_PER_CLIENT

#: Actions a replayed record may hold; a game played to its end takes a few hundred.
MAX_REPLAY_STEPS = 10_000
#: Game states one replay keeps, besides the one last shown.
MAX_CHECKPOINTS = 64
#: The fewest steps between checkpoints (a short game keeps fewer states, not more).
MIN_INTERVAL = 16
#: The fields of a record a replay answers with; the rest (its actions included) is dropped.
KEPT_FIELDS = ("format", "players", "scores", "winners", "finished", "seat_keys", "human_seat")


class Replay(Protocol):
    """What the server uses of an open replay, whatever game it is of."""

    record: dict[str, Any]  # the record's fields a replay answers with (KEPT_FIELDS)
    source: str
    steps: int

    def summary(self) -> dict[str, Any]: ...

    def at(self, step: int, viewer: int | None) -> dict[str, Any]: ...


@dataclass(frozen=True)
class OpenReplay:
    """An open replay, whom it counts against, and the seats it may be seen as (None: any;
    an unfinished game's replay only as the seats its opener's tokens hold, or a spectator)."""

    replay: Replay
    client: str
    viewers: frozenset[int] | None


class Replays:
    """Open replays by id: at most `max_open` in all and `per_client` per client, the least
    recently used closed first. A finished game's id is derived from what was opened (the
    same file opened again shares it); an unfinished game's is random."""

    def __init__(self, max_open: int = MAX_OPEN_REPLAYS, per_client: int = REPLAYS_PER_CLIENT):
        self.max_open = max_open
        self.per_client = per_client
        self.open: OrderedDict[str, OpenReplay] = OrderedDict()
        self.lock = threading.Lock()

    def add(self, key: str, replay: Replay, client: str, viewers: set[int] | None = None) -> str:
        if viewers is None:
            rid = hashlib.sha256(key.encode()).hexdigest()[:16]
        else:
            rid = secrets.token_hex(8)
        kept = OpenReplay(replay, client, None if viewers is None else frozenset(viewers))
        with self.lock:
            self.open.pop(rid, None)
            mine = [r for r, entry in self.open.items() if entry.client == client]
            for old in mine[: max(0, len(mine) + 1 - self.per_client)]:
                del self.open[old]
            self.open[rid] = kept
            while len(self.open) > self.max_open:
                self.open.popitem(last=False)
        return rid

    def get(self, rid: str) -> OpenReplay | None:
        with self.lock:
            found = self.open.get(rid)
            if found is not None:
                self.open.move_to_end(rid)
            return found
