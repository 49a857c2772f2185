"""The Farlight rules engine: one mutable game state, its legal actions and transitions.

Pure Python plus a numpy Generator for chance; it knows nothing of PettingZoo, Gymnasium or
tensors. Rule IDs refer to ../shared/RULES.md and docs/rules.md.
"""

from __future__ import annotations

import itertools
import json
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy as np

from farlight_env.cards.loader import (
    CardFileError,
    card_set_from_dict,
    card_set_to_dict,
    load_card_set,
    standard_card_set,
)
from farlight_env.cards.model import AWARDS, FACILITIES, CardSet, IconKind, MissionCard, Timing
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
    action_from_dict,
    action_to_dict,
)
from farlight_env.game.ship import CORE, Cell, connector_counts, connector_mask, legal_cells

TILES: tuple[int, ...] = (0, 1, 2, 3, 4)  # R-SETUP-1
TILES_PER_PASS: tuple[int, ...] = (2, 2, 1)  # R-BID-1
PART_SPACES: dict[int, int] = {2: 7, 3: 9, 4: 10, 5: 12}  # R-SETUP-4
REGULAR_PER_STACK: dict[int, int] = {2: 2, 3: 2, 4: 3, 5: 3}  # R-SETUP-3
NUM_STACKS = 3
NUM_FACE_UP_AWARDS = 3
AWARD_POINTS = 5
HIRE_CREW = 3
TEMP_BIOTECH_COST = 3  # R-MIS-5
START_CREW = 3
MAX_ENGINE = 6
REFIT, HIRE, DISCOVER, ENGINEER = range(4)


class Phase(str, Enum):
    """The kind of decision the acting player faces (OVER when the game has ended)."""

    BIDDING = "bidding"
    REFIT = "refit"
    ENGINEER = "engineer"
    INSTALL = "install"
    UPGRADE = "upgrade"
    OVERHAUL = "overhaul"
    MISSION = "mission"
    OVER = "over"

    def __str__(self) -> str:
        return self.value


class EndReason(str, Enum):
    CLIMACTIC = "climactic"  # R-RESET-1
    DECK = "deck"  # R-RESET-3
    ROUND_CAP = "round_cap"  # R-RESET-6

    def __str__(self) -> str:
        return self.value


class IllegalActionError(ValueError):
    """An action that is not legal now; the game state is left unchanged."""


class ConfigError(ValueError):
    """A game configuration that cannot be played."""


class CardSetError(ConfigError, CardFileError):
    """A card file given as configuration was missing or invalid (catch either base)."""


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Everything besides the seed that fixes a game's rules and size."""

    num_players: int = 4
    grid_size: int = 13
    max_rounds: int = 50
    random_first_player: bool = False

    def validate(self) -> None:
        if isinstance(self.num_players, bool) or not isinstance(self.num_players, int):
            raise ConfigError(f"num_players must be an integer 2..5, got {self.num_players!r}")
        if not 2 <= self.num_players <= 5:
            raise ConfigError(f"num_players must be 2..5 (R-COMP-1), got {self.num_players}")
        if isinstance(self.grid_size, bool) or not isinstance(self.grid_size, int):
            raise ConfigError(f"grid_size must be an odd integer >= 3, got {self.grid_size!r}")
        if self.grid_size < 3 or self.grid_size % 2 == 0:
            raise ConfigError(
                f"grid_size must be odd (the core sits in the centre) and >= 3, "
                f"got {self.grid_size} (R-INST-2)"
            )
        if isinstance(self.max_rounds, bool) or not isinstance(self.max_rounds, int):
            raise ConfigError(f"max_rounds must be a positive integer, got {self.max_rounds!r}")
        if self.max_rounds < 1:
            raise ConfigError(f"max_rounds must be >= 1 (R-RESET-6), got {self.max_rounds}")
        if not isinstance(self.random_first_player, bool):
            raise ConfigError(
                f"random_first_player must be True or False, got {self.random_first_player!r}"
            )


def _mission_order(mission: MissionCard) -> tuple[int, str, str]:
    """Ascending value, ties alphabetical by name ignoring case (R-SETUP-3, R-MIS-1)."""
    return mission.value, mission.name.casefold(), mission.name


def _resolve_card_set(card_set: CardSet | str | os.PathLike | None) -> CardSet:
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


# Process-wide unique stamps: equal stamps mean equal ship contents (caches key on them).
_SHIP_STAMPS = itertools.count()

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
)


