"""The card-file format (R-COMP-4, R-CARDS-5) as a msgspec schema: every field's type and limits
declared once, with what a right value looks like. `problem` turns what msgspec refuses into a
one-line message naming the card and the field; what spans fields or cards is in `checks`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import Enum
from typing import Annotated, Any

import msgspec
from msgspec import Meta
from msgspec import inspect as mi

from farlight_env.cards.model import (
    SIDES,
    CardSet,
    Icon,
    IconKind,
    MissionCard,
    PartCard,
    Side,
    Timing,
)
from farlight_env.platform.protocol import GameError
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


def _names(enum: type[Enum]) -> str:
    return ", ".join(f'"{member.value}"' for member in enum)


_ICON_TABLE = f"{{ kind = one of {_names(IconKind)}; timing = one of {_names(Timing)} }}"
NAME_TEXT = f"a non-empty string (at most {MAX_NAME_LENGTH} characters)"

# A field's `description` says what a right value is (integers, booleans and enums without one
# are described from their type); a list item's `title` names one item in messages.
Name = Annotated[str, Meta(max_length=MAX_NAME_LENGTH, pattern=r"\S", description=NAME_TEXT)]
Connectors = Annotated[
    list[Annotated[Side, Meta(title="side")]],
    Meta(min_length=1, description=f"a non-empty list of distinct sides from {_names(Side)}"),
]
CrewCost = Annotated[int, Meta(ge=0, le=MAX_CREW_COST)]
PartBiotech = Annotated[int, Meta(ge=0, le=MAX_PART_BIOTECH)]
EngineRank = Annotated[
    int,
    Meta(
        ge=1,
        le=MAX_ENGINE_RANK,
        title="engine rank",
        description=f"a positive integer up to {MAX_ENGINE_RANK}",
    ),
]
EngineRanks = Annotated[
    list[EngineRank],
    Meta(
        max_length=MAX_PART_ENGINES,
        description=f"a list of at most {MAX_PART_ENGINES} positive integer ranks up to "
        f"{MAX_ENGINE_RANK}, unique across the deck",
    ),
]
MissionValue = Annotated[
    int,
    Meta(ge=1, le=MAX_MISSION_VALUE, description=f"a positive integer 1..{MAX_MISSION_VALUE}"),
]
MinimumDice = Annotated[
    list[Annotated[int, Meta(ge=MIN_MISSION_DIE, le=MAX_MISSION_DIE, title="minimum die value")]],
    Meta(
        max_length=MAX_MISSION_ENGINES,
        description=f"a list of at most {MAX_MISSION_ENGINES} minimum die values "
        f"{MIN_MISSION_DIE}..{MAX_MISSION_DIE}",
    ),
]
MissionBiotech = Annotated[int, Meta(ge=0, le=MAX_MISSION_BIOTECH)]
MissionScience = Annotated[int, Meta(ge=0, le=MAX_MISSION_SCIENCE)]
Description = Annotated[
    str,
    Meta(
        max_length=MAX_DESCRIPTION_LENGTH,
        description=f"a string of at most {MAX_DESCRIPTION_LENGTH} characters",
    ),
]


class IconFile(msgspec.Struct, forbid_unknown_fields=True):
    """One benefit icon of a part."""

    kind: IconKind
    timing: Timing


Icons = Annotated[
    list[Annotated[IconFile, Meta(description=f"a table {_ICON_TABLE}")]],
    Meta(
        max_length=MAX_PART_ICONS,
        description=f"a list of at most {MAX_PART_ICONS} icon tables, each {_ICON_TABLE}",
    ),
]


class PartFile(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """One `[[parts]]` table (R-CARDS-1); `engines` are the printed ranks of its engine icons."""

    name: Name
    connectors: Connectors
    crew_cost: CrewCost = 0
    biotech: PartBiotech = 0
    engines: EngineRanks = []
    icons: Icons = []

    def card(self) -> PartCard:
        return PartCard(
            name=self.name,
            connectors=frozenset(self.connectors),
            crew_cost=self.crew_cost,
            icons=tuple(Icon(icon.kind, icon.timing) for icon in self.icons),
            biotech=self.biotech,
            engines=tuple(self.engines),
        )

    @classmethod
    def of(cls, part: PartCard) -> PartFile:
        return cls(
            name=part.name,
            connectors=[side for side in SIDES if side in part.connectors],
            crew_cost=part.crew_cost,
            biotech=part.biotech,
            engines=list(part.engines),
            icons=[IconFile(icon.kind, icon.timing) for icon in part.icons],
        )


class MissionFile(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """One `[[missions]]` table (R-CARDS-2); `engines` are minimum die values."""

    name: Name
    value: MissionValue
    climactic: bool = False
    engines: MinimumDice = []
    biotech: MissionBiotech = 0
    science: MissionScience = 0

    def card(self) -> MissionCard:
        return MissionCard(
            self.name, self.value, self.climactic, tuple(self.engines), self.biotech, self.science
        )

    @classmethod
    def of(cls, mission: MissionCard) -> MissionFile:
        return cls(
            name=mission.name,
            value=mission.value,
            climactic=mission.climactic,
            engines=list(mission.engines),
            biotech=mission.biotech,
            science=mission.science,
        )


# A card in a list is named in messages by its title and its name (or index).
Parts = Annotated[
    list[Annotated[PartFile, Meta(title="part", description="a table of fields")]],
    Meta(max_length=MAX_CARDS, description=f"a list of part tables (at most {MAX_CARDS})"),
]
Missions = Annotated[
    list[Annotated[MissionFile, Meta(title="mission", description="a table of fields")]],
    Meta(max_length=MAX_CARDS, description=f"a list of mission tables (at most {MAX_CARDS})"),
]


class CardSetFile(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A whole card file: the set's name and notes, then its parts and missions."""

    name: Name
    reconstructed: bool = False
    description: Description = ""
    parts: Parts
    missions: Missions

    @classmethod
    def of(cls, cs: CardSet) -> CardSetFile:
        return cls(
            name=cs.name,
            reconstructed=cs.reconstructed,
            description=cs.description,
            parts=[PartFile.of(p) for p in cs.parts],
            missions=[MissionFile.of(m) for m in cs.missions],
        )


