"""What the rules ask of a position (turn order, engines, bio-tech, connectors, legal cells)
and the change stamps that let caches skip what did not change; functions of a game's state
and its tables, bound as `FarlightGame` methods."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from farlight_env.game.ship import (
    Cell,
    connector_counts,
    connector_delta,
    has_legal_cell,
    new_stamp,
)
from farlight_env.game.ship import legal_cells as open_cells
from farlight_env.game.tables import CONNECTOR_CACHE_SIZE

if TYPE_CHECKING:
    from farlight_env.game.game import FarlightGame

# Kinds of ship change in the low 2 bits of `change_ship` codes.
_INSTALLED, _REMOVED, _BOOSTED = 0, 1, 2


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


def renew_stamps(g: FarlightGame) -> None:
    """New seat, board and bid stamps (change stamps; see `invalidate_cache`)."""
    g.seat_stamps = [new_stamp() for _ in range(g.config.num_players)]
    g.board_stamp = new_stamp()
    new_bid_stamp(g)


def new_bid_stamp(g: FarlightGame) -> None:
    """A new round of bids, or bids that may differ from what an observer saw."""
    g.bid_stamp = new_stamp()
    g.bid_log: list[int] = []


def change_ship(g: FarlightGame, p: int, change: int) -> None:
    """Give seat p's ship the stamp that follows its current one under a change.

    `change` codes everything that differs afterwards in 64 bits (see the callers), so
    equal stamps still mean equal ships; the first game to make a change takes a new
    stamp. Keys are ints, which the garbage collector does not track: a large table does
    not make collections more frequent (tuples would).
    """
    if not g._share_ship_stamps:  # not a clone, or codes would not fit 64 bits
        g.ship_stamps[p] = new_stamp()
        return
    key = g.ship_stamps[p] << 64 | change
    stamp = g.ship_transitions.get(key)
    if stamp is None:
        if len(g.ship_transitions) >= CONNECTOR_CACHE_SIZE:
            g.ship_transitions.clear()
        stamp = g.ship_transitions[key] = new_stamp()
    g.ship_stamps[p] = stamp


def install_code(g: FarlightGame, part: int, cell: Cell) -> int:
    """`_change_ship`'s code for installing `part` with its dice on `cell`."""
    dice = 0  # 3 bits per die (1..6), at most 6 dice: 18 bits
    for i, rank in enumerate(g.cards.parts[part].engines):
        dice |= g.engine_values[rank] << 3 * i
    code = ((dice << 32 | part) << 6 | cell[0] + 32) << 6 | cell[1] + 32  # 62 bits
    return code << 2 | _INSTALLED


def renew_ship_stamps(g: FarlightGame) -> None:
    """Give every ship a new stamp; call after editing ships or dice directly (tests), so
    caches keyed on stamps (connectors here, encoders and agents elsewhere) recompute."""
    g.ship_stamps = [new_stamp() for _ in g.ships]


def count_connectors(g: FarlightGame, cells: Mapping[Cell, int]) -> tuple[int, int, int]:
    """(open, connected, blocked) of any ship layout under this game's edge_connectors."""
    blocked_edge = g.half if g.config.rule_options.edge_connectors == "blocked" else None
    return connector_counts(cells, g.part_masks, blocked_edge)


def bid_total(g: FarlightGame, seat: int, slot: int) -> int:
    """A seat's bid on a target slot: tile values plus crew (R-BID-6)."""
    return sum(tile + crew for p, tile, crew in g.bids[slot] if p == seat)


def leave_game(g: FarlightGame, part: int) -> None:
    for rank in g.cards.parts[part].engines:
        g.engine_values.pop(rank, None)
    g.out_of_game.append(part)
