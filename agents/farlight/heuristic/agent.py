"""`HeuristicAgent`: the rule-based baseline (how it plays: agents/farlight/heuristic/__init__.py).

It asks a `Planner` what things are worth and scores bids with `placements`; this module holds
its choices per phase and the caches that make it cheap to call from search agents.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable

import numpy as np

from agents.farlight.engine_agent import EngineAgent
from agents.farlight.heuristic.placements import (
    SLOT_BLOCK,
    UNKNOWN_TILE,
    OpenRows,
    Placements,
    block_gains,
    open_gains,
    win_chance,
)
from agents.farlight.heuristic.planner import Planner, _seat_facts, board_facts
from farlight_env.cards.model import FACILITIES
from farlight_env.encode.codec import ActionCodec
from farlight_env.game import (
    Action,
    Bid,
    ChooseEngine,
    CompleteMission,
    Discard,
    FarlightGame,
    Install,
    PassMission,
    Phase,
    RefitStop,
    SelectPart,
    SkipEngine,
)
from farlight_env.game.facts import DISCOVER, ENGINEER, HIRE, MAX_ENGINE, TEMP_BIOTECH_COST

VALUES_CACHE_SIZE = 4096  # cached bid valuations per agent before the cache is cleared

#: Ids for interned board facts; never reused, so a cleared table cannot alias two facts.
_FACT_IDS = itertools.count()


class HeuristicAgent(EngineAgent):
    """The documented rule-based baseline (how it plays: the package docstring).

    Bid valuations are cached on the public facts they read (`valuation_key`), so search
    agents that call the heuristic thousands of times per decision pay for them once per
    distinct position; the cache changes no decision.
    """

    name = "heuristic"
    reads_only = True  # its decisions read the game and change nothing in it

    def __init__(self, seed: int | None = None) -> None:
        super().__init__()
        self.rng = np.random.default_rng(seed)
        self._values_cache: dict[tuple, np.ndarray] = {}
        self._values_cards: object = None
        self._bid_table: dict | None = None
        self._bid_cells: dict[int, int] = {}  # id of one of the table's Bids -> its cell
        #: (bid table, codec, each bid index's cell) for the table and codec last met
        self._index_cells_for: tuple[dict, ActionCodec, np.ndarray] | None = None
        self._cells_cache: dict[tuple[int, ...], np.ndarray] = {}
        #: (length, first id, last id) -> (a copy of the legal list, its cells)
        self._recent_cells: dict[tuple[int, int, int], tuple[list[Action], np.ndarray]] = {}
        #: (valuation key, crew low, lone-zero rule) -> (the worths as floats, every slot's
        #: gains without bids)
        self._gains_cache: dict[tuple, tuple[list[float], np.ndarray]] = {}
        #: seat -> (bid stamp, the `_gains_cache` entry, bid log entries seen, that seat's
        #: patched table), the table `_seat_gains` last gave the seat
        self._kept_gains: dict[
            int, tuple[int, tuple[list[float], np.ndarray], int, np.ndarray]
        ] = {}
        self._all_rows: OpenRows | None = None  # every slot's SLOT_BLOCK placements
        self._planners: dict[tuple, Planner] = {}
        self._planned_game: FarlightGame | None = None  # the game the lent plans read
        self._lent: list[Planner] = []  # plans given out for it; they let go of it after
        self._quality_cache: dict[tuple, float] = {}
        self._board_ids: dict[int, tuple[int, int]] = {}  # board stamp -> fact ids
        self._fact_ids: dict[tuple, int] = {}  # interned board facts -> id

    def choose(self, game: FarlightGame, seat: int) -> Action:
        legal = game.legal_actions()
        phase = game.phase
        if phase is Phase.BIDDING:
            return self._bid(game, seat, legal)
        if phase is Phase.REFIT:
            return RefitStop()
        if phase is Phase.INSTALL:
            return self._install(game, seat, legal)
        if phase in (Phase.ENGINEER, Phase.UPGRADE):
            return self._boost(game, seat, legal)
        if phase is Phase.OVERHAUL:
            return self._overhaul(game, seat, legal)
        if phase is Phase.MISSION:
            return self._mission(game, seat, legal)
        return legal[0]

    # ------------------------------------------------------------ bidding
    def target_values(self, game: FarlightGame, seat: int) -> dict[int, float]:
        """Worth of winning each bid target slot this round."""
        plan = self.planner(game, seat)
        k = game.num_spaces
        values: dict[int, float] = {}
        for slot, part in enumerate(game.spaces):
            if part is not None:
                values[slot] = plan.part_value(part) + 0.45 * game.bonus[slot]
        crew = game.crew[seat]
        values[k + HIRE] = 1.2 + (1.0 if crew < TEMP_BIOTECH_COST else 0.0)  # crew // 3 == 0
        values[k + DISCOVER] = 1.3 + plan.progress(science=1)
        values[k + ENGINEER] = plan.engineer_value()
        for s, mission_id in enumerate(game.available_missions()):
            if mission_id is None:
                continue
            slot = k + 4 + s
            if plan.can_complete(mission_id):
                values[slot] = float(game.cards.missions[mission_id].value)
            elif plan.gap(mission_id) <= 1.0:
                values[slot] = 0.35 * game.cards.missions[mission_id].value  # may close it
        return values

    def planner(self, game: FarlightGame, seat: int) -> Planner:
        """A `Planner` for `seat` in `game`, cached on `planner_key` (same answers as new).

        Cached plans hold a game only while it is the one planned on: each plan keeping the
        last game it served would keep thousands of game copies alive, which Python's garbage
        collector then walks at every full collection (a sixth of a sub-game's env time)."""
        self._check_cards(game)
        if game is not self._planned_game:
            for lent in self._lent:
                lent.game = None
            self._lent = []
            self._planned_game = game
        key = (*_seat_facts(game, seat), self._board_id(game)[1])
        plan = self._planners.get(key)
        if plan is None:
            if len(self._planners) >= VALUES_CACHE_SIZE:
                self._planners.clear()
            plan = self._planners[key] = Planner(game, seat)
        elif plan.game is game:
            return plan
        else:
            plan.game = game  # equal keys: the plan's derived facts hold in this game too
        self._lent.append(plan)
        return plan

    def _board_id(self, game: FarlightGame) -> tuple[int, int]:
        """Ids of `board_facts` and of the missions on offer, memoised per board stamp.

        Equal ids mean equal facts, so keys holding them stand for `valuation_key` and
        `planner_key` while hashing two small ints instead of the board.
        """
        ids = self._board_ids.get(game.board_stamp)
        if ids is None:
            if len(self._board_ids) >= VALUES_CACHE_SIZE:
                self._board_ids.clear()
            if len(self._fact_ids) >= VALUES_CACHE_SIZE:
                self._fact_ids.clear()
            facts = board_facts(game)
            ids = tuple(self._fact_ids.setdefault(f, next(_FACT_IDS)) for f in (facts, facts[0]))
            self._board_ids[game.board_stamp] = ids  # type: ignore[assignment]
        return ids  # type: ignore[return-value]

    def _valuation_key(self, game: FarlightGame, seat: int) -> tuple:
        """`valuation_key` with the board facts as an id (equal keys, equal valuations)."""
        return (*_seat_facts(game, seat), self._board_id(game)[0])

    def _check_cards(self, game: FarlightGame) -> None:
        """Forget every cached valuation when the card set changes."""
        if game.cards is not self._values_cards:
            caches = (
                self._values_cache,
                self._planners,
                self._quality_cache,
                self._gains_cache,
            )
            for cache in caches:
                cache.clear()
            self._values_cards = game.cards

    def slot_worths(self, game: FarlightGame, seat: int, key: tuple | None = None) -> np.ndarray:
        """`target_values` as an array over all target slots (0 where worthless), cached.

        `key`: the `_valuation_key` if the caller has it.
        """
        self._check_cards(game)
        if key is None:
            key = self._valuation_key(game, seat)
        worths = self._values_cache.get(key)
        if worths is None:
            if len(self._values_cache) >= VALUES_CACHE_SIZE:
                self._values_cache.clear()
            worths = np.zeros(len(game.targets), dtype=np.float64)
            for slot, value in self.target_values(game, seat).items():
                worths[slot] = value
            self._values_cache[key] = worths
        return worths

    def _bid(self, game: FarlightGame, seat: int, legal: list[Action]) -> Action:
        return legal[int(self.bid_scores(game, seat, legal).argmax())]  # method: no dispatch

    def ranked_bids(
        self, game: FarlightGame, seat: int, legal: list[Action], limit: int | None = None
    ) -> list[Action]:
        """Legal placements best first (ties keep legal order), as `score_bids` ranks them;
        the first `limit` only, if given (search asks for a few of ~150)."""
        order = (-self.bid_scores(game, seat, legal)).argsort(kind="stable")
        return [legal[i] for i in order[:limit].tolist()]

    def score_bids(
        self, game: FarlightGame, seat: int, legal: list[Action]
    ) -> list[tuple[float, Action]]:
        """Every legal placement with its expected gain (higher is better)."""
        return list(zip(self.bid_scores(game, seat, legal).tolist(), legal, strict=True))

    def bid_scores(self, game: FarlightGame, seat: int, legal: list[Action]) -> np.ndarray:
        """Expected gain of each legal placement plus a tiny random tie-breaker, as an array.

        Vectorised form of `_placement_score` over all placements at once; the float
        operations are the same, in the same order, so the scores are bit-identical. Gains are
        read from a table of every slot's placements (`slot_gains`).
        """
        return self._cell_scores(game, seat, self._cells(game, legal))

    def _cell_scores(self, game: FarlightGame, seat: int, cells: np.ndarray) -> np.ndarray:
        """The gains of the placements at `cells` of `slot_gains`' table, each plus its tiny
        random tie-breaker (one draw per placement, in order)."""
        return self._seat_gains(game, seat)[cells] + 1e-3 * self.rng.random(len(cells))

    def slot_gains(self, game: FarlightGame, seat: int) -> np.ndarray:
        """`_placement_score` of every `SLOT_BLOCK` placement on every target slot, slot-major
        (the caller's own copy)."""
        return self._seat_gains(game, seat).copy()

    def _seat_gains(self, game: FarlightGame, seat: int) -> np.ndarray:
        """`slot_gains`' table, the agent's own and valid until its next call: the slots
        without bids from one cached table per valuation, those with bids from blocks cached
        per slot. Under one bid stamp bids change only as `bid_log` says, so the table is kept
        per seat and a later call patches only the slots logged since (a play-out asks each
        seat several times in one game)."""
        lone_zero = game.config.rule_options.lone_zero_mission_chance
        self._check_cards(game)
        crew_low = game.crew[seat] <= 2
        key = (*_seat_facts(game, seat), self._board_id(game)[0], crew_low, lone_zero)
        found = self._gains_cache.get(key)  # one lookup for the valuation's worths and table
        if found is None:
            if len(self._gains_cache) >= VALUES_CACHE_SIZE:
                self._gains_cache.clear()
            valuation = key[:-2]
            worths = self.slot_worths(game, seat, valuation)
            table = self._open_gains(game, worths, crew_low, lone_zero)
            found = self._gains_cache[key] = (worths.tolist(), table)
        worths_of, table = found
        log, bids = game.bid_log, game.bids
        kept = self._kept_gains.get(seat)
        if kept is not None and kept[0] == game.bid_stamp and kept[1] is found:
            patched = kept[3]
            changed: Iterable[int] = {slot if slot >= 0 else ~slot for slot in log[kept[2] :]}
        else:
            patched = table.copy()
            changed = (slot for slot, placed in enumerate(bids) if placed)
        width, first_mission = len(SLOT_BLOCK), game.num_spaces + len(FACILITIES)
        for slot in changed:
            placed, at = bids[slot], slot * width
            if placed:
                mine, rival = _seen_on(placed, seat)
                is_mission = slot >= first_mission
                block = block_gains(worths_of[slot], mine, rival, is_mission, crew_low, lone_zero)
                patched[at : at + width] = block
            else:  # its bids went back: no one has bid there
                patched[at : at + width] = table[at : at + width]
        self._kept_gains[seat] = (game.bid_stamp, found, len(log), patched)
        return patched

    def decide(
        self, game: FarlightGame, seat: int, action_mask: np.ndarray, codec: ActionCodec
    ) -> int:
        """A bid straight from the mask: the legal bids in index order are `legal_actions`'
        order (hand ascending, then target, then crew), so scoring them draws the same
        tie-breakers and picks the same bid as `choose`, without building the action list."""
        if game.phase is not Phase.BIDDING or not _ascending(game.hands[seat]):
            return super().decide(game, seat, action_mask, codec)
        bids = codec.blocks["bid"]
        legal = np.flatnonzero(action_mask[bids.start : bids.stop])
        cells = self._index_cells(game, codec)[legal]
        if len(legal) == 0 or bool((cells < 0).any()):  # not the engine's bids: say so there
            return super().decide(game, seat, action_mask, codec)
        scores = self._cell_scores(game, seat, cells)
        return bids.start + int(legal[int(scores.argmax())])

    def _index_cells(self, game: FarlightGame, codec: ActionCodec) -> np.ndarray:
        """For each index of the codec's bid block, its bid's cell in `slot_gains`' table (-1
        where the game has no such bid), read from the game's bid table through the codec."""
        table, known = game.bid_actions, self._index_cells_for
        if known is not None and known[0] is table and known[1] is codec:
            return known[2]
        bids = codec.blocks["bid"]
        cells = np.full(bids.size, -1, dtype=np.int64)
        width = len(SLOT_BLOCK)
        for (tile, slot, crew), bid in table.items():
            cells[codec.encode(bid) - bids.start] = slot * width + tile * 2 + int(crew)
        self._index_cells_for = (table, codec, cells)
        return cells

    def _open_gains(
        self, game: FarlightGame, worths: np.ndarray, crew_low: bool, lone_zero: bool
    ) -> np.ndarray:
        """`_placement_gains` of every placement on every slot as if no one had bid (cached by
        `slot_gains` with the valuation). Element-wise float operations give the same result
        in any array, so a slot's part of this table equals its block computed alone."""
        if self._all_rows is None:
            slots = range(len(game.targets))
            fields = np.array([(s, tile, crew) for s in slots for tile, crew in SLOT_BLOCK])
            rows = Placements.of(fields, game.num_spaces + len(FACILITIES))
            self._all_rows = OpenRows.of(rows)
        return open_gains(self._all_rows, worths, crew_low, lone_zero)

    def _placements(self, game: FarlightGame, legal: list[Action]) -> Placements:
        """The placements of `legal` with every term that depends on them alone."""
        rows = [(game.target_slot[a.target], a.tile, int(a.crew)) for a in legal]  # type: ignore[attr-defined]
        fields = np.array(rows, dtype=np.int64).reshape(len(rows), 3)
        return Placements.of(fields, game.num_spaces + len(FACILITIES))

    def _cells(self, game: FarlightGame, legal: list[Action]) -> np.ndarray:
        """Each legal bid's cell in `slot_gains`' table; cached for lists of the game's
        canonical Bids (search and the engine hand out the same instances)."""
        table = game.bid_actions
        if table is not self._bid_table:  # the table keeps its Bids alive, so ids are stable
            self._bid_table = table
            width = len(SLOT_BLOCK)
            self._bid_cells = {
                id(bid): slot * width + tile * 2 + int(crew)
                for (tile, slot, crew), bid in table.items()
            }
            caches = (self._cells_cache, self._gains_cache, self._recent_cells)
            for cache in caches:
                cache.clear()
            self._all_rows = None
        if legal:  # a short key, checked against the list it stood for (identity compares)
            short = (len(legal), id(legal[0]), id(legal[-1]))
            seen = self._recent_cells.get(short)
            if seen is not None and seen[0] == legal:
                return seen[1]
        key = tuple(map(id, legal))
        cells = self._cells_cache.get(key)
        if cells is None:
            found = list(map(self._bid_cells.get, key))
            if None in found:  # bids made elsewhere: read their fields
                return self._placements(game, legal).cells
            cells = np.array(found, dtype=np.int64)
            if len(self._cells_cache) >= VALUES_CACHE_SIZE:
                self._cells_cache.clear()
            self._cells_cache[key] = cells
        if legal:
            if len(self._recent_cells) >= VALUES_CACHE_SIZE:
                self._recent_cells.clear()
            self._recent_cells[short] = (list(legal), cells)
        return cells

    @staticmethod
    def _placement_score(
        bid: Bid,
        worth: float,
        mine: int,
        rival: float,
        is_mission: bool,
        game: FarlightGame,
        seat: int,
    ) -> float:
        """Expected gain of placing this tile: winning chance times worth, plus side effects.

        The readable scalar form of `bid_scores` (tests check the two agree).
        """
        after = mine + bid.tile + int(bid.crew)
        p_after = win_chance(after, rival, is_mission)  # a later mission completer scores too
        gain = worth * (p_after - win_chance(mine, rival, is_mission))
        crew_cost = 0.0
        if bid.crew:
            crew_cost = 0.9 if is_mission else 0.35  # mission crew never comes back (R-MIS-7)
            if game.crew[seat] <= 2:
                crew_cost += 0.5
        # Losing non-zero tiles on parts/facilities pay 1 crew each (R-RES-4).
        refund = 0.0 if is_mission or bid.tile == 0 else 0.25 * (1.0 - p_after)
        waste = 0.05 * bid.tile if worth <= 0 else 0.0
        return gain - crew_cost + refund - waste

    # ------------------------------------------------------------ install
    def _install(self, game: FarlightGame, seat: int, legal: list[Action]) -> Action:
        if isinstance(legal[0], SelectPart):
            plan = self.planner(game, seat)
            return max(legal, key=lambda a: plan.part_value(game.part_index[a.part]))
        installs = [a for a in legal if isinstance(a, Install)]
        if not installs:
            return next(a for a in legal if isinstance(a, Discard))
        return max(installs, key=lambda a: self._placement_quality(game, seat, a))

    def _placement_quality(self, game: FarlightGame, seat: int, action: Install) -> float:
        """How well a part fits a cell; cached on the ship's stamp, the part and the cell."""
        key = (game.ship_stamps[seat], action.part, action.row, action.col)
        quality = self._quality_cache.get(key)
        if quality is None:
            if len(self._quality_cache) >= VALUES_CACHE_SIZE:
                self._quality_cache.clear()
            quality = self._quality_cache[key] = self._fit(game, seat, action)
        return quality

    @staticmethod
    def _fit(game: FarlightGame, seat: int, action: Install) -> float:
        cell = (action.row, action.col)
        open_, connected, blocked = game.connectors_after(seat, cell, game.part_index[action.part])
        distance = abs(action.row) + abs(action.col)
        return 1.0 * connected - 1.5 * blocked + 0.4 * open_ - 0.01 * distance

    # ------------------------------------------------------------ engines
    def _boost(self, game: FarlightGame, seat: int, legal: list[Action]) -> Action:
        choices = [a for a in legal if isinstance(a, ChooseEngine)]
        if not choices:
            return SkipEngine()
        plan = self.planner(game, seat)
        engines = game.engines(seat)

        def gain(action: ChooseEngine) -> float:
            bumped = [min(MAX_ENGINE, v + 1) if r == action.rank else v for r, v in engines]
            return plan.progress(engines=bumped) + 0.01 * game.engine_values[action.rank]

        return max(choices, key=gain)

    @staticmethod
    def _overhaul(game: FarlightGame, seat: int, legal: list[Action]) -> Action:
        choices = [a for a in legal if isinstance(a, ChooseEngine)]
        if not choices:
            return SkipEngine()
        return min(choices, key=lambda a: game.engine_values[a.rank])

    # ------------------------------------------------------------ missions
    @staticmethod
    def _mission(game: FarlightGame, seat: int, legal: list[Action]) -> Action:
        complete = next((a for a in legal if isinstance(a, CompleteMission)), None)
        passing = next(a for a in legal if isinstance(a, PassMission))
        if complete is None:
            return passing
        mission = game.cards.missions[game.mission_being_resolved()]
        if game.completers == 0:
            return complete
        points = math.ceil(mission.value / 2)
        shortfall = game.biotech_shortfall(seat, mission.biotech)
        cost = (mission.science * 1.5 + 3 * shortfall) / 3.0
        return complete if points > cost else passing


def _ascending(hand: list[int]) -> bool:
    return all(a < b for a, b in itertools.pairwise(hand))


def _seen_on(placed: list[tuple[int, int, bool]], seat: int) -> tuple[int, float]:
    """The seat's own bid on a target and the best visible rival bid there (rivals' tiles
    count as UNKNOWN_TILE each: their values are hidden)."""
    if len(placed) == 1:  # the common case, same sums as below
        p, t, c = placed[0]
        return (t + c, 0.0) if p == seat else (0, 0.0 + UNKNOWN_TILE + c)
    mine = 0
    per_seat: dict[int, float] = {}
    for p, t, c in placed:
        if p == seat:
            mine += t + c
        else:
            per_seat[p] = per_seat.get(p, 0.0) + UNKNOWN_TILE + c
    return mine, max(per_seat.values(), default=0.0)
