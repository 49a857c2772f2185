"""Cross-field checks of a saved state: only what this engine could have produced is loaded.

`schema.SavedState` has already checked each field's type and range. Here every card sits in
exactly one place, lists have one entry per seat, slot or space, dice sit on exactly the engines
in play, and the phase, current player and cursors agree with one another. A loaded game then
never hangs, crashes deep in the engine or encoder, or wraps a negative index.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

from farlight_env.cards.model import AWARDS, FACILITIES, CardSet
from farlight_env.game.config import GameConfig, Phase
from farlight_env.game.facts import (
    ENGINEER,
    NUM_FACE_UP_AWARDS,
    NUM_STACKS,
    PART_SPACES,
    REFIT,
    TILES,
    TILES_PER_PASS,
)
from farlight_env.game.phases.missions import mission_bidders, mission_order
from farlight_env.game.rules_options import RuleOptions
from farlight_env.game.schema import SavedState

if TYPE_CHECKING:
    from farlight_env.game.game import FarlightGame


class StateError(ValueError):
    """One broken fact of a saved state; `field` names where (e.g. ``state.crew[1]``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"state.{field}: {message}")


#: Phases in which won parts wait to be installed (resolution, then installing).
_PENDING_PHASES = frozenset({Phase.REFIT, Phase.ENGINEER, Phase.INSTALL})
#: Phases after every part space and facility has been resolved this round.
_RESOLVED_PHASES = frozenset(
    {Phase.INSTALL, Phase.UPGRADE, Phase.OVERHAUL, Phase.MISSION, Phase.OVER}
)
#: Phases after the benefits were counted (benefit_left holds one pair per seat).
_BENEFIT_PHASES = frozenset({Phase.UPGRADE, Phase.OVERHAUL, Phase.MISSION, Phase.OVER})


def check_state(st: SavedState, config: GameConfig, cards: CardSet, dealt: bool = True) -> None:
    """Raise StateError for the first fact of `st` that no legal play could have produced.

    With `dealt=False` (positions built by hand: puzzles, rule tests) the facts that only prove
    a real deal are not required: mission stacks of any missions in any order, face-up and
    face-down awards that are not a permutation of the seven. Everything the engine relies on
    is still checked."""
    n = config.num_players
    _check_lengths(st, n, PART_SPACES[n])
    _check_round(st, config)
    _check_parts(st, len(cards.parts), config.grid_size)
    _check_missions(st, cards, dealt)
    _check_awards(st, dealt)
    _check_engines(st, cards)
    _check_tiles(st, n, PART_SPACES[n])
    _check_phase(st, n, PART_SPACES[n], config.rule_options)
    _check_temp_biotech(st, cards, config.rule_options)
    _check_end(st, n, config.rule_options)


def check_decision(game: FarlightGame) -> None:
    """A saved game rests at a real decision: bidding or a choice of at least two actions."""
    if game.is_over:
        return
    legal = game.legal_actions()
    if not legal or (game.phase is not Phase.BIDDING and len(legal) < 2):
        raise StateError(
            "phase",
            f"seat {game.current_player} has {len(legal)} legal action(s) in phase "
            f"{game.phase.value}; the engine only stops at a real decision",
        )


# ------------------------------------------------------------------------------------ shapes
def _check_lengths(st: SavedState, n: int, spaces: int) -> None:
    for name in (
        "crew",
        "science",
        "points",
        "temp_biotech",
        "hands",
        "ships",
        "ship_parts",
        "pending",
        "installed_this_round",
    ):
        _length(name, getattr(st, name), n, "one per seat")
    _length("spaces", st.spaces, spaces, "one per part space")
    _length("bonus", st.bonus, spaces, "one per part space")
    _length("bids", st.bids, spaces + len(FACILITIES) + NUM_STACKS, "one per bid target")
    for name in ("current", "first_player", "bid_turn"):
        _seat(name, getattr(st, name), n)
    for name in ("winners", "mission_order"):
        for i, seat in enumerate(getattr(st, name)):
            _seat(f"{name}[{i}]", seat, n)
    for slot, bids in enumerate(st.bids):
        for i, (seat, _tile, _crew) in enumerate(bids):
            _seat(f"bids[{slot}][{i}][0]", seat, n)


def _length(name: str, values: Sequence[object], expected: int, why: str) -> None:
    if len(values) != expected:
        raise StateError(name, f"expected {expected} entries ({why}), got {len(values)}")


