"""What happened in one step of a game, beyond the action itself, as plain data and words.

A decision can set off steps nobody chose: the last bid of a round flips every tile and
resolves the part spaces and facilities (who won what, at which price); a won part its owner
cannot install (too little crew, or no cell that fits) is discarded automatically; a decision
left with one option is taken (a mission the seat cannot complete is passed); the game ends and
a tie for the top score is broken by the face-down awards (R-END-4). The engine takes those
steps inside `apply`, out of `history`. `step_events(before, action)` replays the step on a copy
and lists them; the terminal replay prints them and the web page's move log can show them.

Everything listed is public when it happens (the tiles are face up once bidding ends, R-BID-5;
the tiebreak awards are drawn in the open), so the list is the same for every viewer.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from farlight_env.cards.model import FACILITIES
from farlight_env.game.actions import (
    Action,
    Bid,
    ChooseEngine,
    Discard,
    PassMission,
    SelectPart,
    Target,
    TargetKind,
)
from farlight_env.game.config import Phase
from farlight_env.game.game import FarlightGame
from farlight_env.game.phases.missions import mission_bidders
from farlight_env.game.scoring import tiebreak_draws

__all__ = [
    "AutoDiscard",
    "AutoMove",
    "BidResult",
    "Event",
    "SeatBid",
    "Tiebreak",
    "TiebreakDraw",
    "final_tiebreak",
    "step_events",
    "to_builtins",
]


class SeatBid(msgspec.Struct, frozen=True):
    """One seat's tiles on a target once they flip: values, crew riding on them, the sum."""

    seat: int
    tiles: list[int]
    crew: int
    total: int  # R-BID-6: tile values plus crew


class BidResult(msgspec.Struct, frozen=True, tag="bid_result"):
    """One target's bids after they flip (R-RES-2). Part spaces and facilities have a winner,
    whose winning bid totals `price` (tiles plus crew; the tiles come back, only the crew on
    them goes to the supply, R-RES-3), or none; a mission is not won: `order` is the order in
    which its bidders complete or pass (R-MIS-2)."""

    slot: int
    target: str  # "part space 3 (Ion Drive)", "Hire (+3 crew)", "mission stack 0 (…)"
    kind: Literal["part", "facility", "mission"]
    bids: list[SeatBid]
    winner: int | None
    price: int | None
    order: list[int]
    text: str


class AutoDiscard(msgspec.Struct, frozen=True, tag="auto_discard"):
    """A won part its owner could not install, discarded by the engine (R-INST-5, R-INST-3):
    `reason` "crew" (it costs more crew than the seat has) or "room" (no cell fits it)."""

    seat: int
    part: str
    cost: int
    crew: int
    reason: Literal["crew", "room"]
    text: str


class AutoMove(msgspec.Struct, frozen=True, tag="auto_move"):
    """Another decision with one legal option, taken by the engine (a mission the seat cannot
    complete is passed; Engineer with one engine below 6 raises that one)."""

    seat: int
    action: str
    text: str


class TiebreakDraw(msgspec.Struct, frozen=True):
    award: str
    kept: list[int]  # the seats still tied after this award


class Tiebreak(msgspec.Struct, frozen=True, tag="tiebreak"):
    """A tie for the top total at the end, broken by face-down awards in their order (R-END-4);
    `winners` may still be several (a shared victory) when the awards run out."""

    tied: list[int]
    score: int
    draws: list[TiebreakDraw]
    winners: list[int]
    text: str


Event = BidResult | AutoDiscard | AutoMove | Tiebreak


def to_builtins(events: list[Event]) -> list[dict[str, Any]]:
    """The events as JSON-able dicts, each with its "type" tag (for the web API)."""
    return msgspec.to_builtins(events)


def step_events(before: FarlightGame, action: Action) -> list[Event]:
    """What applying `action` to `before` sets off besides the action itself, in order.

    `before` is not changed (the step is replayed on a copy, with the same chance); `action`
    must be legal there. Seats are numbers; each event's `text` says it in words.
    """
    if before.is_over:
        raise ValueError("the game is over: no step follows")
    events: list[Event] = []
    if before.phase is Phase.BIDDING and isinstance(action, Bid) and _last_bid(before):
        events += _bid_results(before, action)
    game = before.clone()
    game.on_forced = lambda g, forced: _note_forced(g, forced, events)
    game.apply(action)
    if game.is_over:
        tiebreak = final_tiebreak(game)
        if tiebreak is not None:
            events.append(tiebreak)
    return events


def final_tiebreak(game: FarlightGame) -> Tiebreak | None:
    """How a finished game's tie for the top total was broken (R-END-4); None when the game
    is not over or one seat had the top total alone."""
    if not game.is_over:
        return None
    tied, draws = tiebreak_draws(game)
    if len(tied) < 2:
        return None
    score = game.scores()[tied[0]]
    names = _seats(tied)
    winners = game.winners()
    steps = "; ".join(f"{award}: {_seats(kept)}" for award, kept in draws)
    if len(winners) == 1:
        text = (
            f"{names} tied at {score} points; face-down awards broke the tie ({steps}) "
            f"→ P{winners[0]} wins (R-END-4)"
        )
    else:
        after = f" ({steps})" if steps else ""
        text = (
            f"{names} tied at {score} points; the face-down awards{after} left them tied "
            f"→ shared victory {_seats(winners)} (R-END-4)"
        )
    return Tiebreak(
        tied=tied,
        score=score,
        draws=[TiebreakDraw(award, kept) for award, kept in draws],
        winners=winners,
        text=text,
    )


