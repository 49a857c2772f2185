"""Observation tensors: everything one seat may know, nothing it may not (R-BID-5, R-SETUP-2).

One flat float32 vector with named fields (`layout()`: name -> slice and shape). Seats are
relative: index 0 is the observing player, then the next seats in seat order; absent seats of
games with fewer than 5 players are zero, so one network serves every player count.
Hidden facts never enter: opponents' face-down tile values, the deck's order, face-down awards.
"""

from __future__ import annotations

import functools
import struct
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from farlight_env.cards.model import AWARDS, FACILITIES, CardSet, IconKind, Timing
from farlight_env.encode.codec import MAX_SPACES, NUM_TARGETS
from farlight_env.game.facts import MAX_PLAYERS
from farlight_env.game.game import NUM_STACKS, TILES, FarlightGame, Phase
from farlight_env.game.ship import CORE, STEPS, connector_mask

MAX_STACK = 4  # 3 regular missions + the climactic one (R-SETUP-3)
MAX_MISSION_ENGINES = 3
DECISIONS: tuple[Phase, ...] = (
    Phase.BIDDING,
    Phase.REFIT,
    Phase.ENGINEER,
    Phase.INSTALL,
    Phase.UPGRADE,
    Phase.OVERHAUL,
    Phase.MISSION,
    Phase.OVER,
)
ICON_CHANNELS: tuple[tuple[IconKind, Timing], ...] = tuple(
    (kind, timing) for kind in IconKind for timing in Timing
)
PLAYER_FEATURES = (
    "present",
    "crew",
    "science",
    "mission_points",
    "tiles_in_hand",
    "biotech",
    "temp_biotech",
    "engines",
    "engine_sum",
    "parts",
    "open_connectors",
    "blocked_connectors",
    "pending",
)


@dataclass(frozen=True, slots=True)
class Field:
    """Where a named field lives in the flat observation and how to reshape it."""

    name: str
    start: int
    shape: tuple[int, ...]
    doc: str

    @property
    def size(self) -> int:
        return int(np.prod(self.shape))

    @property
    def slice(self) -> slice:
        return slice(self.start, self.start + self.size)


class ShipSummary(NamedTuple):
    """What the observation needs of one ship; computed once per ship stamp (a named tuple:
    built often, so cheaper than a frozen dataclass)."""

    planes: np.ndarray
    engines: np.ndarray
    #: The ship's entries of a player row, in PLAYER_FEATURES order: biotech/5, engines/5,
    #: engine sum/30, parts/10, open/10, blocked/10 (temp_biotech between them is the seat's).
    row: tuple[float, float, float, float, float, float]


def _float32_steps(step: float, count: int) -> tuple[float, ...]:
    """0, step, 2 step, ... as repeated float32 `+= step` gives them (bit-exact sums)."""
    out, value = [0.0], np.float32(0.0)
    for _ in range(count):
        value = np.float32(value + step)
        out.append(float(value))
    return tuple(out)


@functools.lru_cache(maxsize=4096)
def _fifteenths(terms: tuple[int, ...]) -> float:
    """Sum of term/15 in float32, in order, as repeated `+=` into the buffer gives it."""
    value = np.float32(0.0)
    for term in terms:
        value = np.float32(value + term / 15.0)
    return float(value)


_DECISION_POS = {phase: i for i, phase in enumerate(DECISIONS)}
_AWARD_POS = {award: i for i, award in enumerate(AWARDS)}
#: Tiles or crew on one target by one seat, as the encoder has always summed them (x 0.2).
_FIFTHS = _float32_steps(0.2, 64)


#: float32 rows packed straight into buffers (struct rounds as numpy's float32 cast does).
_ROW = struct.Struct(f"={len(PLAYER_FEATURES)}f")
_CELL = struct.Struct("=3f")
_FLAG = struct.Struct("=f")
_PAIR = struct.Struct("=2f")
_SLOT_BYTES = _CELL.size * MAX_PLAYERS  # one target's cells, every relative seat
_SLOT_ZEROS = bytes(_SLOT_BYTES)
#: Head rows (decision .. first player) by their facts; the same for every card set.
_HEAD_ROWS: dict[tuple, bytes] = {}
#: Cached rows, tables and headers kept per encoder before a cache starts afresh.
CACHE_SIZE = 4096
#: Entries kept by caches keyed on change stamps: a stamp is asked for again only until it
#: changes (other observers catching up, clones), so a few recent ones are all that serve,
#: and reusing the memory of old ones keeps the working set small.
STAMP_CACHE_SIZE = 64
#: Board stamps whose station, missions, awards and deck stay drawn for every observer.
BOARD_CACHE_SIZE = 8
_UNSET = -1  # a drawn stamp no game has (stamps count up from 0)


