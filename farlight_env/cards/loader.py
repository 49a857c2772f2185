"""Load and validate card sets from plain TOML/JSON data (R-COMP-4, R-CARDS-5).

A card file is data a player may write by hand (e.g. a transcription of the real cards), so every
problem is refused up front with a message naming the file, the card and the field, and saying
what would be right. The engine can then trust a `CardSet` without re-checking it.
"""

from __future__ import annotations

import functools
import json
import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from farlight_env.messages import clip_message, short, some_names

from .model import SIDES, CardSet, Icon, IconKind, MissionCard, PartCard, Side, Timing

__all__ = [
    "CardFileError",
    "card_set_from_dict",
    "card_set_to_dict",
    "load_card_set",
    "standard_card_set",
    "standard_constraints_report",
]

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

# --- playability minimums for any player count (R-SETUP-3, R-SETUP-4) --------------------------
MIN_CLIMACTIC = 3  # one at the bottom of each of the 3 stacks
MIN_REGULAR = 9  # 3 per stack with 4-5 players
MIN_PARTS = 13  # 12 station spaces with 5 players, plus one refill

# --- constraints on the shipped standard set only (R-COMP-3, R-CARDS-1..3) ---------------------
STANDARD_PARTS = 57
STANDARD_MISSIONS = 23
STANDARD_ENGINE_ICONS = (16, 20)
STANDARD_CLIMACTIC = (5, 7)

STANDARD_FILE = "standard.toml"
_PACKAGE = __name__.rpartition(".")[0]

_SIDE_VALUES = frozenset(s.value for s in SIDES)
_SIDE_NAMES = ", ".join(f'"{s.value}"' for s in SIDES)
_KIND_NAMES = ", ".join(f'"{k.value}"' for k in IconKind)
_TIMING_NAMES = ", ".join(f'"{t.value}"' for t in Timing)
_ICON_TABLE = f"{{ kind = one of {_KIND_NAMES}; timing = one of {_TIMING_NAMES} }}"