#: The top level of a card file.
CARD_FILE = Annotated[CardSetFile, Meta(description="a table of card-set fields")]


class CardFileError(GameError):
    """A card file or card mapping that cannot be used; the message says where and why, in one
    line of at most about MAX_MESSAGE_CHARS characters."""

    def __init__(self, message: str) -> None:
        super().__init__(clip_message(message))


def read_card_file(data: Any, source: str) -> CardSetFile:
    """`data` (as parsed from TOML/JSON) as a CardSetFile; CardFileError says what is wrong."""
    try:
        return msgspec.convert(
            dict(data) if isinstance(data, Mapping) else data, CARD_FILE, strict=True
        )
    except msgspec.ValidationError as exc:
        raise CardFileError(f"{source}: {problem(str(exc), data, CARD_FILE)}") from None


# =============================================================================================
# msgspec's refusal -> the message: "<card> field '<field>': must be <description>, got <value>"
# =============================================================================================

_AT = re.compile(r"(?P<reason>.*?)(?: - at `\$(?P<path>[^`]*)`)?", re.DOTALL)
_STEP = re.compile(r"\.(\w+)|\[(\d+)\]")
_MISSING = re.compile(r"Object missing required field `(\w+)`")


def problem(error: str, data: Any, schema: Any) -> str:
    """What msgspec's `error` ("<reason> - at `$.parts[3].cost`") means, said of `data` in the
    words the schema's titles and descriptions give (msgspec's own words if the path is odd)."""
    match = _AT.fullmatch(error)
    reason, path = match.group("reason", "path") if match else (error, None)
    try:
        return _problem(reason, path or "", data, schema)
    except (LookupError, TypeError, AttributeError, ValueError, StopIteration):
        return error  # a key that spells " - at `$..." can mislead the path; never crash on it


