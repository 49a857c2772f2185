"""The observation's layout: its fixed sizes, the per-seat player features, and the named
fields (name -> start, shape, values, meaning) of the flat float32 vector. Each field declares
how its floats are made from counts (`Scale`), which the compact form (`compact.py`) reads."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from farlight_env.cards.model import AWARDS, CardSet, IconKind, Timing
from farlight_env.cards.schema import (
    MAX_CREW_COST,
    MAX_MISSION_BIOTECH,
    MAX_MISSION_DIE,
    MAX_MISSION_SCIENCE,
    MAX_MISSION_VALUE,
    MAX_PART_BIOTECH,
    MAX_PART_ENGINES,
    MAX_PART_ICONS,
)
from farlight_env.encode.codec import MAX_SPACES, NUM_TARGETS
from farlight_env.game.config import Phase
from farlight_env.game.facts import (
    MAX_ENGINE,
    MAX_PLAYERS,
    MAX_ROUNDS,
    NUM_STACKS,
    TILES,
    TILES_PER_PASS,
)

MAX_STACK = 4  # 3 regular missions + the climactic one (R-SETUP-3)
MAX_MISSION_ENGINES = 3
DECISIONS: tuple[Phase, ...] = (
    Phase.BIDDING,
    Phase.REFIT,
    Phase.ENGINEER,
    Phase.INSTALL,
    Phase.UPGRADE,
    Phase.OVERHAUL,
    Phase.MISSION,
    Phase.OVER,
)
ICON_CHANNELS: tuple[tuple[IconKind, Timing], ...] = tuple(
    (kind, timing) for kind in IconKind for timing in Timing
)
PLAYER_FEATURES = (
    "present",
    "crew",
    "science",
    "mission_points",
    "tiles_in_hand",
    "biotech",
    "temp_biotech",
    "engines",
    "engine_sum",
    "parts",
    "open_connectors",
    "blocked_connectors",
    "pending",
)
#: Position of each decision kind and award in its one-hot field.
DECISION_POS = {phase: i for i, phase in enumerate(DECISIONS)}
AWARD_POS = {award: i for i, award in enumerate(AWARDS)}


#: Largest count of a counter the rules leave unbounded (crew and science, R-COMP-2; mission
#: points; temporary bio-tech, R-MIS-5) that the compact observation holds: two bytes;
#: compacting a larger one raises.
COUNTER_HIGH = 65_535
#: A seat's bid on one target: its tiles (each value once) plus a crew on each (R-BID-6).
MAX_BID = sum(TILES) + len(TILES)
#: The observation shows a deck size as size/57 whatever the card set (R-COMP-3).
DECK_DENOMINATOR = 57.0


@dataclass(frozen=True, slots=True)
class Scale:
    """How one component's floats are made: a count 0..`high` divided by `denominator` (Python's
    float division, rounded to float32). A sum taken in float32 may land up to `ulps` float32
    steps either side of that quotient (bid values); the compact form keeps the step too."""

    label: str
    denominator: float = 1.0
    high: int = 1
    ulps: int = 0

    @property
    def code_high(self) -> int:
        """The largest compact code: the count, plus (high + 1) per step off the quotient."""
        return (self.high + 1) * (2 * self.ulps + 1) - 1


FLAG = Scale("flag")


@dataclass(frozen=True, slots=True)
class Field:
    """Where a named field lives in the flat observation, how to reshape it, and its values:
    one `Scale` for every element, or one per index of axis `axis`."""

    name: str
    start: int
    shape: tuple[int, ...]
    doc: str
    scales: tuple[Scale, ...] = (FLAG,)
    axis: int = -1

    @property
    def size(self) -> int:
        return math.prod(self.shape)  # not np.prod: read on hot paths, 20x cheaper

    @property
    def slice(self) -> slice:
        return slice(self.start, self.start + self.size)


def _player_scales(num_parts: int, num_ranks: int) -> tuple[Scale, ...]:
    """The player row's components in PLAYER_FEATURES order (ship counts bounded by the deck)."""
    connectors = 4 * (num_parts + 1)  # the core's and every part's, at most 4 each
    return (
        Scale("present"),
        Scale("crew", 10.0, COUNTER_HIGH),
        Scale("science", 10.0, COUNTER_HIGH),
        Scale("mission_points", 20.0, COUNTER_HIGH),
        Scale("tiles_in_hand", 5.0, len(TILES)),
        Scale("biotech", 5.0, MAX_PART_BIOTECH * num_parts),
        Scale("temp_biotech", 5.0, COUNTER_HIGH),
        Scale("engines", 5.0, num_ranks),
        Scale("engine_sum", 30.0, MAX_ENGINE * num_ranks),
        Scale("parts", 10.0, num_parts),
        Scale("open_connectors", 10.0, connectors),
        Scale("blocked_connectors", 10.0, connectors),
        Scale("pending", 5.0, MAX_SPACES),
    )


