"""State invariants of the rules engine, checked after every action by the fuzz tests.

The engine's quality bars: crew/science/tiles never negative, every part card in exactly one
place, tiles in hand + on board = 5. Beyond those, this module checks the bookkeeping the rules
imply (missions, engine dice, ship maps, phase/turn consistency) and that every offered legal
action is sound by an independent reading of docs/rules.md (e.g. R-INST-3 recomputed here, not
taken from the engine's ship module).

`check_invariants(game)` raises AssertionError with a message naming the broken invariant.
"""

from __future__ import annotations

import math
from collections import Counter

from farlight_env.cards.model import AWARDS, FACILITIES, Side
from farlight_env.game import (
    Bid,
    ChooseEngine,
    CompleteMission,
    Discard,
    FarlightGame,
    Install,
    PassMission,
    Phase,
    RefitRemove,
    RefitStop,
    SelectPart,
    SkipEngine,
    TargetKind,
)

TILES = [0, 1, 2, 3, 4]  # R-SETUP-1
MAX_ENGINE = 6
NUM_STACKS = 3
CORE_CELL = (0, 0)
#: Phases in which a won part may still wait to be installed (resolution then installing).
PENDING_PHASES = frozenset({Phase.REFIT, Phase.ENGINEER, Phase.INSTALL})
#: Phases after every part space and facility has been resolved this round.
AFTER_RESOLUTION = frozenset({Phase.INSTALL, Phase.UPGRADE, Phase.OVERHAUL, Phase.MISSION})


def check_invariants(game: FarlightGame) -> None:
    """Assert every invariant of a game state; the message says which one broke and where."""
    _check_counters(game)
    _check_parts(game)
    _check_ships(game)
    _check_missions(game)
    _check_tiles(game)
    _check_engines(game)
    _check_turn(game)
    _check_phase_bookkeeping(game)
    _check_connectors(game)
    if not game.is_over:
        _check_legal_actions(game)


# ------------------------------------------------------------------------------------ counters
def _check_counters(game: FarlightGame) -> None:
    n = game.num_players
    for name in ("crew", "science", "points", "temp_biotech"):
        values = getattr(game, name)
        assert len(values) == n, f"{name} has {len(values)} entries for {n} players"
        for seat, value in enumerate(values):
            assert isinstance(value, int) and not isinstance(value, bool), (
                f"seat {seat}: {name} is {value!r}, not an int"
            )
            assert value >= 0, f"seat {seat}: negative {name} {value}"
    assert len(game.bonus) == len(game.spaces) == game.num_spaces, (
        f"{len(game.spaces)} part spaces and {len(game.bonus)} bonus counters, "
        f"expected {game.num_spaces}"
    )
    for slot, (part, bonus) in enumerate(zip(game.spaces, game.bonus, strict=True)):
        assert bonus >= 0, f"part space {slot}: negative bonus crew {bonus}"
        if part is None:
            # R-RES-3: the winner takes the bonus crew with the part
            assert bonus == 0, f"empty part space {slot} still holds {bonus} bonus crew"


# --------------------------------------------------------------------------------------- parts
def _check_parts(game: FarlightGame) -> None:
    """Every part card is in exactly one place (DESIGN quality bar)."""
    names = [p.name for p in game.cards.parts]
    places: dict[int, list[str]] = {}

    def put(part: object, where: str) -> None:
        assert isinstance(part, int) and 0 <= part < len(names), f"{where}: bad part id {part!r}"
        places.setdefault(part, []).append(where)

    for part in game.deck:
        put(part, "deck")
    for slot, part in enumerate(game.spaces):
        if part is not None:
            put(part, f"part space {slot}")
    for seat in range(game.num_players):
        for part in game.pending[seat]:
            put(part, f"seat {seat} pending")
        for part in game.ship_parts[seat]:
            put(part, f"seat {seat} ship")
    for part in game.out_of_game:
        put(part, "out of game")
    missing = [names[i] for i in range(len(names)) if i not in places]
    assert not missing, f"part cards in no place at all: {missing}"
    doubled = {names[i]: where for i, where in places.items() if len(where) > 1}
    assert not doubled, f"part cards in more than one place: {doubled}"


