"""The heuristic's bid valuation as arrays: the legal placements (`Placements`) and each
one's expected gain (`_placement_gains`): the chance of winning its target before and after,
times the target's worth, less the crew it costs, plus the refund of a losing tile.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from farlight_env.game.facts import TILES

UNKNOWN_TILE = 2.0  # expected value of an opponent's face-down tile
#: Worth of a lone 0 on a mission it can complete, as a share of the mission's worth: asked
#: after every real bid it scores half or the full value (R-MIS-2, R-MIS-6), but the resources
#: it spends then are worth keeping too. Measured over 400 two-player games against the same
#: heuristic without the ticket: 0.2 won 52.2%, 0.5 won 50.5%, 1.0 won 45.0%.
LONE_ZERO_SHARE = 0.2


def _p_win(total: np.ndarray, rival: np.ndarray, is_mission: np.ndarray) -> np.ndarray:
    """`_placement_score`'s chance of winning a target with `total`, element-wise."""
    ahead = total > rival
    chance = np.where(ahead, 0.7, np.where(total >= rival - 1, 0.15, 0.02))
    chance = np.where(total > rival + 1.5, 0.95, chance)
    chance = np.where(is_mission, np.where(ahead, 1.0, 0.6), chance)
    return np.where(total < 1, 0.0, chance)


@dataclass(frozen=True, eq=False)
class Placements:
    """Legal placements as (slot, tile, crew) arrays plus every term that depends on them alone.

    Built once per distinct legal list (cached), so a miss in the gains cache pays only for
    the terms that read the bids and the valuation.
    """

    slot: np.ndarray
    value: np.ndarray  # tile + crew
    is_mission: np.ndarray
    is_mission_twice: np.ndarray  # is_mission repeated, for after and before in one pass
    crew_cost: tuple[np.ndarray, np.ndarray]  # with plenty of crew, with 2 or fewer
    refund_free: np.ndarray  # missions and 0 tiles are never refunded
    waste: np.ndarray  # what a tile on a worthless target throws away
    ticket: np.ndarray  # a lone 0 without crew on a mission
    cells: np.ndarray  # each placement's place in a table of every slot's `SLOT_BLOCK`, in order

    @classmethod
    def of(cls, fields: np.ndarray, first_mission: int) -> Placements:
        slot, tile, crew = fields[:, 0], fields[:, 1], fields[:, 2]
        is_mission = slot >= first_mission
        value = tile + crew
        base = np.where(is_mission, 0.9, 0.35)
        return cls(
            cells=slot * len(SLOT_BLOCK) + tile * 2 + crew,
            slot=slot,
            value=value,
            is_mission=is_mission,
            is_mission_twice=np.concatenate((is_mission, is_mission)),
            crew_cost=tuple(np.where(crew == 1, base + extra, 0.0) for extra in (0.0, 0.5)),  # type: ignore[arg-type]
            refund_free=is_mission | (tile == 0),
            waste=0.05 * tile,
            ticket=is_mission & (value == 0),
        )


#: Every placement on one target slot, as (tile, crew) rows; gains are computed per slot.
SLOT_BLOCK = tuple((tile, crew) for tile in TILES for crew in (0, 1))
assert all(SLOT_BLOCK[2 * tile + crew] == (tile, crew) for tile, crew in SLOT_BLOCK)


def _placement_gains(
    rows: Placements,
    worths: np.ndarray,
    mine: list[int],
    rivals: list[float],
    crew_low: bool,
    lone_zero: bool,
) -> np.ndarray:
    """`HeuristicAgent._placement_score` for every placement (same float operations)."""
    worth = worths[rows.slot]
    rival = np.asarray(rivals, dtype=np.float64)[rows.slot]
    before = np.asarray(mine, dtype=np.int64)[rows.slot]
    # after and before in one pass: the same element-wise chances, half the array calls
    chances = _p_win(
        np.concatenate((before + rows.value, before)),
        np.concatenate((rival, rival)),
        rows.is_mission_twice,
    )
    p_after, p_before = chances[: len(before)], chances[len(before) :]
    gain = worth * (p_after - p_before)
    refund = np.where(rows.refund_free, 0.0, 0.25 * (1.0 - p_after))
    waste = np.where(worth <= 0, rows.waste, 0.0)
    gains = gain - rows.crew_cost[crew_low] + refund - waste
    if lone_zero:  # a lone 0 on a mission is a cheap ticket, asked last (R-MIS-2)
        ticket = rows.ticket & (before == 0)
        gains = gains + np.where(ticket, LONE_ZERO_SHARE * worth, 0.0)
    return gains


