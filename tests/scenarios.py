"""Helpers that build exact Farlight positions for the rule tests (tests/test_rules_*.py).

Each helper edits the game's declared state (`game.to_state()`, a `GameState`: crew, science,
points, hands, ships, ship_parts, pending, spaces, bonus, deck, stacks, engine_values, ...)
consistently (a card is in exactly one place; every engine icon on the station or on a ship
has a die value, no other card has one) and moves the game there with `game.set_state`, which
checks the position as `FarlightGame.from_state` and `from_json` do; `dealt=False`, because
tests build mission stacks and award rows no real deal gives.

Position-editing helpers are meant for the start of a bidding round, before any tile is placed.

Parts and missions are named by their card names in `farlight_env/cards/data/standard.toml`.
Every player must place all five tiles each round (R-BID-1); `play_bids` can put the tiles a
test does not care about on a *sink*: a mission stack whose top card nobody in the test can
complete (`use_sink`), so those tiles come home with no effect (R-MIS-7; no crew rides on them).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from farlight_env.cards import FACILITIES
from farlight_env.game import (
    Action,
    Bid,
    ChooseEngine,
    Discard,
    FarlightGame,
    PassMission,
    Phase,
    RefitStop,
    SelectPart,
    SkipEngine,
    Target,
    TargetKind,
)
from farlight_env.game.ship import CORE

#: A climactic mission no test player can complete (engines 6, 5 and 4, 4 science).
SINK_MISSION = "Alpha Centauri Expedition"
#: Tiles per player per bidding pass (R-BID-1).
PASSES = (2, 2, 1)


# ------------------------------------------------------------------------------ targets
def part_space(index: int) -> Target:
    return Target(TargetKind.PART, index)


def facility(name: str) -> Target:
    return Target(TargetKind.FACILITY, FACILITIES.index(name))


def mission_stack(index: int) -> Target:
    return Target(TargetKind.MISSION, index)


def slot_of(game: FarlightGame, target: Target) -> int:
    """The index of `target` in `game.bids`."""
    return game.target_slot[target]


# ------------------------------------------------------------------------------ cards
def part_id(game: FarlightGame, name: str) -> int:
    return game.part_index[name]


def mission_id(game: FarlightGame, name: str) -> int:
    return game.mission_index[name]


def part_card(game: FarlightGame, name: str):
    return game.cards.parts[part_id(game, name)]


def mission_card(game: FarlightGame, name: str):
    return game.cards.missions[mission_id(game, name)]


def ranks_of(game: FarlightGame, name: str) -> tuple[int, ...]:
    """The engine icon ranks printed on a part."""
    return part_card(game, name).engines


# ------------------------------------------------------------------------------ game
def make_game(num_players: int, seed: int = 0, **cfg) -> FarlightGame:
    """A new game at round 1, bidding, first player seat 0 (unless cfg says otherwise)."""
    return FarlightGame(num_players, seed, **cfg)


def set_first_player(game: FarlightGame, seat: int) -> None:
    """Hand the first-player marker to `seat` before any tile of the round is placed."""
    _require_round_start(game)
    state = game.to_state()
    state.first_player = seat
    state.current = seat  # bidding starts with the first player (R-BID-1)
    game.set_state(state, dealt=False)


def give(
    game: FarlightGame,
    seat: int,
    *,
    crew: int | None = None,
    science: int | None = None,
    points: int | None = None,
) -> None:
    """Set (not add) a seat's crew, science and/or mission points to exactly these values."""
    state = game.to_state()
    if crew is not None:
        state.crew[seat] = crew
    if science is not None:
        state.science[seat] = science
    if points is not None:
        state.points[seat] = points
    game.set_state(state, dealt=False)


def _dice_for(game: FarlightGame, pid: int, dice: int | Sequence[int] | None) -> list[int]:
    ranks = game.cards.parts[pid].engines
    if dice is None:
        dice = 3
    values = [dice] * len(ranks) if isinstance(dice, int) else list(dice)
    if len(values) != len(ranks):
        raise ValueError(
            f"{game.cards.parts[pid].name} has {len(ranks)} engine icons, got dice {values}"
        )
    if any(not 1 <= v <= 6 for v in values):
        raise ValueError(f"die values must be 1..6, got {values}")
    return values


def _set_dice(game: FarlightGame, state, pid: int, dice: int | Sequence[int] | None) -> None:
    for rank, value in zip(game.cards.parts[pid].engines, _dice_for(game, pid, dice), strict=True):
        state.engine_values[rank] = value


def _clear_dice(game: FarlightGame, state, pid: int) -> None:
    for rank in game.cards.parts[pid].engines:
        state.engine_values.pop(rank, None)


def _where(game: FarlightGame, state, pid: int) -> str:
    if pid in state.deck:
        return "deck"
    if pid in state.spaces:
        return "space"
    if pid in state.out_of_game:
        return "out"
    for seat in range(game.num_players):
        if pid in state.ship_parts[seat]:
            return f"ship {seat}"
        if pid in state.pending[seat]:
            return f"pending {seat}"
    raise AssertionError(f"part {game.cards.parts[pid].name} is nowhere")


