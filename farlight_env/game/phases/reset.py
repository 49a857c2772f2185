"""R-RESET: the round's end, which may end the game, and the next round's start."""

from __future__ import annotations

from typing import TYPE_CHECKING

from farlight_env.game.config import (
    EndReason,
)
from farlight_env.game.phases.bidding import start_bidding
from farlight_env.game.phases.setup import roll_station_dice
from farlight_env.game.scoring import end
from farlight_env.game.ship import new_stamp

if TYPE_CHECKING:
    from farlight_env.game.game import FarlightGame


def ends_game(g: FarlightGame) -> bool:
    """Whether `round_reset` ends the game, without changing it: a climactic mission done
    (R-RESET-1), too few parts to refill the spaces (R-RESET-3) or the round cap (R-RESET-6)."""
    if g._climactic_done:
        return True
    empty = sum(part is None for part in g.spaces)
    return empty > len(g.deck) or g.round >= g.config.max_rounds


def round_reset(g: FarlightGame) -> None:
    """R-RESET-1..6 in order; ends the game or starts the next round's bidding."""
    g.board_stamp = new_stamp()
    if g._climactic_done:
        end(g, EndReason.CLIMACTIC)
        return
    for slot, part in enumerate(g.spaces):
        if part is not None:
            g.bonus[slot] += 1
    empty = [slot for slot, part in enumerate(g.spaces) if part is None]
    if len(empty) > len(g.deck):
        end(g, EndReason.DECK)
        return
    for part in g.spaces:  # R-RESET-4: station dice come off before the new roll
        if part is not None:
            for rank in g.cards.parts[part].engines:
                del g.engine_values[rank]
    for slot in empty:
        g.spaces[slot] = g.deck.pop()
    roll_station_dice(g)
    g.first_player = (g.first_player + 1) % g.num_players
    if g.round >= g.config.max_rounds:
        end(g, EndReason.ROUND_CAP)
        return
    g.round += 1
    start_bidding(g)
