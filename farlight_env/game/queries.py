"""What the rules ask of a position (turn order, engines, bio-tech, connectors, legal cells),
cached on the change stamps that `changes.py` keeps; functions of a game's state and its
tables, bound as `FarlightGame` methods."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from farlight_env.game.ship import (
    Cell,
    connector_counts,
    connector_delta,
    has_legal_cell,
)
from farlight_env.game.ship import legal_cells as open_cells
from farlight_env.game.tables import CONNECTOR_CACHE_SIZE

if TYPE_CHECKING:
    from farlight_env.game.game import FarlightGame


def turn_order(g: FarlightGame) -> list[int]:
    """Seats from the first player onward; earlier seats win ties (R-RES-2, R-MIS-2)."""
    n = g.num_players
    return [(g.first_player + i) % n for i in range(n)]


def order_key(g: FarlightGame, seat: int) -> int:
    return (seat - g.first_player) % g.num_players


def engines(g: FarlightGame, seat: int) -> list[tuple[int, int]]:
    """(rank, value) of every engine installed on a seat's ship (R-SHIP-2).

    Cached per ship stamp: installing, removing or re-rolling a ship's engine renews it.
    """
    stamp = g.ship_stamps[seat]
    found = g.engines_cache.get(stamp)
    if found is None:
        if len(g.engines_cache) >= CONNECTOR_CACHE_SIZE:
            g.engines_cache.clear()
        parts = g.cards.parts
        found = g.engines_cache[stamp] = tuple(
            (rank, g.engine_values[rank]) for p in g.ship_parts[seat] for rank in parts[p].engines
        )
    return list(found)


def biotech(g: FarlightGame, seat: int) -> int:
    """Bio-tech icons on installed parts (R-BEN-4)."""
    parts = g.cards.parts
    return sum(parts[p].biotech for p in g.ship_parts[seat])


def connectors(g: FarlightGame, seat: int) -> tuple[int, int, int]:
    """(open, connected, blocked) connectors of a seat's ship (R-SHIP-1), cached per stamp."""
    key = (g.ship_stamps[seat], g.config.rule_options.edge_connectors)
    counts = g.connector_cache.get(key)
    if counts is None:
        if len(g.connector_cache) >= CONNECTOR_CACHE_SIZE:
            g.connector_cache.clear()
        counts = g.connector_cache[key] = count_connectors(g, g.ships[seat])
    return counts


def connectors_after(g: FarlightGame, seat: int, cell: Cell, part: int) -> tuple[int, int, int]:
    """`connectors(seat)` as it would be with `part` installed on the empty `cell`."""
    blocked_edge = g.half if g.config.rule_options.edge_connectors == "blocked" else None
    delta = connector_delta(g.ships[seat], g.part_masks, cell, g.part_masks[part], blocked_edge)
    open_, connected, blocked = connectors(g, seat)
    return open_ + delta[0], connected + delta[1], blocked + delta[2]


def legal_cells(g: FarlightGame, seat: int, part: int) -> list[Cell]:
    """Cells of the seat's ship where `part` may go (R-INST-3), cached per ship stamp."""
    key = (g.ship_stamps[seat], g.part_masks[part])
    cells = g.cells_cache.get(key)
    if cells is None:
        if len(g.cells_cache) >= CONNECTOR_CACHE_SIZE:
            g.cells_cache.clear()
        mask = g.part_masks[part]
        cells = open_cells(g.ships[seat], g.part_masks, mask, g.half)
        g.cells_cache[key] = cells = tuple(cells)
    return list(cells)


def can_install(g: FarlightGame, seat: int, part: int) -> bool:
    """Whether `legal_cells` is not empty, without listing the cells unless they are cached
    (valuations ask this of every part on offer; only a won part needs its cells)."""
    mask = g.part_masks[part]
    cells = g.cells_cache.get((g.ship_stamps[seat], mask))
    if cells is not None:
        return bool(cells)
    return has_legal_cell(g.ships[seat], g.part_masks, mask, g.half)


def count_connectors(g: FarlightGame, cells: Mapping[Cell, int]) -> tuple[int, int, int]:
    """(open, connected, blocked) of any ship layout under this game's edge_connectors."""
    blocked_edge = g.half if g.config.rule_options.edge_connectors == "blocked" else None
    return connector_counts(cells, g.part_masks, blocked_edge)


def bid_total(g: FarlightGame, seat: int, slot: int) -> int:
    """A seat's bid on a target slot: tile values plus crew (R-BID-6)."""
    return sum(tile + crew for p, tile, crew in g.bids[slot] if p == seat)
