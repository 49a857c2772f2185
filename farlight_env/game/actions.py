"""Player decisions as frozen, hashable values with readable strings (DESIGN: rules engine)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np

from farlight_env.cards.model import FACILITIES


def _typed(action: object, field: str, exact: type, alike: type, what: str) -> None:
    """Accept exactly `exact`, or an `alike` value (numpy scalars) stored as `exact`; refuse
    anything else (bools are not ints, floats are not ints) with a TypeError naming the field."""
    value = getattr(action, field)
    if type(value) is exact:
        return
    if isinstance(value, alike):
        object.__setattr__(action, field, exact(value))
        return
    raise TypeError(
        f"{type(action).__name__}.{field} must be {what}, got {value!r} ({type(value).__name__})"
    )


def _int(action: object, field: str) -> None:
    _typed(action, field, int, np.integer, "an int (numpy integers too)")


def _bool(action: object, field: str) -> None:
    _typed(action, field, bool, np.bool_, "True or False")


def _str(action: object, field: str) -> None:
    _typed(action, field, str, str, "a card name (str)")  # str subclasses, e.g. numpy.str_


class TargetKind(str, Enum):
    PART = "part"
    FACILITY = "facility"
    MISSION = "mission"


@dataclass(frozen=True, slots=True)
class Target:
    """Where a bidding tile goes: a part space, a facility, or a mission stack's top card."""

    kind: TargetKind
    index: int

    def __post_init__(self) -> None:
        if not isinstance(self.kind, TargetKind):
            raise TypeError(f"Target.kind must be a TargetKind, got {self.kind!r}")
        _int(self, "index")

    def __str__(self) -> str:
        if self.kind is TargetKind.FACILITY:
            if 0 <= self.index < len(FACILITIES):
                return FACILITIES[self.index]
            return f"facility {self.index}"
        if self.kind is TargetKind.PART:
            return f"part space {self.index}"
        return f"mission stack {self.index}"


@dataclass(frozen=True, slots=True)
class Bid:
    """Place one tile of value `tile` on `target`, with one crew riding on it or not (R-BID-2/3)."""

    tile: int
    target: Target
    crew: bool = False

    def __post_init__(self) -> None:
        _int(self, "tile")
        if type(self.target) is not Target:
            raise TypeError(f"Bid.target must be a Target, got {self.target!r}")
        _bool(self, "crew")

    def __str__(self) -> str:
        return f"bid {self.tile}{' +crew' if self.crew else ''} on {self.target}"


@dataclass(frozen=True, slots=True)
class RefitRemove:
    """Refit: remove one installed part from the ship (R-RES-5)."""

    part: str

    def __post_init__(self) -> None:
        _str(self, "part")

    def __str__(self) -> str:
        return f"refit: remove {self.part}"


@dataclass(frozen=True, slots=True)
class RefitStop:
    """Refit: remove nothing more (R-RES-5)."""

    def __str__(self) -> str:
        return "refit: stop"


@dataclass(frozen=True, slots=True)
class ChooseEngine:
    """Pick the engine (by its unique icon rank) for Engineer, an upgrade or an overhaul."""

    rank: int

    def __post_init__(self) -> None:
        _int(self, "rank")

    def __str__(self) -> str:
        return f"engine #{self.rank}"


@dataclass(frozen=True, slots=True)
class SkipEngine:
    """Decline an upgrade or overhaul icon (R-BEN-3)."""

    def __str__(self) -> str:
        return "skip"


@dataclass(frozen=True, slots=True)
class SelectPart:
    """Choose which pending part to handle next when several are pending (R-INST-1)."""

    part: str

    def __post_init__(self) -> None:
        _str(self, "part")

    def __str__(self) -> str:
        return f"handle {self.part} next"


