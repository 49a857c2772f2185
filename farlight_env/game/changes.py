"""The rules' writes to the facts that caches key on, and the change stamps, kept in one place.

Every write of a fact that a change stamp covers goes through a function here, which renews
that stamp as it writes: `seat_stamps[p]` (seat p's crew, science, points, hand, temporary
bio-tech, pending parts and their dice), `board_stamp` (part spaces, their bonus crew and
dice, deck, face-up awards, mission stacks), `ship_stamps[p]` (seat p's ship: cells, parts,
dice) and `bid_stamp` with `bid_log` (bids). The rules (phases/*.py, scoring.py, `apply`)
never renew a stamp nor write a covered fact themselves; tests/test_state_caches.py checks
both, statically and by playing games against copies without caches. Stamps are
process-wide unique ints (`ship.new_stamp`): equal stamps mean equal facts, so observers
(the encoder, the action codec, agents) skip whatever still carries a stamp they saw.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from farlight_env.game.ship import Cell, new_stamp
from farlight_env.game.tables import CONNECTOR_CACHE_SIZE

if TYPE_CHECKING:
    from farlight_env.game.game import FarlightGame

# Kinds of ship change in the low 2 bits of `change_ship` codes.
_INSTALLED, _REMOVED, _BOOSTED = 0, 1, 2


# ------------------------------------------------------------------------- whole-game stamps
def renew_stamps(g: FarlightGame) -> None:
    """New seat, board and bid stamps (see `FarlightGame.invalidate_cache`)."""
    g.seat_stamps = [new_stamp() for _ in range(g.config.num_players)]
    g.board_stamp = new_stamp()
    new_bid_stamp(g)


def renew_ship_stamps(g: FarlightGame) -> None:
    """Give every ship a new stamp; call after editing ships or dice directly (tests), so
    caches keyed on stamps (connectors here, encoders and agents elsewhere) recompute."""
    g.ship_stamps = [new_stamp() for _ in g.ships]


def new_bid_stamp(g: FarlightGame) -> None:
    """A new round of bids, or bids that may differ from what an observer saw."""
    g.bid_stamp = new_stamp()
    g.bid_log = []


# ------------------------------------------------------------------------------- a seat
def add_tokens(
    g: FarlightGame, p: int, crew: int = 0, science: int = 0, points: int = 0, temp_biotech: int = 0
) -> None:
    """Add (or, negative, pay) crew, science, points and temporary bio-tech to seat p."""
    if crew:
        g.crew[p] += crew
    if science:
        g.science[p] += science
    if points:
        g.points[p] += points
    if temp_biotech:
        g.temp_biotech[p] += temp_biotech
    g.seat_stamps[p] = new_stamp()


def clear_temp_biotech(g: FarlightGame) -> None:
    """Every seat's temporary bio-tech back to 0 (R-MIS-5)."""
    g.temp_biotech = [0] * g.num_players
    g.seat_stamps = [new_stamp() for _ in range(g.num_players)]


def add_pending(g: FarlightGame, p: int, part: int) -> None:
    g.pending[p].append(part)
    g.seat_stamps[p] = new_stamp()


def remove_pending(g: FarlightGame, p: int, part: int, crew_cost: int = 0) -> None:
    """Take a part out of seat p's pending parts, paying `crew_cost` crew."""
    g.pending[p].remove(part)
    g.crew[p] -= crew_cost
    g.seat_stamps[p] = new_stamp()


def discard_pending(g: FarlightGame, p: int, part: int) -> None:
    """A pending part leaves the game with its dice (R-INST-5)."""
    remove_pending(g, p, part)
    leave_game(g, part)


# --------------------------------------------------------------------------------- bids
def place_bid(g: FarlightGame, p: int, tile: int, slot: int, crew: bool) -> None:
    """Move a tile (and maybe one crew) from seat p's supply onto a target slot."""
    g.hands[p].remove(tile)
    if crew:
        g.crew[p] -= 1
    g.seat_stamps[p] = new_stamp()
    g.bids[slot].append((p, tile, crew))
    g.bid_log.append(slot)


def return_bids(
    g: FarlightGame, slot: int, bidders: Iterable[int], refund: bool, winner: int | None = None
) -> None:
    """Every tile on a slot back to its bidder's hand (sorted again), and with `refund` each
    bid but the winner's its crew and one more for a tile worth more than 0 (R-RES-4); then
    clear the slot. `bidders` are the seats with bids on it."""
    hands = g.hands
    if refund:
        crew = g.crew
        for p, tile, c in g.bids[slot]:
            hands[p].append(tile)
            if p != winner:
                crew[p] += int(c) + (1 if tile else 0)
    else:
        for p, tile, _c in g.bids[slot]:
            hands[p].append(tile)
    stamps = g.seat_stamps
    for p in bidders:
        hands[p].sort()
        stamps[p] = new_stamp()
    g.bids[slot] = []
    g.bid_log.append(~slot)


