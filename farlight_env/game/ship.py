"""Ship geometry on a bounded grid: placement legality and connector states (R-INST, R-SHIP)."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping, Sequence

from farlight_env.cards.model import PartCard, Side

# Connector bits, one per side; the Primary Core has all four (R-SETUP-1).
UP, RIGHT, DOWN, LEFT = 1, 2, 4, 8
SIDE_BITS: dict[Side, int] = {Side.UP: UP, Side.RIGHT: RIGHT, Side.DOWN: DOWN, Side.LEFT: LEFT}
CORE_MASK = UP | RIGHT | DOWN | LEFT
CORE = -1  # the core's piece id in a ship's cell map

# (bit, opposite bit, row step, col step) for every side.
STEPS: tuple[tuple[int, int, int, int], ...] = (
    (UP, DOWN, -1, 0),
    (RIGHT, LEFT, 0, 1),
    (DOWN, UP, 1, 0),
    (LEFT, RIGHT, 0, -1),
)

Cell = tuple[int, int]

# Process-wide unique stamps: equal stamps mean equal ship contents (caches key on them).
_STAMPS = itertools.count()


def new_stamp() -> int:
    """A stamp no ship has had before; take one whenever a ship's contents change."""
    return next(_STAMPS)


def connector_mask(part: PartCard) -> int:
    """The part's printed connectors as a bit mask."""
    mask = 0
    for side in part.connectors:
        mask |= SIDE_BITS[side]
    return mask


def legal_cells(
    cells: Mapping[Cell, int], masks: Sequence[int], new_mask: int, half: int
) -> list[Cell]:
    """Empty in-grid cells where a part with `new_mask` links to a facing connector (R-INST-3).

    `cells` maps occupied cells to piece ids (CORE for the core); `masks[i]` is piece i's mask.
    """
    return sorted(set(_linking_cells(cells, masks, new_mask, half)))


def has_legal_cell(
    cells: Mapping[Cell, int], masks: Sequence[int], new_mask: int, half: int
) -> bool:
    """Whether `legal_cells` would find any cell: the same test, stopping at the first."""
    return next(_linking_cells(cells, masks, new_mask, half), None) is not None


def _linking_cells(
    cells: Mapping[Cell, int], masks: Sequence[int], new_mask: int, half: int
) -> Iterator[Cell]:
    """`legal_cells`' cells one by one as the ship's connectors meet them (repeats included)."""
    for (row, col), piece in cells.items():
        mask = CORE_MASK if piece == CORE else masks[piece]
        for bit, opposite, dr, dc in STEPS:
            if mask & bit and new_mask & opposite:
                target = (row + dr, col + dc)
                if (
                    target not in cells
                    and -half <= target[0] <= half
                    and -half <= target[1] <= half
                ):
                    yield target


def connector_counts(
    cells: Mapping[Cell, int], masks: Sequence[int], blocked_edge: int | None = None
) -> tuple[int, int, int]:
    """(open, connected, blocked) connector counts over all pieces (R-SHIP-1).

    A connector pointing at an empty cell is open, also at the grid's edge; with
    `blocked_edge` (the grid's half-width, option edge_connectors="blocked") one pointing
    beyond row/column +-blocked_edge counts as blocked.
    """
    open_count = connected = blocked = 0
    for (row, col), piece in cells.items():
        mask = CORE_MASK if piece == CORE else masks[piece]
        for bit, opposite, dr, dc in STEPS:
            if not mask & bit:
                continue
            neighbour = cells.get((row + dr, col + dc))
            if neighbour is None:
                if blocked_edge is not None and (
                    abs(row + dr) > blocked_edge or abs(col + dc) > blocked_edge
                ):
                    blocked += 1
                else:
                    open_count += 1
            elif (CORE_MASK if neighbour == CORE else masks[neighbour]) & opposite:
                connected += 1
            else:
                blocked += 1
    return open_count, connected, blocked


def connector_delta(
    cells: Mapping[Cell, int],
    masks: Sequence[int],
    cell: Cell,
    new_mask: int,
    blocked_edge: int | None = None,
) -> tuple[int, int, int]:
    """How `connector_counts` changes when a part with `new_mask` fills the empty `cell`.

    Only the new part's connectors and the neighbours' connectors facing `cell` change, so
    search can score every placement without recounting the ship.
    """
    d_open = d_connected = d_blocked = 0
    row, col = cell
    for bit, opposite, dr, dc in STEPS:
        target = (row + dr, col + dc)
        neighbour = cells.get(target)
        if neighbour is not None:
            facing = (CORE_MASK if neighbour == CORE else masks[neighbour]) & opposite
            if facing:  # it pointed at an empty cell: open before, now met or blocked
                d_open -= 1
                if new_mask & bit:
                    d_connected += 1
                else:
                    d_blocked += 1
            if new_mask & bit:
                if facing:
                    d_connected += 1
                else:
                    d_blocked += 1
        elif new_mask & bit:
            if blocked_edge is not None and (
                abs(target[0]) > blocked_edge or abs(target[1]) > blocked_edge
            ):
                d_blocked += 1
            else:
                d_open += 1
    return d_open, d_connected, d_blocked


def mask_sides(mask: int) -> Iterable[Side]:
    """The sides present in a mask, in the order up, right, down, left."""
    return (side for side, bit in SIDE_BITS.items() if mask & bit)
