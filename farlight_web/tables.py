"""The server's live games by id: created, kept in memory within limits, evicted, and rebuilt
from their records on demand (`resume`). See `farlight_web.sessions` for one game, and
`farlight_web.platform_tables` for one of another registered game."""

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

from farlight_env.cards.model import CardSet
from farlight_env.game.config import ConfigError
from farlight_env.game.rules_options import RuleOptionError
from farlight_env.platform import Game
from farlight_env.platform.records import PLATFORM_RECORD, RecordError
from farlight_env.records.record import load_record, new_game, record_actions
from farlight_web.bots import POLICY_FOLDER, BotUnfit, opponent_problem, parse_bot_errors
from farlight_web.library import MAX_FILE_BYTES
from farlight_web.limits import IDLE_SECONDS, MAX_LIVE_GAMES
from farlight_web.platform_tables import PlatformTable, resume_platform
from farlight_web.seats import HUMAN, parse_seat_keys
from farlight_web.sessions import MAX_MOVES_SHOWN, THINK_SECONDS, Table

ID_PATTERN = re.compile(r"^[0-9a-f]{12}$")
#: A live game: Farlight's, or another registered game's (`platform_tables`).
AnyTable = Table | PlatformTable


class GameNotFound(LookupError):
    """No live or saved game with that id."""


class Tables:
    """The server's games by id: created here, kept in memory, reloaded from --data on demand.

    At most `max_live` games stay in memory, least recently used evicted first, and a game
    untouched for `idle_seconds` is evicted at the next request (`farlight_web.limits`). An
    evicted game loses nothing: its record was saved after the last decision, and the next
    request rebuilds it (`resume`). There is never more than one `Table` for a game: a table
    evicted while a request still holds it is found again through `loaded` (a weak map of
    every table still in memory) instead of being rebuilt beside it, and rebuilds of one
    game are serialised (`_gates`), so two requests for it always share one table and lock.
    """

    def __init__(
        self,
        data: Path,
        card_set: CardSet | None = None,
        max_live: int = MAX_LIVE_GAMES,
        idle_seconds: float = IDLE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        think_seconds: float = THINK_SECONDS,
    ) -> None:
        self.folder = data / "games"
        self.policies = data / POLICY_FOLDER
        self.card_set = card_set
        self.card_set_name = "standard" if card_set is None else card_set.name
        self.think_seconds = think_seconds
        self.max_live = max_live
        self.idle_seconds = idle_seconds
        self.clock = clock
        self.live: OrderedDict[str, AnyTable] = OrderedDict()  # least recently used first
        self.used: dict[str, float] = {}  # when each live game was last asked for
        self.loaded: weakref.WeakValueDictionary[str, AnyTable] = weakref.WeakValueDictionary()
        self.lock = threading.Lock()
        self._gates = [threading.Lock() for _ in range(64)]  # rebuilds, striped by game id

    def create(
        self,
        lineup: list[str],
        seat: int,
        seed: int,
        config: dict[str, Any],
        game: Game | None = None,
    ) -> tuple[AnyTable, str, dict[int, str]]:
        """A new table of Farlight, or of `game` (another registered game), whose bots before
        the first human decision have moved (within the budget), saved; with the creator's
        token for `seat` and an invite code per other human seat."""
        self.folder.mkdir(parents=True, exist_ok=True)
        game_id = secrets.token_hex(6)
        keys: list[dict[str, str] | None] = [{} if n == HUMAN else None for n in lineup]
        table: AnyTable
        if game is not None:
            table = PlatformTable(
                game,
                game_id,
                lineup,
                seed,
                config,
                self.folder,
                keys,
                self.think_seconds,
                self.clock,
            )
        else:
            if self.card_set is not None:
                config = {**config, "card_set": self.card_set}
            table = Table(
                game_id,
                lineup,
                seed,
                config,
                self.folder,
                self.policies,
                keys,
                self.think_seconds,
                self.clock,
            )
        token = table.new_seat_secret(seat)
        invites = {s: table.new_seat_secret(s, "invite") for s in table.humans if s != seat}
        table.save()
        table.advance()
        with self.lock:
            self._admit(table)
        return table, token, invites

    def get(self, game_id: str) -> AnyTable:
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
            table = resume(game_id, path, self.policies, self.think_seconds, self.clock)
            with self.lock:
                self._admit(table)
            return table

    def _find(self, game_id: str) -> AnyTable | None:
        """The game's table if one is in memory (live, or evicted but still held), made live."""
        table = self.live.get(game_id)
        if table is None:
            table = self.loaded.get(game_id)
        if table is not None:
            self._admit(table)
        return table

    def _admit(self, table: AnyTable) -> None:
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


def resume(
    game_id: str,
    path: Path,
    policies: Path,
    think_seconds: float = THINK_SECONDS,
    clock: Callable[[], float] = time.monotonic,
) -> AnyTable:
    """Rebuild a table from its saved record: same env seed, the record's actions replayed
    (no bot thinks again: each decision's randomness is reseeded, see `reseed`). Errors name
    the record as `games/<id>.json`, never by its place on the server's disk."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise RecordError(f"{path}: larger than {MAX_FILE_BYTES} bytes")
        return _resume(game_id, path, policies, think_seconds, clock)
    except (RecordError, BotUnfit, ConfigError, RuleOptionError, ValueError, ImportError) as exc:
        message = str(exc).replace(str(path), f"games/{path.name}")
        raise RecordError(message.replace(str(policies.resolve()), POLICY_FOLDER)) from None


def _resume(
    game_id: str,
    path: Path,
    policies: Path,
    think_seconds: float,
    clock: Callable[[], float],
) -> AnyTable:
    record = load_record(path)
    if record.get("format") == PLATFORM_RECORD:  # another game's (#50)
        return resume_platform(game_id, path, record, think_seconds, clock)
    lineup = [str(p) for p in record["players"]]
    keys = parse_seat_keys(record, path)
    env_seed = record.get("env_seed")
    if not isinstance(env_seed, int) or isinstance(env_seed, bool) or env_seed < 0:
        raise RecordError(f"{path}: no env_seed: cannot rebuild the bots")
    config = {k: v for k, v in record["config"].items() if k != "num_players"}
    if "card_set" in record:
        config["card_set"] = new_game(record).cards
    for name in lineup:
        problem = None if name == HUMAN else opponent_problem(name, policies)
        if problem:
            raise RecordError(f"{path}: {problem}")
    table = Table(
        game_id, lineup, env_seed, config, path.parent, policies, keys, think_seconds, clock
    )
    table.bot_errors = parse_bot_errors(record, lineup, path)
    codec = table.env.codec
    actions = record_actions(record)
    kept_from = len(actions) - MAX_MOVES_SHOWN  # the moves a live table would still hold
    for i, action in enumerate(actions):
        game = table.game
        actor = game.current_player
        if actor is None:
            raise RecordError(f"{path}: action {i} after the end of the game")
        index = codec.encode(action)
        if not table.env.codec.mask(game)[index]:
            raise RecordError(f"{path}: action {i} ({action}) is not legal: record does not replay")
        table._step(index, record_move=i >= kept_from)
    return table
