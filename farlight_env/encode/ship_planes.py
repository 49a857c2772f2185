"""Ship planes: each seat's ship drawn as channel planes over the grid (parts, connectors, icons,
bio-tech, dice), with the ship's counts for the player rows, cached on the ship stamp."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from farlight_env.cards.model import CardSet
from farlight_env.encode.layout import ICON_CHANNELS
from farlight_env.encode.observers import make_room
from farlight_env.game.game import FarlightGame
from farlight_env.game.ship import CORE, STEPS, connector_mask


class ShipSummary(NamedTuple):
    """What the observation needs of one ship; computed once per ship stamp (a named tuple:
    built often, so cheaper than a frozen dataclass)."""

    planes: np.ndarray
    engines: np.ndarray
    #: The ship's entries of a player row, in PLAYER_FEATURES order: biotech/5, engines/5,
    #: engine sum/30, parts/10, open/10, blocked/10 (temp_biotech between them is the seat's).
    row: tuple[float, float, float, float, float, float]


class ShipPlanes:
    """Every seat's ship planes and counts for one card set and grid size.

    Summaries are cached on the ship stamp; each seat's last planes are kept so the next
    drawing writes only the cells whose part or dice changed.
    """

    def __init__(
        self,
        cards: CardSet,
        grid_size: int,
        ranks: list[int],
        ship_channels: int,
        part_engines: dict[int, tuple[int, ...]],
    ) -> None:
        self.cards = cards
        self.grid_size = grid_size
        self.half = grid_size // 2
        self.num_parts = len(cards.parts)
        self.ranks = ranks
        self.rank_pos = {rank: i for i, rank in enumerate(ranks)}
        self.ship_channels = ship_channels
        self._part_engines = part_engines
        self._cells = self._cell_table()
        self._ship_cache: dict[int, ShipSummary] = {}
        #: Per seat, the last ship drawn: (cells, dice per cell, planes); planes are never
        #: written once drawn, so the next drawing starts from a copy.
        self._drawn_ships: dict[int, tuple[dict, dict, np.ndarray]] = {}

    def summary(self, game: FarlightGame, p: int) -> ShipSummary:
        """Planes and counts of one ship, cached on its stamp (changes with parts or engines)."""
        stamp = game.ship_stamps[p]
        summary = self._ship_cache.get(stamp)
        if summary is None:
            make_room(self._ship_cache)
            summary = self._summarise_ship(game, p)
            self._ship_cache[stamp] = summary
        return summary

    def _summarise_ship(self, game: FarlightGame, p: int) -> ShipSummary:
        engines = game.engines(p)
        by_rank = np.zeros(len(self.ranks), dtype=np.float32)
        engine_sum = 0
        for rank, value in engines:
            by_rank[self.rank_pos[rank]] = value / 6.0
            engine_sum += value
        open_, _connected, blocked = game.connectors(p)
        row = (
            game.biotech(p) / 5.0,
            len(engines) / 5.0,
            engine_sum / 30.0,
            len(game.ship_parts[p]) / 10.0,
            open_ / 10.0,
            blocked / 10.0,
        )
        return ShipSummary(self._draw_ship(game, p), by_rank, row)

    def _cell_table(self) -> np.ndarray:
        """Static ship channels of every part (row per part, the core last: CORE is -1)."""
        table = np.zeros((self.num_parts + 1, self.ship_channels), dtype=np.float32)
        for index, part in enumerate(self.cards.parts):
            row = table[index]
            row[0] = 1.0
            mask = connector_mask(part)
            for j, (bit, _opp, _dr, _dc) in enumerate(STEPS):
                row[2 + j] = float(bool(mask & bit))
            for j, (kind, timing) in enumerate(ICON_CHANNELS):
                row[6 + j] = sum(1 for i in part.icons if i.kind is kind and i.timing is timing)
            row[6 + len(ICON_CHANNELS)] = part.biotech / 2.0
        table[CORE, :6] = 1.0  # occupied, core, four connectors
        return table

    def _draw_ship(self, game: FarlightGame, p: int) -> np.ndarray:
        """Ship planes: static channels of each part from a table, dice on engine parts.

        Drawn from the seat's previous planes when there are any: a ship changes by a part or
        a die at a time, so only the cells whose part or dice differ are written.
        """
        ship = game.ships[p]
        values, part_engines = game.engine_values, self._part_engines
        dice = {
            cell: tuple(sorted([values.get(rank, 0) for rank in part_engines[piece]], reverse=True))
            for cell, piece in ship.items()
            if piece in part_engines
        }
        drawn = self._drawn_ships.get(p)
        if drawn is None:
            planes = np.zeros((self.ship_channels, self.grid_size, self.grid_size), np.float32)
            changed = set(ship)
        else:
            old_ship, old_dice, old_planes = drawn
            planes = old_planes.copy()
            # cells whose part or dice differ, from C-level set differences of the item views
            changed = {cell for cell, _ in ship.items() ^ old_ship.items()}
            changed.update(cell for cell, _ in dice.items() ^ old_dice.items())
        h, first_die, cells = self.half, 7 + len(ICON_CHANNELS), self._cells
        for cell in changed:
            row, col = cell[0] + h, cell[1] + h
            piece = ship.get(cell)
            if piece is None:
                planes[:, row, col] = 0.0
                continue
            planes[:, row, col] = cells[piece]
            for j, value in enumerate(dice.get(cell, ())):
                planes[first_die + j, row, col] = value / 6.0
        self._drawn_ships[p] = (dict(ship), dice, planes)
        return planes
