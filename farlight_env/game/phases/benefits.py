"""R-BEN, assembly 3: crew and science for all, then upgrade and overhaul decisions; also
the Engineer's die choice (R-RES-5), the same move."""

from __future__ import annotations

from typing import TYPE_CHECKING

from farlight_env.game.config import Phase, Resume
from farlight_env.game.facts import MAX_ENGINE
from farlight_env.game.phases.missions import start_missions
from farlight_env.game.queries import _BOOSTED, change_ship, engines, turn_order
from farlight_env.game.ship import new_stamp
from farlight_env.game.tables import CONNECTOR_CACHE_SIZE

if TYPE_CHECKING:
    from farlight_env.game.game import FarlightGame


def start_benefits(g: FarlightGame) -> None:
    """R-BEN-1/2: crew and science for all; count upgrade and overhaul decisions."""
    every, fresh_gains = g.icon_gains
    g._benefit_left = []
    for p in range(g.num_players):
        fresh = g.installed_this_round[p]
        crew = science = upgrade = overhaul = 0
        for part in g.ship_parts[p]:
            c, s, u, o = fresh_gains[part] if part in fresh else every[part]
            crew += c
            science += s
            upgrade += u
            overhaul += o
        g.crew[p] += crew
        g.science[p] += science
        g._benefit_left.append([upgrade, overhaul])
        g.installed_this_round[p] = []
        g.seat_stamps[p] = new_stamp()
    next_benefit(g)


def next_benefit(g: FarlightGame) -> None:
    """R-BEN-3: in turn order, each player's upgrades, then its overhauls [decision]."""
    for p in turn_order(g):
        left = g._benefit_left[p]
        if not any(v < MAX_ENGINE for _, v in engines(g, p)):
            left[0] = left[1] = 0  # nothing an icon could improve
            continue
        if left[0] > 0:
            g._phase, g._current = Phase.UPGRADE, p
            return
        if left[1] > 0:
            g._phase, g._current = Phase.OVERHAUL, p
            return
    start_missions(g)


def engine_choice(g: FarlightGame, p: int, rank: int) -> None:
    rule = g.config.rule_options.edge_connectors
    counts = g.connector_cache.get((g.ship_stamps[p], rule))
    if g._phase is Phase.OVERHAUL:
        g.engine_values[rank] = MAX_ENGINE
    else:
        g.engine_values[rank] = min(MAX_ENGINE, g.engine_values[rank] + 1)
    change_ship(g, p, (rank << 3 | g.engine_values[rank]) << 2 | _BOOSTED)
    if counts is not None and len(g.connector_cache) < CONNECTOR_CACHE_SIZE:
        g.connector_cache[(g.ship_stamps[p], rule)] = counts  # same layout, new die
    if g._phase is Phase.ENGINEER:
        g._resume = Resume.RESOLVE
    else:
        g._benefit_left[p][0 if g._phase is Phase.UPGRADE else 1] -= 1
        g._resume = Resume.BENEFITS


def engine_skip(g: FarlightGame, p: int) -> None:
    g._benefit_left[p][0 if g._phase is Phase.UPGRADE else 1] -= 1
    g._resume = Resume.BENEFITS
