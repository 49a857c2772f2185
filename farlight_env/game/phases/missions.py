"""R-MIS, launch: missions with bids in ascending order, each bidder asked to complete it."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from farlight_env.cards.model import FACILITIES, MissionCard
from farlight_env.game.config import Phase, Resume
from farlight_env.game.facts import NUM_STACKS, TEMP_BIOTECH_COST
from farlight_env.game.legal import biotech_shortfall
from farlight_env.game.ship import new_stamp

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
    g._mission_queue = queue
    g._mission = -1
    g._phase = Phase.MISSION
    open_next_mission(g)


def open_next_mission(g: FarlightGame) -> None:
    if not g._mission_queue:
        finish_missions(g)
        return
    stack = g._mission_queue.pop(0)
    g._mission_stack = stack
    g._mission = g.stacks[stack][0]
    totals: dict[int, int] = {}
    for p, tile, crew in g.bids[g.num_spaces + len(FACILITIES) + stack]:
        totals[p] = totals.get(p, 0) + tile + crew
    g._mission_order = mission_bidders(
        totals, g.order_key, g.config.rule_options.lone_zero_mission_chance
    )
    g._mission_cursor = 0
    g._completers = 0
    next_mission_decision(g)


def next_mission_decision(g: FarlightGame) -> None:
    if g._mission_cursor < len(g._mission_order):
        g._phase = Phase.MISSION
        g._current = g._mission_order[g._mission_cursor]
        return
    close_mission(g)
    open_next_mission(g)


def complete(g: FarlightGame, p: int) -> None:
    """R-MIS-4..6: buy the fewest temporary bio-tech, pay science, score."""
    mission = g.cards.missions[g._mission]
    shortfall = biotech_shortfall(g, p, mission.biotech)
    g.crew[p] -= TEMP_BIOTECH_COST * shortfall
    g.temp_biotech[p] += shortfall
    g.science[p] -= mission.science
    g.points[p] += mission.value if g._completers == 0 else math.ceil(mission.value / 2)
    g.seat_stamps[p] = new_stamp()
    g._completers += 1
    g._mission_cursor += 1
    g._resume = Resume.MISSIONS


def close_mission(g: FarlightGame) -> None:
    """R-MIS-7/8: tiles home, mission crew to the supply; a completed mission leaves."""
    slot = g.num_spaces + len(FACILITIES) + g._mission_stack
    touched = set()
    for p, tile, _crew in g.bids[slot]:
        g.hands[p].append(tile)
        touched.add(p)
    for p in touched:
        g.hands[p].sort()
        g.seat_stamps[p] = new_stamp()
    g.bids[slot] = []
    g.bid_log.append(~slot)
    if g.config.rule_options.temp_biotech_lasts == "mission":  # R-MIS-5 [option]
        g.temp_biotech = [0] * g.num_players
        g.seat_stamps = [new_stamp() for _ in range(g.num_players)]
    if g._completers:
        stack = g.stacks[g._mission_stack]
        done = stack.pop(0)
        g.board_stamp = new_stamp()
        g.missions_out.append(done)
        if g.cards.missions[done].climactic:
            g._climactic_done = True


def finish_missions(g: FarlightGame) -> None:
    g.temp_biotech = [0] * g.num_players  # R-MIS-5
    g.seat_stamps = [new_stamp() for _ in range(g.num_players)]
    g._resume = Resume.RESET