# -------------------------------------------------------------------------------- board
def take_space(g: FarlightGame, slot: int) -> tuple[int, int]:
    """Empty a part space: its part and the bonus crew lying on it (R-RES-3)."""
    part = g.spaces[slot]
    assert part is not None
    bonus = g.bonus[slot]
    g.spaces[slot] = None
    g.bonus[slot] = 0
    g.board_stamp = new_stamp()
    return part, bonus


def retire_mission(g: FarlightGame, stack: int) -> int:
    """The top mission of a stack leaves play (R-MIS-8); returns it."""
    done = g.stacks[stack].pop(0)
    g.missions_out.append(done)
    g.board_stamp = new_stamp()
    return done


def add_station_bonus(g: FarlightGame) -> None:
    """One bonus crew on every filled part space (R-RESET-2)."""
    for slot, part in enumerate(g.spaces):
        if part is not None:
            g.bonus[slot] += 1
    g.board_stamp = new_stamp()


def refill_spaces(g: FarlightGame) -> None:
    """Station dice come off (R-RESET-4), then the deck fills every empty space (R-RESET-3)."""
    parts = g.cards.parts
    for part in g.spaces:
        if part is not None:
            for rank in parts[part].engines:
                del g.engine_values[rank]
    for slot, part in enumerate(g.spaces):
        if part is None:
            g.spaces[slot] = g.deck.pop()
    g.board_stamp = new_stamp()


def set_station_dice(g: FarlightGame, dice: Mapping[int, int]) -> None:
    """Set the dice of engines on the station: {rank: die}."""
    g.engine_values.update(dice)
    g.board_stamp = new_stamp()


# -------------------------------------------------------------------------------- ships
def change_ship(g: FarlightGame, p: int, change: int) -> None:
    """Give seat p's ship the stamp that follows its current one under a change.

    `change` codes everything that differs afterwards in 64 bits (see the callers), so
    equal stamps still mean equal ships; the first game to make a change takes a new
    stamp. Keys are ints, which the garbage collector does not track: a large table does
    not make collections more frequent (tuples would).
    """
    if not g.share_ship_stamps:  # not a clone, or codes would not fit 64 bits
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
    """`change_ship`'s code for installing `part` with its dice on `cell`."""
    dice = 0  # 3 bits per die (1..6), at most 6 dice: 18 bits
    for i, rank in enumerate(g.cards.parts[part].engines):
        dice |= g.engine_values[rank] << 3 * i
    code = ((dice << 32 | part) << 6 | cell[0] + 32) << 6 | cell[1] + 32  # 62 bits
    return code << 2 | _INSTALLED


def put_on_ship(
    g: FarlightGame, p: int, part: int, cell: Cell, counts: tuple[int, int, int]
) -> None:
    """Place a part on an empty cell of seat p's ship; `counts` are the ship's connector
    counts afterwards (`connectors_after`), kept for the new stamp."""
    g.ships[p][cell] = part
    g.ship_parts[p].append(part)
    change_ship(g, p, install_code(g, part, cell) if g.share_ship_stamps else 0)
    if len(g.connector_cache) >= CONNECTOR_CACHE_SIZE:
        g.connector_cache.clear()
    g.connector_cache[(g.ship_stamps[p], g.config.rule_options.edge_connectors)] = counts


def remove_from_ship(g: FarlightGame, p: int, part: int) -> None:
    """A part and its engines leave seat p's ship and the game (R-RES-6)."""
    change_ship(g, p, part << 2 | _REMOVED)
    g.ship_parts[p].remove(part)
    ship = g.ships[p]
    cell = next(c for c, piece in ship.items() if piece == part)
    del ship[cell]
    leave_game(g, part)


def set_ship_die(g: FarlightGame, p: int, rank: int, value: int) -> None:
    """Set the die of an engine on seat p's ship; its layout, so its connectors, stay."""
    rule = g.config.rule_options.edge_connectors
    counts = g.connector_cache.get((g.ship_stamps[p], rule))
    g.engine_values[rank] = value
    change_ship(g, p, (rank << 3 | value) << 2 | _BOOSTED)
    if counts is not None and len(g.connector_cache) < CONNECTOR_CACHE_SIZE:
        g.connector_cache[(g.ship_stamps[p], rule)] = counts  # same layout, new die


def leave_game(g: FarlightGame, part: int) -> None:
    """A part goes out of the game, its dice with it (the caller renews what held it)."""
    for rank in g.cards.parts[part].engines:
        g.engine_values.pop(rank, None)
    g.out_of_game.append(part)
