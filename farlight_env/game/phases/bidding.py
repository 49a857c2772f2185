"""R-BID: the bidding phase's start and the placing of tiles, pass by pass."""

from __future__ import annotations

from typing import TYPE_CHECKING

from farlight_env.game.changes import new_bid_stamp, place_bid
from farlight_env.game.config import Phase, Resume
from farlight_env.game.facts import TILES_PER_PASS
from farlight_env.game.legal import reset_bid_cache

if TYPE_CHECKING:
    from farlight_env.game.game import FarlightGame


def start_bidding(g: FarlightGame) -> None:
    g._phase = Phase.BIDDING
    g._bid_pass = 0
    g._bid_turn = 0
    g._tiles_left = TILES_PER_PASS[0]
    g._current = g.first_player
    g._legal = None
    g._legal_set = None
    reset_bid_cache(g)
    new_bid_stamp(g)  # every target starts the round without bids
    g._selected: int | None = None
    g._resume: Resume | None = None
    g._resolve_cursor = 0
    g._mission = -1
    g._mission_stack = -1
    g._mission_queue: list[int] = []
    g._mission_order: list[int] = []
    g._mission_cursor = 0
    g._completers = 0
    g._climactic_done = False
    g._benefit_left: list[list[int]] = []


def place_tile(g: FarlightGame, p: int, tile: int, slot: int, crew: bool) -> None:
    """R-BID-1..3: move a tile (and maybe one crew) from the player onto the target."""
    place_bid(g, p, tile, slot, crew)
    g._tiles_left -= 1
    if g._tiles_left:
        return
    g._bid_turn += 1
    if g._bid_turn == g.num_players:
        g._bid_turn = 0
        g._bid_pass += 1
        if g._bid_pass == len(TILES_PER_PASS):
            g._resume = Resume.RESOLVE
            return
    g._tiles_left = TILES_PER_PASS[g._bid_pass]
    g._current = (g.first_player + g._bid_turn) % g.num_players
