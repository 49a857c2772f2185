"""R-MIS, launch: missions with bids in ascending order, each bidder asked to complete it."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from farlight_env.cards.model import FACILITIES, MissionCard
from farlight_env.game.changes import add_tokens, clear_temp_biotech, retire_mission, return_bids
from farlight_env.game.config import Phase, Resume
from farlight_env.game.facts import NUM_STACKS, TEMP_BIOTECH_COST
from farlight_env.game.legal import biotech_shortfall

if TYPE_CHECKING:
    from farlight_env.game.game import FarlightGame


def mission_bidders(
    totals: Mapping[int, int], order_key: Callable[[int], int], lone_zero_chance: bool
) -> list[int]:
    """Who is asked to complete a mission, in order (R-MIS-2): bid descending, ties by turn
    order; a lone 0 never wins, so with `lone_zero_chance` it is asked after every real bid."""
    real = sorted(
        (p for p, t in totals.items() if t >= 1), key=lambda p: (-totals[p], order_key(p))
    )
    if not lone_zero_chance:
        return real
    return real + sorted((p for p, t in totals.items() if t == 0), key=order_key)


def mission_order(mission: MissionCard) -> tuple[int, str, str]:
    """Ascending value, ties alphabetical by name ignoring case (R-SETUP-3, R-MIS-1)."""
    return mission.value, mission.name.casefold(), mission.name


def start_missions(g: FarlightGame) -> None:
    """R-MIS-1: available missions with bids, ascending value, ties by name [decision]."""
    missions = g.cards.missions
    offset = g.num_spaces + len(FACILITIES)
    queue = [s for s in range(NUM_STACKS) if g.bids[offset + s]]
    queue.sort(key=lambda s: mission_order(missions[g.stacks[s][0]]))
    g.mission_queue = queue
    g.mission = -1
    g.phase = Phase.MISSION
    open_next_mission(g)


def open_next_mission(g: FarlightGame) -> None:
    if not g.mission_queue:
        finish_missions(g)
        return
    stack = g.mission_queue.pop(0)
    g.resolving_stack = stack
    g.mission = g.stacks[stack][0]
    totals: dict[int, int] = {}
    for p, tile, crew in g.bids[g.num_spaces + len(FACILITIES) + stack]:
        totals[p] = totals.get(p, 0) + tile + crew
    g.mission_order = mission_bidders(
        totals, g.order_key, g.config.rule_options.lone_zero_mission_chance
    )
    g.mission_cursor = 0
    g.mission_completers = 0
    next_mission_decision(g)


def next_mission_decision(g: FarlightGame) -> None:
    if g.mission_cursor < len(g.mission_order):
        g.phase = Phase.MISSION
        g.current = g.mission_order[g.mission_cursor]
        return
    close_mission(g)
    open_next_mission(g)


def complete(g: FarlightGame, p: int) -> None:
    """R-MIS-4..6: buy the fewest temporary bio-tech, pay science, score."""
    mission = g.cards.missions[g.mission]
    shortfall = biotech_shortfall(g, p, mission.biotech)
    points = mission.value if g.mission_completers == 0 else math.ceil(mission.value / 2)
    add_tokens(
        g,
        p,
        crew=-TEMP_BIOTECH_COST * shortfall,
        science=-mission.science,
        points=points,
        temp_biotech=shortfall,
    )
    g.mission_completers += 1
    g.mission_cursor += 1
    g.resume = Resume.MISSIONS


def close_mission(g: FarlightGame) -> None:
    """R-MIS-7/8: tiles home, mission crew to the supply; a completed mission leaves."""
    slot = g.num_spaces + len(FACILITIES) + g.resolving_stack
    bidders = {p for p, _tile, _crew in g.bids[slot]}
    return_bids(g, slot, bidders, False)  # the bid crew goes to the supply
    if g.config.rule_options.temp_biotech_lasts == "mission":  # R-MIS-5 [option]
        clear_temp_biotech(g)
    if g.mission_completers:
        done = retire_mission(g, g.resolving_stack)
        if g.cards.missions[done].climactic:
            g.climactic_done = True


def finish_missions(g: FarlightGame) -> None:
    clear_temp_biotech(g)  # R-MIS-5
    g.resume = Resume.RESET
