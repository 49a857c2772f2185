"""The card-file format (R-COMP-4, R-CARDS-5): its fields, their limits, and the parsers that
turn one card table into a `PartCard` or `MissionCard` (and back), refusing every problem with
a message naming the card and the field and saying what would be right."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from farlight_env.cards.model import (
    SIDES,
    Icon,
    IconKind,
    MissionCard,
    PartCard,
    Side,
    Timing,
)
from farlight_env.untrusted.messages import clip_message, short, some_names

# --- limits of the card format (R-CARDS-1, R-CARDS-2) ------------------------------------------
MAX_CREW_COST = 3
MAX_PART_BIOTECH = 2
MAX_MISSION_ENGINES = 3
MIN_MISSION_DIE, MAX_MISSION_DIE = 2, 6
MAX_MISSION_BIOTECH = 5
MAX_MISSION_SCIENCE = 6

# --- size limits: a card file is data from others, so nothing in it may be unbounded ----------
MAX_FILE_BYTES = 1 << 20  # 1 MiB; the standard set is ~20 KB
MAX_CARDS = 256  # per list (parts, missions); the standard set has 57 and 23
MAX_NAME_LENGTH = 80  # card and set names; the longest standard name has 26 characters
MAX_DESCRIPTION_LENGTH = 10_000
MAX_PART_ENGINES = 4  # engine icons on one part; the standard set has at most 2
MAX_ENGINE_RANK = 999
MAX_PART_ICONS = 8  # benefit icons on one part; the standard set has at most 2
MAX_MISSION_VALUE = 999  # points; the standard set's highest is 14


_SIDE_VALUES = frozenset(s.value for s in SIDES)
_SIDE_NAMES = ", ".join(f'"{s.value}"' for s in SIDES)
_KIND_NAMES = ", ".join(f'"{k.value}"' for k in IconKind)
_TIMING_NAMES = ", ".join(f'"{t.value}"' for t in Timing)
_ICON_TABLE = f"{{ kind = one of {_KIND_NAMES}; timing = one of {_TIMING_NAMES} }}"

# Field -> what a right value looks like; a field without a default is required.
NAME_TEXT = f"a non-empty string (at most {MAX_NAME_LENGTH} characters)"
SET_FIELDS = {
    "name": NAME_TEXT,
    "reconstructed": "a boolean",
    "description": f"a string of at most {MAX_DESCRIPTION_LENGTH} characters",
    "parts": f"a list of part tables (at most {MAX_CARDS})",
    "missions": f"a list of mission tables (at most {MAX_CARDS})",
}
SET_REQUIRED = ("name", "parts", "missions")
_PART_FIELDS = {
    "name": NAME_TEXT,
    "connectors": f"a non-empty list of distinct sides from {_SIDE_NAMES}",
    "crew_cost": f"an integer 0..{MAX_CREW_COST}",
    "biotech": f"an integer 0..{MAX_PART_BIOTECH}",
    "engines": (
        f"a list of at most {MAX_PART_ENGINES} positive integer ranks up to {MAX_ENGINE_RANK}, "
        "unique across the deck"
    ),
    "icons": f"a list of at most {MAX_PART_ICONS} icon tables, each {_ICON_TABLE}",
}
_PART_REQUIRED = ("name", "connectors")
_MISSION_FIELDS = {
    "name": NAME_TEXT,
    "value": f"a positive integer up to {MAX_MISSION_VALUE}",
    "climactic": "a boolean",
    "engines": (
        f"a list of at most {MAX_MISSION_ENGINES} minimum die values "
        f"{MIN_MISSION_DIE}..{MAX_MISSION_DIE}"
    ),
    "biotech": f"an integer 0..{MAX_MISSION_BIOTECH}",
    "science": f"an integer 0..{MAX_MISSION_SCIENCE}",
}
_MISSION_REQUIRED = ("name", "value")
_ICON_FIELDS = {"kind": _KIND_NAMES, "timing": _TIMING_NAMES}


class CardFileError(ValueError):
    """A card file or card mapping that cannot be used; the message says where and why, in one
    line of at most about MAX_MESSAGE_CHARS characters."""

    def __init__(self, message: str) -> None:
        super().__init__(clip_message(message))


class FieldError(Exception):
    """Raised by field parsers; the caller adds the source and the card to the message."""

    def __init__(self, fields: str | Sequence[str], message: str) -> None:
        super().__init__(message)
        self.fields = (fields,) if isinstance(fields, str) else tuple(fields)
        self.message = message

    def where(self) -> str:
        """`field 'x'` or `fields 'x', 'y'`, as used in every error message."""
        shown = some_names(list(self.fields))
        return f"field{'s' if len(self.fields) > 1 else ''} {shown}: {self.message}"


# =============================================================================================
# One card
# =============================================================================================


def parse_card(
    what: str,
    raw: Any,
    index: int,
    source: str,
    build: Callable[[Mapping[str, Any]], Any],
) -> Any:
    """Build one card, turning a field problem into an error naming source, card and field."""
    label = _card_label(what, raw, index)
    if not isinstance(raw, Mapping):
        raise CardFileError(f"{source}: {label}: must be a table of fields, got {describe(raw)}")
    try:
        return build(raw)
    except FieldError as problem:
        raise CardFileError(f"{source}: {label} {problem.where()}") from None


def _card_label(what: str, raw: Any, index: int) -> str:
    """A card is named by its name when it has a usable one, else by its 0-based index."""
    name = raw.get("name") if isinstance(raw, Mapping) else None
    if isinstance(name, str) and name.strip():
        return f"{what} {short(name)!r}"
    return f"{what} at index {index}"


def parse_part(raw: Mapping[str, Any]) -> PartCard:
    check_keys(raw, _PART_FIELDS, _PART_REQUIRED)
    return PartCard(
        name=check_name("name", raw["name"]),
        connectors=_connectors("connectors", raw["connectors"]),
        crew_cost=_bounded_int("crew_cost", raw.get("crew_cost", 0), 0, MAX_CREW_COST),
        icons=_icons("icons", raw.get("icons", [])),
        biotech=_bounded_int("biotech", raw.get("biotech", 0), 0, MAX_PART_BIOTECH),
        engines=_ranks("engines", raw.get("engines", [])),
    )


def parse_mission(raw: Mapping[str, Any]) -> MissionCard:
    check_keys(raw, _MISSION_FIELDS, _MISSION_REQUIRED)
    mission = MissionCard(
        name=check_name("name", raw["name"]),
        value=_bounded_int("value", raw["value"], 1, MAX_MISSION_VALUE),
        climactic=check_bool("climactic", raw.get("climactic", False)),
        engines=_dice("engines", raw.get("engines", [])),
        biotech=_bounded_int("biotech", raw.get("biotech", 0), 0, MAX_MISSION_BIOTECH),
        science=_bounded_int("science", raw.get("science", 0), 0, MAX_MISSION_SCIENCE),
    )
    if not has_requirement(mission):
        raise FieldError(
            ("engines", "biotech", "science"),
            "a mission needs at least one requirement, but it has no engines, 0 bio-tech and "
            "0 science",
        )
    return mission


def has_requirement(mission: MissionCard) -> bool:
    return bool(mission.engines) or mission.biotech > 0 or mission.science > 0


# =============================================================================================
# Field parsers: each returns the typed value or raises FieldError saying what is right
# =============================================================================================


def check_keys(raw: Mapping[str, Any], fields: Mapping[str, str], required: Sequence[str]) -> None:
    unknown = sorted(str(key) for key in raw if key not in fields)
    if unknown:
        noun = "unknown key" if len(unknown) == 1 else "unknown keys"
        raise FieldError(unknown, f"{noun}; the allowed keys are {', '.join(fields)}")
    for key in required:
        if key not in raw:
            raise FieldError(key, f"required field is missing; it must be {fields[key]}")


def check_name(field: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise FieldError(field, f"must be {NAME_TEXT}, got {describe(value)}")
    if len(value) > MAX_NAME_LENGTH:
        raise FieldError(field, f"must be {NAME_TEXT}, got {len(value)} characters")
    return value


def check_string(field: str, value: Any) -> str:
    if not isinstance(value, str):
        raise FieldError(field, f"must be a string, got {describe(value)}")
    return value


def check_bool(field: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise FieldError(field, f"must be true or false, got {describe(value)}")
    return value


def _is_int(value: Any) -> bool:
    """bool is a subclass of int in Python, but `true` is not a number in a card file."""
    return isinstance(value, int) and not isinstance(value, bool)


def _bounded_int(field: str, value: Any, low: int, high: int | None) -> int:
    if not _is_int(value) or value < low or (high is not None and value > high):
        expected = f"an integer {low}..{high}" if high is not None else f"an integer >= {low}"
        raise FieldError(field, f"must be {expected}, got {describe(value)}")
    return int(value)


def _list(field: str, value: Any, expected: str, limit: int | None = None) -> list[Any]:
    if not isinstance(value, (list, tuple)) or (limit is not None and len(value) > limit):
        raise FieldError(field, f"must be {expected}, got {describe(value)}")
    return list(value)


def table_list(field: str, value: Any) -> list[Any]:
    return _list(field, value, SET_FIELDS[field], MAX_CARDS)


def _connectors(field: str, value: Any) -> frozenset[Side]:
    expected = _PART_FIELDS["connectors"]
    items = _list(field, value, expected)
    if not items:
        raise FieldError(field, f"must be {expected}, got an empty list")
    sides: list[Side] = []
    for item in items:
        if not isinstance(item, str) or item not in _SIDE_VALUES:
            raise FieldError(field, f"each side must be one of {_SIDE_NAMES}, got {describe(item)}")
        if Side(item) in sides:
            raise FieldError(field, f"side {item!r} is listed twice; list each side once")
        sides.append(Side(item))
    return frozenset(sides)


def _ranks(field: str, value: Any) -> tuple[int, ...]:
    items = _list(field, value, _PART_FIELDS["engines"], MAX_PART_ENGINES)
    for item in items:
        if not _is_int(item) or not 1 <= item <= MAX_ENGINE_RANK:
            raise FieldError(
                field,
                f"each engine rank must be a positive integer up to {MAX_ENGINE_RANK}, "
                f"got {describe(item)}",
            )
    repeated = [rank for rank, n in Counter(items).items() if n > 1]
    if repeated:
        raise FieldError(
            field, f"rank {repeated[0]} appears twice; ranks must be unique across the deck"
        )
    return tuple(items)


def _dice(field: str, value: Any) -> tuple[int, ...]:
    expected = _MISSION_FIELDS["engines"]
    items = _list(field, value, expected)
    if len(items) > MAX_MISSION_ENGINES:
        raise FieldError(field, f"must be {expected}, got {len(items)} values")
    for item in items:
        if not _is_int(item) or not MIN_MISSION_DIE <= item <= MAX_MISSION_DIE:
            raise FieldError(
                field,
                f"each minimum die value must be an integer {MIN_MISSION_DIE}..{MAX_MISSION_DIE}, "
                f"got {describe(item)}",
            )
    return tuple(items)


def _icons(field: str, value: Any) -> tuple[Icon, ...]:
    items = _list(field, value, _PART_FIELDS["icons"], MAX_PART_ICONS)
    return tuple(_icon(f"{field}[{i}]", item) for i, item in enumerate(items))


def _icon(field: str, value: Any) -> Icon:
    if not isinstance(value, Mapping):
        raise FieldError(field, f"must be a table {_ICON_TABLE}, got {describe(value)}")
    unknown = sorted(str(key) for key in value if key not in _ICON_FIELDS)
    if unknown:
        raise FieldError(f"{field}.{unknown[0]}", "unknown key; an icon has only kind and timing")
    for key, names in _ICON_FIELDS.items():
        if key not in value:
            raise FieldError(f"{field}.{key}", f"required field is missing; use one of {names}")
    return Icon(
        kind=_enum(f"{field}.kind", value["kind"], IconKind, _KIND_NAMES),
        timing=_enum(f"{field}.timing", value["timing"], Timing, _TIMING_NAMES),
    )


def _enum(field: str, value: Any, enum: type[IconKind] | type[Timing], names: str) -> Any:
    if not isinstance(value, str) or value not in {member.value for member in enum}:
        raise FieldError(field, f"must be one of {names}, got {describe(value)}")
    return enum(value)


def describe(value: Any) -> str:
    """Show a bad value the way the file spells it, with its type when that is the problem."""
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return f"string {short(value)!r}"
    if isinstance(value, float):
        return f"number {value!r}"
    if value is None:
        return "null"
    if isinstance(value, Mapping):
        return "a table"
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)}"
    return type(value).__name__


# =============================================================================================
# Writing
# =============================================================================================


def part_to_dict(part: PartCard) -> dict[str, Any]:
    return {
        "name": part.name,
        "connectors": [side.value for side in SIDES if side in part.connectors],
        "crew_cost": part.crew_cost,
        "biotech": part.biotech,
        "engines": list(part.engines),
        "icons": [{"kind": i.kind.value, "timing": i.timing.value} for i in part.icons],
    }


def mission_to_dict(mission: MissionCard) -> dict[str, Any]:
    return {
        "name": mission.name,
        "value": mission.value,
        "climactic": mission.climactic,
        "engines": list(mission.engines),
        "biotech": mission.biotech,
        "science": mission.science,
    }
