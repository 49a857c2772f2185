"""A game's state, declared once (as Pgx declares its `State`): every field, its type and range,
how it is copied and saved, and what it means.

`FIELDS` is the declaration. Everything that lists the state is derived from it: `clone`'s
copy groups (`CLONE_GROUPS`), the saved form (`dump_state`/`load_state`), the saved-file
schema (`schema.SavedState`) and the public value class `GameState` that `to_state` and
`FarlightGame.from_state` exchange. Adding a saved field is one `Field(...)` line here; its
`initial` value (if the setup rules do not set it) is given on the same line. `DERIVED` lists
the engine's caches and change stamps: never saved, rebuilt on load (and mostly on clone).
`validate.py` keeps only the checks that span several fields.

Ranges are those of a saved file (msgspec `Meta`); where a bound depends on the game (seats,
cards, grid) it is checked in validate.py, which the comment says as "(validate)".
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Any, Literal

from msgspec import Meta, Struct

from farlight_env.cards.model import AWARDS
from farlight_env.game.actions import Action, action_from_dict, action_to_dict
from farlight_env.game.config import EndReason, Phase, Resume
from farlight_env.game.facts import (
    MAX_COUNT,
    MAX_ENGINE,
    MAX_GRID_SIZE,
    MAX_PLAYERS,
    MAX_ROUNDS,
    MIN_ENGINE,
    NUM_STACKS,
    PART_SPACES,
    START_CREW,
    TILES,
    TILES_PER_PASS,
)
from farlight_env.game.ship import CORE, Cell

# ------------------------------------------------------------------------- value ranges
_HALF = MAX_GRID_SIZE // 2
MAX_TARGETS = max(PART_SPACES.values()) + 4 + NUM_STACKS  # part spaces, facilities, stacks

Count = Annotated[int, Meta(ge=0, le=MAX_COUNT)]
Seat = Annotated[int, Meta(ge=0, le=MAX_PLAYERS - 1)]
Tile = Annotated[int, Meta(ge=TILES[0], le=TILES[-1])]
CardId = Annotated[int, Meta(ge=0, le=MAX_COUNT)]
Coord = Annotated[int, Meta(ge=-_HALF, le=_HALF)]
Piece = Annotated[int, Meta(ge=-1, le=MAX_COUNT)]  # -1 is the core
Rank = Annotated[int, Meta(ge=1, le=MAX_COUNT)]
EngineValue = Annotated[int, Meta(ge=MIN_ENGINE, le=MAX_ENGINE)]
StackIndex = Annotated[int, Meta(ge=0, le=NUM_STACKS - 1)]
Award = Literal.__getitem__(AWARDS)
PerSeat = Meta(max_length=MAX_PLAYERS)
#: A history entry: the flat `action_to_dict` form (checked in full by `action_from_dict`).
ActionRecord = dict[str, str | int | bool | list[str | int]]


class Breakdown(Struct, forbid_unknown_fields=True):
    """One seat's final score by source (R-END-1..3)."""

    missions: Count
    awards: Count
    tokens: Count


# ------------------------------------------------------------------- how fields are kept
def _same(value: Any) -> Any:
    return value


@dataclass(frozen=True, slots=True)
class Kind:
    """How one kind of field is copied (clone), saved (JSON-able form) and loaded back.

    `group` names the copy `clone` applies: "value" (immutable, shared), "list" (flat list of
    immutable values), "nested" (list of such lists), or "call" (`copy` is called)."""

    group: str
    copy: Callable[[Any], Any]
    dump: Callable[[Any], Any]
    load: Callable[[Any], Any]


def _enum(cls: type[Enum]) -> Kind:
    return Kind(
        "value",
        _same,
        lambda v: None if v is None else v.value,
        lambda v: None if v is None else cls(v),
    )