def _part_scales(engine_slots: int) -> tuple[Scale, ...]:
    """A card's features in `part_feature_table` order, bounded by the card format."""
    return (
        *(Scale(f"conn_{side}") for side in ("up", "right", "down", "left")),
        Scale("crew_cost", 3.0, MAX_CREW_COST),
        Scale("biotech", 2.0, MAX_PART_BIOTECH),
        *(Scale(f"{k.value}_{t.value}", 1.0, MAX_PART_ICONS) for k, t in ICON_CHANNELS),
        Scale("engines", 2.0, MAX_PART_ENGINES),
        *(Scale(f"die_{i}", 6.0, MAX_ENGINE) for i in range(engine_slots)),
    )


def _ship_scales(engine_slots: int) -> tuple[Scale, ...]:
    """The ship planes' channels, in `ship_channel_names` order."""
    return (
        *(Scale(name) for name in ship_channel_names(0)[:6]),
        *(Scale(f"{k.value}_{t.value}", 1.0, MAX_PART_ICONS) for k, t in ICON_CHANNELS),
        Scale("biotech", 2.0, MAX_PART_BIOTECH),
        *(Scale(f"engine_{i}", 6.0, MAX_ENGINE) for i in range(engine_slots)),
    )


def build_layout(
    grid_size: int, ship_channels: int, num_ranks: int, num_parts: int, part_features: int
) -> dict[str, Field]:
    """The named fields in order, each starting where the one before ends: one declaration
    per field (name, shape, values, meaning), which the compact form reads too."""
    g, pf = grid_size, part_features
    engine_slots = ship_channels - 7 - len(ICON_CHANNELS)
    part = _part_scales(engine_slots)
    one_hot = (Scale("one-hot"),)
    specs: list[tuple[str, tuple[int, ...], tuple[Scale, ...], str]] = [
        ("decision", (len(DECISIONS),), one_hot, "one-hot phase/decision kind (last = game over)"),
        ("bidding_pass", (3,), one_hot, "one-hot bidding pass (R-BID-1)"),
        (
            "tiles_left_this_turn",
            (1,),
            (Scale("tiles", 2.0, max(TILES_PER_PASS)),),
            "tiles still to place this turn / 2",
        ),
        ("round", (1,), (Scale("round", 50.0, MAX_ROUNDS),), "round / 50"),
        ("num_players", (4,), one_hot, "one-hot player count 2..5"),
        (
            "first_player",
            (MAX_PLAYERS,),
            one_hot,
            "one-hot relative seat holding the first-player marker",
        ),
        (
            "players",
            (MAX_PLAYERS, len(PLAYER_FEATURES)),
            _player_scales(num_parts, num_ranks),
            "per relative seat (own first): counters, then the ship's counts",
        ),
        (
            "own_hand",
            (len(TILES),),
            (Scale("tile"),),
            "1 for each tile value still in the observer's hand",
        ),
        (
            "station",
            (MAX_SPACES, 2 + pf),
            (Scale("has_part"), Scale("bonus_crew", 5.0, MAX_ROUNDS), *part),
            "per part space: has part, bonus crew/5, part features",
        ),
        (
            "missions",
            (NUM_STACKS, MAX_STACK, 8),
            (
                Scale("present"),
                Scale("value", 15.0, MAX_MISSION_VALUE),
                Scale("climactic"),
                *(
                    Scale(f"engine_min_{i}", 6.0, MAX_MISSION_DIE)
                    for i in range(MAX_MISSION_ENGINES)
                ),
                Scale("biotech", 5.0, MAX_MISSION_BIOTECH),
                Scale("science", 6.0, MAX_MISSION_SCIENCE),
            ),
            "per stack, top first: present, value/15, climactic, 3 engine minima/6, "
            "bio-tech/5, science/6",
        ),
        (
            "mission_resolving",
            (NUM_STACKS + 2,),
            (
                *(Scale(f"stack_{i}") for i in range(NUM_STACKS)),
                Scale("completers", 5.0, MAX_PLAYERS),
                Scale("own_bid", 15.0, MAX_BID),
            ),
            "stack one-hot, completers so far/5, own bid/15",
        ),
        (
            "bids",
            (NUM_TARGETS, MAX_PLAYERS, 3),
            (
                Scale("tiles", 5.0, len(TILES)),
                Scale("crew", 5.0, len(TILES)),
                Scale("value", 15.0, MAX_BID, ulps=1),  # summed in float32 (observers.py)
            ),
            "per target and relative seat: tiles/5, crew/5, bid value/15 (during bidding "
            "only the observer's own values; all values once the tiles are flipped)",
        ),
        (
            "ships",
            (MAX_PLAYERS, ship_channels, g, g),
            _ship_scales(engine_slots),
            "ship planes per relative seat: channels over the grid, core at the centre",
        ),
        (
            "pending",
            (MAX_PLAYERS, MAX_SPACES, 1 + pf),
            (Scale("selected"), *part),
            "won parts waiting to be installed: selected flag, part features",
        ),
        (
            "engines",
            (MAX_PLAYERS, num_ranks),
            (Scale("die", 6.0, MAX_ENGINE),),
            "engine value/6 by deck rank, per seat",
        ),
        (
            "awards",
            (len(AWARDS),),
            (Scale("face_up"),),
            "face-up awards in play (face-down ones are hidden)",
        ),
        (
            "deck",
            (num_parts + 1,),
            (*(Scale("unseen"),) * num_parts, Scale("size", DECK_DENOMINATOR, num_parts)),
            "cards not yet seen (public composition), size/57",
        ),
    ]
    fields: dict[str, Field] = {}
    start = 0
    for name, shape, scales, doc in specs:
        field = Field(name, start, shape, doc, scales, 1 if name == "ships" else -1)
        fields[name] = field
        start += field.size
    return fields


def ship_channel_names(engine_slots: int) -> list[str]:
    """The ship planes' channels, in order."""
    names = ["occupied", "core", "conn_up", "conn_right", "conn_down", "conn_left"]
    names += [f"{kind.value}_{timing.value}" for kind, timing in ICON_CHANNELS]
    names += ["biotech"] + [f"engine_{i}" for i in range(engine_slots)]
    return names


def part_feature_table(cards: CardSet, engine_slots: int) -> np.ndarray:
    """Static features of every card: connectors, cost, bio-tech, icons, engine count."""
    rows = []
    for part in cards.parts:
        conn = [float(side in part.connectors) for side in ("up", "right", "down", "left")]
        icons = [
            float(sum(1 for i in part.icons if i.kind is k and i.timing is t))
            for k, t in ICON_CHANNELS
        ]
        rows.append(
            conn
            + [part.crew_cost / 3.0, part.biotech / 2.0]
            + icons
            + [len(part.engines) / 2.0]
            + [0.0] * engine_slots  # die values filled per state
        )
    return np.asarray(rows, dtype=np.float32)