def _make_room(cache: dict) -> None:
    """Drop the oldest entry of a stamp-keyed cache once it holds STAMP_CACHE_SIZE."""
    if len(cache) >= STAMP_CACHE_SIZE:
        del cache[next(iter(cache))]


def _rotate(dst: memoryview, at: int, src: memoryview, block: int, seat: int, n: int) -> None:
    """Copy per-seat blocks of `src` (bytes) to `dst` from byte `at` in relative seat order:
    block i of the copy is block (seat + i) % n of `src`."""
    cut, end = seat * block, n * block
    dst[at : at + end - cut] = src[cut:end]
    if seat:
        dst[at + end - cut : at + end] = src[:cut]


class _BidTally:
    """Tiles, crew and values per target slot and absolute seat under one bid stamp, as the
    observation shows them; shared by every observer and advanced along `bid_log`.

    Sums are taken in float32 in placement order, exactly as `+=` into a buffer would.
    """

    def __init__(self, game: FarlightGame, at: int) -> None:
        k = game.num_spaces
        #: Byte offset of each slot's cells in the buffer (`at` is where bids start): targets
        #: have fixed positions, part spaces first, then facilities and mission stacks.
        self.at = [
            at + (slot if slot < k else MAX_SPACES + (slot - k)) * _SLOT_BYTES
            for slot in range(len(game.bids))
        ]
        self.lens = [len(placed) for placed in game.bids]
        self.start = self.done = len(game.bid_log)  # log entries already in the bids
        self.terms: list[dict[int, list]] = [{} for _ in game.bids]  # seat -> [t, c, values]
        self.values: list[dict[int, tuple[float, float, float]]] = [{} for _ in game.bids]
        #: Per log entry since start, what changed: (byte offset of the slot, seat, tiles,
        #: crew, value) of the cell a bid went to, or (offset, -1, ...) for bids taken back.
        self.events: list[tuple[int, int, float, float, float]] = []
        for slot, placed in enumerate(game.bids):
            for entry in placed:
                self._add(slot, entry)

    def advance(self, game: FarlightGame) -> None:
        """Take in the bids logged since the last call: placed (slot) or taken back (~slot)."""
        log, bids, lens, events = game.bid_log, game.bids, self.lens, self.events
        for slot in log[self.done :]:
            if slot < 0:  # every bid on ~slot went back
                slot = ~slot
                lens[slot] = 0
                self.terms[slot] = {}
                self.values[slot] = {}
                events.append((self.at[slot], -1, 0.0, 0.0, 0.0))
                continue
            placed, i = bids[slot], lens[slot]
            lens[slot] += 1
            if i < len(placed):
                events.append((self.at[slot], placed[i][0], *self._add(slot, placed[i])))
            else:  # it went back later in this batch: a ~slot follows; one entry per log entry
                events.append((self.at[slot], -1, 0.0, 0.0, 0.0))
        self.done = len(log)

    def _add(self, slot: int, entry: tuple[int, int, bool]) -> tuple[float, float, float]:
        """Count one bid in its cell; the cell's tiles, crew and value as now shown."""
        p, tile, crew = entry
        cell = self.terms[slot].get(p)
        if cell is None:
            cell = self.terms[slot][p] = [0, 0, ()]
        cell[0] += 1
        if crew:
            cell[1] += 1
        cell[2] += (tile + crew,)
        shown = self.values[slot][p] = (_FIFTHS[cell[0]], _FIFTHS[cell[1]], _fifteenths(cell[2]))
        return shown