def _seat(name: str, seat: int | None, n: int) -> None:
    if seat is not None and not 0 <= seat < n:
        raise StateError(name, f"expected a seat 0..{n - 1}, got {seat}")


def _check_round(st: SavedState, config: GameConfig) -> None:
    if st.round > config.max_rounds:
        raise StateError("round", f"expected 1..{config.max_rounds} (max_rounds), got {st.round}")


# ------------------------------------------------------------------------------------- cards
def _check_parts(st: SavedState, num_parts: int, grid_size: int) -> None:
    """Every part card in exactly one place; ships hold their core at (0,0) inside the grid."""
    places: dict[int, str] = {}

    def put(part: int, where: str) -> None:
        if part >= num_parts:
            raise StateError(where, f"expected a part id 0..{num_parts - 1}, got {part}")
        if part in places:
            raise StateError(where, f"part {part} is also in {places[part]}")
        places[part] = where

    for i, part in enumerate(st.deck):
        put(part, f"deck[{i}]")
    for i, part in enumerate(st.out_of_game):
        put(part, f"out_of_game[{i}]")
    for i, space in enumerate(st.spaces):
        if space is not None:
            put(space, f"spaces[{i}]")
        elif st.bonus[i]:
            raise StateError(f"bonus[{i}]", "an empty part space holds no bonus crew (R-RES-3)")
    for seat in range(len(st.crew)):
        for i, part in enumerate(st.pending[seat]):
            put(part, f"pending[{seat}][{i}]")
        for i, part in enumerate(st.ship_parts[seat]):
            put(part, f"ship_parts[{seat}][{i}]")
        _check_ship(st, seat, grid_size)
        fresh = st.installed_this_round[seat]
        if len(set(fresh)) != len(fresh) or not set(fresh) <= set(st.ship_parts[seat]):
            raise StateError(
                f"installed_this_round[{seat}]", "must list distinct parts on that seat's ship"
            )
    if len(places) != num_parts:
        missing = sorted(set(range(num_parts)) - set(places))
        raise StateError("deck", f"every part card must be in exactly one place; {missing} is not")
    if st.selected is not None and st.selected >= num_parts:
        raise StateError("selected", f"expected a part id 0..{num_parts - 1}, got {st.selected}")


def _check_ship(st: SavedState, seat: int, grid_size: int) -> None:
    half = grid_size // 2
    cells: set[tuple[int, int]] = set()
    cores = []
    for i, (row, col, piece) in enumerate(st.ships[seat]):
        where = f"ships[{seat}][{i}]"
        if not (-half <= row <= half and -half <= col <= half):
            raise StateError(where, f"cell ({row}, {col}) is outside the {grid_size}-wide grid")
        if (row, col) in cells:
            raise StateError(where, f"cell ({row}, {col}) holds two pieces")
        cells.add((row, col))
        if piece < 0:
            cores.append((row, col))
    if cores != [(0, 0)]:
        raise StateError(f"ships[{seat}]", f"expected one core at (0, 0), got cores at {cores}")
    on_map = Counter(piece for _r, _c, piece in st.ships[seat] if piece >= 0)
    if on_map != Counter(st.ship_parts[seat]):
        raise StateError(f"ship_parts[{seat}]", "must list exactly the parts on the ship's cells")


def _check_missions(st: SavedState, cards: CardSet, dealt: bool) -> None:
    """Every mission in exactly one place; stacks sorted lowest on top, climactic at the bottom."""
    missions = cards.missions
    listed = [m for stack in st.stacks for m in stack] + list(st.missions_out)
    if sorted(listed) != list(range(len(missions))):
        raise StateError(
            "stacks", "every mission card must be in exactly one place (stacks or missions_out)"
        )
    for s, stack in enumerate(st.stacks if dealt else ()):
        keys = [mission_order(missions[m]) for m in stack]
        if keys != sorted(keys):
            raise StateError(f"stacks[{s}]", "must be sorted lowest value on top (R-SETUP-3)")
        if stack and not (
            missions[stack[-1]].climactic and not any(missions[m].climactic for m in stack[:-1])
        ):
            raise StateError(f"stacks[{s}]", "must end with its one climactic mission (R-SETUP-3)")