def put_part(
    game: FarlightGame, space: int, name: str, dice: int | Sequence[int] | None = None
) -> None:
    """Put part `name` on station space `space` (its engine dice at `dice`, default 3 each).

    The card swaps places with the one that was on that space: a card from the deck sends the
    old occupant to the deck at its position (its dice removed); a card from another space
    sends the old occupant to that space (keeping its dice).
    """
    pid = part_id(game, name)
    state = game.to_state()
    old = state.spaces[space]
    if old == pid:
        _set_dice(game, state, pid, dice)
        game.set_state(state, dealt=False)
        return
    where = _where(game, state, pid)
    if where == "deck":
        pos = state.deck.index(pid)
        if old is None:
            del state.deck[pos]
        else:
            state.deck[pos] = old
            _clear_dice(game, state, old)
    elif where == "space":
        other = state.spaces.index(pid)
        state.spaces[other] = old
    elif where == "out":
        state.out_of_game.remove(pid)
        if old is not None:
            state.out_of_game.append(old)
            _clear_dice(game, state, old)
    else:
        raise ValueError(f"{name} is on a {where}; cannot move it to the station")
    state.spaces[space] = pid
    _set_dice(game, state, pid, dice)
    game.set_state(state, dealt=False)


def clear_space(game: FarlightGame, space: int) -> None:
    """Empty a station space; its part goes back to the bottom of the deck without dice."""
    state = game.to_state()
    old = state.spaces[space]
    if old is not None:
        _clear_dice(game, state, old)
        state.deck.insert(0, old)
    state.spaces[space] = None
    state.bonus[space] = 0
    game.set_state(state, dealt=False)


def _take_from_station_or_deck(game: FarlightGame, state, pid: int) -> None:
    """Take a card out of the deck, a station space or the out-of-game pile.

    A station space that loses its card is refilled with the top dice-free card of the deck.
    """
    where = _where(game, state, pid)
    if where == "deck":
        state.deck.remove(pid)
    elif where == "out":
        state.out_of_game.remove(pid)
    elif where == "space":
        space = state.spaces.index(pid)
        _clear_dice(game, state, pid)
        replacement = next(i for i in reversed(state.deck) if not game.cards.parts[i].engines)
        state.deck.remove(replacement)
        state.spaces[space] = replacement
    else:
        raise ValueError(f"{game.cards.parts[pid].name} is already on a {where}")


def install_directly(
    game: FarlightGame,
    seat: int,
    name: str,
    cell: tuple[int, int],
    dice: int | Sequence[int] | None = None,
) -> None:
    """Put part `name` on `seat`'s ship at `cell` as if installed in an earlier round.

    Its engines get the die values `dice` (an int for all, or one per icon; default 3). The part
    does not count as installed this round, so its one-time icons do not pay (R-BEN-1). If the
    card was on the station, a dice-free card from the deck takes its space.
    """
    pid = part_id(game, name)
    state = game.to_state()
    ship = state.ships[seat]
    if tuple(cell) in ship:
        raise ValueError(f"cell {cell} of seat {seat} is taken")
    _take_from_station_or_deck(game, state, pid)
    ship[tuple(cell)] = pid
    state.ship_parts[seat].append(pid)
    _set_dice(game, state, pid, dice)
    game.set_state(state, dealt=False)


def set_engine(game: FarlightGame, name: str, dice: int | Sequence[int]) -> None:
    """Set the die values of a part's engine icons (the part must be on a ship or the station)."""
    state = game.to_state()
    _set_dice(game, state, part_id(game, name), dice)
    game.set_state(state, dealt=False)


def set_stacks(game: FarlightGame, stacks: Sequence[Sequence[str]]) -> None:
    """Replace the three mission stacks (top card first); every other mission leaves the game."""
    if len(stacks) != 3:
        raise ValueError("Farlight has 3 mission stacks")
    ids = [[mission_id(game, name) for name in stack] for stack in stacks]
    state = game.to_state()
    state.stacks = [list(stack) for stack in ids]
    used = {m for stack in ids for m in stack}
    state.missions_out = [m for m in range(len(game.cards.missions)) if m not in used]
    game.set_state(state, dealt=False)


def use_sink(game: FarlightGame, stack: int = 2, mission: str = SINK_MISSION) -> Target:
    """Make stack `stack` hold only `mission` (by default one nobody in a test can complete)."""
    stacks = [
        [game.cards.missions[m].name for m in s if game.cards.missions[m].name != mission]
        for s in game.stacks
    ]
    stacks[stack] = [mission]
    set_stacks(game, stacks)
    return mission_stack(stack)


def _require_round_start(game: FarlightGame) -> None:
    if game.phase is not Phase.BIDDING or any(len(h) != 5 for h in game.hands):
        raise ValueError("only possible at the start of a bidding round")


