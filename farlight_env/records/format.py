"""The game-record format as a msgspec schema: the fields one record must hold and their types.

`check_shape` converts a record's JSON object against `RecordShape` (declarative, strict: a
boolean is not a seat) and turns the first problem msgspec finds into the one-line message
`farlight_env.records.record` has always given for that field. What spans fields (the config's keys,
players against scores) stays in `validate_record`. Keys beyond these (index, timing,
breakdown, ...) are kept as written and not checked here.
"""

from __future__ import annotations

import re
import reprlib
from typing import Annotated, Any

import msgspec


class RecordShape(msgspec.Struct):
    """The typed fields of a game record (format and version are checked before it)."""

    config: dict[str, Any]
    actions: list[Any]
    scores: list[Any]
    players: list[Any]
    game_seed: Annotated[int, msgspec.Meta(ge=0)]
    winners: list[int] | None = None
    card_set: dict[str, Any] | msgspec.UnsetType = msgspec.UNSET


#: What a right value of each field is, as the error message says it.
EXPECTED = {
    "config": "must be a JSON object",
    "actions": "must be a JSON list",
    "scores": "must be a JSON list",
    "players": "must be a JSON list",
    "game_seed": "must be a non-negative integer",
    "winners": "must be a list of seats",
    "card_set": "must be a JSON object (a card set)",
}
_WHERE = re.compile(r"at `\$\.(\w+)")
_MISSING = re.compile(r"missing required field `(\w+)`")


def kind(value: Any) -> str:
    """A JSON value's kind in words: 'an object', 'a list', 'null', ..."""
    return {dict: "an object", list: "a list", str: "a string", type(None): "null"}.get(
        type(value), type(value).__name__
    )


def shown(field: str, value: Any) -> str:
    """A bad value as the message shows it: its kind for containers, else the value."""
    if field in ("game_seed",):
        return repr(value)
    if field == "winners":
        return reprlib.repr(value)
    return kind(value)


def shape_problem(record: dict[str, Any]) -> str | None:
    """None when `record` has the shape of a game record, else what is wrong with it."""
    try:
        msgspec.convert(record, RecordShape, strict=True)
    except msgspec.ValidationError as exc:
        text = str(exc)
        match = _WHERE.search(text) or _MISSING.search(text)
        field = match.group(1) if match else None
        if field not in EXPECTED:
            return text
        return f"field {field!r} {EXPECTED[field]}, got {shown(field, record.get(field))}"
    return None