VALUE = Kind("value", _same, _same, _same)
LIST = Kind("list", list, list, list)
NESTED = Kind(
    "nested",
    lambda x: list(map(list.copy, x)),
    lambda x: [list(i) for i in x],
    lambda x: [list(i) for i in x],
)
#: Per target slot, the bids on it as (seat, tile, crew) tuples.
BIDS = Kind(
    "nested",
    lambda x: list(map(list.copy, x)),
    lambda x: [[[p, t, c] for p, t, c in slot] for slot in x],
    lambda x: [[(p, t, bool(c)) for p, t, c in slot] for slot in x],
)
#: Per seat, the ship as {(row, col): piece}; saved as [row, col, piece] triples.
SHIPS = Kind(
    "call",
    lambda x: list(map(dict.copy, x)),
    lambda x: [[[r, c, piece] for (r, c), piece in ship.items()] for ship in x],
    lambda x: [{(r, c): piece for r, c, piece in ship} for ship in x],
)
#: {rank: die}; saved as [rank, die] pairs sorted by rank.
ENGINES = Kind(
    "call",
    dict,
    lambda x: [[rank, value] for rank, value in sorted(x.items())],
    lambda x: {rank: value for rank, value in x},
)
#: None, or per seat {"missions", "awards", "tokens"}.
BREAKDOWN = Kind(
    "call",
    lambda x: None if x is None else [dict(b) for b in x],
    lambda x: None if x is None else [dict(b) for b in x],
    lambda x: None if x is None else [dict(b) for b in x],
)
#: Actions applied so far, saved in `action_to_dict` form.
HISTORY = Kind(
    "list", list, lambda x: [action_to_dict(a) for a in x], lambda x: list(map(action_from_dict, x))
)


@dataclass(frozen=True, slots=True)
class Field:
    """One saved fact of a game: `key` in saved files and in `GameState`, `attr` on the game."""

    key: str
    type: Any  # its saved form, with its range (msgspec checks it on load)
    kind: Kind
    doc: str
    attr: str = ""  # the engine's attribute; defaults to `key`
    #: Its value in a new game, from the number of seats; None: the setup rules set it.
    initial: Callable[[int], Any] | None = None

    @property
    def name(self) -> str:
        return self.attr or self.key


def _per_seat(value: Callable[[], Any]) -> Callable[[int], Any]:
    return lambda n: [value() for _ in range(n)]


_NONE: Callable[[int], Any] = lambda n: None  # noqa: E731 - a declared initial value