@dataclass(frozen=True, slots=True)
class Install:
    """Install the selected pending part at ship cell (row, col); the core is (0, 0), up is -row."""

    part: str
    row: int
    col: int

    def __post_init__(self) -> None:
        _str(self, "part")
        _int(self, "row")
        _int(self, "col")

    def __str__(self) -> str:
        return f"install {self.part} at ({self.row:+d},{self.col:+d})"


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard the selected pending part; it leaves the game (R-INST-1)."""

    part: str

    def __post_init__(self) -> None:
        _str(self, "part")

    def __str__(self) -> str:
        return f"discard {self.part}"


@dataclass(frozen=True, slots=True)
class CompleteMission:
    """Complete the mission being resolved, buying the fewest temporary bio-tech (R-MIS-5)."""

    mission: str

    def __post_init__(self) -> None:
        _str(self, "mission")

    def __str__(self) -> str:
        return f"complete {self.mission}"


@dataclass(frozen=True, slots=True)
class PassMission:
    """Decline to complete the mission being resolved (R-MIS-3)."""

    mission: str

    def __post_init__(self) -> None:
        _str(self, "mission")

    def __str__(self) -> str:
        return f"pass on {self.mission}"


Action = (
    Bid
    | RefitRemove
    | RefitStop
    | ChooseEngine
    | SkipEngine
    | SelectPart
    | Install
    | Discard
    | CompleteMission
    | PassMission
)

ACTION_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (
        Bid,
        RefitRemove,
        RefitStop,
        ChooseEngine,
        SkipEngine,
        SelectPart,
        Install,
        Discard,
        CompleteMission,
        PassMission,
    )
}


def action_to_dict(action: Action) -> dict:
    """A JSON-able form of an action, for saved states and game records."""
    if isinstance(action, Bid):
        return {
            "type": "Bid",
            "tile": action.tile,
            "target": [action.target.kind.value, action.target.index],
            "crew": action.crew,
        }
    data = {"type": type(action).__name__}
    for field in action.__slots__:
        data[field] = getattr(action, field)
    return data


def action_from_dict(data: object) -> Action:
    """Inverse of `action_to_dict`; raises ValueError naming what is malformed.

    Values must have exactly the recorded types (no casting: "1" is not a tile, 1 is not True).
    """
    kind = data.get("type") if isinstance(data, dict) else None
    if not isinstance(kind, str) or kind not in ACTION_TYPES:
        raise ValueError(f"action record {data!r}: 'type' must be one of {sorted(ACTION_TYPES)}")
    cls = ACTION_TYPES[kind]
    fields = {k: v for k, v in data.items() if k != "type"}
    expected = RECORD_FIELDS[cls]
    if set(fields) != set(expected):
        raise ValueError(
            f"action record {data!r}: a {cls.__name__} has fields {sorted(expected)}, "
            f"got {sorted(fields)}"
        )
    for name, wanted in expected.items():
        value = fields[name]
        if type(value) is not wanted:
            raise ValueError(
                f"action record {data!r}: {name!r} must be {wanted.__name__}, got {value!r}"
            )
    if cls is not Bid:
        return cls(**fields)
    target = fields["target"]
    kinds = [k.value for k in TargetKind]
    if len(target) != 2 or target[0] not in kinds or type(target[1]) is not int:
        raise ValueError(
            f"action record {data!r}: 'target' must be [kind, index] with kind one of {kinds}"
        )
    return Bid(fields["tile"], Target(TargetKind(target[0]), target[1]), fields["crew"])


#: The JSON type of each recorded field, per action type (see `action_to_dict`).
RECORD_FIELDS: dict[type, dict[str, type]] = {
    Bid: {"tile": int, "target": list, "crew": bool},
    RefitRemove: {"part": str},
    RefitStop: {},
    ChooseEngine: {"rank": int},
    SkipEngine: {},
    SelectPart: {"part": str},
    Install: {"part": str, "row": int, "col": int},
    Discard: {"part": str},
    CompleteMission: {"mission": str},
    PassMission: {"mission": str},
}