class _SeatTables:
    """Player rows and won-parts tables by absolute seat, shared by every observer.

    A seat's entries are rebuilt when its change stamps (or selection) move; `rows_version`
    and `pending_version` count the rebuilds, so an observer knows when to copy again.
    """

    def __init__(self, pending_shape: tuple[int, ...]) -> None:
        self.rows = np.zeros((MAX_PLAYERS, len(PLAYER_FEATURES)), dtype=np.float32)
        self.rows_bytes = memoryview(self.rows).cast("B")
        self.row_seats: list[int] = [_UNSET] * MAX_PLAYERS  # seat stamp of each row
        self.row_ships: list[int] = [_UNSET] * MAX_PLAYERS  # ship stamp of each row
        self.ship_rows: list[tuple[float, ...]] = [()] * MAX_PLAYERS  # ShipSummary.row
        self.rows_version = 0
        self.pending = np.zeros((MAX_PLAYERS, *pending_shape), dtype=np.float32)
        self.pending_bytes = memoryview(self.pending).cast("B")
        self.pending_keys: list[tuple] = [()] * MAX_PLAYERS  # (seat stamp, selected) or ()
        self.pending_version = 0
        self.any_pending = False


class _Observer:
    """One observer's last observation and what it was drawn from (state, not a value).

    One per seat and player count. Field groups are drawn again only when what they show
    changed: the head on its facts, the own hand on the seat stamp, player rows and won parts
    when the shared tables moved, bids by the tiles placed since, the board on the board
    stamp, ships on their ship stamps. Small writes go through memoryviews of the buffer,
    which cost a fraction of numpy's indexing.
    """

    def __init__(self, size: int, views: list[tuple[str, int, int, tuple]]) -> None:
        self.buffer = np.zeros(size, dtype=np.float32)
        self.floats = memoryview(self.buffer)  # one float32 per index
        self.bytes = self.floats.cast("B")
        v = {name: self.buffer[a:b].reshape(shape) for name, a, b, shape in views}
        self.resolving_view = v["mission_resolving"]
        self.ship_view, self.engine_view = v["ships"], v["engines"]
        self.head: tuple | None = None  # header key drawn
        self.hand = _UNSET  # seat stamp of the hand drawn in own_hand
        self.rows_version = -1  # shared player rows drawn
        self.pending_version = 0  # shared won-parts tables drawn (0: all empty)
        self.board = _UNSET  # board stamp drawn: station, missions, awards, deck
        self.resolving: tuple | None = None  # mission_resolving key drawn
        self.bid_key: tuple | None = None  # (tally, values revealed) drawn
        self.bid_seen = 0  # bid_log entries drawn
        self.ship_stamps: list[int] = []  # the game's ship stamps when ships were drawn
        self.ships: list[int] = [_UNSET] * MAX_PLAYERS  # ship stamp drawn per relative seat


