"""The observation's layout: its fixed sizes, the per-seat player features, and the named
fields (name -> start, shape, meaning) of the flat float32 vector."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from farlight_env.cards.model import AWARDS, CardSet, IconKind, Timing
from farlight_env.encode.codec import MAX_SPACES, NUM_TARGETS
from farlight_env.game.facts import MAX_PLAYERS
from farlight_env.game.game import NUM_STACKS, TILES, Phase

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


@dataclass(frozen=True, slots=True)
class Field:
    """Where a named field lives in the flat observation and how to reshape it."""

    name: str
    start: int
    shape: tuple[int, ...]
    doc: str

    @property
    def size(self) -> int:
        return math.prod(self.shape)  # not np.prod: read on hot paths, 20x cheaper

    @property
    def slice(self) -> slice:
        return slice(self.start, self.start + self.size)


def build_layout(
    grid_size: int, ship_channels: int, num_ranks: int, num_parts: int, part_features: int
) -> dict[str, Field]:
    """The named fields in order, each starting where the one before ends."""
    g, pf = grid_size, part_features
    specs = [
        ("decision", (len(DECISIONS),), "one-hot phase/decision kind (last = game over)"),
        ("bidding_pass", (3,), "one-hot bidding pass (R-BID-1)"),
        ("tiles_left_this_turn", (1,), "tiles still to place this turn / 2"),
        ("round", (1,), "round / 50"),
        ("num_players", (4,), "one-hot player count 2..5"),
        (
            "first_player",
            (MAX_PLAYERS,),
            "one-hot relative seat holding the first-player marker",
        ),
        (
            "players",
            (MAX_PLAYERS, len(PLAYER_FEATURES)),
            f"per relative seat: {PLAYER_FEATURES}",
        ),
        ("own_hand", (len(TILES),), "1 for each tile value still in the observer's hand"),
        (
            "station",
            (MAX_SPACES, 2 + pf),
            "per part space: has part, bonus crew/5, part features",
        ),
        (
            "missions",
            (NUM_STACKS, MAX_STACK, 8),
            "per stack, top first: present, value/15, climactic, 3 engine minima/6, "
            "bio-tech/5, science/6",
        ),
        (
            "mission_resolving",
            (NUM_STACKS + 2,),
            "stack one-hot, completers so far/5, own bid/15",
        ),
        (
            "bids",
            (NUM_TARGETS, MAX_PLAYERS, 3),
            "per target and relative seat: tiles/5, crew/5, bid value/15 (during bidding "
            "only the observer's own values; all values once the tiles are flipped)",
        ),
        ("ships", (MAX_PLAYERS, ship_channels, g, g), "ship planes per relative seat"),
        (
            "pending",
            (MAX_PLAYERS, MAX_SPACES, 1 + pf),
            "won parts waiting to be installed: selected flag, part features",
        ),
        ("engines", (MAX_PLAYERS, num_ranks), "engine value/6 by deck rank, per seat"),
        ("awards", (len(AWARDS),), "face-up awards in play (face-down ones are hidden)"),
        ("deck", (num_parts + 1,), "cards not yet seen (public composition), size/57"),
    ]
    fields: dict[str, Field] = {}
    start = 0
    for name, shape, doc in specs:
        field = Field(name, start, shape, doc)
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