class FarlightGame:
    """A game of Farlight for 2–5 players, from setup to final scoring.

    `current_player` acts next by `apply`-ing one of `legal_actions()`. Decisions with a
    single legal option are taken automatically and not recorded in `history`.
    """

    def __init__(
        self,
        num_players: int = 4,
        seed: int | None = None,
        *,
        card_set: CardSet | str | os.PathLike | None = None,
        grid_size: int = 13,
        max_rounds: int = 50,
        random_first_player: bool = False,
    ) -> None:
        self.config = GameConfig(num_players, grid_size, max_rounds, random_first_player)
        self.config.validate()
        self.cards = _resolve_card_set(card_set)
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
            raise ConfigError(f"seed must be an integer or None, got {seed!r}")
        if seed is not None and seed < 0:
            raise ConfigError(f"seed must be a non-negative integer, got {seed}")
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % (2**63))
        self.seed = int(seed)
        self._init_tables()
        self.rng = np.random.Generator(np.random.PCG64(self.seed))
        self._setup()

    # ------------------------------------------------------------------ setup
    def _init_tables(self) -> None:
        """Per-card lookups derived once from the card set (immutable, shared by clones)."""
        cards = self.cards
        n = self.config.num_players
        self.num_players = n
        self.num_spaces = PART_SPACES[n]
        self.half = self.config.grid_size // 2
        self.part_index = {p.name: i for i, p in enumerate(cards.parts)}
        self.mission_index = {m.name: i for i, m in enumerate(cards.missions)}
        self.part_masks = [connector_mask(p) for p in cards.parts]
        self.rank_part: dict[int, int] = {
            rank: i for i, p in enumerate(cards.parts) for rank in p.engines
        }
        self.targets: tuple[Target, ...] = (
            tuple(Target(TargetKind.PART, i) for i in range(self.num_spaces))
            + tuple(Target(TargetKind.FACILITY, i) for i in range(len(FACILITIES)))
            + tuple(Target(TargetKind.MISSION, i) for i in range(NUM_STACKS))
        )
        self.target_slot = {t: i for i, t in enumerate(self.targets)}
        self.bid_actions = {
            (tile, slot, crew): Bid(tile, t, crew)
            for slot, t in enumerate(self.targets)
            for tile in TILES
            for crew in (False, True)
        }

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
        self.ship_stamps = [next(_SHIP_STAMPS) for _ in range(n)]
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

    def engines(self, seat: int) -> list[tuple[int, int]]:
        """(rank, value) of every engine installed on a seat's ship (R-SHIP-2)."""
        parts = self.cards.parts
        return [
            (rank, self.engine_values[rank])
            for p in self.ship_parts[seat]
            for rank in parts[p].engines
        ]

    def biotech(self, seat: int) -> int:
        """Bio-tech icons on installed parts (R-BEN-4)."""
        parts = self.cards.parts
        return sum(parts[p].biotech for p in self.ship_parts[seat])

    def connectors(self, seat: int) -> tuple[int, int, int]:
        """(open, connected, blocked) connectors of a seat's ship (R-SHIP-1)."""
        return connector_counts(self.ships[seat], self.part_masks)

    def bid_total(self, seat: int, slot: int) -> int:
        """A seat's bid on a target slot: tile values plus crew (R-BID-6)."""
        return sum(tile + crew for p, tile, crew in self.bids[slot] if p == seat)

    # ----------------------------------------------------------- legal moves
    def legal_actions(self) -> list[Action]:
        """Every action the current player may take now; empty when the game is over."""
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
                RefitRemove(parts[i].name) for i in sorted(self.ship_parts[p])
            ]
            return [*removals, RefitStop()]
        if phase is Phase.ENGINEER:
            return [
                ChooseEngine(rank) for rank, value in sorted(self.engines(p)) if value < MAX_ENGINE
            ]
        if phase in (Phase.UPGRADE, Phase.OVERHAUL):
            choices: list[Action] = [
                ChooseEngine(rank) for rank, value in sorted(self.engines(p)) if value < MAX_ENGINE
            ]
            return [*choices, SkipEngine()]
        if phase is Phase.INSTALL:
            return self._legal_installs(p)
        if phase is Phase.MISSION:
            name = self.cards.missions[self._mission].name
            if self._can_complete(p, self._mission):
                return [CompleteMission(name), PassMission(name)]
            return [PassMission(name)]
        raise AssertionError(f"unknown phase {phase}")

    def _legal_bids(self, p: int) -> list[Action]:
        """R-BID-2/3: a tile in hand on a filled part space, a facility or an available mission."""
        slots = [i for i, part in enumerate(self.spaces) if part is not None]
        slots += range(self.num_spaces, self.num_spaces + len(FACILITIES))
        slots += [self.num_spaces + len(FACILITIES) + s for s, st in enumerate(self.stacks) if st]
        crews = (False, True) if self.crew[p] >= 1 else (False,)
        table = self.bid_actions
        return [
            table[(tile, slot, crew)] for tile in self.hands[p] for slot in slots for crew in crews
        ]

    def _legal_installs(self, p: int) -> list[Action]:
        parts = self.cards.parts
        if self._selected is None:
            return [SelectPart(parts[i].name) for i in sorted(self.pending[p])]
        part = self._selected
        card = parts[part]
        installs: list[Action] = []
        if self.crew[p] >= card.crew_cost:  # R-INST-5
            cells = legal_cells(self.ships[p], self.part_masks, self.part_masks[part], self.half)
            installs = [Install(card.name, r, c) for r, c in cells]
        return [*installs, Discard(card.name)]

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
        if not self.is_legal(action):
            raise IllegalActionError(self._illegal_message(action))
        if isinstance(action, Bid):  # record the canonical value, whatever equal form came in
            slot = self.target_slot[action.target]
            action = self.bid_actions[(action.tile, slot, action.crew)]
        self.history.append(action)
        self._apply_unchecked(action)
        self._advance()

    def invalidate_cache(self) -> None:
        """Forget cached legal actions; call after editing state directly (tests, search)."""
        self._legal = None
        self._legal_set = None

    def is_legal(self, action: object) -> bool:
        """Whether `action` is legal now; cheap for bids, which dominate play."""
        if isinstance(action, Bid) and self._phase is Phase.BIDDING:
            if type(action.tile) is not int or type(action.crew) is not bool:
                return False
            if not isinstance(action.target, Target) or isinstance(action.target.index, bool):
                return False
            slot = self.target_slot.get(action.target)
            if slot is None or action.tile not in self.hands[self._current]:
                return False
            if action.crew and self.crew[self._current] < 1:
                return False
            if slot < self.num_spaces:
                return self.spaces[slot] is not None
            if slot >= self.num_spaces + len(FACILITIES):
                return bool(self.stacks[slot - self.num_spaces - len(FACILITIES)])
            return True
        if self._legal is None:
            self._legal = self._compute_legal()
        return action in self._legal

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
            self._place_tile(p, action)
        elif isinstance(action, SelectPart):
            self._selected = self.part_index[action.part]
        elif isinstance(action, Install):
            self._install(p, self.part_index[action.part], (action.row, action.col))
        elif isinstance(action, Discard):
            part = self.part_index[action.part]
            self.pending[p].remove(part)
            self._leave_game(part)
            self._selected = None
            self._resume = "install"
        elif isinstance(action, RefitRemove):
            self._refit_remove(p, self.part_index[action.part])
        elif isinstance(action, RefitStop):
            self._resume = "resolve"
        elif isinstance(action, ChooseEngine):
            self._engine_choice(p, action.rank)
        elif isinstance(action, SkipEngine):
            self._engine_skip(p)
        elif isinstance(action, CompleteMission):
            self._complete(p)
        elif isinstance(action, PassMission):
            self._mission_cursor += 1
            self._resume = "missions"
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
        self._selected: int | None = None
        self._resume: str | None = None
        self._resolve_cursor = 0
        self._mission = -1
        self._mission_stack = -1
        self._mission_queue: list[int] = []
        self._mission_order: list[int] = []
        self._mission_cursor = 0
        self._completers = 0
        self._climactic_done = False
        self._benefit_left: list[list[int]] = []

    def _place_tile(self, p: int, bid: Bid) -> None:
        """R-BID-1..3: move a tile (and maybe one crew) from the player onto the target."""
        self.hands[p].remove(bid.tile)
        if bid.crew:
            self.crew[p] -= 1
        self.bids[self.target_slot[bid.target]].append((p, bid.tile, bid.crew))
        self._tiles_left -= 1
        if self._tiles_left:
            return
        self._bid_turn += 1
        if self._bid_turn == self.num_players:
            self._bid_turn = 0
            self._bid_pass += 1
            if self._bid_pass == len(TILES_PER_PASS):
                self._resume = "resolve"
                return
        self._tiles_left = TILES_PER_PASS[self._bid_pass]
        self._current = (self.first_player + self._bid_turn) % self.num_players

    # ----------------------------------------------------------- the driver
    def _advance(self) -> None:
        """Run automatic steps until a player faces a real choice or the game ends."""
        while True:
            if self._resume == "resolve":
                self._resume = None
                if self._resolve_bids():
                    continue  # a facility decision was set up
                self._start_install()
            elif self._resume == "install":
                self._resume = None
                self._next_installer()
            elif self._resume == "benefits":
                self._resume = None
                self._next_benefit()
            elif self._resume == "missions":
                self._resume = None
                self._next_mission_decision()
            elif self._resume == "reset":
                self._resume = None
                self._round_reset()
            if self._resume is not None:
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
                self._apply_unchecked(legal[0])
                continue
            self._legal = legal
            self._legal_set = None
            return

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
        self.bids[slot] = []
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
        self.bonus[slot] = 0
        self.spaces[slot] = None

    def _win_facility(self, p: int, facility: int) -> bool:
        """R-RES-5; True when the winner now faces a decision."""
        if facility == HIRE:
            self.crew[p] += HIRE_CREW
        elif facility == DISCOVER:
            self.science[p] += 1
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
        self.ship_stamps[p] = next(_SHIP_STAMPS)
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
        self.ship_stamps[p] = next(_SHIP_STAMPS)
        if self._phase is Phase.OVERHAUL:
            self.engine_values[rank] = MAX_ENGINE
        else:
            self.engine_values[rank] = min(MAX_ENGINE, self.engine_values[rank] + 1)
        if self._phase is Phase.ENGINEER:
            self._resume = "resolve"
        else:
            self._benefit_left[p][0 if self._phase is Phase.UPGRADE else 1] -= 1
            self._resume = "benefits"

    def _engine_skip(self, p: int) -> None:
        self._benefit_left[p][0 if self._phase is Phase.UPGRADE else 1] -= 1
        self._resume = "benefits"

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
        self.ships[p][cell] = part
        self.ship_parts[p].append(part)
        self.ship_stamps[p] = next(_SHIP_STAMPS)
        self.installed_this_round[p].append(part)
        self._selected = None
        self._resume = "install"

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
        # R-MIS-2: bid descending, ties by turn order; a bid of 0 gets no chance [decision]
        self._mission_order = sorted(
            (p for p, total in totals.items() if total >= 1),
            key=lambda p: (-totals[p], self.order_key(p)),
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
        self._completers += 1
        self._mission_cursor += 1
        self._resume = "missions"

    def _close_mission(self) -> None:
        """R-MIS-7/8: tiles home, mission crew to the supply; a completed mission leaves."""
        slot = self.num_spaces + len(FACILITIES) + self._mission_stack
        touched = set()
        for p, tile, _crew in self.bids[slot]:
            self.hands[p].append(tile)
            touched.add(p)
        for p in touched:
            self.hands[p].sort()
        self.bids[slot] = []
        if self._completers:
            stack = self.stacks[self._mission_stack]
            done = stack.pop(0)
            self.missions_out.append(done)
            if self.cards.missions[done].climactic:
                self._climactic_done = True

    def _finish_missions(self) -> None:
        self.temp_biotech = [0] * self.num_players  # R-MIS-5
        self._resume = "reset"

    # ------------------------------------------------------------- reset
    def _round_reset(self) -> None:
        """R-RESET-1..6 in order; ends the game or starts the next round's bidding."""
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
        if award == "Colonist":
            return self.biotech(seat)
        if award == "Commander":
            return self.crew[seat]
        if award == "Efficiency":
            open_, _, blocked = self.connectors(seat)
            return open_ + blocked
        if award == "Juggernaut":
            return len(self.ship_parts[seat])
        if award == "Potential":
            return self.connectors(seat)[0]
        if award == "Researcher":
            return self.science[seat]
        if award == "Rocketeer":
            return sum(v for _, v in self.engines(seat))
        raise ValueError(f"unknown award {award!r}; expected one of {AWARDS}")

    def award_holders(self, award: str, seats: Sequence[int] | None = None) -> list[int]:
        """Seats tied for the best value of an award; fewest wins Efficiency (R-END-1)."""
        seats = list(range(self.num_players)) if seats is None else list(seats)
        sign = -1 if award == "Efficiency" else 1
        values = {s: sign * self.award_value(s, award) for s in seats}
        best = max(values.values())
        return [s for s in seats if values[s] == best]

    def _end(self, reason: EndReason) -> None:
        """Final scoring (R-END-1..4)."""
        self.end_reason = reason
        self._phase = Phase.OVER
        self._current = None
        breakdown = []
        award_winners = {award: set(self.award_holders(award)) for award in self.awards_up}
        for p in range(self.num_players):
            awards = AWARD_POINTS * sum(p in award_winners[a] for a in self.awards_up)
            tokens = math.ceil((self.crew[p] + self.science[p]) / 3)
            breakdown.append({"missions": self.points[p], "awards": awards, "tokens": tokens})
            self.points[p] += awards + tokens
        self.final_breakdown = breakdown
        top = max(self.points)
        tied = [p for p in range(self.num_players) if self.points[p] == top]
        for award in self.awards_down:
            if len(tied) == 1:
                break
            tied = self.award_holders(award, tied)
        self._winners = tied

    # ------------------------------------------------------- copy and save
    def clone(self) -> FarlightGame:
        """An independent copy sharing only immutable card data (for search)."""
        other = object.__new__(FarlightGame)
        for name in _SHARED_TABLES:
            setattr(other, name, getattr(self, name))
        other.rng = np.random.Generator(np.random.PCG64())
        other.rng.bit_generator.state = self.rng.bit_generator.state
        other._load_state(self._dump_state(with_history=False))
        other.history = list(self.history)
        other.ship_stamps = list(self.ship_stamps)
        return other

    def _dump_state(self, with_history: bool = True) -> dict[str, Any]:
        """Every mutable fact as JSON-able data (lists, ints, strings)."""
        return {
            "round": self.round,
            "phase": self._phase.value,
            "current": self._current,
            "first_player": self.first_player,
            "crew": list(self.crew),
            "science": list(self.science),
            "points": list(self.points),
            "hands": [list(h) for h in self.hands],
            "ships": [[[r, c, piece] for (r, c), piece in ship.items()] for ship in self.ships],
            "ship_parts": [list(x) for x in self.ship_parts],
            "pending": [list(x) for x in self.pending],
            "installed_this_round": [list(x) for x in self.installed_this_round],
            "temp_biotech": list(self.temp_biotech),
            "awards_up": list(self.awards_up),
            "awards_down": list(self.awards_down),
            "stacks": [list(s) for s in self.stacks],
            "missions_out": list(self.missions_out),
            "deck": list(self.deck),
            "out_of_game": list(self.out_of_game),
            "spaces": list(self.spaces),
            "bonus": list(self.bonus),
            "engine_values": [[rank, value] for rank, value in sorted(self.engine_values.items())],
            "bids": [[[p, t, c] for p, t, c in slot] for slot in self.bids],
            "end_reason": None if self.end_reason is None else self.end_reason.value,
            "final_breakdown": self.final_breakdown,
            "winners": list(self._winners),
            "bid_pass": self._bid_pass,
            "bid_turn": self._bid_turn,
            "tiles_left": self._tiles_left,
            "selected": self._selected,
            "resume": self._resume,
            "resolve_cursor": self._resolve_cursor,
            "mission": self._mission,
            "mission_stack": self._mission_stack,
            "mission_queue": list(self._mission_queue),
            "mission_order": list(self._mission_order),
            "mission_cursor": self._mission_cursor,
            "completers": self._completers,
            "climactic_done": self._climactic_done,
            "benefit_left": [list(x) for x in self._benefit_left],
            "history": [action_to_dict(a) for a in self.history] if with_history else [],
        }

    def _load_state(self, s: dict[str, Any]) -> None:
        self.round = s["round"]
        self._phase = Phase(s["phase"])
        self._current = s["current"]
        self.first_player = s["first_player"]
        self.crew = list(s["crew"])
        self.science = list(s["science"])
        self.points = list(s["points"])
        self.hands = [list(h) for h in s["hands"]]
        self.ships = [{(r, c): piece for r, c, piece in ship} for ship in s["ships"]]
        self.ship_stamps = [next(_SHIP_STAMPS) for _ in self.ships]
        self.ship_parts = [list(x) for x in s["ship_parts"]]
        self.pending = [list(x) for x in s["pending"]]
        self.installed_this_round = [list(x) for x in s["installed_this_round"]]
        self.temp_biotech = list(s["temp_biotech"])
        self.awards_up = list(s["awards_up"])
        self.awards_down = list(s["awards_down"])
        self.stacks = [list(x) for x in s["stacks"]]
        self.missions_out = list(s["missions_out"])
        self.deck = list(s["deck"])
        self.out_of_game = list(s["out_of_game"])
        self.spaces = list(s["spaces"])
        self.bonus = list(s["bonus"])
        self.engine_values = {rank: value for rank, value in s["engine_values"]}
        self.bids = [[(p, t, bool(c)) for p, t, c in slot] for slot in s["bids"]]
        self.end_reason = None if s["end_reason"] is None else EndReason(s["end_reason"])
        self.final_breakdown = (
            None if s["final_breakdown"] is None else [dict(b) for b in s["final_breakdown"]]
        )
        self._winners = list(s["winners"])
        self._bid_pass = s["bid_pass"]
        self._bid_turn = s["bid_turn"]
        self._tiles_left = s["tiles_left"]
        self._selected = s["selected"]
        self._resume = s["resume"]
        self._resolve_cursor = s["resolve_cursor"]
        self._mission = s["mission"]
        self._mission_stack = s["mission_stack"]
        self._mission_queue = list(s["mission_queue"])
        self._mission_order = list(s["mission_order"])
        self._mission_cursor = s["mission_cursor"]
        self._completers = s["completers"]
        self._climactic_done = s["climactic_done"]
        self._benefit_left = [list(x) for x in s["benefit_left"]]
        self.history = [action_from_dict(a) for a in s["history"]]
        self._legal = None
        self._legal_set = None

    def to_json(self) -> str:
        """The full state, config, card set and RNG; `from_json` restores it exactly."""
        data = {
            "format": "farlight-game",
            "version": 1,
            "seed": self.seed,
            "config": {
                "num_players": self.config.num_players,
                "grid_size": self.config.grid_size,
                "max_rounds": self.config.max_rounds,
                "random_first_player": self.config.random_first_player,
            },
            "card_set": card_set_to_dict(self.cards),
            "rng": self.rng.bit_generator.state,
            "state": self._dump_state(),
        }
        return json.dumps(data, sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> FarlightGame:
        """Rebuild a game saved by `to_json`; a corrupt or foreign text raises ValueError."""
        try:
            data = json.loads(text)
        except (TypeError, json.JSONDecodeError) as exc:
            raise ValueError(f"saved game is not valid JSON: {exc}") from exc
        if not isinstance(data, dict) or data.get("format") != "farlight-game":
            raise ValueError(
                "saved game: not a Farlight game record (missing 'format': 'farlight-game')"
            )
        if data.get("version") != 1:
            raise ValueError(f"saved game: unsupported version {data.get('version')!r}; expected 1")
        try:
            cfg = GameConfig(**data["config"])
            cfg.validate()
            game = object.__new__(cls)
            game.config = cfg
            game.cards = card_set_from_dict(data["card_set"], source="saved game")
            game.seed = int(data["seed"])
            game._init_tables()
            game.rng = np.random.Generator(np.random.PCG64())
            game.rng.bit_generator.state = data["rng"]
            game._load_state(data["state"])
            game._check_consistency()
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ValueError(f"saved game is corrupt: {type(exc).__name__}: {exc}") from exc
        return game

    def _check_consistency(self) -> None:
        """Refuse a loaded state that no sequence of legal actions could have produced."""
        n = self.num_players
        for name in ("crew", "science", "points", "hands", "ships", "ship_parts", "pending"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"'{name}' has {len(getattr(self, name))} entries for {n} players")
        for seat in range(n):
            tiles = sorted(
                self.hands[seat] + [t for slot in self.bids for p, t, _ in slot if p == seat]
            )
            if tiles != list(TILES):
                raise ValueError(f"player {seat} holds tiles {tiles}; hand + board must be {TILES}")
            if self.crew[seat] < 0 or self.science[seat] < 0:
                raise ValueError(f"player {seat} has negative crew or science")
            if sorted(p for p in self.ships[seat].values() if p != CORE) != sorted(
                self.ship_parts[seat]
            ):
                raise ValueError(f"player {seat}: ship cells and ship_parts disagree")
        places = (
            self.deck
            + [p for p in self.spaces if p is not None]
            + self.out_of_game
            + [p for x in self.pending for p in x]
            + [p for x in self.ship_parts for p in x]
        )
        if sorted(places) != list(range(len(self.cards.parts))):
            raise ValueError("every part card must be in exactly one place")
        missions = [m for stack in self.stacks for m in stack] + self.missions_out
        if sorted(missions) != list(range(len(self.cards.missions))):
            raise ValueError("every mission card must be in exactly one place")
        if (self._current is None) != (self._phase is Phase.OVER):
            raise ValueError("a player must be to act exactly while the game is not over")

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