def _check_ships(game: FarlightGame) -> None:
    """Ship maps agree with ship_parts, the core sits at (0,0), every part is in the grid."""
    half = game.config.grid_size // 2
    names = [p.name for p in game.cards.parts]
    for seat in range(game.num_players):
        cells = game.ships[seat]
        cores = [cell for cell, piece in cells.items() if piece < 0]
        assert cores == [CORE_CELL], f"seat {seat}: core pieces at {cores}, expected only (0, 0)"
        on_map = Counter(piece for piece in cells.values() if piece >= 0)
        listed = Counter(game.ship_parts[seat])
        assert on_map == listed, (
            f"seat {seat}: ship map holds {sorted(names[p] for p in on_map)} but ship_parts "
            f"lists {sorted(names[p] for p in listed)}"
        )
        for (row, col), piece in cells.items():
            assert -half <= row <= half and -half <= col <= half, (
                f"seat {seat}: {names[piece] if piece >= 0 else 'core'} at ({row}, {col}) is "
                f"outside the {game.config.grid_size}x{game.config.grid_size} grid (R-INST-2)"
            )


# ------------------------------------------------------------------------------------ missions
def _check_missions(game: FarlightGame) -> None:
    missions = game.cards.missions
    assert len(game.stacks) == NUM_STACKS, f"{len(game.stacks)} mission stacks, expected 3"
    places: dict[int, list[str]] = {}
    for s, stack in enumerate(game.stacks):
        for m in stack:
            places.setdefault(m, []).append(f"stack {s}")
    for m in game.missions_out:
        places.setdefault(m, []).append("out")
    missing = [missions[i].name for i in range(len(missions)) if i not in places]
    assert not missing, f"missions in no place: {missing}"
    doubled = {missions[i].name: w for i, w in places.items() if len(w) > 1}
    assert not doubled, f"missions in more than one place: {doubled}"
    assert set(places) == set(range(len(missions))), f"unknown mission ids {sorted(places)}"
    for s, stack in enumerate(game.stacks):
        keys = [(missions[m].value, missions[m].name) for m in stack]
        assert keys == sorted(keys), f"stack {s} is not sorted lowest on top (R-SETUP-3): {keys}"
        if stack:
            # R-SETUP-3: one climactic mission at the bottom of each stack; completing it ends
            # the game (R-RESET-1), so a live stack always still ends with it.
            assert missions[stack[-1]].climactic, f"stack {s} does not end with a climactic card"
            assert not any(missions[m].climactic for m in stack[:-1]), (
                f"stack {s} has a climactic mission above its bottom card"
            )
    up, down = list(game.awards_up), list(game.awards_down)
    assert len(up) == 3 and sorted(up + down) == sorted(AWARDS), (
        f"awards face up {up} / face down {down} are not a 3 + 4 split of {AWARDS} (R-SETUP-2)"
    )


# --------------------------------------------------------------------------------------- tiles
def _check_tiles(game: FarlightGame) -> None:
    """Each player's hand + its tiles on the board = {0,1,2,3,4} exactly (DESIGN quality bar)."""
    n = game.num_players
    assert len(game.bids) == len(game.targets), (
        f"{len(game.bids)} bid slots for {len(game.targets)} targets"
    )
    placed: list[list[int]] = [[] for _ in range(n)]
    for slot, bids in enumerate(game.bids):
        for entry in bids:
            assert len(entry) == 3, f"bid slot {slot}: entry {entry!r} is not (seat, tile, crew)"
            seat, tile, crew = entry
            assert 0 <= seat < n, f"bid slot {slot}: bad seat {seat}"
            assert tile in TILES, f"bid slot {slot}: bad tile value {tile!r}"
            assert isinstance(crew, bool), f"bid slot {slot}: crew flag {crew!r} is not a bool"
            placed[seat].append(tile)
        if bids:
            target = game.targets[slot]
            if target.kind is TargetKind.PART:
                assert game.spaces[target.index] is not None, (
                    f"tiles lie on empty part space {target.index}"
                )
            elif target.kind is TargetKind.MISSION:
                assert game.stacks[target.index], f"tiles lie on empty mission stack {target.index}"
    for seat in range(n):
        hand = list(game.hands[seat])
        assert all(t in TILES for t in hand), f"seat {seat}: bad tile in hand {hand}"
        total = sorted(hand + placed[seat])
        assert total == TILES, (
            f"seat {seat}: hand {sorted(hand)} + board {sorted(placed[seat])} != {TILES}"
        )