@dataclass(frozen=True, eq=False)
class OpenRows:
    """Placements with the terms fixed while no one has bid on their slots (the seat's own
    bid 0, the best rival bid 0): the chance of winning after the bid, 0 before it, and the
    refund are then constants per row, so `open_gains` costs a few array calls per valuation."""

    rows: Placements
    p_after: np.ndarray
    refund: np.ndarray

    @classmethod
    def of(cls, rows: Placements) -> OpenRows:
        p_after = _p_win(rows.value, np.zeros(len(rows.value)), rows.is_mission)
        refund = np.where(rows.refund_free, 0.0, 0.25 * (1.0 - p_after))
        return cls(rows=rows, p_after=p_after, refund=refund)


def open_gains(
    open_rows: OpenRows, worths: np.ndarray, crew_low: bool, lone_zero: bool
) -> np.ndarray:
    """`_placement_gains` of placements on slots without bids, bit for bit: the same float
    operations in the same order, the fixed terms read from `open_rows` (p_before is +0.0,
    so worth * (p_after - p_before) is worth * p_after exactly)."""
    rows = open_rows.rows
    worth = worths[rows.slot]
    gain = worth * open_rows.p_after
    waste = np.where(worth <= 0, rows.waste, 0.0)
    gains = gain - rows.crew_cost[crew_low] + open_rows.refund - waste
    if lone_zero:  # every row's own bid is 0: a lone 0 on a mission is the ticket
        gains = gains + np.where(rows.ticket, LONE_ZERO_SHARE * worth, 0.0)
    return gains


def win_chance(total: int, rival: float, is_mission: bool) -> float:
    """`_p_win` for one placement, with the same comparisons (scalar blocks skip numpy)."""
    if total < 1:
        return 0.0
    ahead = total > rival
    if is_mission:
        return 1.0 if ahead else 0.6
    if total > rival + 1.5:
        return 0.95
    if ahead:
        return 0.7
    return 0.15 if total >= rival - 1 else 0.02


@functools.lru_cache(maxsize=16384)
def block_gains(
    worth: float, mine: int, rival: float, is_mission: bool, crew_low: bool, lone_zero: bool
) -> np.ndarray:
    """`_placement_gains` of the `SLOT_BLOCK` placements on one slot (read-only, memoised).

    Ten placements cost numpy more in calls than in arithmetic, so this computes them one by
    one: the same IEEE operations in the same order, hence bit-identical results.
    """
    p_before = win_chance(mine, rival, is_mission)
    crew_cost = (0.9 if is_mission else 0.35) + (0.5 if crew_low else 0.0)
    out = []
    for tile, crew in SLOT_BLOCK:
        p_after = win_chance(mine + tile + crew, rival, is_mission)
        gain = worth * (p_after - p_before)
        refund = 0.0 if is_mission or tile == 0 else 0.25 * (1.0 - p_after)
        waste = 0.05 * tile if worth <= 0 else 0.0
        gains = gain - (crew_cost if crew == 1 else 0.0) + refund - waste
        if lone_zero:
            ticket = is_mission and tile + crew == 0 and mine == 0
            gains = gains + (LONE_ZERO_SHARE * worth if ticket else 0.0)
        out.append(gains)
    gains = np.array(out, dtype=np.float64)
    gains.setflags(write=False)  # shared by every caller of the cache
    return gains
