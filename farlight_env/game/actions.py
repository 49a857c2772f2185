"""Player decisions as frozen, hashable values with readable strings (DESIGN: rules engine)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from farlight_env.cards.model import FACILITIES


class TargetKind(str, Enum):
    PART = "part"
    FACILITY = "facility"
    MISSION = "mission"


@dataclass(frozen=True, slots=True)
class Target:
    """Where a bidding tile goes: a part space, a facility, or a mission stack's top card."""

    kind: TargetKind
    index: int

    def __str__(self) -> str:
        if self.kind is TargetKind.FACILITY:
            return FACILITIES[self.index]
        if self.kind is TargetKind.PART:
            return f"part space {self.index}"
        return f"mission stack {self.index}"


@dataclass(frozen=True, slots=True)
class Bid:
    """Place one tile of value `tile` on `target`, with one crew riding on it or not (R-BID-2/3)."""

    tile: int
    target: Target
    crew: bool = False

    def __str__(self) -> str:
        return f"bid {self.tile}{' +crew' if self.crew else ''} on {self.target}"


@dataclass(frozen=True, slots=True)
class RefitRemove:
    """Refit: remove one installed part from the ship (R-RES-5)."""

    part: str

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

    def __str__(self) -> str:
        return f"handle {self.part} next"


@dataclass(frozen=True, slots=True)
class Install:
    """Install the selected pending part at ship cell (row, col); the core is (0, 0), up is -row."""

    part: str
    row: int
    col: int

    def __str__(self) -> str:
        return f"install {self.part} at ({self.row:+d},{self.col:+d})"


@dataclass(frozen=True, slots=True)
class Discard:
    """Discard the selected pending part; it leaves the game (R-INST-1)."""

    part: str

    def __str__(self) -> str:
        return f"discard {self.part}"


@dataclass(frozen=True, slots=True)
class CompleteMission:
    """Complete the mission being resolved, buying the fewest temporary bio-tech (R-MIS-5)."""

    mission: str

    def __str__(self) -> str:
        return f"complete {self.mission}"


@dataclass(frozen=True, slots=True)
class PassMission:
    """Decline to complete the mission being resolved (R-MIS-3)."""

    mission: str

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


def action_from_dict(data: dict) -> Action:
    """Inverse of `action_to_dict`; raises ValueError naming what is malformed."""
    try:
        kind = data["type"]
        cls = ACTION_TYPES[kind]
    except (KeyError, TypeError) as exc:
        raise ValueError(
            f"action record {data!r}: 'type' must be one of {sorted(ACTION_TYPES)}"
        ) from exc
    fields = {k: v for k, v in data.items() if k != "type"}
    try:
        if cls is Bid:
            target_kind, index = fields["target"]
            target = Target(TargetKind(target_kind), int(index))
            return Bid(int(fields["tile"]), target, bool(fields["crew"]))
        return cls(**fields)
    except (TypeError, KeyError, ValueError) as exc:
        raise ValueError(f"action record {data!r} is malformed: {exc!r}") from exc
