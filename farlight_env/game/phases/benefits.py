"""R-BEN, assembly 3: crew and science for all, then upgrade and overhaul decisions; also
the Engineer's die choice (R-RES-5), the same move."""

from __future__ import annotations

from typing import TYPE_CHECKING

from farlight_env.game.changes import add_tokens, set_ship_die
from farlight_env.game.config import Phase, Resume
from farlight_env.game.facts import MAX_ENGINE
from farlight_env.game.phases.missions import start_missions
from farlight_env.game.queries import engines, turn_order

if TYPE_CHECKING:
    from farlight_env.game.game import FarlightGame


def start_benefits(g: FarlightGame) -> None:
    """R-BEN-1/2: crew and science for all; count upgrade and overhaul decisions."""
    every, fresh_gains = g.icon_gains
    g.benefit_left = []
    for p in range(g.num_players):
        fresh = g.installed_this_round[p]
        crew = science = upgrade = overhaul = 0
        for part in g.ship_parts[p]:
            c, s, u, o = fresh_gains[part] if part in fresh else every[part]
            crew += c
            science += s
            upgrade += u
            overhaul += o
        add_tokens(g, p, crew=crew, science=science)
        g.benefit_left.append([upgrade, overhaul])
        g.installed_this_round[p] = []
    next_benefit(g)


def next_benefit(g: FarlightGame) -> None:
    """R-BEN-3: in turn order, each player's upgrades, then its overhauls [decision]."""
    for p in turn_order(g):
        left = g.benefit_left[p]
        if not any(v < MAX_ENGINE for _, v in engines(g, p)):
            left[0] = left[1] = 0  # nothing an icon could improve
            continue
        if left[0] > 0:
            g.phase, g.current = Phase.UPGRADE, p
            return
        if left[1] > 0:
            g.phase, g.current = Phase.OVERHAUL, p
            return
    start_missions(g)


def engine_choice(g: FarlightGame, p: int, rank: int) -> None:
    overhaul = g.phase is Phase.OVERHAUL
    value = MAX_ENGINE if overhaul else min(MAX_ENGINE, g.engine_values[rank] + 1)
    set_ship_die(g, p, rank, value)
    if g.phase is Phase.ENGINEER:
        g.resume = Resume.RESOLVE
    else:
        g.benefit_left[p][0 if g.phase is Phase.UPGRADE else 1] -= 1
        g.resume = Resume.BENEFITS


def engine_skip(g: FarlightGame, p: int) -> None:
    g.benefit_left[p][0 if g.phase is Phase.UPGRADE else 1] -= 1
    g.resume = Resume.BENEFITS
