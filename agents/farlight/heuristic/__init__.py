"""A rule-based Farlight player: the baseline that learned and search policies must beat.

How it plays. It picks target missions — the available ones it is closest to completing,
weighted by value — and values each part on the station by what it brings towards them
(engine dice that meet a required die, bio-tech, science) plus its lasting income (every-round
crew and science, upgrades), less its crew cost, and zero if the part cannot be installed on
its ship. Facilities are valued the same way (Discover when science is short, Engineer when a
+1 meets a die, Hire when crew runs low). Each tile goes where it changes the most expected
value: enough to beat what the opponents visibly committed (their tiles counted at 2, crew at
1), the 0 tile as a cheap bluff or, with a crew, as the 1-point ticket to a mission it can
complete; alone on such a mission it is a free ticket to at least half its value (R-MIS-2, a
lone 0 is asked after every real bid). It installs where a part links the most connectors and
blocks the fewest, upgrades the engine that brings a target mission closest (else its best
engine), overhauls its weakest engine, never refits, completes every mission it can when first
and later ones when the half value is worth what it pays, buying temporary bio-tech when that
completes a mission.

One module per concept: `planner` (a seat's targets and what things are worth to it),
`placements` (bid valuation over all legal placements at once), `agent` (`HeuristicAgent`:
its choice per phase and its caches).
"""

from __future__ import annotations

from agents.farlight.heuristic.agent import VALUES_CACHE_SIZE, HeuristicAgent
from agents.farlight.heuristic.placements import (
    LONE_ZERO_SHARE,
    SLOT_BLOCK,
    UNKNOWN_TILE,
    Placements,
    _placement_gains,  # noqa: F401 - tests check it
)
from agents.farlight.heuristic.planner import (
    ICON_WORTH,
    Planner,
    board_facts,
    engine_deficit,
    mission_targets,
    planner_key,
    valuation_key,
)
from farlight_env.game import TargetKind

__all__ = [
    "ICON_WORTH",
    "LONE_ZERO_SHARE",
    "SLOT_BLOCK",
    "UNKNOWN_TILE",
    "VALUES_CACHE_SIZE",
    "HeuristicAgent",
    "Placements",
    "Planner",
    "TargetKind",
    "board_facts",
    "engine_deficit",
    "mission_targets",
    "planner_key",
    "valuation_key",
]
