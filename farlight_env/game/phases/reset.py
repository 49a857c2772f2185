"""R-RESET: the round's end, which may end the game, and the next round's start."""

from __future__ import annotations

from typing import TYPE_CHECKING

from farlight_env.game.changes import add_station_bonus, refill_spaces
from farlight_env.game.config import (
    EndReason,
)
from farlight_env.game.phases.bidding import start_bidding
from farlight_env.game.phases.setup import roll_station_dice
from farlight_env.game.scoring import end

if TYPE_CHECKING:
    from farlight_env.game.game import FarlightGame


def ends_game(g: FarlightGame) -> bool:
    """Whether `round_reset` ends the game, without changing it: a climactic mission done
    (R-RESET-1), too few parts to refill the spaces (R-RESET-3) or the round cap (R-RESET-6)."""
    return g.climactic_done or _deck_short(g) or _at_round_cap(g)


def _deck_short(g: FarlightGame) -> bool:
    """R-RESET-3: the deck cannot fill every empty part space."""
    return sum(part is None for part in g.spaces) > len(g.deck)


def _at_round_cap(g: FarlightGame) -> bool:
    """R-RESET-6: this round is the last one the cap allows."""
    return g.round >= g.config.max_rounds


def round_reset(g: FarlightGame) -> None:
    """R-RESET-1..6 in order; ends the game or starts the next round's bidding."""
    if g.climactic_done:
        end(g, EndReason.CLIMACTIC)
        return
    add_station_bonus(g)
    if _deck_short(g):
        end(g, EndReason.DECK)
        return
    refill_spaces(g)  # R-RESET-4: station dice come off before the new roll
    roll_station_dice(g)
    g.first_player = (g.first_player + 1) % g.num_players
    if _at_round_cap(g):
        end(g, EndReason.ROUND_CAP)
        return
    g.round += 1
    start_bidding(g)