def _problem(reason: str, path: str, data: Any, schema: Any) -> str:
    kind, meta = _unwrap(mi.type_info(schema))
    value, subject, field, each = data, "", "", ""
    for name, index in _STEP.findall(path):
        if name:
            kind, meta = _unwrap(next(f.type for f in kind.fields if f.encode_name == name))
            value = value.get(name) if isinstance(value, Mapping) else None
            field = f"{field}.{name}" if field else name
            continue
        kind, meta = _unwrap(kind.item_type)
        value = value[int(index)]
        if not isinstance(kind, mi.StructType):
            each = meta.get("title", "item")  # one value of a list of values
        elif "title" in meta and not subject:  # a card: named by its name, else by its index
            name = value.get("name") if isinstance(value, Mapping) else None
            usable = isinstance(name, str) and name.strip()
            subject = f"{meta['title']} " + (repr(short(name)) if usable else f"at index {index}")
            field = ""
        else:
            field += f"[{index}]"
    if reason.startswith("Object contains unknown field"):
        allowed = [f.encode_name for f in kind.fields]
        unknown = sorted(str(key) for key in value if key not in allowed)
        if not unknown:
            raise LookupError("the path does not lead to the unknown key")
        noun = "unknown key" if len(unknown) == 1 else "unknown keys"
        names = [f"{field}.{key}" if field else key for key in unknown]
        return _said(subject, names, f"{noun}; the allowed keys are {', '.join(allowed)}")
    if missing := _MISSING.fullmatch(reason):
        name = missing[1]
        kind, meta = _unwrap(next(f.type for f in kind.fields if f.encode_name == name))
        text = f"required field is missing; it must be {_expected(kind, meta)}"
        return _said(subject, [f"{field}.{name}" if field else name], text)
    got = _size(value) if " of length " in reason else describe(value)
    if each:
        return _said(subject, [field], f"each {each} must be {_expected(kind, meta)}, got {got}")
    return _said(subject, [field] if field else [], f"must be {_expected(kind, meta)}, got {got}")


def _unwrap(kind: Any) -> tuple[Any, dict[str, Any]]:
    """A type without its Annotated metadata, and the title/description that metadata gives."""
    meta: dict[str, Any] = {}
    while isinstance(kind, mi.Metadata):
        meta = {**(kind.extra_json_schema or {}), **meta}
        kind = kind.type
    return kind, meta


def _expected(kind: Any, meta: dict[str, Any]) -> str:
    """What a right value is: the declared description, else said from the type's limits."""
    if "description" in meta:
        return meta["description"]
    if isinstance(kind, mi.IntType):
        return f"an integer {kind.ge}..{kind.le}"
    if isinstance(kind, mi.BoolType):
        return "true or false"
    if isinstance(kind, mi.EnumType):
        return f"one of {_names(kind.cls)}"
    return str(kind)


def _said(subject: str, fields: list[str], text: str) -> str:
    """ "part 'X' field 'y': text"; the top level when there is no card and no field."""
    named = f"field{'s' if len(fields) > 1 else ''} {some_names(fields)}" if fields else ""
    where = " ".join(part for part in (subject, named) if part)
    return f"{where}: {text}" if where else f"the top level {text}"


def _size(value: Any) -> str:
    """How long a too long (or too short) value is."""
    if isinstance(value, str):
        return f"{len(value)} characters"
    return f"{len(value)} values" if value else "an empty list"


def describe(value: Any) -> str:
    """Show a bad value the way the file spells it, with its type when that is the problem."""
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int):
        return str(value) if value.bit_length() < 10_000 else "an integer of over 3,000 digits"
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