# ------------------------------------------------------------------------ the declaration
#: The saved state, in saved-file order. Ranges in `type`; "(validate)" marks a bound that
#: depends on the game's seats, cards or grid and is checked in validate.py.
FIELDS: tuple[Field, ...] = (
    # --- round and turn
    Field("round", Annotated[int, Meta(ge=1, le=MAX_ROUNDS)], VALUE,
          "round being played, 1..max_rounds (R-RESET-6)", initial=lambda n: 1),
    Field("phase", Phase, _enum(Phase), "the decision the acting seat faces; OVER at the end"),
    Field("current", Seat | None, VALUE, "seat to act (validate: < seats); None once over"),
    Field("first_player", Seat, VALUE, "first seat of this round's turn order (R-SETUP-6)"),
    # --- per seat
    Field("crew", Annotated[list[Count], PerSeat], LIST, "crew per seat, >= 0 (R-COMP-2)",
          initial=lambda n: [START_CREW] * n),
    Field("science", Annotated[list[Count], PerSeat], LIST, "science per seat, >= 0",
          initial=lambda n: [0] * n),
    Field("points", Annotated[list[Count], PerSeat], LIST,
          "mission points per seat; final totals once over (R-END)", initial=lambda n: [0] * n),
    Field("hands", Annotated[list[Annotated[list[Tile], Meta(max_length=len(TILES))]], PerSeat],
          NESTED, "bidding tiles in hand per seat, sorted; hand + board = 0..4 (R-BID-1)",
          initial=_per_seat(lambda: list(TILES))),
    Field("ships", Annotated[list[list[tuple[Coord, Coord, Piece]]], PerSeat], SHIPS,
          "per seat {(row, col): part id or CORE}; core at (0, 0), |row|,|col| <= grid/2",
          initial=_per_seat(lambda: {(0, 0): CORE})),
    Field("ship_parts", Annotated[list[list[CardId]], PerSeat], NESTED,
          "part ids on each seat's ship, in installation order", initial=_per_seat(list)),
    Field("pending", Annotated[list[list[CardId]], PerSeat], NESTED,
          "parts won this round waiting to be installed, per seat (R-RES-3)",
          initial=_per_seat(list)),
    Field("installed_this_round", Annotated[list[list[CardId]], PerSeat], NESTED,
          "parts installed this round, per seat: their one-time icons pay (R-BEN-1)",
          initial=_per_seat(list)),
    Field("temp_biotech", Annotated[list[Count], PerSeat], LIST,
          "temporary bio-tech bought this round (or mission), per seat (R-MIS-5)",
          initial=lambda n: [0] * n),
    # --- cards
    Field("awards_up", list[Award], LIST, "the 3 face-up awards (R-SETUP-2)"),
    Field("awards_down", list[Award], LIST, "the 4 face-down awards, tiebreak order (R-END-4)"),
    Field("stacks", Annotated[list[list[CardId]], Meta(min_length=NUM_STACKS,
          max_length=NUM_STACKS)], NESTED, "3 mission stacks, top card first (R-SETUP-3)"),
    Field("missions_out", list[CardId], LIST, "missions out of play: unused or completed"),
    Field("deck", list[CardId], LIST, "part deck, top card last (R-SETUP-4)"),
    Field("out_of_game", list[CardId], LIST, "parts discarded or removed (R-INST-5, R-RES-5)",
          initial=lambda n: []),
    Field("spaces", list[CardId | None], LIST, "part id on each station space; None if empty"),
    Field("bonus", list[Count], LIST, "bonus crew lying on each part space (R-RESET-2)"),
    Field("engine_values", list[tuple[Rank, EngineValue]], ENGINES,
          "{engine rank: die 1..6} for every engine on the station, pending or on a ship",
          initial=lambda n: {}),
    # --- bids
    Field("bids", Annotated[list[list[tuple[Seat, Tile, bool]]], Meta(max_length=MAX_TARGETS)],
          BIDS, "per target slot, the (seat, tile, crew) bids on it this round (R-BID-2)"),
    # --- the end
    Field("end_reason", EndReason | None, _enum(EndReason), "why the game ended; None while on",
          initial=_NONE),
    Field("final_breakdown", Annotated[list[Breakdown], PerSeat] | None, BREAKDOWN,
          "per seat final score by source; None while on (R-END)", initial=_NONE),
    Field("winners", Annotated[list[Seat], PerSeat], LIST,
          "seats sharing the victory after tiebreaks; empty while on (R-END-3/4)",
          attr="final_winners", initial=lambda n: []),
    # --- cursors of the phase in progress
    Field("bid_pass", Annotated[int, Meta(ge=0, le=len(TILES_PER_PASS))], VALUE,
          "bidding pass 0..2; 3 once bidding is over (R-BID-1)"),
    Field("bid_turn", Seat, VALUE, "turn within the pass, 0..seats-1 (R-BID-1)"),
    Field("tiles_left", Annotated[int, Meta(ge=0, le=max(TILES_PER_PASS))], VALUE,
          "tiles the bidder still places this pass, 0..2 (R-BID-1)"),
    Field("selected", CardId | None, VALUE, "pending part being installed; None before a choice"),
    Field("resume", Resume | None, _enum(Resume),
          "the driver's next automatic step; None at rest (always None when saved)"),
    Field("resolve_cursor", Annotated[int, Meta(ge=0, le=MAX_TARGETS)], VALUE,
          "next part space or facility slot to resolve (R-RES-1)"),
    Field("mission", Annotated[int, Meta(ge=-1, le=MAX_COUNT)], VALUE,
          "mission id being resolved; -1 outside missions"),
    Field("mission_stack", Annotated[int, Meta(ge=-1, le=NUM_STACKS - 1)], VALUE,
          "its stack 0..2; -1 outside missions", attr="resolving_stack"),
    Field("mission_queue", Annotated[list[StackIndex], Meta(max_length=NUM_STACKS)], LIST,
          "stacks with bids still to resolve, in order (R-MIS-1)"),
    Field("mission_order", Annotated[list[Seat], PerSeat], LIST,
          "seats asked to complete the mission, in order (R-MIS-2)"),
    Field("mission_cursor", Annotated[int, Meta(ge=0, le=MAX_PLAYERS)], VALUE,
          "index in mission_order of the seat to decide"),
    Field("completers", Annotated[int, Meta(ge=0, le=MAX_PLAYERS)], VALUE,
          "seats that completed the mission being resolved (R-MIS-3)", attr="mission_completers"),
    Field("climactic_done", bool, VALUE, "a climactic mission was completed this round"),
    Field("benefit_left", Annotated[list[tuple[Count, Count]], PerSeat], NESTED,
          "per seat [upgrades, overhauls] left to decide (R-BEN-3)"),
    Field("history", list[ActionRecord], HISTORY, "actions applied so far (decisions only)",
          initial=lambda n: []),
)  # fmt: skip