# ------------------------------------------------------------------------------------- engines
def _check_engines(game: FarlightGame) -> None:
    """Dice sit exactly on engine icons of parts on the station, pending or on ships; 1..6."""
    parts = game.cards.parts
    expected: dict[int, str] = {}
    holders = [(p, "station") for p in game.spaces if p is not None]
    for seat in range(game.num_players):
        holders += [(p, f"seat {seat} pending") for p in game.pending[seat]]
        holders += [(p, f"seat {seat} ship") for p in game.ship_parts[seat]]
    for part, where in holders:
        for rank in parts[part].engines:
            expected[rank] = f"{parts[part].name} ({where})"
    keys = set(game.engine_values)
    missing = {rank: where for rank, where in expected.items() if rank not in keys}
    assert not missing, f"engine icons without a die: {missing}"
    stray = sorted(keys - set(expected))
    assert not stray, f"dice on engine ranks not on the station, pending or a ship: {stray}"
    bad = {rank: v for rank, v in game.engine_values.items() if not 1 <= v <= MAX_ENGINE}
    assert not bad, f"engine dice outside 1..6: {bad}"


# ---------------------------------------------------------------------------------- turn/phase
def _check_turn(game: FarlightGame) -> None:
    n = game.num_players
    cap = game.config.max_rounds
    assert 1 <= game.round <= cap, f"round {game.round} outside 1..{cap} (R-RESET-6)"
    assert 0 <= game.first_player < n, f"first player {game.first_player} is not a seat"
    if game.is_over:
        assert game.phase is Phase.OVER, f"game over but phase is {game.phase}"
        assert game.current_player is None, f"game over but current_player is {game.current_player}"
        assert game.legal_actions() == [], "game over but legal_actions() is not empty"
        assert game.end_reason is not None, "game over without an end reason"
        _check_final_scoring(game)
        return
    assert game.phase is not Phase.OVER, "phase OVER but is_over is False"
    assert game.end_reason is None, f"game running but end_reason is {game.end_reason}"
    assert game.winners() == [], f"game running but winners() is {game.winners()}"
    p = game.current_player
    assert isinstance(p, int) and 0 <= p < n, f"current_player {p!r} is not a seat"
    legal = game.legal_actions()
    assert legal, f"no legal action for seat {p} in phase {game.phase.value}"
    assert len(set(legal)) == len(legal), f"duplicate legal actions: {legal}"
    if game.phase is not Phase.BIDDING:
        # FarlightGame takes single-option decisions automatically (class docstring)
        assert len(legal) >= 2, f"a forced decision was left to seat {p}: {legal}"


def _check_final_scoring(game: FarlightGame) -> None:
    """R-END-1..3: totals = missions + awards + tokens; winners hold the top total."""
    breakdown = game.final_breakdown
    assert breakdown is not None and len(breakdown) == game.num_players, "no final breakdown"
    scores = game.scores()
    for seat, parts in enumerate(breakdown):
        assert set(parts) == {"missions", "awards", "tokens"}, f"breakdown keys {set(parts)}"
        assert scores[seat] == sum(parts.values()), (
            f"seat {seat}: score {scores[seat]} != breakdown {parts}"
        )
        leftover = game.crew[seat] + game.science[seat]  # R-END-2 [option token_rounding]
        rounding = game.config.rule_options.token_rounding
        tokens = math.ceil(leftover / 3) if rounding == "up" else math.floor(leftover / 3)
        assert parts["tokens"] == tokens, f"seat {seat}: tokens {parts['tokens']} != {tokens}"
        assert parts["awards"] % 5 == 0 and 0 <= parts["awards"] <= 15, (
            f"seat {seat}: award points {parts['awards']} are not 0/5/10/15"
        )
    winners = game.winners()
    assert winners, "a finished game has no winner"
    assert len(set(winners)) == len(winners), f"duplicate winners {winners}"
    top = max(scores)
    assert all(scores[w] == top for w in winners), (
        f"winners {winners} are not all top scorers (scores {scores})"
    )


