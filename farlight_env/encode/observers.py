"""What the incremental encoder remembers between observations: bid tallies shared by every
observer, per-seat player rows and won-parts tables, and each observer's last drawing, with
the float32 sums and byte-level helpers they are drawn with."""

from __future__ import annotations

import functools
import struct

import numpy as np

from farlight_env.encode.codec import MAX_SPACES
from farlight_env.encode.layout import MAX_PLAYERS, PLAYER_FEATURES
from farlight_env.game.game import FarlightGame


def float32_steps(step: float, count: int) -> tuple[float, ...]:
    """0, step, 2 step, ... as repeated float32 `+= step` gives them (bit-exact sums)."""
    out, value = [0.0], np.float32(0.0)
    for _ in range(count):
        value = np.float32(value + step)
        out.append(float(value))
    return tuple(out)


@functools.lru_cache(maxsize=4096)
def fifteenths(terms: tuple[int, ...]) -> float:
    """Sum of term/15 in float32, in order, as repeated `+=` into the buffer gives it."""
    value = np.float32(0.0)
    for term in terms:
        value = np.float32(value + term / 15.0)
    return float(value)


#: Tiles or crew on one target by one seat, as the encoder has always summed them (x 0.2).
FIFTHS = float32_steps(0.2, 64)


#: float32 rows packed straight into buffers (struct rounds as numpy's float32 cast does).
ROW = struct.Struct(f"={len(PLAYER_FEATURES)}f")
CELL = struct.Struct("=3f")
FLAG = struct.Struct("=f")
PAIR = struct.Struct("=2f")
SLOT_BYTES = CELL.size * MAX_PLAYERS  # one target's cells, every relative seat
SLOT_ZEROS = bytes(SLOT_BYTES)
#: Head rows (decision .. first player) by their facts; the same for every card set.
HEAD_ROWS: dict[tuple, bytes] = {}
#: Cached rows, tables and headers kept per encoder before a cache starts afresh.
CACHE_SIZE = 4096
#: Entries kept by caches keyed on change stamps: a stamp is asked for again only until it
#: changes (other observers catching up, clones), so a few recent ones are all that serve,
#: and reusing the memory of old ones keeps the working set small.
STAMP_CACHE_SIZE = 64
#: Board stamps whose station, missions, awards and deck stay drawn for every observer.
BOARD_CACHE_SIZE = 8
UNSET = -1  # a drawn stamp no game has (stamps count up from 0)


def make_room(cache: dict) -> None:
    """Drop the oldest entry of a stamp-keyed cache once it holds STAMP_CACHE_SIZE."""
    if len(cache) >= STAMP_CACHE_SIZE:
        del cache[next(iter(cache))]


def rotate(dst: memoryview, at: int, src: memoryview, block: int, seat: int, n: int) -> None:
    """Copy per-seat blocks of `src` (bytes) to `dst` from byte `at` in relative seat order:
    block i of the copy is block (seat + i) % n of `src`."""
    cut, end = seat * block, n * block
    dst[at : at + end - cut] = src[cut:end]
    if seat:
        dst[at + end - cut : at + end] = src[:cut]


class BidTally:
    """Tiles, crew and values per target slot and absolute seat under one bid stamp, as the
    observation shows them; shared by every observer and advanced along `bid_log`.

    Sums are taken in float32 in placement order, exactly as `+=` into a buffer would.
    """

    def __init__(self, game: FarlightGame, at: int) -> None:
        k = game.num_spaces
        #: Byte offset of each slot's cells in the buffer (`at` is where bids start): targets
        #: have fixed positions, part spaces first, then facilities and mission stacks.
        self.at = [
            at + (slot if slot < k else MAX_SPACES + (slot - k)) * SLOT_BYTES
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
        shown = self.values[slot][p] = (FIFTHS[cell[0]], FIFTHS[cell[1]], fifteenths(cell[2]))
        return shown


class SeatTables:
    """Player rows and won-parts tables by absolute seat, shared by every observer.

    A seat's entries are rebuilt when its change stamps (or selection) move; `rows_version`
    and `pending_version` count the rebuilds, so an observer knows when to copy again.
    """

    def __init__(self, pending_shape: tuple[int, ...]) -> None:
        self.rows = np.zeros((MAX_PLAYERS, len(PLAYER_FEATURES)), dtype=np.float32)
        self.rows_bytes = memoryview(self.rows).cast("B")
        self.row_seats: list[int] = [UNSET] * MAX_PLAYERS  # seat stamp of each row
        self.row_ships: list[int] = [UNSET] * MAX_PLAYERS  # ship stamp of each row
        self.ship_rows: list[tuple[float, ...]] = [()] * MAX_PLAYERS  # ShipSummary.row
        self.rows_version = 0
        self.pending = np.zeros((MAX_PLAYERS, *pending_shape), dtype=np.float32)
        self.pending_bytes = memoryview(self.pending).cast("B")
        self.pending_keys: list[tuple] = [()] * MAX_PLAYERS  # (seat stamp, selected) or ()
        self.pending_version = 0
        self.any_pending = False


class Observer:
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
        self.hand = UNSET  # seat stamp of the hand drawn in own_hand
        self.rows_version = -1  # shared player rows drawn
        self.pending_version = 0  # shared won-parts tables drawn (0: all empty)
        self.board = UNSET  # board stamp drawn: station, missions, awards, deck
        self.resolving: tuple | None = None  # mission_resolving key drawn
        self.bid_key: tuple | None = None  # (tally, values revealed) drawn
        self.bid_seen = 0  # bid_log entries drawn
        self.ship_stamps: list[int] = []  # the game's ship stamps when ships were drawn
        self.ships: list[int] = [UNSET] * MAX_PLAYERS  # ship stamp drawn per relative seat
