"""The Farlight rules engine: one mutable game state, its legal actions and transitions.

Pure Python plus a numpy Generator for chance; it knows nothing of PettingZoo, Gymnasium or
tensors. Rule IDs are defined in docs/rules.md.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from farlight_env.cards.io import load_card_set, standard_card_set
from farlight_env.cards.model import AWARDS, FACILITIES, CardSet, IconKind, MissionCard, Timing
from farlight_env.cards.schema import CardFileError
from farlight_env.game import scoring, serialize
from farlight_env.game.actions import (
    Action,
    Bid,
    ChooseEngine,
    CompleteMission,
    Discard,
    Install,
    PassMission,
    RefitRemove,
    RefitStop,
    SelectPart,
    SkipEngine,
    Target,
    TargetKind,
)
from farlight_env.game.config import (
    AWARD_POINTS,
    DISCOVER,
    ENGINEER,
    GAME_OPTIONS,
    HIRE,
    HIRE_CREW,
    MAX_ENGINE,
    MAX_GRID_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_FACE_UP_AWARDS,
    NUM_STACKS,
    PART_SPACES,
    REFIT,
    REGULAR_PER_STACK,
    SEED_LIMIT,
    START_CREW,
    TEMP_BIOTECH_COST,
    TILES,
    TILES_PER_PASS,
    CardSetError,
    ConfigError,
    EndReason,
    GameConfig,
    IllegalActionError,
    Phase,
    Resume,
)
from farlight_env.game.ship import (
    CORE,
    Cell,
    connector_counts,
    connector_delta,
    connector_mask,
    legal_cells,
    new_stamp,
)

# Names other modules import from here (kept for compatibility; declared in game/config.py).
__all__ = [
    "AWARD_POINTS",
    "DISCOVER",
    "ENGINEER",
    "GAME_OPTIONS",
    "HIRE",
    "MAX_ENGINE",
    "MAX_GRID_SIZE",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "NUM_STACKS",
    "PART_SPACES",
    "REFIT",
    "TILES",
    "TILES_PER_PASS",
    "CardSetError",
    "ConfigError",
    "EndReason",
    "FarlightGame",
    "GameConfig",
    "IllegalActionError",
    "Phase",
]


def mission_bidders(
    totals: Mapping[int, int], order_key: Callable[[int], int], lone_zero_chance: bool
) -> list[int]:
    """Who is asked to complete a mission, in order (R-MIS-2): bid descending, ties by turn
    order; a lone 0 never wins, so with `lone_zero_chance` it is asked after every real bid."""
    real = sorted(
        (p for p, t in totals.items() if t >= 1), key=lambda p: (-totals[p], order_key(p))
    )
    if not lone_zero_chance:
        return real
    return real + sorted((p for p, t in totals.items() if t == 0), key=order_key)


@functools.lru_cache(maxsize=8192)
def _action(kind: type[Action], *args: Any) -> Action:
    """One shared instance per action value: actions are immutable, and making one validates
    its fields, which legal-action lists would otherwise repeat at every decision."""
    return kind(*args)


def _mission_order(mission: MissionCard) -> tuple[int, str, str]:
    """Ascending value, ties alphabetical by name ignoring case (R-SETUP-3, R-MIS-1)."""
    return mission.value, mission.name.casefold(), mission.name


def resolve_card_set(card_set: CardSet | str | os.PathLike | None) -> CardSet:
    """The card set a game option names: None for the standard set, a CardSet, or a file."""
    if card_set is None:
        return standard_card_set()
    if isinstance(card_set, CardSet):
        return card_set
    if isinstance(card_set, (str, os.PathLike)):
        try:
            return load_card_set(card_set)
        except CardFileError as exc:
            raise CardSetError(str(exc)) from exc
    raise ConfigError(
        f"card_set must be None, a CardSet or a path to a card file, got {type(card_set).__name__}"
    )


def _resolve_seed(seed: int | None) -> int:
    if seed is None:
        return int(np.random.SeedSequence().entropy % (2**63))
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ConfigError(f"seed must be an integer or None, got {seed!r}")
    if not 0 <= seed < SEED_LIMIT:
        raise ConfigError(f"seed must be a non-negative integer below 2**128, got {seed}")
    return int(seed)


# Attributes derived once from config and cards; immutable, so clones share them.
_SHARED_TABLES = (
    "config",
    "cards",
    "seed",
    "num_players",
    "num_spaces",
    "half",
    "part_index",
    "mission_index",
    "part_masks",
    "rank_part",
    "targets",
    "target_slot",
    "bid_actions",
    "bid_slots",
    "install_actions",
    "connector_cache",
    "cells_cache",
    "bid_blocks",
    "engines_cache",
    "ship_transitions",
    "compact_changes",
)


# Kinds of ship change in the low 2 bits of `_change_ship` codes.
_INSTALLED, _REMOVED, _BOOSTED = 0, 1, 2


_TABLES_KEPT = 16
CONNECTOR_CACHE_SIZE = 65536
BID_BLOCKS_KEPT = 4096
#: Whether a bid adds a crew, by whether the seat has crew to add.
CREW_CHOICES = {False: (False,), True: (False, True)}
_TABLES: dict[tuple[int, int, int], tuple[CardSet, dict[str, Any]]] = {}


def _derive_tables(cards: CardSet, num_players: int, grid_size: int) -> dict[str, Any]:
    """The immutable lookups a game needs: indices, connector masks, targets, bid actions."""
    num_spaces = PART_SPACES[num_players]
    targets: tuple[Target, ...] = (
        tuple(Target(TargetKind.PART, i) for i in range(num_spaces))
        + tuple(Target(TargetKind.FACILITY, i) for i in range(len(FACILITIES)))
        + tuple(Target(TargetKind.MISSION, i) for i in range(NUM_STACKS))
    )
    bid_actions = {
        (tile, slot, crew): Bid(tile, t, crew)
        for slot, t in enumerate(targets)
        for tile in TILES
        for crew in (False, True)
    }
    return {
        "num_players": num_players,
        "num_spaces": num_spaces,
        "half": grid_size // 2,
        "part_index": {p.name: i for i, p in enumerate(cards.parts)},
        "mission_index": {m.name: i for i, m in enumerate(cards.missions)},
        "part_masks": tuple(connector_mask(p) for p in cards.parts),
        "rank_part": {rank: i for i, p in enumerate(cards.parts) for rank in p.engines},
        "targets": targets,
        "target_slot": {t: i for i, t in enumerate(targets)},
        "bid_actions": bid_actions,
        # id of each shared Bid -> (that Bid, its slot): a bid handed out by these tables (the
        # codec decodes to them) is recognised without hashing its target
        "bid_slots": {id(bid): (bid, key[1]) for key, bid in bid_actions.items()},
        "install_actions": {},  # (part, row, col) -> Install, filled as cells come up
        "connector_cache": {},  # (ship stamp, edge rule) -> connector counts; stamps are unique
        "cells_cache": {},  # (ship stamp, part mask) -> legal install cells
        "bid_blocks": {},  # (open target slots, tile, crew possible) -> that tile's bids
        "engines_cache": {},  # ship stamp -> (rank, value) of its engines
        # (ship stamp, change) -> the stamp after it: equal ships changed alike stay equal, so
        # games that make the same change (search rollouts) share every stamp-keyed cache
        "ship_transitions": {},
        # ship changes code into 64 bits: parts, ranks and the grid (<= 41) within the widths
        "compact_changes": _changes_fit(cards),
    }


def _changes_fit(cards: CardSet) -> bool:
    """Whether `_change_ship` codes fit 64 bits: parts below 2**32 with at most 6 engines,
    ranks below 2**59 (the grid, at most 41 wide, and dice 1..6 always fit)."""
    return len(cards.parts) < 1 << 32 and all(
        len(p.engines) <= 6 and all(0 <= r < 1 << 59 for r in p.engines) for p in cards.parts
    )


# A game's mutable state by how `clone` copies it: immutable values, flat lists, lists of lists
# (tuples inside, as in `bids`, are immutable). Ships, dice and the final breakdown are dicts.
_VALUE_STATE = (
    *("round", "_phase", "_current", "first_player", "end_reason", "_bid_pass", "_bid_turn"),
    *("_tiles_left", "_selected", "_resume", "_resolve_cursor", "_mission", "_mission_stack"),
    *("_mission_cursor", "_completers", "_climactic_done", "board_stamp", "bid_stamp"),
)
_LIST_STATE = (
    *("crew", "science", "points", "temp_biotech", "awards_up", "awards_down", "missions_out"),
    *("deck", "out_of_game", "spaces", "bonus", "_winners", "_mission_queue", "_mission_order"),
    *("history", "ship_stamps", "seat_stamps"),
)
_NESTED_STATE = (
    *("hands", "ship_parts", "pending", "installed_this_round", "stacks", "_benefit_left"),
    "bids",
)


class FarlightGame:
    """A game of Farlight for 2–5 players, from setup to final scoring.

    `current_player` acts next by `apply`-ing one of `legal_actions()`. Decisions with a
    single legal option are taken automatically and not recorded in `history`; set
    `on_forced` (a callable taking the game and the action, called just before each) to watch
    them (farlight_env.view.events does, on a copy). Copies and saved games never carry it.
    """

    on_forced: Callable[[FarlightGame, Action], None] | None = None

    def __init__(
        self,
        num_players: int = 4,
        seed: int | None = None,
        *,
        card_set: CardSet | str | os.PathLike | None = None,
        **options: Any,
    ) -> None:
        """Set up a new game (R-SETUP).

        Args:
            num_players: seats 0..n-1, 2..5 (R-COMP-1).
            seed: fixes every chance event; None draws one (read it back from `seed`).
            card_set: a CardSet, a path to a card file (.toml/.json), or None for the standard
                set.
            **options: the other `GameConfig` fields (grid_size, max_rounds,
                random_first_player, ...); an unknown name raises ConfigError.
        """
        self.config = GameConfig.from_options(num_players=num_players, **options)
        self.cards = resolve_card_set(card_set)
        self.seed = _resolve_seed(seed)
        self._init_tables()
        self.rng = np.random.Generator(np.random.PCG64(self.seed))
        self._setup()

    # ------------------------------------------------------------------ setup
    def _init_tables(self) -> None:
        """Per-card lookups derived once per card set and seat count, shared by every game."""
        key = (id(self.cards), self.config.num_players, self.config.grid_size)
        hit = _TABLES.get(key)
        if hit is None or hit[0] is not self.cards:  # `is`: an id can be reused after a free
            hit = (self.cards, _derive_tables(self.cards, *key[1:]))
            if len(_TABLES) >= _TABLES_KEPT:
                del _TABLES[next(iter(_TABLES))]
            _TABLES[key] = hit
        for name, value in hit[1].items():
            setattr(self, name, value)
        # A game played on its own never meets a ship state again; copies of one position
        # (search) do, so only clones look their ship changes up (see `_change_ship`).
        self._share_ship_stamps = False

    def _setup(self) -> None:
        n = self.num_players
        rng = self.rng
        cards = self.cards
        self.round = 1
        self.history: list[Action] = []
        self.crew = [START_CREW] * n
        self.science = [0] * n
        self.points = [0] * n
        self.hands: list[list[int]] = [list(TILES) for _ in range(n)]
        self.ships: list[dict[Cell, int]] = [{(0, 0): CORE} for _ in range(n)]
        self.ship_stamps = [new_stamp() for _ in range(n)]
        self._renew_stamps()
        self.ship_parts: list[list[int]] = [[] for _ in range(n)]
        self.pending: list[list[int]] = [[] for _ in range(n)]
        self.installed_this_round: list[list[int]] = [[] for _ in range(n)]
        self.temp_biotech = [0] * n
        # R-SETUP-2: awards
        order = rng.permutation(len(AWARDS))
        self.awards_up = [AWARDS[i] for i in order[:NUM_FACE_UP_AWARDS]]
        self.awards_down = [AWARDS[i] for i in order[NUM_FACE_UP_AWARDS:]]
        # R-SETUP-3: mission stacks
        climactic = [i for i, m in enumerate(cards.missions) if m.climactic]
        regular = [i for i, m in enumerate(cards.missions) if not m.climactic]
        chosen_climactic = [
            climactic[i] for i in rng.choice(len(climactic), NUM_STACKS, replace=False)
        ]
        shuffled_regular = [regular[i] for i in rng.permutation(len(regular))]
        per_stack = REGULAR_PER_STACK[n]
        self.stacks: list[list[int]] = []
        for s in range(NUM_STACKS):
            stack = shuffled_regular[s * per_stack : (s + 1) * per_stack] + [chosen_climactic[s]]
            stack.sort(key=lambda m: _mission_order(cards.missions[m]))
            self.stacks.append(stack)
        used = {m for stack in self.stacks for m in stack}
        self.missions_out = [m for m in range(len(cards.missions)) if m not in used]
        # R-SETUP-4: part deck (top of deck = end of list) and spaces
        self.deck = [int(i) for i in rng.permutation(len(cards.parts))]
        self.out_of_game: list[int] = []
        self.spaces: list[int | None] = [self.deck.pop() for _ in range(self.num_spaces)]
        self.bonus = [0] * self.num_spaces
        # R-SETUP-6
        self.first_player = int(rng.integers(n)) if self.config.random_first_player else 0
        # R-SETUP-5
        self.engine_values: dict[int, int] = {}
        self._roll_station_dice()
        self.bids: list[list[tuple[int, int, bool]]] = [[] for _ in self.targets]
        self.end_reason: EndReason | None = None
        self.final_breakdown: list[dict[str, int]] | None = None
        self._winners: list[int] = []
        self._start_bidding()
        self._advance()

    def _roll_station_dice(self) -> None:
        """Roll one die per engine icon on the station; highest die to highest rank (R-SETUP-5)."""
        ranks = sorted(
            (
                rank
                for part in self.spaces
                if part is not None
                for rank in self.cards.parts[part].engines
            ),
            reverse=True,
        )
        if not ranks:
            return
        dice = sorted((int(d) for d in self.rng.integers(1, 7, size=len(ranks))), reverse=True)
        for rank, die in zip(ranks, dice, strict=True):
            self.engine_values[rank] = die

    # ------------------------------------------------------------ public view
    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def current_player(self) -> int | None:
        return self._current

    @property
    def is_over(self) -> bool:
        return self._phase is Phase.OVER

    @property
    def is_truncated(self) -> bool:
        """True when the round cap ended the game (R-RESET-6)."""
        return self.end_reason is EndReason.ROUND_CAP

    def turn_order(self) -> list[int]:
        """Seats from the first player onward; earlier seats win ties (R-RES-2, R-MIS-2)."""
        n = self.num_players
        return [(self.first_player + i) % n for i in range(n)]

    def order_key(self, seat: int) -> int:
        return (seat - self.first_player) % self.num_players

    def scores(self) -> list[int]:
        """Mission points so far; after the game, final totals with awards and tokens (R-END)."""
        return list(self.points)

    def winners(self) -> list[int]:
        """Seats sharing the victory after tiebreaks (R-END-3/4); empty while the game runs."""
        return list(self._winners)

    def available_missions(self) -> list[int | None]:
        """Mission id at the top of each stack (R-SETUP-3), None for an empty stack."""
        return [stack[0] if stack else None for stack in self.stacks]

    def selected_part(self) -> int | None:
        """Card id of the pending part the current player is installing or discarding."""
        return self._selected if self._phase is Phase.INSTALL else None

    def mission_being_resolved(self) -> int | None:
        return self._mission if self._phase is Phase.MISSION else None

    @property
    def bidding_pass(self) -> int:
        """Bidding pass 0..2 of this round (R-BID-1); meaningful during bidding."""
        return self._bid_pass

    @property
    def tiles_left(self) -> int:
        """Tiles the current bidder still places in this pass (R-BID-1)."""
        return self._tiles_left

    @property
    def mission_stack(self) -> int | None:
        """Stack whose top mission is being resolved; None outside the mission phase."""
        return self._mission_stack if self._phase is Phase.MISSION else None

    @property
    def completers(self) -> int:
        """Seats that completed the mission being resolved so far (R-MIS-3)."""
        return self._completers if self._phase is Phase.MISSION else 0

    def engines(self, seat: int) -> list[tuple[int, int]]:
        """(rank, value) of every engine installed on a seat's ship (R-SHIP-2).

        Cached per ship stamp: installing, removing or re-rolling a ship's engine renews it.
        """
        stamp = self.ship_stamps[seat]
        found = self.engines_cache.get(stamp)
        if found is None:
            if len(self.engines_cache) >= CONNECTOR_CACHE_SIZE:
                self.engines_cache.clear()
            parts = self.cards.parts
            found = self.engines_cache[stamp] = tuple(
                (rank, self.engine_values[rank])
                for p in self.ship_parts[seat]
                for rank in parts[p].engines
            )
        return list(found)

    def biotech(self, seat: int) -> int:
        """Bio-tech icons on installed parts (R-BEN-4)."""
        parts = self.cards.parts
        return sum(parts[p].biotech for p in self.ship_parts[seat])

    def connectors(self, seat: int) -> tuple[int, int, int]:
        """(open, connected, blocked) connectors of a seat's ship (R-SHIP-1), cached per stamp."""
        key = (self.ship_stamps[seat], self.config.rule_options.edge_connectors)
        counts = self.connector_cache.get(key)
        if counts is None:
            if len(self.connector_cache) >= CONNECTOR_CACHE_SIZE:
                self.connector_cache.clear()
            counts = self.connector_cache[key] = self.count_connectors(self.ships[seat])
        return counts

    def connectors_after(self, seat: int, cell: Cell, part: int) -> tuple[int, int, int]:
        """`connectors(seat)` as it would be with `part` installed on the empty `cell`."""
        blocked_edge = self.half if self.config.rule_options.edge_connectors == "blocked" else None
        delta = connector_delta(
            self.ships[seat], self.part_masks, cell, self.part_masks[part], blocked_edge
        )
        open_, connected, blocked = self.connectors(seat)
        return open_ + delta[0], connected + delta[1], blocked + delta[2]

    def legal_cells(self, seat: int, part: int) -> list[Cell]:
        """Cells of the seat's ship where `part` may go (R-INST-3), cached per ship stamp."""
        key = (self.ship_stamps[seat], self.part_masks[part])
        cells = self.cells_cache.get(key)
        if cells is None:
            if len(self.cells_cache) >= CONNECTOR_CACHE_SIZE:
                self.cells_cache.clear()
            mask = self.part_masks[part]
            cells = legal_cells(self.ships[seat], self.part_masks, mask, self.half)
            self.cells_cache[key] = cells = tuple(cells)
        return list(cells)

    def _renew_stamps(self) -> None:
        """New seat, board and bid stamps (change stamps; see `invalidate_cache`)."""
        self.seat_stamps = [new_stamp() for _ in range(self.config.num_players)]
        self.board_stamp = new_stamp()
        self._new_bid_stamp()

    def _new_bid_stamp(self) -> None:
        """A new round of bids, or bids that may differ from what an observer saw."""
        self.bid_stamp = new_stamp()
        self.bid_log: list[int] = []

    def _change_ship(self, p: int, change: int) -> None:
        """Give seat p's ship the stamp that follows its current one under a change.

        `change` codes everything that differs afterwards in 64 bits (see the callers), so
        equal stamps still mean equal ships; the first game to make a change takes a new
        stamp. Keys are ints, which the garbage collector does not track: a large table does
        not make collections more frequent (tuples would).
        """
        if not self._share_ship_stamps:  # not a clone, or codes would not fit 64 bits
            self.ship_stamps[p] = new_stamp()
            return
        key = self.ship_stamps[p] << 64 | change
        stamp = self.ship_transitions.get(key)
        if stamp is None:
            if len(self.ship_transitions) >= CONNECTOR_CACHE_SIZE:
                self.ship_transitions.clear()
            stamp = self.ship_transitions[key] = new_stamp()
        self.ship_stamps[p] = stamp

    def _install_code(self, part: int, cell: Cell) -> int:
        """`_change_ship`'s code for installing `part` with its dice on `cell`."""
        dice = 0  # 3 bits per die (1..6), at most 6 dice: 18 bits
        for i, rank in enumerate(self.cards.parts[part].engines):
            dice |= self.engine_values[rank] << 3 * i
        code = ((dice << 32 | part) << 6 | cell[0] + 32) << 6 | cell[1] + 32  # 62 bits
        return code << 2 | _INSTALLED

    def renew_ship_stamps(self) -> None:
        """Give every ship a new stamp; call after editing ships or dice directly (tests), so
        caches keyed on stamps (connectors here, encoders and agents elsewhere) recompute."""
        self.ship_stamps = [new_stamp() for _ in self.ships]

    def count_connectors(self, cells: Mapping[Cell, int]) -> tuple[int, int, int]:
        """(open, connected, blocked) of any ship layout under this game's edge_connectors."""
        blocked_edge = self.half if self.config.rule_options.edge_connectors == "blocked" else None
        return connector_counts(cells, self.part_masks, blocked_edge)

    def bid_total(self, seat: int, slot: int) -> int:
        """A seat's bid on a target slot: tile values plus crew (R-BID-6)."""
        return sum(tile + crew for p, tile, crew in self.bids[slot] if p == seat)

    # ----------------------------------------------------------- legal moves
    def legal_actions(self) -> list[Action]:
        """Every action the current player may take now; empty when the game is over."""
        if self._legal is None and self._phase is Phase.BIDDING:  # fresh from cached blocks
            return self._legal_bids(self._current)
        if self._legal is None:
            self._legal = self._compute_legal()
        return list(self._legal)

    def _compute_legal(self) -> list[Action]:
        phase = self._phase
        p = self._current
        if phase is Phase.OVER or p is None:
            return []
        if phase is Phase.BIDDING:
            return self._legal_bids(p)
        if phase is Phase.REFIT:
            parts = self.cards.parts
            removals: list[Action] = [
                _action(RefitRemove, parts[i].name) for i in sorted(self.ship_parts[p])
            ]
            return [*removals, _action(RefitStop)]
        if phase is Phase.ENGINEER:
            return self._engine_choices(p)
        if phase in (Phase.UPGRADE, Phase.OVERHAUL):
            return [*self._engine_choices(p), _action(SkipEngine)]
        if phase is Phase.INSTALL:
            return self._legal_installs(p)
        if phase is Phase.MISSION:
            name = self.cards.missions[self._mission].name
            if self._can_complete(p, self._mission):
                return [_action(CompleteMission, name), _action(PassMission, name)]
            return [_action(PassMission, name)]
        raise AssertionError(f"unknown phase {phase}")

    def _engine_choices(self, p: int) -> list[Action]:
        """R-BEN-3, R-RES-5: any engine of the seat's ship below the top value."""
        return [
            _action(ChooseEngine, rank)
            for rank, value in sorted(self.engines(p))
            if value < MAX_ENGINE
        ]

    def _legal_bids(self, p: int) -> list[Action]:
        """R-BID-2/3: a tile in hand on a filled part space, a facility or an available mission."""
        crew_ok = self.crew[p] >= 1
        blocks = self._bid_blocks
        legal: list[Action] = []
        for tile in self.hands[p]:
            block = blocks.get((tile, crew_ok))
            if block is None:
                block = blocks[(tile, crew_ok)] = self._bid_block(tile, crew_ok)
            legal += block
        return legal

    def _bid_block(self, tile: int, crew_ok: bool) -> list[Action]:
        """One tile's bids on every open target; the targets stay fixed through a bidding phase.

        Blocks are shared by every game with these tables (rounds often open the same targets).
        """
        slots = self._open_slots
        if slots is None:
            found = [i for i, part in enumerate(self.spaces) if part is not None]
            found += range(self.num_spaces, self.num_spaces + len(FACILITIES))
            first = self.num_spaces + len(FACILITIES)
            found += [first + s for s, stack in enumerate(self.stacks) if stack]
            self._open_slots = slots = tuple(found)
        key = (slots, tile, crew_ok)
        block = self.bid_blocks.get(key)
        if block is None:
            if len(self.bid_blocks) >= BID_BLOCKS_KEPT:
                self.bid_blocks.clear()
            crews = CREW_CHOICES[crew_ok]
            table = self.bid_actions
            block = [table[(tile, slot, crew)] for slot in slots for crew in crews]
            self.bid_blocks[key] = block
        return block

    def _reset_bid_cache(self) -> None:
        """Forget the open targets and bid blocks: a new bidding phase, or an edited state."""
        self._open_slots: tuple[int, ...] | None = None
        self._bid_blocks: dict[tuple[int, bool], list[Action]] = {}

    def _legal_installs(self, p: int) -> list[Action]:
        parts = self.cards.parts
        if self._selected is None:
            return [_action(SelectPart, parts[i].name) for i in sorted(self.pending[p])]
        part = self._selected
        card = parts[part]
        installs: list[Action] = []
        if self.crew[p] >= card.crew_cost:  # R-INST-5
            cells = self.legal_cells(p, part)
            table = self.install_actions
            for cell in cells:
                action = table.get((part, *cell))
                if action is None:
                    action = table[(part, *cell)] = Install(card.name, *cell)
                installs.append(action)
        return [*installs, _action(Discard, card.name)]

    def _can_complete(self, p: int, mission_id: int) -> bool:
        """R-MIS-4/5: engines matched one-to-one, bio-tech with bought temporaries, science paid."""
        mission = self.cards.missions[mission_id]
        if self.science[p] < mission.science:
            return False
        if mission.engines:
            have = sorted((v for _, v in self.engines(p)), reverse=True)
            need = sorted(mission.engines, reverse=True)
            if len(have) < len(need) or any(h < r for h, r in zip(have, need, strict=False)):
                return False
        return self.crew[p] >= TEMP_BIOTECH_COST * self._biotech_shortfall(p, mission.biotech)

    def _biotech_shortfall(self, p: int, required: int) -> int:
        return max(0, required - self.biotech(p) - self.temp_biotech[p])

    # ----------------------------------------------------------------- apply
    def apply(self, action: Action) -> None:
        """Apply the current player's action; an illegal one raises and changes nothing."""
        if self._phase is Phase.OVER:
            raise IllegalActionError(f"the game is over; no action is legal (got {action})")
        if self._phase is Phase.BIDDING and isinstance(action, Bid):  # the hot path
            slot = self._legal_bid_slot(action)
            if slot is None:
                raise IllegalActionError(self._illegal_message(action))
            # record the canonical value, whatever equal form came in
            known = self.bid_slots.get(id(action))
            if known is None or known[0] is not action:
                action = self.bid_actions[(action.tile, slot, action.crew)]
            self.history.append(action)
            self._legal = None
            self._legal_set = None
            self._place_tile(self._current, action.tile, slot, action.crew)
            self._advance()
            return
        if not self.is_legal(action):
            raise IllegalActionError(self._illegal_message(action))
        self.history.append(action)
        self._apply_unchecked(action)
        self._advance()

    def invalidate_cache(self) -> None:
        """Forget cached legal actions and renew the change stamps; call after editing state
        directly (tests, search). Ship edits also need `renew_ship_stamps()`.

        Change stamps let observers skip what did not change (process-wide unique ints, as
        ship stamps): `seat_stamps[p]` is renewed whenever seat p's crew, science, points,
        hand, temporary bio-tech or pending parts change; `board_stamp` when the part spaces,
        their bonus crew or dice, the deck, the face-up awards or the mission stacks change;
        `bid_stamp` at the start of every bidding phase (a clone takes a new one too), and
        under one bid stamp bids change only as `bid_log` says, in order: `slot` for a bid
        placed on that target, `~slot` for a target whose bids were all taken back.
        """
        self._legal = None
        self._legal_set = None
        self._reset_bid_cache()
        self._renew_stamps()

    def is_legal(self, action: object) -> bool:
        """Whether `action` is legal now; cheap for bids, which dominate play."""
        if isinstance(action, Bid) and self._phase is Phase.BIDDING:
            return self._legal_bid_slot(action) is not None
        if self._legal is None:
            self._legal = self._compute_legal()
        return action in self._legal

    def _legal_bid_slot(self, bid: Bid) -> int | None:
        """The target slot of a legal bid in the bidding phase, None if the bid is illegal."""
        known = self.bid_slots.get(id(bid))
        if known is not None and known[0] is bid:  # one of ours: fields known to be sound
            slot = known[1]
        else:
            if type(bid.tile) is not int or type(bid.crew) is not bool:
                return None
            if not isinstance(bid.target, Target) or isinstance(bid.target.index, bool):
                return None
            slot = self.target_slot.get(bid.target)
            if slot is None:
                return None
        if bid.tile not in self.hands[self._current]:
            return None
        if bid.crew and self.crew[self._current] < 1:
            return None
        if slot < self.num_spaces:
            return slot if self.spaces[slot] is not None else None
        if slot >= self.num_spaces + len(FACILITIES):
            return slot if self.stacks[slot - self.num_spaces - len(FACILITIES)] else None
        return slot

    def legal_actions_set(self) -> frozenset[Action]:
        if self._legal_set is None:
            if self._legal is None:
                self._legal = self._compute_legal()
            self._legal_set = frozenset(self._legal)
        return self._legal_set

    def _illegal_message(self, action: Any) -> str:
        legal = self.legal_actions()
        shown = ", ".join(str(a) for a in legal[:8]) + (" ..." if len(legal) > 8 else "")
        return (
            f"illegal action {action!r} for player {self._current} in phase "
            f"{self._phase.value} (round {self.round}); {len(legal)} legal actions, e.g. {shown}"
        )

    def _apply_unchecked(self, action: Action) -> None:
        self._legal = None
        self._legal_set = None
        p = self._current
        assert p is not None
        if isinstance(action, Bid):
            self._place_tile(p, action.tile, self.target_slot[action.target], action.crew)
        elif isinstance(action, SelectPart):
            self._selected = self.part_index[action.part]
        elif isinstance(action, Install):
            self._install(p, self.part_index[action.part], (action.row, action.col))
        elif isinstance(action, Discard):
            part = self.part_index[action.part]
            self.pending[p].remove(part)
            self.seat_stamps[p] = new_stamp()
            self._leave_game(part)
            self._selected = None
            self._resume = Resume.INSTALL
        elif isinstance(action, RefitRemove):
            self._refit_remove(p, self.part_index[action.part])
        elif isinstance(action, RefitStop):
            self._resume = Resume.RESOLVE
        elif isinstance(action, ChooseEngine):
            self._engine_choice(p, action.rank)
        elif isinstance(action, SkipEngine):
            self._engine_skip(p)
        elif isinstance(action, CompleteMission):
            self._complete(p)
        elif isinstance(action, PassMission):
            self._mission_cursor += 1
            self._resume = Resume.MISSIONS
        else:  # pragma: no cover - guarded by the legality check
            raise IllegalActionError(f"unknown action type {type(action).__name__}")

    # -------------------------------------------------------------- bidding
    def _start_bidding(self) -> None:
        self._phase = Phase.BIDDING
        self._bid_pass = 0
        self._bid_turn = 0
        self._tiles_left = TILES_PER_PASS[0]
        self._current = self.first_player
        self._legal = None
        self._legal_set = None
        self._reset_bid_cache()
        self._new_bid_stamp()  # every target starts the round without bids
        self._selected: int | None = None
        self._resume: Resume | None = None
        self._resolve_cursor = 0
        self._mission = -1
        self._mission_stack = -1
        self._mission_queue: list[int] = []
        self._mission_order: list[int] = []
        self._mission_cursor = 0
        self._completers = 0
        self._climactic_done = False
        self._benefit_left: list[list[int]] = []

    def _place_tile(self, p: int, tile: int, slot: int, crew: bool) -> None:
        """R-BID-1..3: move a tile (and maybe one crew) from the player onto the target."""
        self.hands[p].remove(tile)
        if crew:
            self.crew[p] -= 1
        self.seat_stamps[p] = new_stamp()
        self.bids[slot].append((p, tile, crew))
        self.bid_log.append(slot)
        self._tiles_left -= 1
        if self._tiles_left:
            return
        self._bid_turn += 1
        if self._bid_turn == self.num_players:
            self._bid_turn = 0
            self._bid_pass += 1
            if self._bid_pass == len(TILES_PER_PASS):
                self._resume = Resume.RESOLVE
                return
        self._tiles_left = TILES_PER_PASS[self._bid_pass]
        self._current = (self.first_player + self._bid_turn) % self.num_players

    # ----------------------------------------------------------- the driver
    def _advance(self) -> None:
        """Run automatic steps until a player faces a real choice or the game ends."""
        while True:
            resume = self._resume
            if resume is not None:
                self._resume = None
                self._RESUME_STEPS[resume](self)
                continue
            if self._phase is Phase.OVER:
                self._current = None
                self._legal = []
                self._legal_set = frozenset()
                return
            if self._phase is Phase.BIDDING:  # always several options; computed on demand
                self._legal = None
                self._legal_set = None
                return
            legal = self._compute_legal()
            if len(legal) == 1:
                if self.on_forced is not None:
                    self.on_forced(self, legal[0])
                self._apply_unchecked(legal[0])
                continue
            self._legal = legal
            self._legal_set = None
            return

    def _resume_resolution(self) -> None:
        if not self._resolve_bids():  # False: no facility decision waits
            self._start_install()

    # ------------------------------------------------ assembly 1: resolution
    def _resolve_bids(self) -> bool:
        """Resolve part spaces then facilities in order (R-RES-1); True if a decision waits."""
        num_targets = self.num_spaces + len(FACILITIES)
        while self._resolve_cursor < num_targets:
            slot = self._resolve_cursor
            self._resolve_cursor += 1
            winner = self._settle_bids(slot)
            if winner is None:
                continue
            if slot < self.num_spaces:
                self._win_part(winner, slot)
            elif self._win_facility(winner, slot - self.num_spaces):
                return True
        return False

    def _settle_bids(self, slot: int) -> int | None:
        """Pick the winner and return tiles and crew to everyone (R-RES-2..4)."""
        bids = self.bids[slot]
        if not bids:
            return None
        totals: dict[int, int] = {}
        for p, tile, crew in bids:
            totals[p] = totals.get(p, 0) + tile + crew
        winner = self._best_bidder(totals)
        for p, tile, crew in bids:
            self.hands[p].append(tile)
            if p != winner:
                self.crew[p] += int(crew) + (1 if tile else 0)
        for p in totals:
            self.hands[p].sort()
            self.seat_stamps[p] = new_stamp()
        self.bids[slot] = []
        self.bid_log.append(~slot)
        return winner

    def _best_bidder(self, totals: dict[int, int]) -> int | None:
        """Highest bid of at least 1; ties to the earliest in turn order (R-RES-2)."""
        best: int | None = None
        for p, total in totals.items():
            if total < 1:
                continue
            if best is None or (total, -self.order_key(p)) > (totals[best], -self.order_key(best)):
                best = p
        return best

    def _win_part(self, p: int, slot: int) -> None:
        """R-RES-3: the part becomes pending with the bonus crew lying on its space."""
        part = self.spaces[slot]
        assert part is not None
        self.pending[p].append(part)
        self.crew[p] += self.bonus[slot]
        self.seat_stamps[p] = new_stamp()
        self.bonus[slot] = 0
        self.spaces[slot] = None
        self.board_stamp = new_stamp()

    def _win_facility(self, p: int, facility: int) -> bool:
        """R-RES-5; True when the winner now faces a decision."""
        if facility == HIRE:
            self.crew[p] += HIRE_CREW
            self.seat_stamps[p] = new_stamp()
        elif facility == DISCOVER:
            self.science[p] += 1
            self.seat_stamps[p] = new_stamp()
        elif facility == REFIT and self.ship_parts[p]:
            self._phase = Phase.REFIT
            self._current = p
            return True
        elif facility == ENGINEER and any(v < MAX_ENGINE for _, v in self.engines(p)):
            self._phase = Phase.ENGINEER
            self._current = p
            return True
        return False

    def _refit_remove(self, p: int, part: int) -> None:
        """R-RES-5/6: the part and its engines leave the game; other parts stay where they are."""
        self._change_ship(p, part << 2 | _REMOVED)
        self.ship_parts[p].remove(part)
        ship = self.ships[p]
        cell = next(c for c, piece in ship.items() if piece == part)
        del ship[cell]
        self._leave_game(part)

    def _leave_game(self, part: int) -> None:
        for rank in self.cards.parts[part].engines:
            self.engine_values.pop(rank, None)
        self.out_of_game.append(part)

    def _engine_choice(self, p: int, rank: int) -> None:
        rule = self.config.rule_options.edge_connectors
        counts = self.connector_cache.get((self.ship_stamps[p], rule))
        if self._phase is Phase.OVERHAUL:
            self.engine_values[rank] = MAX_ENGINE
        else:
            self.engine_values[rank] = min(MAX_ENGINE, self.engine_values[rank] + 1)
        self._change_ship(p, (rank << 3 | self.engine_values[rank]) << 2 | _BOOSTED)
        if counts is not None and len(self.connector_cache) < CONNECTOR_CACHE_SIZE:
            self.connector_cache[(self.ship_stamps[p], rule)] = counts  # same layout, new die
        if self._phase is Phase.ENGINEER:
            self._resume = Resume.RESOLVE
        else:
            self._benefit_left[p][0 if self._phase is Phase.UPGRADE else 1] -= 1
            self._resume = Resume.BENEFITS

    def _engine_skip(self, p: int) -> None:
        self._benefit_left[p][0 if self._phase is Phase.UPGRADE else 1] -= 1
        self._resume = Resume.BENEFITS

    # --------------------------------------------------- assembly 2: install
    def _start_install(self) -> None:
        self._phase = Phase.INSTALL
        self._selected = None
        self._next_installer()

    def _next_installer(self) -> None:
        """R-INST-1: players in turn order handle all their pending parts."""
        for p in self.turn_order():
            if self.pending[p]:
                self._current = p
                self._phase = Phase.INSTALL
                return
        self._start_benefits()

    def _install(self, p: int, part: int, cell: Cell) -> None:
        """R-INST-3..5: pay crew, place the part; its dice stay at their values."""
        self.crew[p] -= self.cards.parts[part].crew_cost
        self.pending[p].remove(part)
        self.seat_stamps[p] = new_stamp()
        counts = self.connectors_after(p, cell, part)  # from the cached counts, no recount
        self.ships[p][cell] = part
        self.ship_parts[p].append(part)
        self._change_ship(p, self._install_code(part, cell) if self._share_ship_stamps else 0)
        if len(self.connector_cache) >= CONNECTOR_CACHE_SIZE:
            self.connector_cache.clear()
        self.connector_cache[(self.ship_stamps[p], self.config.rule_options.edge_connectors)] = (
            counts
        )
        self.installed_this_round[p].append(part)
        self._selected = None
        self._resume = Resume.INSTALL

    # -------------------------------------------------- assembly 3: benefits
    def _start_benefits(self) -> None:
        """R-BEN-1/2: crew and science for all; count upgrade and overhaul decisions."""
        parts = self.cards.parts
        self._benefit_left = []
        for p in range(self.num_players):
            fresh = set(self.installed_this_round[p])
            gains = {kind: 0 for kind in IconKind}
            for part in self.ship_parts[p]:
                for icon in parts[part].icons:
                    if icon.timing is Timing.EVERY_ROUND or part in fresh:
                        gains[icon.kind] += 1
            self.crew[p] += gains[IconKind.CREW]
            self.science[p] += gains[IconKind.SCIENCE]
            self._benefit_left.append([gains[IconKind.UPGRADE], gains[IconKind.OVERHAUL]])
            self.installed_this_round[p] = []
            self.seat_stamps[p] = new_stamp()
        self._next_benefit()

    def _next_benefit(self) -> None:
        """R-BEN-3: in turn order, each player's upgrades, then its overhauls [decision]."""
        for p in self.turn_order():
            left = self._benefit_left[p]
            if not any(v < MAX_ENGINE for _, v in self.engines(p)):
                left[0] = left[1] = 0  # nothing an icon could improve
                continue
            if left[0] > 0:
                self._phase, self._current = Phase.UPGRADE, p
                return
            if left[1] > 0:
                self._phase, self._current = Phase.OVERHAUL, p
                return
        self._start_missions()

    # ----------------------------------------------------------- launch
    def _start_missions(self) -> None:
        """R-MIS-1: available missions with bids, ascending value, ties by name [decision]."""
        missions = self.cards.missions
        offset = self.num_spaces + len(FACILITIES)
        queue = [s for s in range(NUM_STACKS) if self.bids[offset + s]]
        queue.sort(key=lambda s: _mission_order(missions[self.stacks[s][0]]))
        self._mission_queue = queue
        self._mission = -1
        self._phase = Phase.MISSION
        self._open_next_mission()

    def _open_next_mission(self) -> None:
        if not self._mission_queue:
            self._finish_missions()
            return
        stack = self._mission_queue.pop(0)
        self._mission_stack = stack
        self._mission = self.stacks[stack][0]
        totals: dict[int, int] = {}
        for p, tile, crew in self.bids[self.num_spaces + len(FACILITIES) + stack]:
            totals[p] = totals.get(p, 0) + tile + crew
        self._mission_order = mission_bidders(
            totals, self.order_key, self.config.rule_options.lone_zero_mission_chance
        )
        self._mission_cursor = 0
        self._completers = 0
        self._next_mission_decision()

    def _next_mission_decision(self) -> None:
        if self._mission_cursor < len(self._mission_order):
            self._phase = Phase.MISSION
            self._current = self._mission_order[self._mission_cursor]
            return
        self._close_mission()
        self._open_next_mission()

    def _complete(self, p: int) -> None:
        """R-MIS-4..6: buy the fewest temporary bio-tech, pay science, score."""
        mission = self.cards.missions[self._mission]
        shortfall = self._biotech_shortfall(p, mission.biotech)
        self.crew[p] -= TEMP_BIOTECH_COST * shortfall
        self.temp_biotech[p] += shortfall
        self.science[p] -= mission.science
        self.points[p] += mission.value if self._completers == 0 else math.ceil(mission.value / 2)
        self.seat_stamps[p] = new_stamp()
        self._completers += 1
        self._mission_cursor += 1
        self._resume = Resume.MISSIONS

    def _close_mission(self) -> None:
        """R-MIS-7/8: tiles home, mission crew to the supply; a completed mission leaves."""
        slot = self.num_spaces + len(FACILITIES) + self._mission_stack
        touched = set()
        for p, tile, _crew in self.bids[slot]:
            self.hands[p].append(tile)
            touched.add(p)
        for p in touched:
            self.hands[p].sort()
            self.seat_stamps[p] = new_stamp()
        self.bids[slot] = []
        self.bid_log.append(~slot)
        if self.config.rule_options.temp_biotech_lasts == "mission":  # R-MIS-5 [option]
            self.temp_biotech = [0] * self.num_players
            self.seat_stamps = [new_stamp() for _ in range(self.num_players)]
        if self._completers:
            stack = self.stacks[self._mission_stack]
            done = stack.pop(0)
            self.board_stamp = new_stamp()
            self.missions_out.append(done)
            if self.cards.missions[done].climactic:
                self._climactic_done = True

    def _finish_missions(self) -> None:
        self.temp_biotech = [0] * self.num_players  # R-MIS-5
        self.seat_stamps = [new_stamp() for _ in range(self.num_players)]
        self._resume = Resume.RESET

    # ------------------------------------------------------------- reset
    def _round_reset(self) -> None:
        """R-RESET-1..6 in order; ends the game or starts the next round's bidding."""
        self.board_stamp = new_stamp()
        if self._climactic_done:
            self._end(EndReason.CLIMACTIC)
            return
        for slot, part in enumerate(self.spaces):
            if part is not None:
                self.bonus[slot] += 1
        empty = [slot for slot, part in enumerate(self.spaces) if part is None]
        if len(empty) > len(self.deck):
            self._end(EndReason.DECK)
            return
        for part in self.spaces:  # R-RESET-4: station dice come off before the new roll
            if part is not None:
                for rank in self.cards.parts[part].engines:
                    del self.engine_values[rank]
        for slot in empty:
            self.spaces[slot] = self.deck.pop()
        self._roll_station_dice()
        self.first_player = (self.first_player + 1) % self.num_players
        if self.round >= self.config.max_rounds:
            self._end(EndReason.ROUND_CAP)
            return
        self.round += 1
        self._start_bidding()

    # --------------------------------------------------------- end of game
    def award_value(self, seat: int, award: str) -> int:
        """The quantity an award compares (R-END-1)."""
        return scoring.award_value(self, seat, award)

    def token_points(self, seat: int) -> int:
        """What a seat's crew and science are worth at the end (R-END-2, token_rounding)."""
        return self.config.rule_options.token_points(self.crew[seat], self.science[seat])

    def award_holders(self, award: str, seats: Sequence[int] | None = None) -> list[int]:
        """Seats tied for the best value of an award; fewest wins Efficiency (R-END-1)."""
        return scoring.award_holders(self, award, seats)

    def _end(self, reason: EndReason) -> None:
        """Final scoring (R-END-1..4)."""
        self.end_reason = reason
        self._phase = Phase.OVER
        self._current = None
        breakdown, winners = scoring.final_scores(self)
        for p, parts in enumerate(breakdown):
            self.points[p] += parts["awards"] + parts["tokens"]
        self.seat_stamps = [new_stamp() for _ in range(self.num_players)]
        self.final_breakdown = breakdown
        self._winners = winners

    # ------------------------------------------------------- copy and save
    def clone(self, rng: np.random.Generator | None = None) -> FarlightGame:
        """An independent copy sharing only immutable card data (for search).

        The copy's chance comes from `rng` if given, else from a copy of this game's generator.
        Copies attributes directly (search clones one game per iteration); the tests check it
        against `to_json`, so a new state field must be added here as in `serialize`.
        """
        other = object.__new__(FarlightGame)
        mine, copy = self.__dict__, other.__dict__  # direct dict access: clones are hot
        for name in _SHARED_TABLES:
            copy[name] = mine[name]
        if rng is None:
            rng = np.random.Generator(np.random.PCG64(0))  # seeded: no OS entropy to gather
            rng.bit_generator.state = self.rng.bit_generator.state
        other.rng = rng
        for name in _VALUE_STATE:
            copy[name] = mine[name]
        for name in _LIST_STATE:
            copy[name] = mine[name][:]
        for name in _NESTED_STATE:
            copy[name] = [inner[:] for inner in mine[name]]
        other.ships = [dict(ship) for ship in self.ships]
        other.engine_values = dict(self.engine_values)
        other.final_breakdown = (
            None if self.final_breakdown is None else [dict(b) for b in self.final_breakdown]
        )
        other._legal = None
        other._legal_set = None
        other._share_ship_stamps = self.compact_changes
        other._reset_bid_cache()
        other._new_bid_stamp()  # bids may grow apart: each copy its own bid stamp
        return other

    def to_json(self) -> str:
        """The full state, config, card set and RNG; `from_json` restores it exactly."""
        return serialize.game_to_json(self)

    @classmethod
    def from_json(cls, text: str) -> FarlightGame:
        """Rebuild a game saved by `to_json`; a corrupt or foreign text raises ValueError."""
        return serialize.game_from_json(cls, text)

    @classmethod
    def replay(
        cls, actions: Sequence[Action], num_players: int = 4, seed: int | None = None, **config: Any
    ) -> FarlightGame:
        """Rebuild a game from its config, seed and recorded `history`."""
        game = cls(num_players, seed, **config)
        for action in actions:
            game.apply(action)
        return game

    def __str__(self) -> str:
        cur = "-" if self._current is None else self._current
        return (
            f"Farlight round {self.round}, phase {self._phase.value}, player {cur} to act; "
            f"scores {self.points}"
        )

    #: The driver's step for each resume point (see `_advance`).
    _RESUME_STEPS: ClassVar[dict[Resume, Callable[[FarlightGame], None]]] = {
        Resume.RESOLVE: _resume_resolution,
        Resume.INSTALL: _next_installer,
        Resume.BENEFITS: _next_benefit,
        Resume.MISSIONS: _next_mission_decision,
        Resume.RESET: _round_reset,
    }
