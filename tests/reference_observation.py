"""The observation encoder as it was before incremental encoding (main at 4d665c2), kept
verbatim as the reference that `tests/test_encode_incremental.py` holds the fast one to.

Original docstring: Observation tensors: everything one seat may know, nothing it may not
(R-BID-5, R-SETUP-2).

One flat float32 vector with named fields (`layout()`: name -> slice and shape). Seats are
relative: index 0 is the observing player, then the next seats in seat order; absent seats of
games with fewer than 5 players are zero, so one network serves every player count.
Hidden facts never enter: opponents' face-down tile values, the deck's order, face-down awards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from farlight_env.cards.model import AWARDS, FACILITIES, CardSet, IconKind, Timing
from farlight_env.encode.codec import MAX_SPACES, NUM_TARGETS
from farlight_env.game.config import Phase
from farlight_env.game.facts import NUM_STACKS, TILES
from farlight_env.game.game import FarlightGame
from farlight_env.game.ship import CORE, STEPS

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
        self.fields = self._build_layout()
        self.size = sum(f.size for f in self.fields.values())
        self._views = [(f.name, f.start, f.start + f.size, f.shape) for f in self.fields.values()]
        self._mission_cache: dict[tuple, np.ndarray] = {}
        self._station_cache: dict[tuple, np.ndarray] = {}
        # One scratch buffer with named views, copied out per observation.
        self._buffer = np.zeros(self.size, dtype=np.float32)
        self._buffer_views = {
            name: self._buffer[a:b].reshape(shape) for name, a, b, shape in self._views
        }
        self._ship_cache: dict[int, ShipSummary] = {}
        self._feature_cache: dict[tuple, np.ndarray] = {}

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
        """The observation of `seat` (any seat, acting or not) as a new float32 vector."""
        buffer, view = self._buffer, self._buffer_views
        buffer.fill(0.0)
        n = game.num_players
        rel = [(seat + i) % n for i in range(n)]  # relative index -> absolute seat
        self._encode_header(game, seat, view)
        self._encode_players(game, rel, view)
        self._encode_station(game, view)
        self._encode_missions(game, seat, view)
        self._encode_bids(game, seat, rel, view)
        for i, p in enumerate(rel):
            ship = self._ship(game, p)
            view["ships"][i] = ship.planes
            view["engines"][i] = ship.engines
            if game.pending[p]:
                self._encode_pending(game, p, view["pending"][i])
        for award in game.awards_up:
            view["awards"][AWARDS.index(award)] = 1.0
        deck = view["deck"]
        deck[game.deck] = 1.0  # composition only: which cards remain, never their order
        deck[-1] = len(game.deck) / 57.0
        return buffer.copy()

    def _encode_header(self, game: FarlightGame, seat: int, view: dict) -> None:
        view["decision"][DECISIONS.index(game.phase)] = 1.0
        if game.phase is Phase.BIDDING:
            view["bidding_pass"][game._bid_pass] = 1.0
            view["tiles_left_this_turn"][0] = game._tiles_left / 2.0
        view["round"][0] = game.round / 50.0
        view["num_players"][game.num_players - 2] = 1.0
        view["first_player"][(game.first_player - seat) % game.num_players] = 1.0
        for tile in game.hands[seat]:
            view["own_hand"][tile] = 1.0

    def _encode_players(self, game: FarlightGame, rel: list[int], view: dict) -> None:
        table = view["players"]
        for i, p in enumerate(rel):
            ship = self._ship(game, p)
            table[i] = (
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

    def _encode_station(self, game: FarlightGame, view: dict) -> None:
        """Station table, cached on the parts, bonus crew and dice it shows."""
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
            if len(self._station_cache) > 4096:
                self._station_cache.clear()
            table = np.zeros(self.fields["station"].shape, dtype=np.float32)
            for slot, part in enumerate(game.spaces):
                if part is None:
                    continue
                table[slot, 0] = 1.0
                table[slot, 1] = game.bonus[slot] / 5.0
                table[slot, 2:] = self._features(game, part)
            self._station_cache[key] = table
        view["station"][: len(table)] = table

    def _encode_missions(self, game: FarlightGame, seat: int, view: dict) -> None:
        key = tuple(tuple(stack) for stack in game.stacks)
        table = self._mission_cache.get(key)
        if table is None:
            if len(self._mission_cache) > 4096:
                self._mission_cache.clear()
            table = self._mission_table(game)
            self._mission_cache[key] = table
        view["missions"][...] = table
        if game.phase is Phase.MISSION:
            ctx = view["mission_resolving"]
            ctx[game._mission_stack] = 1.0
            ctx[NUM_STACKS] = game._completers / 5.0
            slot = game.num_spaces + len(FACILITIES) + game._mission_stack
            ctx[NUM_STACKS + 1] = game.bid_total(seat, slot) / 15.0

    def _mission_table(self, game: FarlightGame) -> np.ndarray:
        """The splayed stacks: every card's value and requirements are public (R-SETUP-3)."""
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

    def _encode_bids(self, game: FarlightGame, seat: int, rel: list[int], view: dict) -> None:
        bids = view["bids"]
        index_of = {p: i for i, p in enumerate(rel)}
        k = game.num_spaces
        revealed = game.phase is not Phase.BIDDING  # tiles flip face up after bidding
        for slot, placed in enumerate(game.bids):
            if not placed:
                continue
            pos = slot if slot < k else MAX_SPACES + (slot - k)  # fixed target positions
            for p, tile, crew in placed:
                i = index_of[p]
                bids[pos, i, 0] += 0.2
                bids[pos, i, 1] += 0.2 * crew
                if revealed or p == seat:  # R-BID-5: values hidden from others until then
                    bids[pos, i, 2] += (tile + crew) / 15.0

    def _encode_pending(self, game: FarlightGame, p: int, table: np.ndarray) -> None:
        selected = game.selected_part() if game.current_player == p else None
        for j, part in enumerate(sorted(game.pending[p])[:MAX_SPACES]):
            table[j, 0] = float(part == selected)
            table[j, 1:] = self._features(game, part)

    def _ship(self, game: FarlightGame, p: int) -> ShipSummary:
        """Planes and counts of one ship, cached on its stamp (changes with parts or engines)."""
        stamp = game.ship_stamps[p]
        summary = self._ship_cache.get(stamp)
        if summary is None:
            if len(self._ship_cache) > 4096:
                self._ship_cache.clear()
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

    def _draw_ship(self, game: FarlightGame, ship: dict) -> np.ndarray:
        planes = np.zeros((self.ship_channels, self.grid_size, self.grid_size), dtype=np.float32)
        h = self.half
        for (row, col), piece in ship.items():
            r, c = row + h, col + h
            planes[0, r, c] = 1.0
            if piece == CORE:
                planes[1, r, c] = 1.0
                planes[2:6, r, c] = 1.0
                continue
            part = self.cards.parts[piece]
            mask = game.part_masks[piece]
            for j, (bit, _opp, _dr, _dc) in enumerate(STEPS):
                planes[2 + j, r, c] = float(bool(mask & bit))
            base = 6
            for j, (kind, timing) in enumerate(ICON_CHANNELS):
                planes[base + j, r, c] = sum(
                    1 for i in part.icons if i.kind is kind and i.timing is timing
                )
            base += len(ICON_CHANNELS)
            planes[base, r, c] = part.biotech / 2.0
            values = sorted((game.engine_values.get(rk, 0) for rk in part.engines), reverse=True)
            for j, value in enumerate(values):
                planes[base + 1 + j, r, c] = value / 6.0
        return planes
