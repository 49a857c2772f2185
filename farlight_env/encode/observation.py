"""Observation tensors: everything one seat may know, nothing it may not (R-BID-5, R-SETUP-2).

One flat float32 vector with named fields (`layout()`: name -> slice and shape). Seats are
relative: index 0 is the observing player, then the next seats in seat order; absent seats of
games with fewer than 5 players are zero, so one network serves every player count.
Hidden facts never enter: opponents' face-down tile values, the deck's order, face-down awards.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from farlight_env.cards.model import AWARDS, FACILITIES, CardSet, IconKind, Timing
from farlight_env.encode.codec import MAX_SPACES, NUM_TARGETS
from farlight_env.game.game import NUM_STACKS, TILES, FarlightGame, Phase
from farlight_env.game.ship import CORE, STEPS, connector_mask

MAX_PLAYERS = 5
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


@dataclass(frozen=True, slots=True)
class ShipSummary:
    """What the observation needs of one ship; computed once per ship stamp."""

    planes: np.ndarray
    engines: np.ndarray
    biotech: int
    num_engines: int
    engine_sum: int
    num_parts: int
    open: int
    blocked: int


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


class _Observer:
    """One observer's last observation and the stamps and keys it was drawn from (state).

    Each field group is redrawn only when what it shows changed: player rows and won parts
    on the seat's change stamp, the station, missions, awards and deck on the board stamp,
    ships on their ship stamps, and bids by adding the tiles placed since the last call.
    """

    def __init__(self, size: int, views: list[tuple[str, int, int, tuple]]) -> None:
        self.buffer = np.zeros(size, dtype=np.float32)
        v = {name: self.buffer[a:b].reshape(shape) for name, a, b, shape in views}
        head_end = views[[name for name, *_ in views].index("players")][1]
        self.head_view = self.buffer[:head_end]
        board = views[[name for name, *_ in views].index("station")][1]
        board_end = views[[name for name, *_ in views].index("missions")][2]
        self.board_view = self.buffer[board:board_end]  # station and missions, adjacent
        self.tail_view = self.buffer[views[[name for name, *_ in views].index("awards")][1] :]
        self.players, self.own_hand, self.bids = v["players"], v["own_hand"], v["bids"]
        self.bids_flat = self.bids.reshape(-1)
        self.resolving_view = v["mission_resolving"]
        self.ship_view, self.engine_view, self.pending_view = v["ships"], v["engines"], v["pending"]
        self.views = v
        self.head: tuple | None = None  # header key drawn
        self.hand = _UNSET  # seat stamp of the hand drawn in own_hand
        self.rows: list[tuple | None] = [None] * MAX_PLAYERS  # (seat, ship stamp); None: absent
        self.board = _UNSET  # board stamp drawn: station, missions, awards, deck
        self.resolving: tuple | None = None  # mission_resolving key drawn
        self.bid_key: tuple | None = None  # (bid stamp, values revealed, seats) drawn
        self.bid_lens: list[int] = []  # bids drawn per target slot
        self.bid_seen = 0  # entries of the game's bid_log drawn
        self.bid_cells: dict[int, list] = {}  # flat index -> [tiles, crew, value terms]
        self.ship_keys: list[int] | None = None  # ship stamps drawn, relative seat order
        self.ships: list[int | None] = [None] * MAX_PLAYERS  # per relative seat; None: zeros
        self.pending: list[tuple] = [()] * MAX_PLAYERS  # (seat stamp, selected) or () for none
        self.any_pending = False


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
        self._mission_cache: dict[tuple, np.ndarray] = {}
        self._station_cache: dict[tuple, np.ndarray] = {}
        self._tail_start = self.fields["awards"].start
        self._observers: dict[int, _Observer] = {}
        self._ship_cache: dict[int, ShipSummary] = {}
        self._feature_cache: dict[tuple, np.ndarray] = {}
        # Drawn pieces shared by every observer: headers by their facts, player rows by
        # (seat stamp, ship stamp), won-parts tables by (seat stamp, selected part).
        self._head_cache: dict[tuple, np.ndarray] = {}
        self._hand_cache: dict[tuple, np.ndarray] = {}
        self._row_cache: dict[tuple, np.ndarray] = {}
        self._pending_cache: dict[tuple, np.ndarray] = {}
        self._rel: dict[tuple[int, int], tuple[int, ...]] = {}
        self._board_cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}

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

        Incremental: each observer keeps its last observation and redraws only the field
        groups whose facts or change stamps moved (see `FarlightGame.invalidate_cache`).
        """
        state = self._observers.get(seat)
        if state is None:
            state = self._observers[seat] = _Observer(self.size, self._views)
        n = game.num_players
        rel = self._rel.get((seat, n))
        if rel is None:  # relative index -> absolute seat
            rel = self._rel[(seat, n)] = tuple((seat + i) % n for i in range(n))
        phase = game.phase
        self._draw_head(game, seat, phase, state)
        self._draw_players(game, rel, state)
        if state.board != game.board_stamp:
            board, tail = self._board(game)
            state.board_view[...] = board
            state.tail_view[...] = tail
            state.board = game.board_stamp
        resolving = None
        if phase is Phase.MISSION:
            stack = game.mission_stack
            slot = game.num_spaces + len(FACILITIES) + stack
            resolving = (stack, game.completers, game.bid_total(seat, slot))
        if state.resolving != resolving:
            self._draw_resolving(resolving, state)
        self._draw_bids(game, seat, phase is not Phase.BIDDING, state)
        self._draw_ships(game, rel, state)
        if state.any_pending or any(game.pending):
            self._draw_pending(game, rel, phase, state)
        return state.buffer.copy()

    def _draw_head(self, game: FarlightGame, seat: int, phase: Phase, state: _Observer) -> None:
        """Decision, bidding pass, tiles left, round, player count and first player; own hand."""
        n = game.num_players
        if phase is Phase.BIDDING:
            key = (phase, game.bidding_pass, game.tiles_left, game.round, n)
        else:
            key = (phase, None, None, game.round, n)
        key += ((game.first_player - seat) % n,)
        if state.head != key:
            row = self._head_cache.get(key)
            if row is None:
                row = self._head_cache[key] = self._head_row(key)
                if len(self._head_cache) > CACHE_SIZE:
                    self._head_cache.clear()
            state.head_view[...] = row
            state.head = key
        stamp = game.seat_stamps[seat]
        if state.hand != stamp:
            hand = tuple(game.hands[seat])
            row = self._hand_cache.get(hand)
            if row is None:
                row = self._hand_cache[hand] = np.zeros(len(TILES), dtype=np.float32)
                row[list(hand)] = 1.0
            state.own_hand[...] = row
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

    def _draw_players(self, game: FarlightGame, rel: tuple[int, ...], state: _Observer) -> None:
        """Redraw a relative seat's row only when its seat or ship stamp changed."""
        drawn = state.rows
        seats, ships = game.seat_stamps, game.ship_stamps
        for i, p in enumerate(rel):
            key = (seats[p], ships[p])
            if drawn[i] != key:
                row = self._row_cache.get(key)
                if row is None:
                    _make_room(self._row_cache)
                    row = self._row_cache[key] = np.asarray(
                        self._player_row(game, p), dtype=np.float32
                    )
                state.players[i] = row
                drawn[i] = key
        for i in range(len(rel), MAX_PLAYERS):
            if drawn[i] is not None:
                state.players[i] = 0.0
                drawn[i] = None

    def _board(self, game: FarlightGame) -> tuple[np.ndarray, np.ndarray]:
        """Station and missions (adjacent fields), and face-up awards with the deck, drawn
        once per board stamp for every observer."""
        found = self._board_cache.get(game.board_stamp)
        if found is None:
            if len(self._board_cache) >= BOARD_CACHE_SIZE:
                del self._board_cache[next(iter(self._board_cache))]
            found = (
                np.concatenate((self._station_table(game), self._mission_table(game).ravel())),
                self._tail(game),
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

    def _player_row(self, game: FarlightGame, p: int) -> tuple[float, ...]:
        ship = self._ship(game, p)
        return (
            1.0,
            game.crew[p] / 10.0,
            game.science[p] / 10.0,
            game.points[p] / 20.0,
            len(game.hands[p]) / 5.0,
            ship.biotech / 5.0,
            game.temp_biotech[p] / 5.0,
            ship.num_engines / 5.0,
            ship.engine_sum / 30.0,
            ship.num_parts / 10.0,
            ship.open / 10.0,
            ship.blocked / 10.0,
            len(game.pending[p]) / 5.0,
        )

    def _features(self, game: FarlightGame, part: int) -> np.ndarray:
        """Static card features plus the dice currently on its engine icons."""
        engines = self.cards.parts[part].engines
        if not engines:
            return self.part_features[part]
        values = tuple(sorted((game.engine_values.get(r, 0) for r in engines), reverse=True))
        key = (part, values)
        row = self._feature_cache.get(key)
        if row is None:
            row = self.part_features[part].copy()
            for j, value in enumerate(values):
                row[len(row) - self.engine_slots + j] = value / 6.0
            self._feature_cache[key] = row
        return row

    def _station_table(self, game: FarlightGame) -> np.ndarray:
        """Station rows (part, bonus crew/5, features), cached on the parts, bonus and dice."""
        values = game.engine_values
        key = (
            tuple(game.spaces),
            tuple(game.bonus),
            tuple(
                values.get(rank, 0)
                for part in game.spaces
                if part is not None
                for rank in self.cards.parts[part].engines
            ),
        )
        table = self._station_cache.get(key)
        if table is None:
            if len(self._station_cache) > CACHE_SIZE:
                self._station_cache.clear()
            table = np.zeros(self.fields["station"].shape, dtype=np.float32)
            for slot, part in enumerate(game.spaces):
                if part is None:
                    continue
                table[slot, 0] = 1.0
                table[slot, 1] = game.bonus[slot] / 5.0
                table[slot, 2:] = self._features(game, part)
            table = self._station_cache[key] = table.ravel()
        return table

    def _mission_table(self, game: FarlightGame) -> np.ndarray:
        """The splayed stacks: every card's value and requirements are public (R-SETUP-3)."""
        key = tuple(tuple(stack) for stack in game.stacks)
        table = self._mission_cache.get(key)
        if table is None:
            if len(self._mission_cache) > CACHE_SIZE:
                self._mission_cache.clear()
            table = self._mission_cache[key] = self._missions_of(game)
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

    def _draw_bids(self, game: FarlightGame, seat: int, revealed: bool, state: _Observer) -> None:
        """Per target and seat: tiles and crew in steps of 0.2, visible values summed.

        Under one bid stamp bids only grow and `bid_log` names the targets of the new ones, so
        only tiles placed since the last call are added; a new stamp, or values turning face
        up (R-BID-5), redraws the field. Sums are taken in float32 in placement order, exactly
        as `+=` into the buffer would.
        """
        bids, log = game.bids, game.bid_log
        key = (game.bid_stamp, revealed, game.num_players)
        if state.bid_key == key:
            if len(log) == state.bid_seen:
                return
            lens = state.bid_lens
            placed = []
            for slot in log[state.bid_seen :]:
                placed.append((slot, bids[slot][lens[slot]]))
                lens[slot] += 1
        else:
            state.bids[...] = 0.0
            state.bid_cells = {}
            state.bid_key = key
            state.bid_lens = [len(entries) for entries in bids]
            placed = [(slot, entry) for slot, entries in enumerate(bids) for entry in entries]
        state.bid_seen = len(log)
        if placed:
            self._add_bids(placed, game, seat, revealed, state)

    def _add_bids(
        self, placed: list, game: FarlightGame, seat: int, revealed: bool, state: _Observer
    ) -> None:
        """Add (target slot, (seat, tile, crew)) entries in placement order; one write."""
        cells = state.bid_cells
        n, k = game.num_players, game.num_spaces
        touched: list[int] = []
        for slot, (p, tile, crew) in placed:
            pos = slot if slot < k else MAX_SPACES + (slot - k)  # fixed target positions
            base = (pos * MAX_PLAYERS + (p - seat) % n) * 3
            cell = cells.get(base)
            if cell is None:
                cell = cells[base] = [0, 0, ()]
                touched.append(base)
            elif base not in touched:
                touched.append(base)
            cell[0] += 1
            if crew:
                cell[1] += 1
            if revealed or p == seat:  # R-BID-5: values hidden from others until then
                cell[2] += (tile + crew,)
        index: list[int] = []
        values: list[float] = []
        for base in touched:
            tiles, crews, terms = cells[base]
            index += (base, base + 1, base + 2)
            values += (_FIFTHS[tiles], _FIFTHS[crews], _fifteenths(terms))
        state.bids_flat[index] = values

    def _draw_ships(self, game: FarlightGame, rel: tuple[int, ...], state: _Observer) -> None:
        """Redraw a relative seat's ship planes and engines only when its ship stamp changed."""
        stamps = game.ship_stamps
        now = [stamps[p] for p in rel]
        if now == state.ship_keys:
            return
        drawn = state.ships
        ships, engines = state.ship_view, state.engine_view
        for i in range(MAX_PLAYERS):
            stamp = now[i] if i < len(now) else None
            if drawn[i] == stamp:
                continue
            if stamp is None:
                ships[i] = 0.0
                engines[i] = 0.0
            else:
                summary = self._ship(game, rel[i])
                ships[i] = summary.planes
                engines[i] = summary.engines
            drawn[i] = stamp
        state.ship_keys = now

    def _draw_pending(
        self, game: FarlightGame, rel: tuple[int, ...], phase: Phase, state: _Observer
    ) -> None:
        """Redraw a relative seat's won parts only when its seat stamp or selection changed."""
        installer = game.current_player if phase is Phase.INSTALL else None
        selected = game.selected_part() if installer is not None else None
        pending, seats, drawn = game.pending, game.seat_stamps, state.pending
        any_pending = False
        for i in range(MAX_PLAYERS):
            key: tuple = ()
            if i < len(rel) and pending[p := rel[i]]:
                key = (seats[p], selected if p == installer else None)
                any_pending = True
            if drawn[i] == key:
                continue
            if key:
                table = self._pending_cache.get(key)
                if table is None:
                    _make_room(self._pending_cache)
                    table = self._pending_cache[key] = self._pending_table(game, p, key[1])
                state.pending_view[i] = table
            else:
                state.pending_view[i] = 0.0
            drawn[i] = key
        state.any_pending = any_pending

    def _pending_table(self, game: FarlightGame, p: int, selected: int | None) -> np.ndarray:
        """A seat's won parts waiting to be installed: selected flag, card features."""
        table = np.zeros(self.fields["pending"].shape[1:], dtype=np.float32)
        for j, part in enumerate(sorted(game.pending[p])[:MAX_SPACES]):
            table[j, 0] = float(part == selected)
            table[j, 1:] = self._features(game, part)
        return table

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
        for rank, value in engines:
            by_rank[self.rank_pos[rank]] = value / 6.0
        open_, _connected, blocked = game.connectors(p)
        return ShipSummary(
            planes=self._draw_ship(game, game.ships[p]),
            engines=by_rank,
            biotech=game.biotech(p),
            num_engines=len(engines),
            engine_sum=sum(v for _, v in engines),
            num_parts=len(game.ship_parts[p]),
            open=open_,
            blocked=blocked,
        )

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

    def _draw_ship(self, game: FarlightGame, ship: dict) -> np.ndarray:
        """All cells in one write from the static table, then the dice on engine parts."""
        planes = np.zeros((self.ship_channels, self.grid_size, self.grid_size), dtype=np.float32)
        h = self.half
        pieces = list(ship.values())
        rows = [row + h for row, _col in ship]
        cols = [col + h for _row, col in ship]
        planes[:, rows, cols] = self._cells[pieces].T
        dice = 7 + len(ICON_CHANNELS)  # first engine channel
        for (row, col), piece in ship.items():
            if piece != CORE and (ranks := self.cards.parts[piece].engines):
                values = sorted((game.engine_values.get(rk, 0) for rk in ranks), reverse=True)
                for j, value in enumerate(values):
                    planes[dice + j, row + h, col + h] = value / 6.0
        return planes
