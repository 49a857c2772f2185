"""The saved-game file format as msgspec Structs; the state's fields come from `state.FIELDS`.

`SavedGame` checks what one field alone can say (types, ranges, enum names, list shapes);
`game/validate.py` checks the facts that tie fields together. A failure becomes one ValueError
naming the field, e.g. ``saved game: state.crew[1]: expected int >= 0, got -5``.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta, Struct

from farlight_env.game.state import FIELDS
from farlight_env.seeding import SEED_LIMIT

#: `dump_state`'s data: one field per `state.FIELDS` entry, with its declared type and range;
#: list lengths per seat, slot or card are checked in validate.py.
SavedState = msgspec.defstruct(
    "SavedState",
    [(f.key, f.type) for f in FIELDS],
    forbid_unknown_fields=True,
    module=__name__,
)


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