def _check_awards(st: SavedState, dealt: bool) -> None:
    if not dealt:
        if len(st.awards_up) != NUM_FACE_UP_AWARDS or len(set(st.awards_up)) != len(st.awards_up):
            raise StateError("awards_up", f"expected {NUM_FACE_UP_AWARDS} distinct awards")
        return
    if len(st.awards_up) != NUM_FACE_UP_AWARDS or sorted(st.awards_up + st.awards_down) != sorted(
        AWARDS
    ):
        raise StateError(
            "awards_up", f"awards_up (3) and awards_down (4) must be a permutation of {AWARDS}"
        )


def _check_engines(st: SavedState, cards: CardSet) -> None:
    """A die 1..6 on exactly the engine icons on the station, pending or on ships."""
    parts = cards.parts
    in_play = [p for p in st.spaces if p is not None]
    for seat in range(len(st.crew)):
        in_play += st.pending[seat] + st.ship_parts[seat]
    expected = sorted(rank for p in in_play for rank in parts[p].engines)
    ranks = [rank for rank, _value in st.engine_values]
    if sorted(ranks) != expected or len(set(ranks)) != len(ranks):
        raise StateError(
            "engine_values",
            f"expected one die for each of engine ranks {expected} (station, pending and "
            f"ships), got ranks {sorted(ranks)}",
        )


# ------------------------------------------------------------------------------------- tiles
def _check_tiles(st: SavedState, n: int, spaces: int) -> None:
    """Hand + board = the five tiles; tiles lie only on targets that hold something."""
    placed: list[list[int]] = [[] for _ in range(n)]
    for slot, bids in enumerate(st.bids):
        for seat, tile, _crew in bids:
            placed[seat].append(tile)
        if not bids:
            continue
        if slot < spaces and st.spaces[slot] is None:
            raise StateError(f"bids[{slot}]", "tiles lie on an empty part space")
        stack = slot - spaces - len(FACILITIES)
        if stack >= 0 and not st.stacks[stack]:
            raise StateError(f"bids[{slot}]", "tiles lie on an empty mission stack")
    for seat in range(n):
        hand = st.hands[seat]
        if hand != sorted(hand) or sorted(hand + placed[seat]) != list(TILES):
            raise StateError(
                f"hands[{seat}]",
                f"hand {hand} (sorted) and board {sorted(placed[seat])} must hold tiles {TILES}",
            )


# ------------------------------------------------------------------------------------- phase
def _check_phase(st: SavedState, n: int, spaces: int, options: RuleOptions) -> None:
    phase = st.phase
    if st.resume is not None:
        raise StateError("resume", "a saved game rests between actions; expected null")
    if (st.current is None) != (phase is Phase.OVER):
        raise StateError("current", "a player must be to act exactly while the game is not over")
    order = [(st.first_player + i) % n for i in range(n)]
    _check_bidding_cursors(st, n, order)
    _check_resolution(st, spaces)
    if phase not in _PENDING_PHASES and any(st.pending):
        raise StateError("pending", f"parts cannot wait to be installed in phase {phase.value}")
    if phase is not Phase.INSTALL and any(st.installed_this_round):
        raise StateError("installed_this_round", f"must be empty in phase {phase.value}")
    if phase is not Phase.MISSION and any(st.temp_biotech):
        raise StateError("temp_biotech", "must be 0 outside mission resolution (R-MIS-5)")
    if st.selected is not None and (
        phase is not Phase.INSTALL or st.selected not in st.pending[st.current]
    ):
        raise StateError("selected", "must be a pending part of the installing seat")
    if phase is Phase.INSTALL:
        earlier = order[: order.index(st.current)]
        if not st.pending[st.current] or any(st.pending[s] for s in earlier):
            raise StateError("current", "installers take turns in order with pending parts")
    _check_benefits(st, n, order)
    _check_mission_cursors(st, spaces, order, options.lone_zero_mission_chance)


