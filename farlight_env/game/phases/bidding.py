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
    g.phase = Phase.BIDDING
    g.bid_pass = 0
    g.bid_turn = 0
    g.tiles_left = TILES_PER_PASS[0]
    g.current = g.first_player
    g.legal_cache = None
    g.legal_set_cache = None
    reset_bid_cache(g)
    new_bid_stamp(g)  # every target starts the round without bids
    g.selected = None
    g.resume = None
    g.resolve_cursor = 0
    g.mission = -1
    g.resolving_stack = -1
    g.mission_queue = []
    g.mission_order = []
    g.mission_cursor = 0
    g.mission_completers = 0
    g.climactic_done = False
    g.benefit_left = []


def place_tile(g: FarlightGame, p: int, tile: int, slot: int, crew: bool) -> None:
    """R-BID-1..3: move a tile (and maybe one crew) from the player onto the target."""
    place_bid(g, p, tile, slot, crew)
    g.tiles_left -= 1
    if g.tiles_left:
        return
    g.bid_turn += 1
    if g.bid_turn == g.num_players:
        g.bid_turn = 0
        g.bid_pass += 1
        if g.bid_pass == len(TILES_PER_PASS):
            g.resume = Resume.RESOLVE
            return
    g.tiles_left = TILES_PER_PASS[g.bid_pass]
    g.current = (g.first_player + g.bid_turn) % g.num_players
