"""Observation tensors: everything one seat may know, nothing it may not (R-BID-5, R-SETUP-2).

One flat float32 vector with named fields (`layout()`: name -> slice and shape). Seats are
relative: index 0 is the observing player, then the next seats in seat order; absent seats of
games with fewer than 5 players are zero, so one network serves every player count.
Hidden facts never enter: opponents' face-down tile values, the deck's order, face-down awards.

The encoder is here; its layout is `layout.py`, what it remembers between observations
`observers.py`, and the ship planes `ship_planes.py`.
"""

from __future__ import annotations

import numpy as np

from farlight_env.cards.model import AWARDS, FACILITIES, CardSet
from farlight_env.encode.codec import MAX_SPACES
from farlight_env.encode.layout import (
    AWARD_POS,
    DECISION_POS,
    ICON_CHANNELS,
    MAX_MISSION_ENGINES,
    MAX_PLAYERS,
    MAX_STACK,
    PLAYER_FEATURES,
    build_layout,
    part_feature_table,
    ship_channel_names,
)
from farlight_env.encode.observers import (
    BOARD_CACHE_SIZE,
    CACHE_SIZE,
    CELL,
    FLAG,
    HEAD_ROWS,
    PAIR,
    ROW,
    SLOT_BYTES,
    SLOT_ZEROS,
    BidTally,
    Observer,
    SeatTables,
    make_room,
    rotate,
)
from farlight_env.encode.ship_planes import ShipPlanes
from farlight_env.game.config import Phase
from farlight_env.game.facts import NUM_STACKS, TILES
from farlight_env.game.game import FarlightGame


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
        self.part_features = part_feature_table(cards, self.engine_slots)
        self.ship_channels = 6 + len(ICON_CHANNELS) + 1 + self.engine_slots
        self.fields = build_layout(
            grid_size,
            self.ship_channels,
            len(self.ranks),
            self.num_parts,
            self.part_features.shape[1],
        )
        self.size = sum(f.size for f in self.fields.values())
        self._views = [(f.name, f.start, f.start + f.size, f.shape) for f in self.fields.values()]
        self._mission_cache: dict[tuple, bytes] = {}
        self._station_cache: dict[tuple, bytes] = {}
        self._tail_start = self.fields["awards"].start
        self._feature_cache: dict[tuple, bytes] = {}
        self._static_features = [row.tobytes() for row in self.part_features]
        self._station_blank = bytes(self.fields["station"].shape[1] * 4)
        self._hand_cache: dict[tuple, np.ndarray] = {}  # hand -> drawn own_hand
        self._board_cache: dict[int, tuple[bytes, bytes]] = {}
        self._bid_tallies: dict[int, BidTally] = {}  # bid stamp -> its tallies
        self._seats = SeatTables(self.fields["pending"].shape[1:])
        #: Engine ranks of every part that has engines (the core, -1, has none).
        self._part_engines = {i: part.engines for i, part in enumerate(cards.parts) if part.engines}
        self._ships = ShipPlanes(
            cards, grid_size, self.ranks, self.ship_channels, self._part_engines
        )
        #: Byte offset of every field in the buffer, and the byte sizes copied per seat.
        self._at = {name: f.start * 4 for name, f in self.fields.items()}
        self._row_bytes = len(PLAYER_FEATURES) * 4
        self._pending_bytes = self.fields["pending"].size // MAX_PLAYERS * 4
        bids = self.fields["bids"]
        self._bid_span = (bids.start, bids.start + bids.size)
        self._bid_zeros = bytes(bids.size * 4)
        self._observers: dict[tuple[int, int], Observer] = {}  # (seat, players) -> state

    # ------------------------------------------------------------ layout
    def layout(self) -> dict[str, tuple[slice, tuple[int, ...]]]:
        """name -> (slice of the flat vector, shape), for building custom networks."""
        return {name: (f.slice, f.shape) for name, f in self.fields.items()}

    def ship_channel_names(self) -> list[str]:
        """The ship planes' channels, in order."""
        return ship_channel_names(self.engine_slots)

    # ------------------------------------------------------------ encode
    def encode(self, game: FarlightGame, seat: int) -> np.ndarray:
        """The observation of `seat` (any seat, acting or not) as a new float32 vector.

        Incremental: each observer keeps its last observation and draws again only the field
        groups whose facts or change stamps moved (see `FarlightGame.invalidate_cache`).
        """
        n = game.num_players
        state = self._observers.get((seat, n))
        if state is None:
            state = self._observers[(seat, n)] = Observer(self.size, self._views)
        at = self._at
        phase = game.phase
        self._draw_head(game, seat, n, phase, state)
        tables = self._seats
        self._update_rows(game, n, tables)
        if state.rows_version != tables.rows_version:
            rotate(state.bytes, at["players"], tables.rows_bytes, self._row_bytes, seat, n)
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
            rotate(state.bytes, at["pending"], tables.pending_bytes, block, seat, n)
            state.pending_version = tables.pending_version
        return state.buffer.copy()

    def _draw_head(
        self, game: FarlightGame, seat: int, n: int, phase: Phase, state: Observer
    ) -> None:
        """Decision, bidding pass, tiles left, round, player count and first player; own hand."""
        first = (game.first_player - seat) % n
        if phase is Phase.BIDDING:
            key = (phase, game.bidding_pass, game.tiles_left, game.round, n, first)
        else:
            key = (phase, None, None, game.round, n, first)
        if state.head != key:
            row = HEAD_ROWS.get(key)
            if row is None:
                if len(HEAD_ROWS) > CACHE_SIZE:
                    HEAD_ROWS.clear()
                row = HEAD_ROWS[key] = self._head_row(key).tobytes()
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
        view["decision"][DECISION_POS[phase]] = 1.0
        if phase is Phase.BIDDING:
            view["bidding_pass"][bidding_pass] = 1.0
            view["tiles_left_this_turn"][0] = tiles_left / 2.0
        view["round"][0] = round_ / 50.0
        view["num_players"][n - 2] = 1.0
        view["first_player"][first] = 1.0
        return row

    def _update_rows(self, game: FarlightGame, n: int, tables: SeatTables) -> None:
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
                    tables.ship_rows[p] = self._ships.summary(game, p).row
                biotech, engines, engine_sum, parts, open_, blocked = tables.ship_rows[p]
                ROW.pack_into(
                    tables.rows_bytes,
                    p * ROW.size,
                    *(1.0, game.crew[p] / 10.0, game.science[p] / 10.0, game.points[p] / 20.0),
                    *(len(game.hands[p]) / 5.0, biotech, game.temp_biotech[p] / 5.0, engines),
                    *(engine_sum, parts, open_, blocked, len(game.pending[p]) / 5.0),
                )
                row_seats[p], row_ships[p] = seat_stamp, ship_stamp
                tables.rows_version += 1

    def _update_pending(self, game: FarlightGame, n: int, phase: Phase, tables: SeatTables) -> None:
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

    def _draw_resolving(self, key: tuple | None, state: Observer) -> None:
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
        awards[[AWARD_POS[award] for award in game.awards_up]] = 1.0
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
                blank if part is None else PAIR.pack(1.0, bonus / 5.0) + self._features(game, part)
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
        self, game: FarlightGame, seat: int, n: int, revealed: bool, state: Observer
    ) -> None:
        """Per target and seat: tiles and crew in steps of 0.2, visible values summed.

        From the shared `BidTally`: an observer writes only the cells of tiles placed since
        it last looked; a new bid stamp, or values turning face up, redraws the field. While
        bidding, other seats' values are hidden (R-BID-5).
        """
        tally = self._bid_tallies.get(game.bid_stamp)
        if tally is None:
            make_room(self._bid_tallies)
            tally = self._bid_tallies[game.bid_stamp] = BidTally(game, self._bid_span[0] * 4)
        elif tally.done != len(game.bid_log):
            tally.advance(game)
        key = (tally, revealed)
        out, values, at_slot, pack = state.bytes, tally.values, tally.at, CELL.pack_into
        if state.bid_key == key:
            if state.bid_seen == tally.done:
                return
            # in log order, so a cell's last event shows its current tally
            for at, p, tiles, crew, value in tally.events[
                state.bid_seen - tally.start : tally.done - tally.start
            ]:
                if p < 0:  # taken back: the target's cells go blank
                    out[at : at + SLOT_BYTES] = SLOT_ZEROS
                else:
                    value = value if revealed or p == seat else 0.0
                    pack(out, at + (p - seat) % n * CELL.size, tiles, crew, value)
        else:
            start, end = self._bid_span
            out[start * 4 : end * 4] = self._bid_zeros
            for slot, cells in enumerate(values if any(values) else ()):
                for p, (tiles, crew, value) in cells.items():
                    value = value if revealed or p == seat else 0.0
                    pack(out, at_slot[slot] + (p - seat) % n * CELL.size, tiles, crew, value)
            state.bid_key = key
        state.bid_seen = tally.done

    def _draw_ships(self, game: FarlightGame, seat: int, n: int, state: Observer) -> None:
        """Redraw a relative seat's ship planes and engines only when its ship stamp changed."""
        stamps = game.ship_stamps
        drawn, ships, engines = state.ships, state.ship_view, state.engine_view
        for i in range(n):
            p = (seat + i) % n
            if drawn[i] != stamps[p]:
                summary = self._ships.summary(game, p)
                ships[i] = summary.planes
                engines[i] = summary.engines
                drawn[i] = stamps[p]
        state.ship_stamps = list(stamps)

    def _pending_table(self, game: FarlightGame, p: int, selected: int | None) -> bytes:
        """A seat's won parts waiting to be installed: selected flag, card features."""
        rows = [
            FLAG.pack(float(part == selected)) + self._features(game, part)
            for part in sorted(game.pending[p])[:MAX_SPACES]
        ]
        table = b"".join(rows)
        return table + bytes(self._pending_bytes - len(table))