class ObservationEncoder:
    """Builds observations for one card set and grid size; caches per-seat ship planes."""

    def __init__(self, cards: CardSet, grid_size: int) -> None:
        self.cards = cards
        self.grid_size = grid_size
        self.half = grid_size // 2
        self.num_parts = len(cards.parts)
        self.ranks = sorted(rank for p in cards.parts for rank in p.engines)
        self.rank_pos = {rank: i for i, rank in enumerate(self.ranks)}
        self.engine_slots = max([len(p.engines) for p in cards.parts] + [1])
        self.part_features = self._part_feature_table()
        self.ship_channels = 6 + len(ICON_CHANNELS) + 1 + self.engine_slots
        self._cells = self._cell_table()
        self.fields = self._build_layout()
        self.size = sum(f.size for f in self.fields.values())
        self._views = [(f.name, f.start, f.start + f.size, f.shape) for f in self.fields.values()]
        self._mission_cache: dict[tuple, bytes] = {}
        self._station_cache: dict[tuple, bytes] = {}
        self._tail_start = self.fields["awards"].start
        self._ship_cache: dict[int, ShipSummary] = {}
        self._feature_cache: dict[tuple, bytes] = {}
        self._static_features = [row.tobytes() for row in self.part_features]
        self._station_blank = bytes(self.fields["station"].shape[1] * 4)
        self._hand_cache: dict[tuple, np.ndarray] = {}  # hand -> drawn own_hand
        self._board_cache: dict[int, tuple[bytes, bytes]] = {}
        self._bid_tallies: dict[int, _BidTally] = {}  # bid stamp -> its tallies
        self._seats = _SeatTables(self.fields["pending"].shape[1:])
        #: Engine ranks of every part that has engines (the core, -1, has none).
        self._part_engines = {i: part.engines for i, part in enumerate(cards.parts) if part.engines}
        #: Per seat, the last ship drawn: (cells, dice per cell, planes); planes are never
        #: written once drawn, so the next drawing starts from a copy.
        self._drawn_ships: dict[int, tuple[dict, dict, np.ndarray]] = {}
        #: Byte offset of every field in the buffer, and the byte sizes copied per seat.
        self._at = {name: f.start * 4 for name, f in self.fields.items()}
        self._row_bytes = len(PLAYER_FEATURES) * 4
        self._pending_bytes = self.fields["pending"].size // MAX_PLAYERS * 4
        bids = self.fields["bids"]
        self._bid_span = (bids.start, bids.start + bids.size)
        self._bid_zeros = bytes(bids.size * 4)
        self._observers: dict[tuple[int, int], _Observer] = {}  # (seat, players) -> state

    # ------------------------------------------------------------ layout
    def _build_layout(self) -> dict[str, Field]:
        g = self.grid_size
        pf = self.part_features.shape[1]
        specs = [
            ("decision", (len(DECISIONS),), "one-hot phase/decision kind (last = game over)"),
            ("bidding_pass", (3,), "one-hot bidding pass (R-BID-1)"),
            ("tiles_left_this_turn", (1,), "tiles still to place this turn / 2"),
            ("round", (1,), "round / 50"),
            ("num_players", (4,), "one-hot player count 2..5"),
            (
                "first_player",
                (MAX_PLAYERS,),
                "one-hot relative seat holding the first-player marker",
            ),
            (
                "players",
                (MAX_PLAYERS, len(PLAYER_FEATURES)),
                f"per relative seat: {PLAYER_FEATURES}",
            ),
            ("own_hand", (len(TILES),), "1 for each tile value still in the observer's hand"),
            (
                "station",
                (MAX_SPACES, 2 + pf),
                "per part space: has part, bonus crew/5, part features",
            ),
            (
                "missions",
                (NUM_STACKS, MAX_STACK, 8),
                "per stack, top first: present, value/15, climactic, 3 engine minima/6, "
                "bio-tech/5, science/6",
            ),
            (
                "mission_resolving",
                (NUM_STACKS + 2,),
                "stack one-hot, completers so far/5, own bid/15",
            ),
            (
                "bids",
                (NUM_TARGETS, MAX_PLAYERS, 3),
                "per target and relative seat: tiles/5, crew/5, bid value/15 (during bidding "
                "only the observer's own values; all values once the tiles are flipped)",
            ),
            ("ships", (MAX_PLAYERS, self.ship_channels, g, g), "ship planes per relative seat"),
            (
                "pending",
                (MAX_PLAYERS, MAX_SPACES, 1 + pf),
                "won parts waiting to be installed: selected flag, part features",
            ),
            ("engines", (MAX_PLAYERS, len(self.ranks)), "engine value/6 by deck rank, per seat"),
            ("awards", (len(AWARDS),), "face-up awards in play (face-down ones are hidden)"),
            ("deck", (self.num_parts + 1,), "cards not yet seen (public composition), size/57"),
        ]
        fields: dict[str, Field] = {}
        start = 0
        for name, shape, doc in specs:
            field = Field(name, start, shape, doc)
            fields[name] = field
            start += field.size
        return fields

    def layout(self) -> dict[str, tuple[slice, tuple[int, ...]]]:
        """name -> (slice of the flat vector, shape), for building custom networks."""
        return {name: (f.slice, f.shape) for name, f in self.fields.items()}

    def ship_channel_names(self) -> list[str]:
        names = ["occupied", "core", "conn_up", "conn_right", "conn_down", "conn_left"]
        names += [f"{kind.value}_{timing.value}" for kind, timing in ICON_CHANNELS]
        names += ["biotech"] + [f"engine_{i}" for i in range(self.engine_slots)]
        return names

    def _part_feature_table(self) -> np.ndarray:
        """Static features of every card: connectors, cost, bio-tech, icons, engine count."""
        rows = []
        for part in self.cards.parts:
            conn = [float(side in part.connectors) for side in ("up", "right", "down", "left")]
            icons = [
                float(sum(1 for i in part.icons if i.kind is k and i.timing is t))
                for k, t in ICON_CHANNELS
            ]
            rows.append(
                conn
                + [part.crew_cost / 3.0, part.biotech / 2.0]
                + icons
                + [len(part.engines) / 2.0]
                + [0.0] * self.engine_slots  # die values filled per state
            )
        return np.asarray(rows, dtype=np.float32)

    # ------------------------------------------------------------ encode
    def encode(self, game: FarlightGame, seat: int) -> np.ndarray:
        """The observation of `seat` (any seat, acting or not) as a new float32 vector.

        Incremental: each observer keeps its last observation and draws again only the field
        groups whose facts or change stamps moved (see `FarlightGame.invalidate_cache`).
        """
        n = game.num_players
        state = self._observers.get((seat, n))
        if state is None:
            state = self._observers[(seat, n)] = _Observer(self.size, self._views)
        at = self._at
        phase = game.phase
        self._draw_head(game, seat, n, phase, state)
        tables = self._seats
        self._update_rows(game, n, tables)
        if state.rows_version != tables.rows_version:
            _rotate(state.bytes, at["players"], tables.rows_bytes, self._row_bytes, seat, n)
            state.rows_version = tables.rows_version
        if state.board != game.board_stamp:
            board, tail = self._board(game)
            state.bytes[at["station"] : at["mission_resolving"]] = board
            state.bytes[at["awards"] :] = tail
            state.board = game.board_stamp
        resolving = None
        if phase is Phase.MISSION:
            stack = game.mission_stack
            slot = game.num_spaces + len(FACILITIES) + stack
            resolving = (stack, game.completers, game.bid_total(seat, slot))
        if state.resolving != resolving:
            self._draw_resolving(resolving, state)
        self._draw_bids(game, seat, n, phase is not Phase.BIDDING, state)
        if game.ship_stamps != state.ship_stamps:
            self._draw_ships(game, seat, n, state)
        if tables.any_pending or any(game.pending):
            self._update_pending(game, n, phase, tables)
        if state.pending_version != tables.pending_version:
            block = self._pending_bytes
            _rotate(state.bytes, at["pending"], tables.pending_bytes, block, seat, n)
            state.pending_version = tables.pending_version
        return state.buffer.copy()

    def _draw_head(
        self, game: FarlightGame, seat: int, n: int, phase: Phase, state: _Observer
    ) -> None:
        """Decision, bidding pass, tiles left, round, player count and first player; own hand."""
        first = (game.first_player - seat) % n
        if phase is Phase.BIDDING:
            key = (phase, game.bidding_pass, game.tiles_left, game.round, n, first)
        else:
            key = (phase, None, None, game.round, n, first)
        if state.head != key:
            row = _HEAD_ROWS.get(key)
            if row is None:
                if len(_HEAD_ROWS) > CACHE_SIZE:
                    _HEAD_ROWS.clear()
                row = _HEAD_ROWS[key] = self._head_row(key).tobytes()
            state.bytes[: len(row)] = row
            state.head = key
        stamp = game.seat_stamps[seat]
        if state.hand != stamp:
            hand = tuple(game.hands[seat])
            row = self._hand_cache.get(hand)
            if row is None:
                drawn = np.zeros(len(TILES), dtype=np.float32)
                drawn[list(hand)] = 1.0
                row = self._hand_cache[hand] = drawn.tobytes()
            at = self._at["own_hand"]
            state.bytes[at : at + len(row)] = row
            state.hand = stamp

    def _head_row(self, key: tuple) -> np.ndarray:
        phase, bidding_pass, tiles_left, round_, n, first = key
        row = np.zeros(self.fields["players"].start, dtype=np.float32)
        view = {name: row[f.slice] for name, f in self.fields.items() if f.start < len(row)}
        view["decision"][_DECISION_POS[phase]] = 1.0
        if phase is Phase.BIDDING:
            view["bidding_pass"][bidding_pass] = 1.0
            view["tiles_left_this_turn"][0] = tiles_left / 2.0
        view["round"][0] = round_ / 50.0
        view["num_players"][n - 2] = 1.0
        view["first_player"][first] = 1.0
        return row

    def _update_rows(self, game: FarlightGame, n: int, tables: _SeatTables) -> None:
        """Rebuild the shared row of every seat whose seat or ship stamp moved."""
        seats, ships = game.seat_stamps, game.ship_stamps
        row_seats, row_ships = tables.row_seats, tables.row_ships
        if seats == row_seats[:n] and ships == row_ships[:n]:  # e.g. a part just selected
            return
        for p, seat_stamp, ship_stamp, drawn_seat, drawn_ship in zip(
            range(n),
            seats,
            ships,
            row_seats,
            row_ships,
            strict=False,  # rows: up to 5 seats
        ):
            if seat_stamp != drawn_seat or ship_stamp != drawn_ship:
                if ship_stamp != drawn_ship:
                    tables.ship_rows[p] = self._ship(game, p).row
                biotech, engines, engine_sum, parts, open_, blocked = tables.ship_rows[p]
                _ROW.pack_into(
                    tables.rows_bytes,
                    p * _ROW.size,
                    *(1.0, game.crew[p] / 10.0, game.science[p] / 10.0, game.points[p] / 20.0),
                    *(len(game.hands[p]) / 5.0, biotech, game.temp_biotech[p] / 5.0, engines),
                    *(engine_sum, parts, open_, blocked, len(game.pending[p]) / 5.0),
                )
                row_seats[p], row_ships[p] = seat_stamp, ship_stamp
                tables.rows_version += 1

    def _update_pending(
        self, game: FarlightGame, n: int, phase: Phase, tables: _SeatTables
    ) -> None:
        """Rebuild the shared won-parts table of every seat whose parts or selection moved."""
        installer = game.current_player if phase is Phase.INSTALL else None
        selected = game.selected_part() if installer is not None else None
        pending, seats, keys = game.pending, game.seat_stamps, tables.pending_keys
        for p in range(n):
            key: tuple = ()
            if pending[p]:
                key = (seats[p], selected if p == installer else None)
            if keys[p] != key:
                size = self._pending_bytes
                table = self._pending_table(game, p, key[1]) if key else bytes(size)
                tables.pending_bytes[p * size : (p + 1) * size] = table
                keys[p] = key
                tables.pending_version += 1
        tables.any_pending = any(keys)  # seats of earlier, larger games included

    def _board(self, game: FarlightGame) -> tuple[bytes, bytes]:
        """Station and missions (adjacent fields), and face-up awards with the deck, drawn
        once per board stamp for every observer."""
        found = self._board_cache.get(game.board_stamp)
        if found is None:
            if len(self._board_cache) >= BOARD_CACHE_SIZE:
                del self._board_cache[next(iter(self._board_cache))]
            found = (
                self._station_table(game) + self._mission_table(game),
                self._tail(game).tobytes(),
            )
            self._board_cache[game.board_stamp] = found
        return found

    def _draw_resolving(self, key: tuple | None, state: _Observer) -> None:
        """The mission being resolved: stack one-hot, completers so far, own bid."""
        ctx = state.resolving_view
        ctx[...] = 0.0
        if key is not None:
            stack, completers, own_bid = key
            ctx[stack] = 1.0
            ctx[NUM_STACKS] = completers / 5.0
            ctx[NUM_STACKS + 1] = own_bid / 15.0
        state.resolving = key

    def _tail(self, game: FarlightGame) -> np.ndarray:
        """Face-up awards and the deck's composition (never its order, R-SETUP-2/4)."""
        tail = np.zeros(self.size - self._tail_start, dtype=np.float32)
        awards = tail[: len(AWARDS)]
        awards[[_AWARD_POS[award] for award in game.awards_up]] = 1.0
        deck = tail[len(AWARDS) :]
        deck[game.deck] = 1.0
        deck[-1] = len(game.deck) / 57.0
        return tail

    def _features(self, game: FarlightGame, part: int) -> bytes:
        """Static card features plus the dice currently on its engine icons (float32 bytes)."""
        engines = self._part_engines.get(part)
        if engines is None:
            return self._static_features[part]
        values = tuple(sorted([game.engine_values.get(r, 0) for r in engines], reverse=True))
        key = (part, values)
        row = self._feature_cache.get(key)
        if row is None:
            drawn = self.part_features[part].copy()
            for j, value in enumerate(values):
                drawn[len(drawn) - self.engine_slots + j] = value / 6.0
            row = self._feature_cache[key] = drawn.tobytes()
        return row

    def _station_table(self, game: FarlightGame) -> bytes:
        """Station rows (part, bonus crew/5, features), cached on the parts, bonus and dice."""
        values, part_engines = game.engine_values, self._part_engines
        spaces = tuple(game.spaces)
        key = (
            spaces,
            tuple(game.bonus),
            tuple(
                values.get(rank, 0)
                for part in spaces
                if part in part_engines
                for rank in part_engines[part]
            ),
        )
        table = self._station_cache.get(key)
        if table is None:
            if len(self._station_cache) > CACHE_SIZE:
                self._station_cache.clear()
            blank = self._station_blank
            table = b"".join(
                blank if part is None else _PAIR.pack(1.0, bonus / 5.0) + self._features(game, part)
                for part, bonus in zip(spaces, game.bonus, strict=True)
            )
            table += bytes(self.fields["station"].size * 4 - len(table))
            self._station_cache[key] = table
        return table

    def _mission_table(self, game: FarlightGame) -> bytes:
        """The splayed stacks: every card's value and requirements are public (R-SETUP-3)."""
        key = tuple(tuple(stack) for stack in game.stacks)
        table = self._mission_cache.get(key)
        if table is None:
            if len(self._mission_cache) > CACHE_SIZE:
                self._mission_cache.clear()
            table = self._mission_cache[key] = self._missions_of(game).tobytes()
        return table

    def _missions_of(self, game: FarlightGame) -> np.ndarray:
        table = np.zeros(self.fields["missions"].shape, dtype=np.float32)
        for s, stack in enumerate(game.stacks):
            for depth, mission_id in enumerate(stack[:MAX_STACK]):
                m = game.cards.missions[mission_id]
                engines = sorted(m.engines, reverse=True)[:MAX_MISSION_ENGINES]
                row = [1.0, m.value / 15.0, float(m.climactic)]
                row += [e / 6.0 for e in engines] + [0.0] * (MAX_MISSION_ENGINES - len(engines))
                row += [m.biotech / 5.0, m.science / 6.0]
                table[s, depth] = row
        return table

    def _draw_bids(
        self, game: FarlightGame, seat: int, n: int, revealed: bool, state: _Observer
    ) -> None:
        """Per target and seat: tiles and crew in steps of 0.2, visible values summed.

        From the shared `_BidTally`: an observer writes only the cells of tiles placed since
        it last looked; a new bid stamp, or values turning face up, redraws the field. While
        bidding, other seats' values are hidden (R-BID-5).
        """
        tally = self._bid_tallies.get(game.bid_stamp)
        if tally is None:
            _make_room(self._bid_tallies)
            tally = self._bid_tallies[game.bid_stamp] = _BidTally(game, self._bid_span[0] * 4)
        elif tally.done != len(game.bid_log):
            tally.advance(game)
        key = (tally, revealed)
        out, values, at_slot, pack = state.bytes, tally.values, tally.at, _CELL.pack_into
        if state.bid_key == key:
            if state.bid_seen == tally.done:
                return
            # in log order, so a cell's last event shows its current tally
            for at, p, tiles, crew, value in tally.events[
                state.bid_seen - tally.start : tally.done - tally.start
            ]:
                if p < 0:  # taken back: the target's cells go blank
                    out[at : at + _SLOT_BYTES] = _SLOT_ZEROS
                else:
                    value = value if revealed or p == seat else 0.0
                    pack(out, at + (p - seat) % n * _CELL.size, tiles, crew, value)
        else:
            start, end = self._bid_span
            out[start * 4 : end * 4] = self._bid_zeros
            for slot, cells in enumerate(values if any(values) else ()):
                for p, (tiles, crew, value) in cells.items():
                    value = value if revealed or p == seat else 0.0
                    pack(out, at_slot[slot] + (p - seat) % n * _CELL.size, tiles, crew, value)
            state.bid_key = key
        state.bid_seen = tally.done

    def _draw_ships(self, game: FarlightGame, seat: int, n: int, state: _Observer) -> None:
        """Redraw a relative seat's ship planes and engines only when its ship stamp changed."""
        stamps = game.ship_stamps
        drawn, ships, engines = state.ships, state.ship_view, state.engine_view
        for i in range(n):
            p = (seat + i) % n
            if drawn[i] != stamps[p]:
                summary = self._ship(game, p)
                ships[i] = summary.planes
                engines[i] = summary.engines
                drawn[i] = stamps[p]
        state.ship_stamps = list(stamps)

    def _pending_table(self, game: FarlightGame, p: int, selected: int | None) -> bytes:
        """A seat's won parts waiting to be installed: selected flag, card features."""
        rows = [
            _FLAG.pack(float(part == selected)) + self._features(game, part)
            for part in sorted(game.pending[p])[:MAX_SPACES]
        ]
        table = b"".join(rows)
        return table + bytes(self._pending_bytes - len(table))

    def _ship(self, game: FarlightGame, p: int) -> ShipSummary:
        """Planes and counts of one ship, cached on its stamp (changes with parts or engines)."""
        stamp = game.ship_stamps[p]
        summary = self._ship_cache.get(stamp)
        if summary is None:
            _make_room(self._ship_cache)
            summary = self._summarise_ship(game, p)
            self._ship_cache[stamp] = summary
        return summary

    def _summarise_ship(self, game: FarlightGame, p: int) -> ShipSummary:
        engines = game.engines(p)
        by_rank = np.zeros(len(self.ranks), dtype=np.float32)
        engine_sum = 0
        for rank, value in engines:
            by_rank[self.rank_pos[rank]] = value / 6.0
            engine_sum += value
        open_, _connected, blocked = game.connectors(p)
        row = (
            game.biotech(p) / 5.0,
            len(engines) / 5.0,
            engine_sum / 30.0,
            len(game.ship_parts[p]) / 10.0,
            open_ / 10.0,
            blocked / 10.0,
        )
        return ShipSummary(self._draw_ship(game, p), by_rank, row)

    def _cell_table(self) -> np.ndarray:
        """Static ship channels of every part (row per part, the core last: CORE is -1)."""
        table = np.zeros((self.num_parts + 1, self.ship_channels), dtype=np.float32)
        for index, part in enumerate(self.cards.parts):
            row = table[index]
            row[0] = 1.0
            mask = connector_mask(part)
            for j, (bit, _opp, _dr, _dc) in enumerate(STEPS):
                row[2 + j] = float(bool(mask & bit))
            for j, (kind, timing) in enumerate(ICON_CHANNELS):
                row[6 + j] = sum(1 for i in part.icons if i.kind is kind and i.timing is timing)
            row[6 + len(ICON_CHANNELS)] = part.biotech / 2.0
        table[CORE, :6] = 1.0  # occupied, core, four connectors
        return table

    def _draw_ship(self, game: FarlightGame, p: int) -> np.ndarray:
        """Ship planes: static channels of each part from a table, dice on engine parts.

        Drawn from the seat's previous planes when there are any: a ship changes by a part or
        a die at a time, so only the cells whose part or dice differ are written.
        """
        ship = game.ships[p]
        values, part_engines = game.engine_values, self._part_engines
        dice = {
            cell: tuple(sorted([values.get(rank, 0) for rank in part_engines[piece]], reverse=True))
            for cell, piece in ship.items()
            if piece in part_engines
        }
        drawn = self._drawn_ships.get(p)
        if drawn is None:
            planes = np.zeros((self.ship_channels, self.grid_size, self.grid_size), np.float32)
            changed = set(ship)
        else:
            old_ship, old_dice, old_planes = drawn
            planes = old_planes.copy()
            # cells whose part or dice differ, from C-level set differences of the item views
            changed = {cell for cell, _ in ship.items() ^ old_ship.items()}
            changed.update(cell for cell, _ in dice.items() ^ old_dice.items())
        h, first_die, cells = self.half, 7 + len(ICON_CHANNELS), self._cells
        for cell in changed:
            row, col = cell[0] + h, cell[1] + h
            piece = ship.get(cell)
            if piece is None:
                planes[:, row, col] = 0.0
                continue
            planes[:, row, col] = cells[piece]
            for j, value in enumerate(dice.get(cell, ())):
                planes[first_die + j, row, col] = value / 6.0
        self._drawn_ships[p] = (dict(ship), dice, planes)
        return planes
