"""The saved-game file format as msgspec Structs: every field's type and range, declared once.

`SavedGame` checks what one field alone can say (types, ranges, enum names, list shapes);
`game/validate.py` checks the facts that tie fields together. A failure becomes one ValueError
naming the field, e.g. ``saved game: state.crew[1]: expected int >= 0, got -5``.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta, Struct

from farlight_env.cards.model import AWARDS
from farlight_env.game.config import (
    MAX_COUNT,
    MAX_ENGINE,
    MAX_GRID_SIZE,
    MAX_PLAYERS,
    MAX_ROUNDS,
    MIN_ENGINE,
    NUM_STACKS,
    PART_SPACES,
    SEED_LIMIT,
    TILES,
    TILES_PER_PASS,
    EndReason,
    Phase,
    Resume,
)

_HALF = MAX_GRID_SIZE // 2
_MAX_TARGETS = max(PART_SPACES.values()) + 4 + NUM_STACKS  # part spaces, facilities, stacks

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
    missions: Count
    awards: Count
    tokens: Count


class SavedState(Struct, forbid_unknown_fields=True):
    """`dump_state`'s data; list lengths per seat, slot or card are checked in validate.py."""

    round: Annotated[int, Meta(ge=1, le=MAX_ROUNDS)]
    phase: Phase
    current: Seat | None
    first_player: Seat
    crew: Annotated[list[Count], PerSeat]
    science: Annotated[list[Count], PerSeat]
    points: Annotated[list[Count], PerSeat]
    hands: Annotated[list[Annotated[list[Tile], Meta(max_length=len(TILES))]], PerSeat]
    ships: Annotated[list[list[tuple[Coord, Coord, Piece]]], PerSeat]
    ship_parts: Annotated[list[list[CardId]], PerSeat]
    pending: Annotated[list[list[CardId]], PerSeat]
    installed_this_round: Annotated[list[list[CardId]], PerSeat]
    temp_biotech: Annotated[list[Count], PerSeat]
    awards_up: list[Award]
    awards_down: list[Award]
    stacks: Annotated[list[list[CardId]], Meta(min_length=NUM_STACKS, max_length=NUM_STACKS)]
    missions_out: list[CardId]
    deck: list[CardId]
    out_of_game: list[CardId]
    spaces: list[CardId | None]
    bonus: list[Count]
    engine_values: list[tuple[Rank, EngineValue]]
    bids: Annotated[list[list[tuple[Seat, Tile, bool]]], Meta(max_length=_MAX_TARGETS)]
    end_reason: EndReason | None
    final_breakdown: Annotated[list[Breakdown], PerSeat] | None
    winners: Annotated[list[Seat], PerSeat]
    bid_pass: Annotated[int, Meta(ge=0, le=len(TILES_PER_PASS))]
    bid_turn: Seat
    tiles_left: Annotated[int, Meta(ge=0, le=max(TILES_PER_PASS))]
    selected: CardId | None
    resume: Resume | None
    resolve_cursor: Annotated[int, Meta(ge=0, le=_MAX_TARGETS)]
    mission: Annotated[int, Meta(ge=-1, le=MAX_COUNT)]
    mission_stack: Annotated[int, Meta(ge=-1, le=NUM_STACKS - 1)]
    mission_queue: Annotated[list[StackIndex], Meta(max_length=NUM_STACKS)]
    mission_order: Annotated[list[Seat], PerSeat]
    mission_cursor: Annotated[int, Meta(ge=0, le=MAX_PLAYERS)]
    completers: Annotated[int, Meta(ge=0, le=MAX_PLAYERS)]
    climactic_done: bool
    benefit_left: Annotated[list[tuple[Count, Count]], PerSeat]
    history: list[ActionRecord]


class RngState(Struct, forbid_unknown_fields=True):
    """numpy's PCG64 bit generator state, as `Generator.bit_generator.state` gives it."""

    state: Annotated[int, Meta(ge=0)]  # < 2**128, checked in `convert` (msgspec: int64 bounds)
    inc: Annotated[int, Meta(ge=0)]


class RngData(Struct, forbid_unknown_fields=True):
    bit_generator: Literal["PCG64"]
    state: RngState
    has_uint32: Annotated[int, Meta(ge=0, le=1)]
    uinteger: Annotated[int, Meta(ge=0, lt=2**32)]


class SavedGame(Struct, forbid_unknown_fields=True):
    """The whole file; `config` and `card_set` are checked by GameConfig and the card loader."""

    format: str
    version: int
    seed: Annotated[int, Meta(ge=0)]  # < SEED_LIMIT, checked in `convert`
    config: dict[str, Any]
    card_set: dict[str, Any]
    rng: RngData
    state: SavedState


def convert(data: Any) -> SavedGame:
    """Type-check parsed JSON; raises ValueError naming the first bad field and its value."""
    try:
        saved = msgspec.convert(data, SavedGame)
    except msgspec.ValidationError as exc:
        raise ValueError(f"saved game: {_explain(str(exc), data)}") from None
    for path, value in (
        ("seed", saved.seed),
        ("rng.state.state", saved.rng.state.state),
        ("rng.state.inc", saved.rng.state.inc),
    ):
        if value >= SEED_LIMIT:
            raise ValueError(f"saved game: {path}: expected int < 2**128, got {_short(value)}")
    return saved


def _short(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


_AT = re.compile(r"^(?P<message>.*?)(?: - at `\$\.?(?P<path>[^`]*)`)?$", re.DOTALL)
_STEP = re.compile(r"\.?([A-Za-z_][A-Za-z_0-9]*)|\[(\d+)\]")


def _explain(error: str, data: Any) -> str:
    """msgspec's "Expected `int` >= 0 - at `$.state.crew[1]`" as
    "state.crew[1]: expected int >= 0, got -5"."""
    match = _AT.match(error)
    assert match is not None  # the pattern matches any text
    message = match["message"].replace("`", "")
    message = message[:1].lower() + message[1:]
    path = match["path"]
    if not path:
        return message
    if "got" not in message:
        found, value = _lookup(data, path)
        if found:
            message += f", got {_short(value)}"
    return f"{path}: {message}"


def _lookup(data: Any, path: str) -> tuple[bool, Any]:
    value = data
    for name, index in _STEP.findall(path):
        try:
            value = value[name] if name else value[int(index)]
        except (KeyError, IndexError, TypeError):
            return False, None
    return True, value