# Field -> what a right value looks like; a field without a default is required.
_NAME = f"a non-empty string (at most {MAX_NAME_LENGTH} characters)"
_SET_FIELDS = {
    "name": _NAME,
    "reconstructed": "a boolean",
    "description": f"a string of at most {MAX_DESCRIPTION_LENGTH} characters",
    "parts": f"a list of part tables (at most {MAX_CARDS})",
    "missions": f"a list of mission tables (at most {MAX_CARDS})",
}
_SET_REQUIRED = ("name", "parts", "missions")
_PART_FIELDS = {
    "name": _NAME,
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
    "name": _NAME,
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


class _FieldError(Exception):
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
# Public API
# =============================================================================================


def load_card_set(path: str | os.PathLike[str] | None = None) -> CardSet:
    """Load a card file (`.toml` or `.json`); None loads the shipped standard set."""
    if path is None:
        resource = resources.files(_PACKAGE).joinpath("data").joinpath(STANDARD_FILE)
        return _parse_text(resource.read_text(encoding="utf-8"), ".toml", STANDARD_FILE)
    source = os.fspath(path)
    suffix = Path(source).suffix.lower()
    if suffix not in _DECODERS:
        raise CardFileError(
            f"{source}: unknown card file type {suffix or '(none)'!r}; use .toml or .json"
        )
    return _parse_text(_read_text(source), suffix, source)


@functools.lru_cache(maxsize=1)
def standard_card_set() -> CardSet:
    """The shipped reconstructed standard set, parsed once (CardSet is immutable)."""
    return load_card_set(None)


def card_set_from_dict(data: Mapping[str, Any], source: str = "<dict>") -> CardSet:
    """Validate plain data (as parsed from TOML/JSON) and build a CardSet from it."""
    if not isinstance(data, Mapping):
        raise CardFileError(
            f"{source}: the top level must be a table of card-set fields, got {_describe(data)}"
        )
    try:
        _check_keys(data, _SET_FIELDS, _SET_REQUIRED)
        name = _name("name", data["name"])
        reconstructed = _bool("reconstructed", data.get("reconstructed", False))
        description = _string("description", data.get("description", ""))
        if len(description) > MAX_DESCRIPTION_LENGTH:
            raise _FieldError("description", f"must be {_SET_FIELDS['description']}")
        raw_parts = _table_list("parts", data["parts"])
        raw_missions = _table_list("missions", data["missions"])
    except _FieldError as problem:
        raise CardFileError(f"{source}: {problem.where()}") from None
    parts = tuple(_parse_card("part", raw, i, source, _part) for i, raw in enumerate(raw_parts))
    missions = tuple(
        _parse_card("mission", raw, i, source, _mission) for i, raw in enumerate(raw_missions)
    )
    _check_unique_names("part", parts, source)
    _check_unique_names("mission", missions, source)
    _check_unique_ranks(parts, source)
    _check_climactic_above_regular(missions, source)
    _check_playable(parts, missions, source)
    return CardSet(
        name=name,
        parts=parts,
        missions=missions,
        reconstructed=reconstructed,
        description=description,
    )


def card_set_to_dict(cs: CardSet) -> dict[str, Any]:
    """Plain JSON-able data in the card-file format; `card_set_from_dict` inverts it exactly."""
    return {
        "name": cs.name,
        "reconstructed": cs.reconstructed,
        "description": cs.description,
        "parts": [_part_to_dict(p) for p in cs.parts],
        "missions": [_mission_to_dict(m) for m in cs.missions],
    }


def standard_constraints_report(cs: CardSet) -> list[str]:
    """Every R-CARDS-1..3 constraint of the standard set that `cs` violates; empty when it meets
    them all. User card files need not meet these (only the loader's checks)."""
    return [*_report_parts(cs), *_report_missions(cs), *_report_rulebook_names(cs)]


# =============================================================================================
# Reading and decoding
# =============================================================================================


def _read_text(source: str) -> str:
    try:
        with open(source, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:
            raise CardFileError(
                f"{source}: card file is larger than {MAX_FILE_BYTES // 1024} KiB; "
                "a card set is far smaller"
            )
        return raw.decode("utf-8")
    except FileNotFoundError:
        raise CardFileError(f"{source}: no such card file") from None
    except UnicodeDecodeError as err:
        detail = f"{err.reason} at byte {err.start}"
        raise CardFileError(f"{source}: not UTF-8 text ({detail})") from None
    except OSError as err:
        raise CardFileError(f"{source}: cannot read card file ({err.strerror or err})") from None


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """JSON would silently keep the last of two equal keys; a card file must not be ambiguous."""
    counts = Counter(key for key, _ in pairs)
    duplicates = sorted(key for key, n in counts.items() if n > 1)
    if duplicates:
        raise ValueError(f"duplicate key {short(duplicates[0])!r} in one object")
    return dict(pairs)


def _decode_json(text: str) -> Any:
    return json.loads(text, object_pairs_hook=_reject_duplicate_keys)


_DECODERS: dict[str, tuple[str, Callable[[str], Any]]] = {
    ".toml": ("TOML", tomllib.loads),
    ".json": ("JSON", _decode_json),
}


def _parse_text(text: str, suffix: str, source: str) -> CardSet:
    kind, decode = _DECODERS[suffix]
    try:
        data = decode(text)
    except ValueError as err:  # TOMLDecodeError and JSONDecodeError are ValueErrors
        raise CardFileError(f"{source}: not valid {kind}: {err}") from None
    except RecursionError:
        raise CardFileError(f"{source}: not valid {kind}: nested too deeply") from None
    return card_set_from_dict(data, source)


# =============================================================================================
# One card
# =============================================================================================


def _parse_card(
    what: str,
    raw: Any,
    index: int,
    source: str,
    build: Callable[[Mapping[str, Any]], Any],
) -> Any:
    """Build one card, turning a field problem into an error naming source, card and field."""
    label = _card_label(what, raw, index)
    if not isinstance(raw, Mapping):
        raise CardFileError(f"{source}: {label}: must be a table of fields, got {_describe(raw)}")
    try:
        return build(raw)
    except _FieldError as problem:
        raise CardFileError(f"{source}: {label} {problem.where()}") from None


def _card_label(what: str, raw: Any, index: int) -> str:
    """A card is named by its name when it has a usable one, else by its 0-based index."""
    name = raw.get("name") if isinstance(raw, Mapping) else None
    if isinstance(name, str) and name.strip():
        return f"{what} {short(name)!r}"
    return f"{what} at index {index}"


def _part(raw: Mapping[str, Any]) -> PartCard:
    _check_keys(raw, _PART_FIELDS, _PART_REQUIRED)
    return PartCard(
        name=_name("name", raw["name"]),
        connectors=_connectors("connectors", raw["connectors"]),
        crew_cost=_bounded_int("crew_cost", raw.get("crew_cost", 0), 0, MAX_CREW_COST),
        icons=_icons("icons", raw.get("icons", [])),
        biotech=_bounded_int("biotech", raw.get("biotech", 0), 0, MAX_PART_BIOTECH),
        engines=_ranks("engines", raw.get("engines", [])),
    )


def _mission(raw: Mapping[str, Any]) -> MissionCard:
    _check_keys(raw, _MISSION_FIELDS, _MISSION_REQUIRED)
    mission = MissionCard(
        name=_name("name", raw["name"]),
        value=_bounded_int("value", raw["value"], 1, MAX_MISSION_VALUE),
        climactic=_bool("climactic", raw.get("climactic", False)),
        engines=_dice("engines", raw.get("engines", [])),
        biotech=_bounded_int("biotech", raw.get("biotech", 0), 0, MAX_MISSION_BIOTECH),
        science=_bounded_int("science", raw.get("science", 0), 0, MAX_MISSION_SCIENCE),
    )
    if not _has_requirement(mission):
        raise _FieldError(
            ("engines", "biotech", "science"),
            "a mission needs at least one requirement, but it has no engines, 0 bio-tech and "
            "0 science",
        )
    return mission


def _has_requirement(mission: MissionCard) -> bool:
    return bool(mission.engines) or mission.biotech > 0 or mission.science > 0


# =============================================================================================
# Field parsers: each returns the typed value or raises _FieldError saying what is right
# =============================================================================================


def _check_keys(raw: Mapping[str, Any], fields: Mapping[str, str], required: Sequence[str]) -> None:
    unknown = sorted(str(key) for key in raw if key not in fields)
    if unknown:
        noun = "unknown key" if len(unknown) == 1 else "unknown keys"
        raise _FieldError(unknown, f"{noun}; the allowed keys are {', '.join(fields)}")
    for key in required:
        if key not in raw:
            raise _FieldError(key, f"required field is missing; it must be {fields[key]}")


def _name(field: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _FieldError(field, f"must be {_NAME}, got {_describe(value)}")
    if len(value) > MAX_NAME_LENGTH:
        raise _FieldError(field, f"must be {_NAME}, got {len(value)} characters")
    return value


def _string(field: str, value: Any) -> str:
    if not isinstance(value, str):
        raise _FieldError(field, f"must be a string, got {_describe(value)}")
    return value


def _bool(field: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise _FieldError(field, f"must be true or false, got {_describe(value)}")
    return value


def _is_int(value: Any) -> bool:
    """bool is a subclass of int in Python, but `true` is not a number in a card file."""
    return isinstance(value, int) and not isinstance(value, bool)


def _bounded_int(field: str, value: Any, low: int, high: int | None) -> int:
    if not _is_int(value) or value < low or (high is not None and value > high):
        expected = f"an integer {low}..{high}" if high is not None else f"an integer >= {low}"
        raise _FieldError(field, f"must be {expected}, got {_describe(value)}")
    return int(value)


def _list(field: str, value: Any, expected: str, limit: int | None = None) -> list[Any]:
    if not isinstance(value, (list, tuple)) or (limit is not None and len(value) > limit):
        raise _FieldError(field, f"must be {expected}, got {_describe(value)}")
    return list(value)


def _table_list(field: str, value: Any) -> list[Any]:
    return _list(field, value, _SET_FIELDS[field], MAX_CARDS)


def _connectors(field: str, value: Any) -> frozenset[Side]:
    expected = _PART_FIELDS["connectors"]
    items = _list(field, value, expected)
    if not items:
        raise _FieldError(field, f"must be {expected}, got an empty list")
    sides: list[Side] = []
    for item in items:
        if not isinstance(item, str) or item not in _SIDE_VALUES:
            raise _FieldError(
                field, f"each side must be one of {_SIDE_NAMES}, got {_describe(item)}"
            )
        if Side(item) in sides:
            raise _FieldError(field, f"side {item!r} is listed twice; list each side once")
        sides.append(Side(item))
    return frozenset(sides)


def _ranks(field: str, value: Any) -> tuple[int, ...]:
    items = _list(field, value, _PART_FIELDS["engines"], MAX_PART_ENGINES)
    for item in items:
        if not _is_int(item) or not 1 <= item <= MAX_ENGINE_RANK:
            raise _FieldError(
                field,
                f"each engine rank must be a positive integer up to {MAX_ENGINE_RANK}, "
                f"got {_describe(item)}",
            )
    repeated = [rank for rank, n in Counter(items).items() if n > 1]
    if repeated:
        raise _FieldError(
            field, f"rank {repeated[0]} appears twice; ranks must be unique across the deck"
        )
    return tuple(items)


def _dice(field: str, value: Any) -> tuple[int, ...]:
    expected = _MISSION_FIELDS["engines"]
    items = _list(field, value, expected)
    if len(items) > MAX_MISSION_ENGINES:
        raise _FieldError(field, f"must be {expected}, got {len(items)} values")
    for item in items:
        if not _is_int(item) or not MIN_MISSION_DIE <= item <= MAX_MISSION_DIE:
            raise _FieldError(
                field,
                f"each minimum die value must be an integer {MIN_MISSION_DIE}..{MAX_MISSION_DIE}, "
                f"got {_describe(item)}",
            )
    return tuple(items)


def _icons(field: str, value: Any) -> tuple[Icon, ...]:
    items = _list(field, value, _PART_FIELDS["icons"], MAX_PART_ICONS)
    return tuple(_icon(f"{field}[{i}]", item) for i, item in enumerate(items))


def _icon(field: str, value: Any) -> Icon:
    if not isinstance(value, Mapping):
        raise _FieldError(field, f"must be a table {_ICON_TABLE}, got {_describe(value)}")
    unknown = sorted(str(key) for key in value if key not in _ICON_FIELDS)
    if unknown:
        raise _FieldError(f"{field}.{unknown[0]}", "unknown key; an icon has only kind and timing")
    for key, names in _ICON_FIELDS.items():
        if key not in value:
            raise _FieldError(f"{field}.{key}", f"required field is missing; use one of {names}")
    return Icon(
        kind=_enum(f"{field}.kind", value["kind"], IconKind, _KIND_NAMES),
        timing=_enum(f"{field}.timing", value["timing"], Timing, _TIMING_NAMES),
    )


def _enum(field: str, value: Any, enum: type[IconKind] | type[Timing], names: str) -> Any:
    if not isinstance(value, str) or value not in {member.value for member in enum}:
        raise _FieldError(field, f"must be one of {names}, got {_describe(value)}")
    return enum(value)


def _describe(value: Any) -> str:
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
# Whole-deck checks
# =============================================================================================


def _check_unique_names(
    what: str, cards: Sequence[PartCard] | Sequence[MissionCard], source: str
) -> None:
    """Names that differ only by case or surrounding spaces are the same card to a reader."""
    first: dict[str, int] = {}
    for index, card in enumerate(cards):
        key = card.name.strip().casefold()
        if key in first:
            raise CardFileError(
                f"{source}: {what} {card.name!r} field 'name': must be unique (ignoring case and "
                f"surrounding spaces), but the {what} at index {first[key]} has the same name "
                f"(this one is at index {index})"
            )
        first[key] = index


def _check_unique_ranks(parts: Sequence[PartCard], source: str) -> None:
    owner: dict[int, str] = {}
    for part in parts:
        for rank in part.engines:
            if rank in owner:
                raise CardFileError(
                    f"{source}: part {part.name!r} field 'engines': rank {rank} is already used "
                    f"by part {owner[rank]!r}; engine ranks must be unique across the deck"
                )
            owner[rank] = part.name


def _check_climactic_above_regular(missions: Sequence[MissionCard], source: str) -> None:
    regular = [m for m in missions if not m.climactic]
    climactic = [m for m in missions if m.climactic]
    if not regular or not climactic:
        return
    top = max(regular, key=lambda m: m.value)
    low = min(climactic, key=lambda m: m.value)
    if low.value <= top.value:
        raise CardFileError(
            f"{source}: mission {low.name!r} field 'value': a climactic mission must be worth "
            f"more than every regular mission, got {low.value} but regular mission "
            f"{top.name!r} is worth {top.value}"
        )


def _check_playable(
    parts: Sequence[PartCard], missions: Sequence[MissionCard], source: str
) -> None:
    """Enough cards to set up a game of any size (R-SETUP-3, R-SETUP-4)."""
    climactic = sum(m.climactic for m in missions)
    regular = len(missions) - climactic
    if len(parts) < MIN_PARTS:
        raise CardFileError(
            f"{source}: field 'parts': needs at least {MIN_PARTS} parts (12 station spaces with "
            f"5 players plus one refill), got {len(parts)}"
        )
    if climactic < MIN_CLIMACTIC:
        raise CardFileError(
            f"{source}: field 'missions': needs at least {MIN_CLIMACTIC} climactic missions "
            f"(one per stack), got {climactic}"
        )
    if regular < MIN_REGULAR:
        raise CardFileError(
            f"{source}: field 'missions': needs at least {MIN_REGULAR} regular missions "
            f"(3 per stack with 4-5 players), got {regular}"
        )


# =============================================================================================
# Writing
# =============================================================================================


def _part_to_dict(part: PartCard) -> dict[str, Any]:
    return {
        "name": part.name,
        "connectors": [side.value for side in SIDES if side in part.connectors],
        "crew_cost": part.crew_cost,
        "biotech": part.biotech,
        "engines": list(part.engines),
        "icons": [{"kind": i.kind.value, "timing": i.timing.value} for i in part.icons],
    }


def _mission_to_dict(mission: MissionCard) -> dict[str, Any]:
    return {
        "name": mission.name,
        "value": mission.value,
        "climactic": mission.climactic,
        "engines": list(mission.engines),
        "biotech": mission.biotech,
        "science": mission.science,
    }


# =============================================================================================
# Standard-set constraints (R-COMP-3, R-CARDS-1..3)
# =============================================================================================


def _duplicates(names: Sequence[str]) -> list[str]:
    return sorted(name for name, n in Counter(names).items() if n > 1)


def _report_parts(cs: CardSet) -> list[str]:
    """R-CARDS-1: count, names, connectors, costs, bio-tech, engine icons and ranks."""
    out: list[str] = []
    parts = cs.parts
    if len(parts) != STANDARD_PARTS:
        out.append(f"R-CARDS-1: {STANDARD_PARTS} parts expected, got {len(parts)}")
    if dup := _duplicates([p.name for p in parts]):
        out.append(f"R-CARDS-1: part names must be unique; repeated: {', '.join(dup)}")
    combos = {p.connectors for p in parts if p.connectors}
    if len(combos) != 15:
        out.append(f"R-CARDS-1: all 15 connector combinations must appear, got {len(combos)}")
    for p in parts:
        if not p.connectors:
            out.append(f"R-CARDS-1: part {p.name!r} has no connectors")
        if not 0 <= p.crew_cost <= MAX_CREW_COST:
            out.append(f"R-CARDS-1: part {p.name!r} crew cost {p.crew_cost} is not 0..3")
        if not 0 <= p.biotech <= MAX_PART_BIOTECH:
            out.append(f"R-CARDS-1: part {p.name!r} bio-tech {p.biotech} is not 0..2")
    ranks = sorted(r for p in parts for r in p.engines)
    low, high = STANDARD_ENGINE_ICONS
    if not low <= len(ranks) <= high:
        out.append(f"R-CARDS-1: {low}-{high} engine icons expected, got {len(ranks)}")
    if ranks != list(range(1, len(ranks) + 1)):
        out.append(f"R-CARDS-1: engine ranks must be exactly 1..{len(ranks)}, each once")
    return out


def _report_missions(cs: CardSet) -> list[str]:
    """R-CARDS-2: count, names, climactic share and values, requirement ranges."""
    out: list[str] = []
    missions = cs.missions
    if len(missions) != STANDARD_MISSIONS:
        out.append(f"R-CARDS-2: {STANDARD_MISSIONS} missions expected, got {len(missions)}")
    if dup := _duplicates([m.name for m in missions]):
        out.append(f"R-CARDS-2: mission names must be unique; repeated: {', '.join(dup)}")
    climactic, regular = cs.climactic_missions, cs.regular_missions
    low, high = STANDARD_CLIMACTIC
    if not low <= len(climactic) <= high:
        out.append(f"R-CARDS-2: {low}-{high} climactic missions expected, got {len(climactic)}")
    if climactic and regular and min(m.value for m in climactic) <= max(m.value for m in regular):
        out.append("R-CARDS-2: every climactic value must be higher than every regular value")
    for m in missions:
        out.extend(_report_mission_ranges(m))
    return out


def _report_mission_ranges(m: MissionCard) -> list[str]:
    out: list[str] = []
    if m.value < 1:
        out.append(f"R-CARDS-2: mission {m.name!r} value {m.value} is not positive")
    if len(m.engines) > MAX_MISSION_ENGINES or any(
        not MIN_MISSION_DIE <= d <= MAX_MISSION_DIE for d in m.engines
    ):
        out.append(f"R-CARDS-2: mission {m.name!r} engines {list(m.engines)} are not 0-3 dice 2..6")
    if not 0 <= m.biotech <= MAX_MISSION_BIOTECH:
        out.append(f"R-CARDS-2: mission {m.name!r} bio-tech {m.biotech} is not 0..5")
    if not 0 <= m.science <= MAX_MISSION_SCIENCE:
        out.append(f"R-CARDS-2: mission {m.name!r} science {m.science} is not 0..6")
    if not _has_requirement(m):
        out.append(f"R-CARDS-2: mission {m.name!r} has no requirement")
    return out


def _report_rulebook_names(cs: CardSet) -> list[str]:
    """R-CARDS-3: the cards the rulebook names exist with the facts it gives."""
    out: list[str] = []
    if not any(p.name == "Proton Analyzer" for p in cs.parts):
        out.append("R-CARDS-3: part 'Proton Analyzer' is missing")
    missions = {m.name: m for m in cs.missions}
    training = missions.get("Colonist Training")
    expected = MissionCard("Colonist Training", value=5, biotech=1, science=1)
    if training != expected:
        out.append(
            "R-CARDS-3: mission 'Colonist Training' must be regular, worth 5, with 1 bio-tech, "
            f"1 science and no engines; got {training}"
        )
    pair = [missions.get("Cleomedes Moon Colony"), missions.get("Mars Elevator")]
    if any(m is None or m.climactic for m in pair):
        out.append("R-CARDS-3: regular missions 'Cleomedes Moon Colony' and 'Mars Elevator' needed")
    elif pair[0] is not None and pair[1] is not None and pair[0].value != pair[1].value:
        out.append("R-CARDS-3: 'Cleomedes Moon Colony' and 'Mars Elevator' must be worth the same")
    return out