def _check_phase_bookkeeping(game: FarlightGame) -> None:
    phase = game.phase
    if phase not in PENDING_PHASES:
        held = {s: list(game.pending[s]) for s in range(game.num_players) if game.pending[s]}
        assert not held, f"parts pending outside resolution/installing ({phase.value}): {held}"
    if phase in AFTER_RESOLUTION or phase is Phase.OVER:
        offset = game.num_spaces + len(FACILITIES)
        left = [str(game.targets[s]) for s in range(offset) if game.bids[s]]
        assert not left, f"part/facility bids left unresolved in phase {phase.value}: {left}"
    if phase is Phase.OVER:
        left = [str(t) for t, bids in zip(game.targets, game.bids, strict=True) if bids]
        assert not left, f"tiles still on the board after the game: {left}"
    if phase is Phase.BIDDING:
        assert all(t == 0 for t in game.temp_biotech), (
            f"temporary bio-tech outlived the missions (R-MIS-5): {game.temp_biotech}"
        )
    if phase is Phase.MISSION and game.config.rule_options.temp_biotech_lasts == "mission":
        # R-MIS-5 [option]: bought for this mission only, so only its bidders can hold any
        bidders = {seat for seat, _, _ in game.bids[_resolving_slot(game)]}
        holders = {seat for seat, t in enumerate(game.temp_biotech) if t}
        assert holders <= bidders, (
            f"seats {sorted(holders - bidders)} kept temporary bio-tech from an earlier mission "
            f"(temp_biotech_lasts='mission'): {game.temp_biotech}"
        )


def _resolving_slot(game: FarlightGame) -> int:
    """The bid slot of the mission being resolved (its stack's top card)."""
    mission = game.mission_being_resolved()
    stack = next(s for s, cards in enumerate(game.stacks) if cards and cards[0] == mission)
    return game.num_spaces + len(FACILITIES) + stack


# ---------------------------------------------------------------------------------- connectors
def _check_connectors(game: FarlightGame) -> None:
    """R-SHIP-1 recomputed from the card model; off-grid connectors per edge_connectors."""
    parts = game.cards.parts
    half = game.config.grid_size // 2
    edge_blocks = game.config.rule_options.edge_connectors == "blocked"
    for seat in range(game.num_players):
        cells = game.ships[seat]
        counts = [0, 0, 0]  # open, connected, blocked
        for (row, col), piece in cells.items():
            for side in set(Side) if piece < 0 else parts[piece].connectors:
                dr, dc = side.offset
                target = (row + dr, col + dc)
                neighbour = cells.get(target)
                if neighbour is None:
                    off_grid = max(abs(target[0]), abs(target[1])) > half
                    counts[2 if off_grid and edge_blocks else 0] += 1
                elif neighbour < 0 or side.opposite in parts[neighbour].connectors:
                    counts[1] += 1
                else:
                    counts[2] += 1
        assert game.connectors(seat) == tuple(counts), (
            f"seat {seat}: engine counts (open, connected, blocked) {game.connectors(seat)}, "
            f"rules give {tuple(counts)} (R-SHIP-1, edge_connectors)"
        )


# ------------------------------------------------------------------------------- legal actions
def _check_legal_actions(game: FarlightGame) -> None:
    """Every offered action is sound by an independent reading of the rules."""
    p = game.current_player
    phase = game.phase
    legal = game.legal_actions()
    allowed = {
        Phase.BIDDING: (Bid,),
        Phase.REFIT: (RefitRemove, RefitStop),
        Phase.ENGINEER: (ChooseEngine,),
        Phase.UPGRADE: (ChooseEngine, SkipEngine),
        Phase.OVERHAUL: (ChooseEngine, SkipEngine),
        Phase.INSTALL: (SelectPart, Install, Discard),
        Phase.MISSION: (CompleteMission, PassMission),
    }[phase]
    for action in legal:
        assert isinstance(action, allowed), f"{action!r} offered in phase {phase.value}"
    if phase is Phase.BIDDING:
        _check_bids(game, p, legal)
    elif phase is Phase.REFIT:
        on_ship = {game.cards.parts[i].name for i in game.ship_parts[p]}
        removals = {a.part for a in legal if isinstance(a, RefitRemove)}
        assert removals == on_ship, f"refit offers {removals}, ship holds {on_ship} (R-RES-5)"
        assert RefitStop() in legal, "refit without a stop option"
    elif phase in (Phase.ENGINEER, Phase.UPGRADE, Phase.OVERHAUL):
        improvable = {rank for rank, value in game.engines(p) if value < MAX_ENGINE}
        chosen = {a.rank for a in legal if isinstance(a, ChooseEngine)}
        assert chosen == improvable, f"{phase.value} offers engines {chosen}, not {improvable}"
        if phase is not Phase.ENGINEER:
            assert SkipEngine() in legal, f"{phase.value} without a skip option (R-BEN-3)"
    elif phase is Phase.INSTALL:
        _check_installs(game, p, legal)
    elif phase is Phase.MISSION:
        _check_mission_bidder(game, p)
        names = {a.mission for a in legal}
        assert len(names) == 1, f"mission decision over several missions {names}"
        available = {game.cards.missions[s[0]].name for s in game.stacks if s}
        assert names <= available, f"decision on {names}, not an available mission {available}"
        assert any(isinstance(a, PassMission) for a in legal), "no way to pass (R-MIS-3)"


