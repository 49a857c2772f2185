"""The server's live games by id, of any game: created, kept in memory within limits, evicted,
and rebuilt from their records on demand. See `farlight_web.platform_tables` for one game of
the platform's, and `farlight_web.farlight.tables` for the server's own, Farlight's."""

from __future__ import annotations

import re
import secrets
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from farlight_env.platform import Game
from farlight_env.platform.records import PLATFORM_RECORD, RecordError
from farlight_web.files import MAX_FILE_BYTES, read_json
from farlight_web.limits import IDLE_SECONDS, MAX_LIVE_GAMES, THINK_SECONDS
from farlight_web.platform_tables import PlatformTable, resume_platform
from farlight_web.seats import HUMAN, SeatedTable

ID_PATTERN = re.compile(r"^[0-9a-f]{12}$")


class GameNotFound(LookupError):
    """No live or saved game with that id."""


class Tables:
    """The server's games by id: created here, kept in memory, reloaded from --data on demand.
    This class plays the platform's games; a server's own game adds its tables and records by
    overriding `_build` and `_rebuild` (`farlight_web.farlight.tables`).

    At most `max_live` games stay in memory, least recently used evicted first, and a game
    untouched for `idle_seconds` is evicted at the next request (`farlight_web.limits`). An
    evicted game loses nothing: its record was saved after the last decision, and the next
    request rebuilds it (`_rebuild`). There is never more than one `Table` for a game: a table
    evicted while a request still holds it is found again through `loaded` (a weak map of
    every table still in memory) instead of being rebuilt beside it, and rebuilds of one
    game are serialised (`_gates`), so two requests for it always share one table and lock.
    """

    def __init__(
        self,
        data: Path,
        max_live: int = MAX_LIVE_GAMES,
        idle_seconds: float = IDLE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        think_seconds: float = THINK_SECONDS,
    ) -> None:
        self.folder = data / "games"
        self.think_seconds = think_seconds
        self.max_live = max_live
        self.idle_seconds = idle_seconds
        self.clock = clock
        self.live: OrderedDict[str, SeatedTable] = OrderedDict()  # least recently used first
        self.used: dict[str, float] = {}  # when each live game was last asked for
        self.loaded: weakref.WeakValueDictionary[str, SeatedTable] = weakref.WeakValueDictionary()
        self.lock = threading.Lock()
        self._gates = [threading.Lock() for _ in range(64)]  # rebuilds, striped by game id

    def create(
        self,
        lineup: list[str],
        seat: int,
        seed: int,
        config: dict[str, Any],
        game: Game | None = None,
    ) -> tuple[SeatedTable, str, dict[int, str]]:
        """A new table of `game` (None: the server's own game, where a subclass has one), whose
        bots before the first human decision have moved (within the budget), saved; with the
        creator's token for `seat` and an invite code per other human seat."""
        self.folder.mkdir(parents=True, exist_ok=True)
        game_id = secrets.token_hex(6)
        keys: list[dict[str, str] | None] = [{} if n == HUMAN else None for n in lineup]
        table = self._build(game_id, lineup, seed, config, keys, game)
        token = table.new_seat_secret(seat)
        invites = {s: table.new_seat_secret(s, "invite") for s in table.humans if s != seat}
        table.save()
        table.advance()
        with self.lock:
            self._admit(table)
        return table, token, invites

    def get(self, game_id: str) -> SeatedTable:
        """The live table, or the saved one rebuilt from its record; GameNotFound otherwise."""
        if not ID_PATTERN.match(game_id):
            raise GameNotFound(f"unknown game {game_id!r}")
        with self.lock:
            table = self._find(game_id)
        if table is not None:
            return table
        with self._gates[int(game_id, 16) % len(self._gates)]:
            with self.lock:  # rebuilt by another request while this one waited?
                table = self._find(game_id)
            if table is not None:
                return table
            path = self.folder / f"{game_id}.json"
            if not path.is_file():
                raise GameNotFound(f"unknown game {game_id!r}")
            table = self._rebuild(game_id, path)
            with self.lock:
                self._admit(table)
            return table

    def _find(self, game_id: str) -> SeatedTable | None:
        """The game's table if one is in memory (live, or evicted but still held), made live."""
        table = self.live.get(game_id)
        if table is None:
            table = self.loaded.get(game_id)
        if table is not None:
            self._admit(table)
        return table

    def _admit(self, table: SeatedTable) -> None:
        """`table` becomes the most recently used; evict what is past the limits."""
        now = self.clock()
        self.live[table.id] = table
        self.live.move_to_end(table.id)
        self.used[table.id] = now
        self.loaded[table.id] = table
        while self.live:
            oldest = next(iter(self.live))
            if len(self.live) <= self.max_live and now - self.used[oldest] <= self.idle_seconds:
                break
            del self.live[oldest], self.used[oldest]

    def _build(
        self,
        game_id: str,
        lineup: list[str],
        seed: int,
        config: dict[str, Any],
        keys: list[dict[str, str] | None],
        game: Game | None,
    ) -> SeatedTable:
        """A new table of `game` (ValueError for None: this server has no game of its own)."""
        if game is None:
            raise ValueError("name the game: this server has no default game")
        return PlatformTable(
            game, game_id, lineup, seed, config, self.folder, keys, self.think_seconds, self.clock
        )

    def _rebuild(self, game_id: str, path: Path) -> SeatedTable:
        """The table of a platform record saved at `path`; RecordError (naming the record as
        `games/<id>.json`, never by its place on the server's disk) when it does not replay."""
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                raise RecordError(f"{path}: larger than {MAX_FILE_BYTES} bytes")
            record = read_json(path)
            if not isinstance(record, dict) or record.get("format") != PLATFORM_RECORD:
                raise RecordError(f"{path}: not a {PLATFORM_RECORD}")
            return resume_platform(game_id, path, record, self.think_seconds, self.clock)
        except (RecordError, ValueError, ImportError) as exc:
            raise RecordError(str(exc).replace(str(path), f"games/{path.name}")) from None
