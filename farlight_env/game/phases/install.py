"""R-INST, assembly 2: in turn order, each seat installs or discards its pending parts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from farlight_env.game.changes import put_on_ship, remove_pending
from farlight_env.game.config import (
    Phase,
    Resume,
)
from farlight_env.game.phases.benefits import start_benefits
from farlight_env.game.queries import connectors_after, turn_order
from farlight_env.game.ship import Cell

if TYPE_CHECKING:
    from farlight_env.game.game import FarlightGame


def start_install(g: FarlightGame) -> None:
    g.phase = Phase.INSTALL
    g.selected = None
    next_installer(g)


def next_installer(g: FarlightGame) -> None:
    """R-INST-1: players in turn order handle all their pending parts."""
    for p in turn_order(g):
        if g.pending[p]:
            g.current = p
            g.phase = Phase.INSTALL
            return
    start_benefits(g)


def install(g: FarlightGame, p: int, part: int, cell: Cell) -> None:
    """R-INST-3..5: pay crew, place the part; its dice stay at their values."""
    remove_pending(g, p, part, crew_cost=g.cards.parts[part].crew_cost)
    counts = connectors_after(g, p, cell, part)  # from the cached counts, no recount
    put_on_ship(g, p, part, cell, counts)
    g.installed_this_round[p].append(part)
    g.selected = None
    g.resume = Resume.INSTALL