def _check_mission_bidder(game: FarlightGame, p: int) -> None:
    """R-MIS-2: only the mission's bidders are asked; a lone 0 only with the option on."""
    mine = [(tile, crew) for seat, tile, crew in game.bids[_resolving_slot(game)] if seat == p]
    assert mine, f"seat {p} asked about a mission it did not bid on (R-MIS-2)"
    total = sum(tile + crew for tile, crew in mine)
    assert total >= 1 or game.config.rule_options.lone_zero_mission_chance, (
        f"seat {p} asked with a lone 0 bid while lone_zero_mission_chance is off (R-MIS-2)"
    )


def _check_bids(game: FarlightGame, p: int, legal: list) -> None:
    """R-BID-2/3: tiles from hand, crew only with crew, targets that hold something."""
    hand = set(game.hands[p])
    crew_ok = game.crew[p] >= 1
    for bid in legal:
        assert bid.tile in hand, f"{bid} offered but tile {bid.tile} is not in hand {hand}"
        assert crew_ok or not bid.crew, f"{bid} offered with {game.crew[p]} crew (R-BID-3)"
        kind, index = bid.target.kind, bid.target.index
        if kind is TargetKind.PART:
            assert 0 <= index < game.num_spaces and game.spaces[index] is not None, (
                f"{bid} offered on an empty or missing part space"
            )
        elif kind is TargetKind.MISSION:
            assert 0 <= index < NUM_STACKS and game.stacks[index], f"{bid} on an empty stack"
        else:
            assert 0 <= index < len(FACILITIES), f"{bid} on an unknown facility"


def _legal_cells(game: FarlightGame, seat: int, part: int) -> set[tuple[int, int]]:
    """R-INST-2/3 recomputed from the card model: an empty in-grid cell next to a piece whose
    connector faces a connector of the new part."""
    parts = game.cards.parts
    half = game.config.grid_size // 2
    new_sides = parts[part].connectors
    cells = game.ships[seat]
    found = set()
    for (row, col), piece in cells.items():
        sides = set(Side) if piece < 0 else parts[piece].connectors
        for side in sides:
            if side.opposite not in new_sides:
                continue
            dr, dc = side.offset
            target = (row + dr, col + dc)
            if target not in cells and -half <= target[0] <= half and -half <= target[1] <= half:
                found.add(target)
    return found


def _check_installs(game: FarlightGame, p: int, legal: list) -> None:
    parts = game.cards.parts
    pending = {parts[i].name for i in game.pending[p]}
    assert pending, f"seat {p} asked to install with nothing pending"
    if any(isinstance(a, SelectPart) for a in legal):
        selected = {a.part for a in legal}
        assert all(isinstance(a, SelectPart) for a in legal), f"mixed install choices {legal}"
        assert selected == pending, f"select offers {selected}, pending is {pending}"
        return
    handled = {a.part for a in legal}
    assert len(handled) == 1, f"install decision over several parts {handled}"
    name = handled.pop()
    assert name in pending, f"deciding on {name}, which is not pending ({pending})"
    assert Discard(name) in legal, f"no way to discard {name} (R-INST-1)"
    part = game.part_index[name]
    offered = {(a.row, a.col) for a in legal if isinstance(a, Install)}
    if game.crew[p] < parts[part].crew_cost:  # R-INST-5
        assert not offered, f"{name} installable with {game.crew[p]} crew < cost"
        return
    expected = _legal_cells(game, p, part)
    assert offered == expected, (
        f"seat {p} {name}: engine offers cells {sorted(offered)}, rules give {sorted(expected)}"
    )
