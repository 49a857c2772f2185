"""R-RES, assembly 1: part spaces then facilities are resolved in order; Refit and Engineer
may wait for their winner's decision."""

from __future__ import annotations

from typing import TYPE_CHECKING

from farlight_env.cards.model import FACILITIES
from farlight_env.game.changes import add_pending, add_tokens, remove_from_ship, return_bids
from farlight_env.game.changes import take_space as empty_space
from farlight_env.game.config import Phase
from farlight_env.game.facts import DISCOVER, ENGINEER, HIRE, HIRE_CREW, MAX_ENGINE, REFIT
from farlight_env.game.phases.install import start_install
from farlight_env.game.queries import engines, order_key

if TYPE_CHECKING:
    from farlight_env.game.game import FarlightGame


def resume_resolution(g: FarlightGame) -> None:
    if not resolve_bids(g):  # False: no facility decision waits
        start_install(g)


def resolve_bids(g: FarlightGame) -> bool:
    """Resolve part spaces then facilities in order (R-RES-1); True if a decision waits."""
    num_targets = g.num_spaces + len(FACILITIES)
    while g.resolve_cursor < num_targets:
        slot = g.resolve_cursor
        g.resolve_cursor += 1
        winner = settle_bids(g, slot)
        if winner is None:
            continue
        if slot < g.num_spaces:
            win_part(g, winner, slot)
        elif win_facility(g, winner, slot - g.num_spaces):
            return True
    return False


def settle_bids(g: FarlightGame, slot: int) -> int | None:
    """Pick the winner and return tiles and crew to everyone (R-RES-2..4)."""
    bids = g.bids[slot]
    if not bids:
        return None
    if len(bids) == 1:  # the common case: a lone bid wins if it is worth at least 1
        p, tile, crew = bids[0]
        winner = p if tile + crew >= 1 else None
        bidders = (p,)
    else:
        totals: dict[int, int] = {}
        for p, tile, crew in bids:
            totals[p] = totals.get(p, 0) + tile + crew
        winner = best_bidder(g, totals)
        bidders = totals
    return_bids(g, slot, bidders, True, winner)
    return winner


def best_bidder(g: FarlightGame, totals: dict[int, int]) -> int | None:
    """Highest bid of at least 1; ties to the earliest in turn order (R-RES-2)."""
    best: int | None = None
    for p, total in totals.items():
        if total < 1:
            continue
        if best is None or (total, -order_key(g, p)) > (totals[best], -order_key(g, best)):
            best = p
    return best


def win_part(g: FarlightGame, p: int, slot: int) -> None:
    """R-RES-3: the part becomes pending with the bonus crew lying on its space."""
    part, bonus = empty_space(g, slot)
    add_pending(g, p, part)
    add_tokens(g, p, crew=bonus)


def win_facility(g: FarlightGame, p: int, facility: int) -> bool:
    """R-RES-5; True when the winner now faces a decision."""
    if facility == HIRE:
        add_tokens(g, p, crew=HIRE_CREW)
    elif facility == DISCOVER:
        add_tokens(g, p, science=1)
    elif facility == REFIT and g.ship_parts[p]:
        g.phase = Phase.REFIT
        g.current = p
        return True
    elif facility == ENGINEER and any(v < MAX_ENGINE for _, v in engines(g, p)):
        g.phase = Phase.ENGINEER
        g.current = p
        return True
    return False


def refit_remove(g: FarlightGame, p: int, part: int) -> None:
    """R-RES-5/6: the part and its engines leave the game; other parts stay where they are."""
    remove_from_ship(g, p, part)