#: The engine's derived facts: never saved; `clone` copies or renews them as `copy` says
#: ("value", "list", or "renew": set afresh), loading always renews them.
DERIVED: tuple[tuple[str, str, str], ...] = (
    ("ship_stamps", "list", "per seat, a stamp naming the ship's contents (caches key on it)"),
    ("seat_stamps", "list", "per seat, renewed when its crew, science, hand... change"),
    ("board_stamp", "value", "renewed when the station, deck, awards or stacks change"),
    ("bid_stamp", "renew", "renewed each bidding phase (and by every clone)"),
    ("bid_log", "renew", "bids changed under bid_stamp: slot placed, ~slot cleared"),
    ("legal_cache", "renew", "cached legal actions, None until asked"),
    ("legal_set_cache", "renew", "the same as a frozenset"),
    ("open_slots", "renew", "bid targets open in this bidding phase"),
    ("phase_bid_blocks", "renew", "(tile, crew possible) -> that tile's legal bids"),
    ("share_ship_stamps", "renew", "whether ship changes look their stamps up (clones)"),
)


# ------------------------------------------------------------------- the typed state class
class State:
    """The state the rules act on, every field typed as the engine holds it (`FIELDS` says
    how each is saved, `DERIVED` what each cache means); `FarlightGame` is one. Its fields
    are public: the rules write the cursors directly, and the facts a change stamp covers
    only through `changes.py`, which renews the stamp. Checked against `FIELDS` and
    `DERIVED` on import, so the class and the table cannot drift apart."""

    # --- round and turn
    round: int
    phase: Phase
    current: int | None
    first_player: int
    # --- per seat
    crew: list[int]
    science: list[int]
    points: list[int]
    hands: list[list[int]]
    ships: list[dict[Cell, int]]
    ship_parts: list[list[int]]
    pending: list[list[int]]
    installed_this_round: list[list[int]]
    temp_biotech: list[int]
    # --- cards
    awards_up: list[str]
    awards_down: list[str]
    stacks: list[list[int]]
    missions_out: list[int]
    deck: list[int]
    out_of_game: list[int]
    spaces: list[int | None]
    bonus: list[int]
    engine_values: dict[int, int]
    # --- bids
    bids: list[list[tuple[int, int, bool]]]
    # --- the end
    end_reason: EndReason | None
    final_breakdown: list[dict[str, int]] | None
    final_winners: list[int]
    # --- cursors of the phase in progress
    bid_pass: int
    bid_turn: int
    tiles_left: int
    selected: int | None
    resume: Resume | None
    resolve_cursor: int
    mission: int
    resolving_stack: int
    mission_queue: list[int]
    mission_order: list[int]
    mission_cursor: int
    mission_completers: int
    climactic_done: bool
    benefit_left: list[list[int]]
    history: list[Action]
    # --- derived (DERIVED): change stamps and caches, never saved
    ship_stamps: list[int]
    seat_stamps: list[int]
    board_stamp: int
    bid_stamp: int
    bid_log: list[int]
    legal_cache: list[Action] | None
    legal_set_cache: frozenset[Action] | None
    open_slots: tuple[int, ...] | None
    phase_bid_blocks: dict[tuple[int, bool], list[Action]]
    share_ship_stamps: bool


