"""Card values: frozen dataclasses for parts, missions and a whole card set (R-COMP-3, R-CARDS)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class Side(str, Enum):
    """A connector direction on a part, as printed (parts never rotate, R-INST-4)."""

    UP = "up"
    RIGHT = "right"
    DOWN = "down"
    LEFT = "left"

    @property
    def opposite(self) -> Side:
        return _OPPOSITE[self]

    @property
    def offset(self) -> tuple[int, int]:
        """(row, col) step to the neighbouring cell; up is row - 1."""
        return _OFFSET[self]


_OPPOSITE = {Side.UP: Side.DOWN, Side.DOWN: Side.UP, Side.LEFT: Side.RIGHT, Side.RIGHT: Side.LEFT}
_OFFSET = {Side.UP: (-1, 0), Side.DOWN: (1, 0), Side.LEFT: (0, -1), Side.RIGHT: (0, 1)}
SIDES: tuple[Side, ...] = (Side.UP, Side.RIGHT, Side.DOWN, Side.LEFT)


class IconKind(str, Enum):
    """Benefit icons (R-BEN-2, R-BEN-3)."""

    CREW = "crew"
    SCIENCE = "science"
    UPGRADE = "upgrade"
    OVERHAUL = "overhaul"


class Timing(str, Enum):
    """One-time icons pay in the round of installation; every-round icons pay each Assembly."""

    ONCE = "once"
    EVERY_ROUND = "every_round"


@dataclass(frozen=True, slots=True)
class Icon:
    kind: IconKind
    timing: Timing

    def __str__(self) -> str:
        return f"{self.kind.value}({'once' if self.timing is Timing.ONCE else 'every round'})"


@dataclass(frozen=True, slots=True)
class PartCard:
    """A ship part (R-CARDS-1). `engines` holds the printed rank of each engine icon."""

    name: str
    connectors: frozenset[Side]
    crew_cost: int = 0
    icons: tuple[Icon, ...] = ()
    biotech: int = 0
    engines: tuple[int, ...] = ()

    def has(self, side: Side) -> bool:
        return side in self.connectors


@dataclass(frozen=True, slots=True)
class MissionCard:
    """A mission (R-CARDS-2). `engines` holds the minimum die value of each required engine."""

    name: str
    value: int
    climactic: bool = False
    engines: tuple[int, ...] = ()
    biotech: int = 0
    science: int = 0


@dataclass(frozen=True, slots=True)
class CardSet:
    """Every part and mission one game may use, as loaded and validated from a card file."""

    name: str
    parts: tuple[PartCard, ...]
    missions: tuple[MissionCard, ...]
    reconstructed: bool = False
    description: str = ""

    @property
    def regular_missions(self) -> tuple[MissionCard, ...]:
        return tuple(m for m in self.missions if not m.climactic)

    @property
    def climactic_missions(self) -> tuple[MissionCard, ...]:
        return tuple(m for m in self.missions if m.climactic)


#: The seven industry awards (R-COMP-3, R-END-1); fixed by the rules, not by the card file.
AWARDS: tuple[str, ...] = (
    "Colonist",
    "Commander",
    "Efficiency",
    "Juggernaut",
    "Potential",
    "Researcher",
    "Rocketeer",
)

#: The four facilities in resolution order (R-RES-1).
FACILITIES: tuple[str, ...] = ("Refit", "Hire", "Discover", "Engineer")