def _check_temp_biotech(st: SavedState, cards: CardSet, options: RuleOptions) -> None:
    """R-MIS-5: temporary bio-tech is bought while completing, the fewest needed, so a seat
    holds at most what the neediest mission asks beyond its ship's bio-tech. Under
    `temp_biotech_lasts="mission"` it is lost when each mission closes: only seats that already
    completed the mission being resolved hold any, exactly its shortfall."""
    if st.phase is not Phase.MISSION or not any(st.temp_biotech):
        return
    ship = [sum(cards.parts[p].biotech for p in parts) for parts in st.ship_parts]
    neediest = max((m.biotech for m in cards.missions), default=0)
    for seat, held in enumerate(st.temp_biotech):
        if held > max(0, neediest - ship[seat]):
            raise StateError(
                f"temp_biotech[{seat}]",
                f"{held} is more than any mission asks beyond the ship's bio-tech {ship[seat]} "
                "(R-MIS-5: only the fewest needed are bought)",
            )
    if options.temp_biotech_lasts != "mission":
        return
    decided = st.mission_order[: st.mission_cursor]
    holders = [seat for seat, held in enumerate(st.temp_biotech) if held]
    required = cards.missions[st.mission].biotech
    for seat in holders:
        if seat not in decided:
            raise StateError(
                f"temp_biotech[{seat}]",
                'under temp_biotech_lasts="mission" only a seat that already completed the '
                "mission being resolved holds temporary bio-tech (R-MIS-5)",
            )
        if st.temp_biotech[seat] != required - ship[seat]:
            raise StateError(
                f"temp_biotech[{seat}]",
                f"completing this mission buys exactly {max(0, required - ship[seat])} "
                f'under temp_biotech_lasts="mission" (R-MIS-5), got {st.temp_biotech[seat]}',
            )
    if len(holders) > st.completers:
        raise StateError(
            "temp_biotech",
            f"{len(holders)} seats hold temporary bio-tech but only {st.completers} completed "
            'the mission being resolved (temp_biotech_lasts="mission", R-MIS-5)',
        )


def _check_bidding_cursors(st: SavedState, n: int, order: list[int]) -> None:
    if st.phase is not Phase.BIDDING:
        if (st.bid_pass, st.bid_turn, st.tiles_left) != (len(TILES_PER_PASS), 0, 0):
            raise StateError("bid_pass", "bidding cursors must be at the end after bidding")
        return
    if st.bid_pass >= len(TILES_PER_PASS) or not 1 <= st.tiles_left <= TILES_PER_PASS[st.bid_pass]:
        raise StateError(
            "tiles_left",
            f"pass {st.bid_pass} of {len(TILES_PER_PASS)} leaves 1..{TILES_PER_PASS[-1]} tiles, "
            f"got {st.tiles_left}",
        )
    if st.current != order[st.bid_turn]:
        raise StateError("current", f"bid turn {st.bid_turn} belongs to seat {order[st.bid_turn]}")
    done = sum(TILES_PER_PASS[: st.bid_pass])
    for turn, seat in enumerate(order):
        placed = done + TILES_PER_PASS[st.bid_pass] * (turn < st.bid_turn)
        if seat == st.current:
            placed += TILES_PER_PASS[st.bid_pass] - st.tiles_left
        if len(st.hands[seat]) != len(TILES) - placed:
            raise StateError(
                f"hands[{seat}]",
                f"holds {len(st.hands[seat])} tiles; after {placed} bids it must hold "
                f"{len(TILES) - placed} (R-BID-1)",
            )


def _check_resolution(st: SavedState, spaces: int) -> None:
    resolved = spaces + len(FACILITIES)
    expected = {
        Phase.BIDDING: 0,
        Phase.REFIT: spaces + REFIT + 1,
        Phase.ENGINEER: spaces + ENGINEER + 1,
    }.get(st.phase, resolved)
    if st.resolve_cursor != expected:
        raise StateError(
            "resolve_cursor",
            f"expected {expected} in phase {st.phase.value}, got {st.resolve_cursor}",
        )
    for slot in range(min(st.resolve_cursor, resolved)):
        if st.bids[slot]:
            raise StateError(f"bids[{slot}]", "tiles lie on a target that was already resolved")


def _check_benefits(st: SavedState, n: int, order: list[int]) -> None:
    phase = st.phase
    if phase not in _BENEFIT_PHASES:
        if st.benefit_left:
            raise StateError("benefit_left", f"must be empty in phase {phase.value}")
        return
    _length("benefit_left", st.benefit_left, n, "one per seat")
    waiting = order.index(st.current) if phase in (Phase.UPGRADE, Phase.OVERHAUL) else n
    for turn, seat in enumerate(order):
        upgrades, overhauls = st.benefit_left[seat]
        if turn < waiting and (upgrades or overhauls):
            raise StateError(f"benefit_left[{seat}]", "icons left for a seat that already acted")
    if phase is Phase.UPGRADE and not st.benefit_left[st.current][0]:
        raise StateError("benefit_left", "the upgrading seat has no upgrade icon left")
    if phase is Phase.OVERHAUL and (
        st.benefit_left[st.current][0] or not st.benefit_left[st.current][1]
    ):
        raise StateError("benefit_left", "overhauls come after upgrades, one icon at least")