#: Each field's type as the engine holds it, by attribute name (`Any` for a field declared
#: in `FIELDS` or `DERIVED` but not yet typed here; tests/test_state_caches.py wants none).
HELD_TYPES: dict[str, Any] = typing.get_type_hints(State)


def _check_declared() -> None:
    """State's fields are declared ones, in the declared order."""
    declared = [f.name for f in FIELDS] + [name for name, _, _ in DERIVED]
    typed = [name for name in declared if name in HELD_TYPES]
    if list(HELD_TYPES) != typed:
        raise AssertionError(
            f"State's fields are not those of FIELDS + DERIVED: {list(HELD_TYPES)}"
        )
    for name in declared:
        HELD_TYPES.setdefault(name, Any)


_check_declared()


# --------------------------------------------------------------------------- derivations
#: Attribute names `clone` copies, by how: shared values, flat lists, nested lists, and
#: (name, copy function) pairs for the rest.
CLONE_GROUPS: dict[str, tuple[Any, ...]] = {}


def _derive() -> None:
    values = [f.name for f in FIELDS if f.kind.group == "value"]
    lists = [f.name for f in FIELDS if f.kind.group == "list"]
    nested = [f.name for f in FIELDS if f.kind.group == "nested"]
    calls = [(f.name, f.kind.copy) for f in FIELDS if f.kind.group == "call"]
    values += [name for name, copy, _ in DERIVED if copy == "value"]
    lists += [name for name, copy, _ in DERIVED if copy == "list"]
    CLONE_GROUPS.update(
        value=tuple(values), list=tuple(lists), nested=tuple(nested), call=tuple(calls)
    )


_derive()
INITIAL: tuple[tuple[str, Callable[[int], Any]], ...] = tuple(
    (f.name, f.initial) for f in FIELDS if f.initial is not None
)


def set_initial(game: Any, num_players: int) -> None:
    """Give a new game every field that has a declared initial value."""
    for name, initial in INITIAL:
        setattr(game, name, initial(num_players))


def dump_state(game: Any, with_history: bool = True) -> dict[str, Any]:
    """Every saved fact of a game as JSON-able data (lists, ints, strings)."""
    data = {f.key: f.kind.dump(getattr(game, f.name)) for f in FIELDS}
    if not with_history:
        data["history"] = []
    return data


def load_state(game: Any, data: dict[str, Any]) -> None:
    """Set every saved fact from `dump_state` data, trusted as it is (`serialize` checks it),
    then renew the derived facts."""
    for f in FIELDS:
        setattr(game, f.name, f.kind.load(data[f.key]))
    game.renew_ship_stamps()
    game.invalidate_cache()  # also new change stamps


def _game_state_class() -> type:
    doc = (
        "A game's saved facts as plain values (ships as dicts, phases as enums, actions as "
        "Actions); `FarlightGame.to_state()` gives one, `FarlightGame.from_state` checks and "
        "plays from one. Fields:\n\n" + "\n".join(f"    {f.key}: {f.doc}" for f in FIELDS)
    )
    cls = dataclasses.make_dataclass(
        "GameState",
        [(f.key, HELD_TYPES[f.name]) for f in FIELDS],
        slots=True,
        kw_only=True,
    )
    cls.__module__ = __name__
    cls.__doc__ = doc
    return cls


#: The public value class of a game state, one attribute per `FIELDS` key.
GameState = _game_state_class()


def state_of(game: Any) -> Any:
    """A `GameState` copy of a game's saved facts, sharing nothing mutable with it."""
    return GameState(**{f.key: f.kind.copy(getattr(game, f.name)) for f in FIELDS})


def dump_game_state(state: Any) -> dict[str, Any]:
    """A `GameState`'s facts in saved form, as `dump_state` gives a game's."""
    return {f.key: f.kind.dump(getattr(state, f.key)) for f in FIELDS}