# --------------------------------------------------------------------------------- helpers
def _seats(seats: list[int]) -> str:
    return ", ".join(f"P{s}" for s in seats)


def _last_bid(game: FarlightGame) -> bool:
    """Whether the current bid is the round's last tile (R-BID-1: every tile is placed)."""
    return sum(len(hand) for hand in game.hands) == 1


def target_label(game: FarlightGame, target: Target) -> str:
    """A bidding target with what it holds now: 'part space 3 (Ion Drive)', 'Hire (+3 crew)'."""
    if target.kind is TargetKind.PART:
        part = game.spaces[target.index]
        name = "empty" if part is None else game.cards.parts[part].name
        return f"part space {target.index} ({name})"
    if target.kind is TargetKind.FACILITY:
        from farlight_env.view.model import FACILITY_EFFECTS

        return f"{FACILITIES[target.index]} ({FACILITY_EFFECTS[target.index]})"
    stack = game.stacks[target.index]
    name = game.cards.missions[stack[0]].name if stack else "empty"
    return f"mission stack {target.index} ({name})"


def _bid_results(game: FarlightGame, last: Bid) -> list[BidResult]:
    """Every target with tiles on it once `last` (the round's final tile) is placed."""
    placed = [list(bids) for bids in game.bids]
    placed[game.target_slot[last.target]].append((game.current_player, last.tile, last.crew))
    results = []
    for slot, bids in enumerate(placed):
        if not bids:
            continue
        target = game.targets[slot]
        tiles: dict[int, list[int]] = {}
        crew: dict[int, int] = {}
        for seat, tile, on in bids:
            tiles.setdefault(seat, []).append(tile)
            crew[seat] = crew.get(seat, 0) + int(on)
        seats = sorted(tiles, key=game.order_key)
        totals = {s: sum(tiles[s]) + crew[s] for s in seats}
        shown = [SeatBid(s, tiles[s], crew[s], totals[s]) for s in seats]
        label = target_label(game, target)
        tiles_text = ", ".join(_seat_bid_text(b) for b in shown)
        if target.kind is TargetKind.MISSION:
            order = mission_bidders(
                totals, game.order_key, game.config.rule_options.lone_zero_mission_chance
            )
            outcome = (
                f"complete or pass in this order: {_seats(order)}" if order else "nobody is asked"
            )
            results.append(
                BidResult(
                    slot,
                    label,
                    "mission",
                    shown,
                    None,
                    None,
                    order,
                    f"{label}: {tiles_text} → {outcome}",
                )
            )
            continue
        winner = _best(totals, game)
        kind: Literal["part", "facility"] = "part" if target.kind is TargetKind.PART else "facility"
        if winner is None:
            outcome = "no winner (no bid of 1 or more, R-RES-2)"
        else:
            tie = [s for s in seats if s != winner and totals[s] == totals[winner]]
            why = f", first in turn order among {_seats([winner, *tie])}" if tie else ""
            outcome = f"P{winner} wins it for {totals[winner]}{why}"
        price = None if winner is None else totals[winner]
        results.append(
            BidResult(
                slot, label, kind, shown, winner, price, [], f"{label}: {tiles_text} → {outcome}"
            )
        )
    return results


def _seat_bid_text(bid: SeatBid) -> str:
    """'P0 3 1 +1 crew (=5)': the tiles a seat put on a target, and its bid."""
    crew = f" +{bid.crew} crew" if bid.crew else ""
    return f"P{bid.seat} {' '.join(map(str, bid.tiles))}{crew} (={bid.total})"


def _best(totals: dict[int, int], game: FarlightGame) -> int | None:
    """R-RES-2: the highest bid of at least 1; ties to the earliest in turn order."""
    best = None
    for seat in sorted(totals, key=game.order_key):
        if totals[seat] >= 1 and (best is None or totals[seat] > totals[best]):
            best = seat
    return best


def _note_forced(game: FarlightGame, action: Action, events: list[Event]) -> None:
    """Called by the engine just before it takes a decision that had one option."""
    seat = game.current_player
    assert seat is not None
    if isinstance(action, SelectPart):
        return  # choosing the only pending part: the install or discard that follows tells
    if isinstance(action, Discard):
        part = game.part_index[action.part]
        cost = game.cards.parts[part].crew_cost
        crew = game.crew[seat]
        if crew < cost:
            why = f"it costs {cost} crew and P{seat} has {crew} (R-INST-5)"
            reason: Literal["crew", "room"] = "crew"
        else:
            why = "no free cell of the ship links to it (R-INST-3)"
            reason = "room"
        text = f"P{seat}'s {action.part} is discarded automatically: {why}"
        events.append(AutoDiscard(seat, action.part, cost, crew, reason, text))
        return
    if isinstance(action, PassMission):
        text = f"P{seat} passes {action.mission}: it cannot complete it (R-MIS-4)"
    elif isinstance(action, ChooseEngine):
        value = game.engine_values.get(action.rank)
        text = (
            f"P{seat}: Engineer raises engine #{action.rank} from {value} (its only engine below 6)"
        )
    else:
        text = f"P{seat}: {action} (the only option)"
    events.append(AutoMove(seat, str(action), text))