# ------------------------------------------------------------------------------ playing
def play_bids(
    game: FarlightGame,
    bids: Mapping[int, Sequence[Bid]],
    fill: Target | None = None,
    after_pass: Callable[[int], None] | None = None,
) -> FarlightGame:
    """Play one whole bidding round from its start (R-BID-1).

    `bids[seat]` lists that seat's placements in the order it makes them: the first two in
    pass 1, the next two in pass 2, the last in pass 3. With `fill`, a seat's list may be short
    (or the seat missing): its remaining tiles, lowest first and without crew, go on `fill`.
    Each placement is checked to be made by the seat the engine says is to act.
    `after_pass(k)` is called after passes k = 1 and 2 (after pass 3 the round has moved on).
    """
    _require_round_start(game)
    plan: dict[int, list[Bid]] = {}
    for seat in range(game.num_players):
        mine = list(bids.get(seat, ()))
        used = [b.tile for b in mine]
        if fill is not None:
            mine += [Bid(t, fill) for t in sorted(game.hands[seat]) if t not in used]
        if sorted(b.tile for b in mine) != sorted(game.hands[seat]):
            raise ValueError(f"seat {seat} must place exactly its tiles {game.hands[seat]}: {mine}")
        plan[seat] = mine
    cursor = dict.fromkeys(plan, 0)
    order = game.turn_order()
    for number, count in enumerate(PASSES, start=1):
        for seat in order:
            for _ in range(count):
                assert game.phase is Phase.BIDDING, game.phase
                assert game.current_player == seat, (game.current_player, seat)
                game.apply(plan[seat][cursor[seat]])
                cursor[seat] += 1
        if after_pass is not None and number < len(PASSES):
            after_pass(number)
    return game


def win_parts(
    game: FarlightGame,
    wins: Mapping[int, Sequence[str]],
    fill: Target,
    extra: Mapping[int, Sequence[Bid]] | None = None,
    dice: Mapping[str, int | Sequence[int]] | None = None,
) -> dict[str, int]:
    """Play a bidding round in which each seat of `wins` wins the named parts uncontested.

    The parts go on station spaces 0, 1, ... in seat order; the seat bids tiles 4, 3, 2, 1 (no
    crew) on them, places `extra[seat]` next and the rest of its tiles on `fill`. Returns
    part name -> space. `dice` gives the station die values of engine parts (default 3 each).
    """
    extra = extra or {}
    dice = dice or {}
    spaces: dict[str, int] = {}
    bids: dict[int, list[Bid]] = {}
    for seat in sorted(set(wins) | set(extra)):
        mine: list[Bid] = []
        for tile, name in zip((4, 3, 2, 1), wins.get(seat, ()), strict=False):
            space = len(spaces)
            put_part(game, space, name, dice.get(name))
            spaces[name] = space
            mine.append(Bid(tile, part_space(space)))
        bids[seat] = mine + list(extra.get(seat, ()))
    play_bids(game, bids, fill=fill)
    return spaces


def passive(game: FarlightGame) -> Action:
    """A default choice: discard parts, remove nothing, skip icons, pass on missions."""
    legal = game.legal_actions()
    for kind in (PassMission, Discard, RefitStop, SkipEngine, SelectPart):
        for action in legal:
            if isinstance(action, kind):
                return action
    for action in legal:
        if isinstance(action, ChooseEngine):
            return action
    raise ValueError(f"no passive action in phase {game.phase}: {legal[:5]}")


def run_until(
    game: FarlightGame,
    phase: Phase | Iterable[Phase],
    policy: Callable[[FarlightGame], Action] = passive,
    max_steps: int = 1000,
) -> list[tuple[int, Action]]:
    """Apply `policy` until the game reaches `phase` (or is over); return (seat, action) taken."""
    phases = {phase} if isinstance(phase, Phase) else set(phase)
    taken: list[tuple[int, Action]] = []
    for _ in range(max_steps):
        if game.phase in phases or game.is_over:
            return taken
        seat = game.current_player
        action = policy(game)
        game.apply(action)
        taken.append((seat, action))
    raise AssertionError(f"phase {phases} not reached in {max_steps} steps")


def finish_round(game: FarlightGame, policy: Callable[[FarlightGame], Action] = passive):
    """Decide everything left in this round with `policy`, up to the next bidding or the end."""
    return run_until(game, Phase.BIDDING, policy)


def sink_round(game: FarlightGame, sink: Target) -> FarlightGame:
    """A round in which every tile goes on `sink` without crew, then play on to the next round."""
    play_bids(game, {}, fill=sink)
    finish_round(game)
    return game


def ship_cells(game: FarlightGame, seat: int) -> dict[tuple[int, int], str]:
    """A seat's ship as cell -> part name ('CORE' for the core)."""
    return {
        cell: "CORE" if piece == CORE else game.cards.parts[piece].name
        for cell, piece in game.ships[seat].items()
    }


def names(game: FarlightGame, ids: Iterable[int]) -> list[str]:
    return [game.cards.parts[i].name for i in ids]
