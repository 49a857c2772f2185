"""The Farlight rules engine's public face: `FarlightGame`, one mutable game state with its
legal actions and transitions.

Pure Python plus a numpy Generator for chance; it knows nothing of PettingZoo, Gymnasium or
tensors. Rule IDs are defined in docs/rules.md. The state's fields are declared once in
`state.py`; the rules are functions of a game's state and tables, one module per phase
(`phases/`: setup, bidding, resolution, install, benefits, missions, reset; `scoring.py` for
the end), with what they share in `queries.py` (positions), `legal.py` (legal actions) and
`tables.py` (lookups). This class binds them as its methods and drives the automatic steps.
"""

from __future__ import annotations

import operator
import os
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np

from farlight_env.cards.model import CardSet
from farlight_env.game import changes, legal, queries, scoring, serialize, state, tables
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
)
from farlight_env.game.config import (
    ConfigError,
    EndReason,
    GameConfig,
    IllegalActionError,
    Phase,
    Resume,
)
from farlight_env.game.phases import (
    benefits,
    bidding,
    install,
    missions,
    reset,
    resolution,
    setup,
)
from farlight_env.game.state import CLONE_GROUPS, GameState, State
from farlight_env.game.tables import resolve_card_set, resolve_seed

_LIST_STATE = CLONE_GROUPS["list"]
_NESTED_STATE = CLONE_GROUPS["nested"]
_CALL_STATE = CLONE_GROUPS["call"]