def _check_mission_cursors(
    st: SavedState, spaces: int, order: list[int], lone_zero_chance: bool
) -> None:
    offset = spaces + len(FACILITIES)
    if st.climactic_done and st.phase not in (Phase.MISSION, Phase.OVER):
        raise StateError("climactic_done", f"cannot be true in phase {st.phase.value}")
    if st.phase is Phase.OVER:
        return
    if st.phase is not Phase.MISSION:
        if (st.mission, st.mission_stack, st.mission_queue, st.mission_order) != (-1, -1, [], []):
            raise StateError("mission", f"no mission is being resolved in phase {st.phase.value}")
        if st.mission_cursor or st.completers:
            raise StateError("mission_cursor", f"must be 0 in phase {st.phase.value}")
        return
    stack = st.mission_stack
    if stack < 0 or not st.stacks[stack] or st.mission != st.stacks[stack][0]:
        raise StateError("mission", "must be the top card of mission_stack")
    totals: dict[int, int] = {}
    for seat, tile, crew in st.bids[offset + stack]:
        totals[seat] = totals.get(seat, 0) + tile + crew
    expected = mission_bidders(totals, order.index, lone_zero_chance)
    if st.mission_order != expected:
        raise StateError("mission_order", f"the bids give {expected} (R-MIS-2)")
    if not st.mission_cursor < len(expected) or st.current != expected[st.mission_cursor]:
        raise StateError("mission_cursor", "must point at the seat to act in mission_order")
    if st.completers > st.mission_cursor:
        raise StateError("completers", "cannot exceed the seats that already decided")
    queued = sorted(st.mission_queue)
    with_bids = sorted(s for s in range(NUM_STACKS) if s != stack and st.bids[offset + s])
    if queued != with_bids or len(set(queued)) != len(queued):
        raise StateError("mission_queue", f"expected the other stacks with bids {with_bids}")


def _check_end(st: SavedState, n: int, options: RuleOptions) -> None:
    """Final scores add up and the winners hold the top total (R-END-1..3)."""
    if st.phase is not Phase.OVER:
        if st.end_reason is not None or st.final_breakdown is not None or st.winners:
            raise StateError("end_reason", "a running game has no end reason, breakdown or winners")
        return
    if st.end_reason is None or st.final_breakdown is None or not st.winners:
        raise StateError("end_reason", "a finished game has an end reason, breakdown and winners")
    _length("final_breakdown", st.final_breakdown, n, "one per seat")
    for seat, parts in enumerate(st.final_breakdown):
        if parts.missions + parts.awards + parts.tokens != st.points[seat]:
            raise StateError(f"final_breakdown[{seat}]", f"does not add up to points[{seat}]")
        tokens = options.token_points(st.crew[seat], st.science[seat])
        if parts.tokens != tokens or parts.awards % 5:
            raise StateError(f"final_breakdown[{seat}]", "tokens or award points are wrong")
    top = max(st.points)
    if len(set(st.winners)) != len(st.winners) or any(st.points[w] != top for w in st.winners):
        raise StateError("winners", f"must be distinct seats with the top score {top}")


def check_history(game: FarlightGame) -> None:
    """Every recorded action names real cards, engine ranks, grid cells and bid targets."""
    parts, missions = game.part_index, game.mission_index
    half = game.half
    for i, action in enumerate(game.history):
        part = getattr(action, "part", None)
        mission = getattr(action, "mission", None)
        rank = getattr(action, "rank", None)
        target = getattr(action, "target", None)
        if (
            (part is not None and part not in parts)
            or (mission is not None and mission not in missions)
            or (rank is not None and rank not in game.rank_part)
            or (target is not None and target not in game.target_slot)
            or any(abs(getattr(action, axis, 0)) > half for axis in ("row", "col"))
        ):
            raise StateError(f"history[{i}]", f"{action!r} names no card, engine, cell or target")