class FarlightGame(State):
    """A game of Farlight for 2–5 players, from setup to final scoring.

    `current_player` acts next by `apply`-ing one of `legal_actions()`. Decisions with a
    single legal option are taken automatically and not recorded in `history`; set
    `on_forced` (a callable taking the game and the action, called just before each) to watch
    them (farlight_env.view.events does, on a copy). Set `hold_round_reset` to stop at the end
    of a round before its reset (search evaluates there: the reset's draws and dice change no
    score); `release_round_reset()` goes on. Copies and saved games carry neither.

    It is a `state.State`: every field typed there, saved as `state.FIELDS` says, caches and
    change stamps as `state.DERIVED` says, plus the shared lookup tables of `tables.py`. The
    rules write the fields; the facts a change stamp covers only through `changes.py`, which
    renews the stamp as it writes. Read them, and build positions with `from_state`, rather
    than writing them.
    """

    on_forced: Callable[[FarlightGame, Action], None] | None = None
    hold_round_reset: bool = False

    def __init__(
        self,
        num_players: int | None = None,
        seed: int | None = None,
        *,
        card_set: CardSet | str | os.PathLike | None = None,
        config: GameConfig | None = None,
        **options: Any,
    ) -> None:
        """Set up a new game (R-SETUP).

        The options come either as keywords (checked here) or as one `config`, a GameConfig,
        already valid, taken as it is (the envs build theirs once and pass it on); not both.

        Args:
            num_players: seats 0..n-1, 2..5 (R-COMP-1); None: GameConfig's default (4).
            seed: fixes every chance event; None draws one (read it back from `seed`).
            card_set: a CardSet, a path to a card file (.toml/.json), or None for the standard
                set.
            config: every option at once, kept as `self.config`.
            **options: the other `GameConfig` fields (grid_size, max_rounds,
                random_first_player, ...); an unknown name raises ConfigError.
        """
        if config is None:
            if num_players is not None:
                options["num_players"] = num_players
            config = GameConfig.from_options(**options)
        elif not isinstance(config, GameConfig):
            raise ConfigError(
                f"config must be a GameConfig (GameConfig.from_options(...) builds one from "
                f"keywords), got {type(config).__name__}"
            )
        elif num_players is not None or options:
            given = sorted(options) + (["num_players"] if num_players is not None else [])
            raise ConfigError(
                f"give the game options as config or as keywords, not both: config was given "
                f"with {', '.join(given)}"
            )
        #: The game's options (a GameConfig: valid, frozen, shared with whoever built it).
        self.config = config
        self.cards = resolve_card_set(card_set)
        self.seed = resolve_seed(seed)
        self._init_tables()
        self.rng = np.random.Generator(np.random.PCG64(self.seed))
        self._setup()

    # ------------------------------------------------- the rules, bound as methods
    _init_tables = tables.init_tables
    _setup = setup.setup
    _place_tile = bidding.place_tile
    _refit_remove = resolution.refit_remove
    _install = install.install
    _engine_choice = benefits.engine_choice
    _engine_skip = benefits.engine_skip
    _complete = missions.complete
    _end = scoring.end

    # ------------------------------------------------------------ public view
    @property
    def current_player(self) -> int | None:
        return self.current

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def is_truncated(self) -> bool:
        """True when the round cap ended the game (R-RESET-6)."""
        return self.end_reason is EndReason.ROUND_CAP

    turn_order = queries.turn_order
    order_key = queries.order_key

    def scores(self) -> list[int]:
        """Mission points so far; after the game, final totals with awards and tokens (R-END)."""
        return list(self.points)

    def winners(self) -> list[int]:
        """Seats sharing the victory after tiebreaks (R-END-3/4); empty while the game runs."""
        return list(self.final_winners)

    def available_missions(self) -> list[int | None]:
        """Mission id at the top of each stack (R-SETUP-3), None for an empty stack."""
        return [stack[0] if stack else None for stack in self.stacks]

    def selected_part(self) -> int | None:
        """Card id of the pending part the current player is installing or discarding."""
        return self.selected if self.phase is Phase.INSTALL else None

    def mission_being_resolved(self) -> int | None:
        return self.mission if self.phase is Phase.MISSION else None

    @property
    def bidding_pass(self) -> int:
        """Bidding pass 0..2 of this round (R-BID-1); meaningful during bidding."""
        return self.bid_pass

    @property
    def mission_stack(self) -> int | None:
        """Stack whose top mission is being resolved; None outside the mission phase."""
        return self.resolving_stack if self.phase is Phase.MISSION else None

    @property
    def completers(self) -> int:
        """Seats that completed the mission being resolved so far (R-MIS-3)."""
        return self.mission_completers if self.phase is Phase.MISSION else 0

    engines = queries.engines
    biotech = queries.biotech
    connectors = queries.connectors
    connectors_after = queries.connectors_after
    legal_cells = queries.legal_cells
    can_install = queries.can_install
    renew_ship_stamps = changes.renew_ship_stamps
    count_connectors = queries.count_connectors
    bid_total = queries.bid_total
    _new_bid_stamp = changes.new_bid_stamp

    can_complete = legal.can_complete
    biotech_shortfall = legal.biotech_shortfall

    # ----------------------------------------------------------- legal moves
    legal_actions = legal.legal_actions
    legal_actions_set = legal.legal_actions_set
    is_legal = legal.is_legal
    invalidate_cache = legal.invalidate_cache
    _compute_legal = legal.compute_legal
    _reset_bid_cache = legal.reset_bid_cache
    _legal_bid_slot = legal.legal_bid_slot
    _illegal_message = legal.illegal_message

    # ----------------------------------------------------------------- apply
    def apply(self, action: Action) -> None:
        """Apply the current player's action; an illegal one raises and changes nothing."""
        if self.phase is Phase.OVER:
            raise IllegalActionError(f"the game is over; no action is legal (got {action})")
        if self.phase is Phase.BIDDING and isinstance(action, Bid):  # the hot path
            slot = self._legal_bid_slot(action)
            if slot is None:
                raise IllegalActionError(self._illegal_message(action))
            # record the canonical value, whatever equal form came in
            known = self.bid_slots.get(id(action))
            if known is None or known[0] is not action:
                action = self.bid_actions[(action.tile, slot, action.crew)]
            self.history.append(action)
            self.legal_cache = None
            self.legal_set_cache = None
            self._place_tile(self.current, action.tile, slot, action.crew)
            if self.resume is not None:  # else bidding goes on: nothing automatic to run
                self._advance()
            return
        if not self.is_legal(action):
            raise IllegalActionError(self._illegal_message(action))
        self.history.append(action)
        self._apply_unchecked(action)
        self._advance()

    def _apply_unchecked(self, action: Action) -> None:
        """Apply a legal action; the commonest kinds are tested first."""
        self.legal_cache = None
        self.legal_set_cache = None
        p = self.current
        assert p is not None
        if isinstance(action, SelectPart):
            self.selected = self.part_index[action.part]
        elif isinstance(action, Install):
            self._install(p, self.part_index[action.part], (action.row, action.col))
        elif isinstance(action, PassMission):
            self.mission_cursor += 1
            self.resume = Resume.MISSIONS
        elif isinstance(action, CompleteMission):
            self._complete(p)
        elif isinstance(action, Discard):
            changes.discard_pending(self, p, self.part_index[action.part])
            self.selected = None
            self.resume = Resume.INSTALL
        elif isinstance(action, ChooseEngine):
            self._engine_choice(p, action.rank)
        elif isinstance(action, SkipEngine):
            self._engine_skip(p)
        elif isinstance(action, RefitStop):
            self.resume = Resume.RESOLVE
        elif isinstance(action, RefitRemove):
            self._refit_remove(p, self.part_index[action.part])
        elif isinstance(action, Bid):  # bids take apply's own path
            self._place_tile(p, action.tile, self.target_slot[action.target], action.crew)
        else:  # pragma: no cover - guarded by the legality check
            raise IllegalActionError(f"unknown action type {type(action).__name__}")

    # ----------------------------------------------------------- the driver
    def _advance(self) -> None:
        """Run automatic steps until a player faces a real choice or the game ends."""
        while True:
            resume = self.resume
            if resume is not None:
                if resume is Resume.RESET and self.hold_round_reset:
                    self.current = None  # the round is over: no one acts until the release
                    self.legal_cache = []
                    self.legal_set_cache = frozenset()
                    return
                self.resume = None
                self._RESUME_STEPS[resume](self)
                continue
            if self.phase is Phase.OVER:
                self.current = None
                self.legal_cache = []
                self.legal_set_cache = frozenset()
                return
            if self.phase is Phase.BIDDING:  # always several options; computed on demand
                self.legal_cache = None
                self.legal_set_cache = None
                return
            legal = self._compute_legal()
            if len(legal) == 1:
                if self.on_forced is not None:
                    self.on_forced(self, legal[0])
                self._apply_unchecked(legal[0])
                continue
            self.legal_cache = legal
            self.legal_set_cache = None
            return

    @property
    def round_reset_held(self) -> bool:
        """True when the round is over and `hold_round_reset` keeps its reset waiting."""
        return self.resume is Resume.RESET and self.hold_round_reset

    def reset_ends_game(self) -> bool:
        """Whether the waiting round reset ends the game (R-RESET-1, -3, -6)."""
        return reset.ends_game(self)

    def release_round_reset(self) -> None:
        """Stop holding round resets and run the one waiting, if any (R-RESET)."""
        self.hold_round_reset = False
        if self.resume is Resume.RESET:
            self._advance()

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

    # ------------------------------------------------------- copy and save
    def clone(self, rng: np.random.Generator | int | None = None) -> FarlightGame:
        """An independent copy sharing only immutable card data (for search).

        The copy's chance comes from `rng` if given (an int: a generator seeded with it), else
        from a copy of this game's generator. Copies attributes directly (search clones one
        game per iteration): all at once, then each list, nested list or other mutable value
        again by the group that `state.FIELDS` and `state.DERIVED` declare for it.
        """
        other = self._shallow_copy()  # each mutable attribute is replaced by a copy or reset below
        mine, copy = self.__dict__, other.__dict__  # direct dict access: clones are hot
        if isinstance(rng, np.random.Generator):
            copy["_rng"], copy["_rng_recipe"] = rng, None
        elif rng is not None:
            copy["_rng"], copy["_rng_recipe"] = None, int(rng)
        elif mine["_rng"] is not None:  # a snapshot of the state, made a generator on first use
            copy["_rng"], copy["_rng_recipe"] = None, mine["_rng"].bit_generator.state
        else:  # this game's generator was never made: the copy has the same recipe
            copy["_rng"], copy["_rng_recipe"] = None, mine["_rng_recipe"]
        # map() copies in C: no Python frame per list (a comprehension makes one per field)
        lists = map(list.copy, map(mine.__getitem__, _LIST_STATE))
        copy.update(zip(_LIST_STATE, lists, strict=True))
        for name in _NESTED_STATE:
            copy[name] = list(map(list.copy, mine[name]))
        for name, copier in _CALL_STATE:
            copy[name] = copier(mine[name])
        other.legal_cache = None
        other.legal_set_cache = None
        other.share_ship_stamps = self.compact_changes
        other._reset_bid_cache()
        other._new_bid_stamp()  # bids may grow apart: each copy its own bid stamp
        return other

    def _shallow_copy(self) -> FarlightGame:
        """A game holding every attribute of this one by reference (one C call), but for a
        watcher (`on_forced`) or a hold, which belong to the game they were set on. `clone`
        and redaction replace what must be their own."""
        other = object.__new__(type(self))
        copy = other.__dict__
        copy.update(self.__dict__)
        copy.pop("on_forced", None)
        copy.pop("hold_round_reset", None)
        return other

    def reseed(self, rng: np.random.Generator | int) -> None:
        """Take chance from `rng` from now on, or from a generator seeded with the int `rng`
        (made when first used)."""
        if isinstance(rng, np.random.Generator):
            self._rng, self._rng_recipe = rng, None
        else:
            self._rng, self._rng_recipe = None, int(rng)

    @property
    def rng(self) -> np.random.Generator:
        """The game's generator. A clone's is made when first used: seeding a PCG64 costs about
        as much as the rest of a clone, and most copies (an agent's redacted view) never roll a
        die. (A property, not `__getattr__`: a class with `__getattr__` loses CPython's
        specialised attribute loads on every field.)"""
        rng = self._rng
        if rng is None:
            recipe = self._rng_recipe
            if isinstance(recipe, int):
                rng = np.random.Generator(np.random.PCG64(recipe))
            else:
                rng = np.random.Generator(np.random.PCG64(0))
                rng.bit_generator.state = recipe
            self._rng, self._rng_recipe = rng, None
        return rng

    @rng.setter
    def rng(self, rng: np.random.Generator) -> None:
        self._rng, self._rng_recipe = rng, None

    def to_json(self) -> str:
        """The full state, config, card set and RNG; `from_json` restores it exactly."""
        return serialize.game_to_json(self._as_saved())

    def _as_saved(self) -> FarlightGame:
        """This game, or where a round reset is held, a copy with the reset run: saved games
        rest between actions and carry no hold."""
        if not self.round_reset_held:
            return self
        copy = self.clone()  # no hold: its driver runs the waiting reset
        copy._advance()
        return copy

    @classmethod
    def from_json(cls, text: str, cards: CardSet | None = None) -> FarlightGame:
        """Rebuild a game saved by `to_json`; a corrupt or foreign text raises ValueError.
        `cards` (a CardSet) replaces the saved card set, which is then not read."""
        return serialize.game_from_json(cls, text, cards)

    def to_state(self) -> GameState:
        """A copy of this game's state as a `GameState` (plain values, nothing shared)."""
        return state.state_of(self._as_saved())

    @classmethod
    def from_state(
        cls,
        config: GameConfig | dict[str, Any] | None,
        cards: CardSet | str | os.PathLike | None,
        game_state: GameState,
        *,
        seed: int = 0,
        rng: np.random.Generator | None = None,
        dealt: bool = True,
    ) -> FarlightGame:
        """A game at a declared position (puzzles, end-game studies, rule tests).

        `config` is a GameConfig or its options as a mapping (None: the defaults); `cards` as
        the constructor's `card_set`; `game_state` a `GameState` (edit the one `to_state()`
        gives). Checked exactly like `from_json` (types and ranges, every card in one place,
        phase and cursors consistent, a real decision to take); a state no legal play could
        produce raises ValueError naming the field. Chance continues from `rng` (copied) or,
        if None, from a generator seeded with `seed`. `dealt=False` also accepts what no
        real deal gives but the engine plays soundly (mission stacks of any missions in any
        order, awards not a permutation of the seven): end-game studies, rule tests.
        """
        if not isinstance(config, GameConfig):  # a GameConfig is valid already
            config = GameConfig.from_options(**dict(config or {}))
        copy = None
        if rng is not None:
            copy = np.random.Generator(np.random.PCG64(0))
            copy.bit_generator.state = rng.bit_generator.state
        seed = resolve_seed(seed)
        return serialize.game_from_state(
            cls, config, resolve_card_set(cards), game_state, seed, copy, dealt
        )

    def set_state(self, game_state: GameState, *, dealt: bool = True) -> None:
        """Move this game to `game_state`, checked as `from_state` checks it (same config,
        cards, seed and chance); a refused state raises ValueError and changes nothing."""
        other = type(self).from_state(
            self.config, self.cards, game_state, seed=self.seed, rng=self.rng, dealt=dealt
        )
        rng = self.rng
        self.__dict__.update(other.__dict__)
        self.rng = rng  # the same generator object, its state unchanged

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
        cur = "-" if self.current is None else self.current
        return (
            f"Farlight round {self.round}, phase {self.phase.value}, player {cur} to act; "
            f"scores {self.points}"
        )

    # The state's former private names (before its fields were public, #50), read-only, for
    # readers written against them.
    _phase = property(operator.attrgetter("phase"))
    _current = property(operator.attrgetter("current"))
    _winners = property(operator.attrgetter("final_winners"))
    _bid_pass = property(operator.attrgetter("bid_pass"))
    _tiles_left = property(operator.attrgetter("tiles_left"))
    _selected = property(operator.attrgetter("selected"))
    _mission = property(operator.attrgetter("mission"))
    _mission_stack = property(operator.attrgetter("resolving_stack"))
    _completers = property(operator.attrgetter("mission_completers"))

    #: The driver's step for each resume point (see `_advance`).
    _RESUME_STEPS: ClassVar[dict[Resume, Callable[[FarlightGame], None]]] = {
        Resume.RESOLVE: resolution.resume_resolution,
        Resume.INSTALL: install.next_installer,
        Resume.BENEFITS: benefits.next_benefit,
        Resume.MISSIONS: missions.next_mission_decision,
        Resume.RESET: reset.round_reset,
    }
