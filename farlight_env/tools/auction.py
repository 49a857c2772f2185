"""Auction diagnostics of one game record: what each seat bid, won and paid, and what its wins
brought by the end (definitions, with rule IDs, in docs/auction_diagnostics.md).

`seat_auctions(record)` replays the record (`iter_replay`, so a record that does not replay is
refused) and reads each round's flipped bids from `step_events` (`BidResult`: every target's
bids, winner and price). It reads the record only: everything it counts is public once the
game is over (the tiles flip at the end of bidding, R-BID-5). The result is one flat dict of
counters per seat, every value a sum, so that counters of many games add up (evaluation/tournament
/diagnostics.py sums them per agent and derives the rates).

A target is *won*: a part space or facility by the winner of its bids (R-RES-2); a mission by
the seat that completed it first and scored its full value (R-MIS-6). Later completers score
half, counted apart (`mission.late`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from farlight_env.cards.model import IconKind, Timing
from farlight_env.game import Action, FarlightGame, Phase
from farlight_env.game.actions import (
    Bid,
    ChooseEngine,
    CompleteMission,
    Discard,
    Install,
    RefitRemove,
    Target,
    TargetKind,
)
from farlight_env.game.facts import DISCOVER, ENGINEER, HIRE, HIRE_CREW, REFIT, TEMP_BIOTECH_COST
from farlight_env.records.record import iter_replay, record_actions
from farlight_env.view.events import BidResult, step_events

__all__ = ["COUNTERS", "KINDS", "SeatCounters", "seat_auctions"]

#: Target kinds in the order tables show them.
KINDS: tuple[str, ...] = ("part", "facility", "mission")
_PER_KIND = (
    "tiles",  # tile placements on targets of this kind (R-BID-2)
    "targets",  # (round, target) pairs the seat put at least one tile on
    "won",  # targets won (part/facility: R-RES-2; mission: first completer, R-MIS-6)
    "price",  # sum of the seat's bids on the targets it won: tile values + crew (R-BID-6)
    "crew_spent",  # crew riding on the won targets' tiles, gone to the supply (R-RES-3, R-MIS-7)
    "forgone_crew",  # non-zero tiles on won parts/facilities: crew a loser gets back (R-RES-4)
    "overbids",  # won targets where a strictly lower bid would still have won
    "overbid_excess",  # sum over wins of (bid - lowest bid that would still have won)
)
#: Every counter a seat gets, all sums (0 when nothing happened).
COUNTERS: tuple[str, ...] = (
    "rounds",  # bidding rounds the seat placed its tiles in (R-BID-1: all five, every round)
    *(f"{kind}.{name}" for kind in KINDS for name in _PER_KIND),
    # what won parts brought (R-RES-3, R-INST, R-BEN, R-MIS-4)
    "part.bonus_crew",  # bonus crew lying on the won space, taken with the part (R-RES-3)
    "part.installed",  # won parts installed on the ship (R-INST-1)
    "part.discarded",  # won parts discarded, by choice or forced (R-INST-1, R-INST-5)
    "part.removed",  # installed parts the seat later removed with Refit (R-RES-5)
    "part.kept",  # won parts still on the ship at the record's end
    "part.crew_yield",  # crew the parts' crew icons paid (R-BEN-1/2)
    "part.science_yield",  # science their science icons paid (R-BEN-1/2)
    "part.missions",  # (part, completion) pairs: a completion not legal without that part
    "part.mission_points",  # points of those completions (a mission counts once per such part)
    # what won facilities brought (R-RES-5)
    "facility.refit",
    "facility.hire",
    "facility.discover",
    "facility.engineer",
    "facility.parts_removed",  # Refit: parts removed
    "facility.crew",  # Hire: +3 crew each
    "facility.science",  # Discover: +1 science each
    "facility.engine_pips",  # Engineer: +1 to an engine below 6; no such engine, nothing
    # what mission bids brought (R-MIS-2..7)
    "mission.points",  # full values scored as first completer (the won missions)
    "mission.late",  # completions after another seat's (half value, R-MIS-6)
    "mission.late_points",
    "mission.crew_lost",  # crew on mission tiles of missions not won: to the supply (R-MIS-7)
    # the 0 tile (R-RES-2, R-MIS-2)
    "zero.tickets",  # a lone 0 on a mission (no crew, no other tile of the seat there)
    "zero.bluffs",  # any other 0 placed without crew: adds nothing to the bid it hides in
    "zero.with_crew",  # a 0 carrying crew: a bid of 1
    # the target the seat committed most to each round
    "top.rounds",
    "top.won",  # fractional when several targets share the seat's highest bid that round
)

#: A seat's counters: counter name -> sum (ints, except top.won).
SeatCounters = dict[str, float]

_FACILITY_NAMES = {REFIT: "refit", HIRE: "hire", DISCOVER: "discover", ENGINEER: "engineer"}


@dataclass
class _Target:
    """One target with bids in one round, once its tiles flipped."""

    kind: str
    index: int  # part space, facility, or mission stack
    card: int | None  # the part or mission on it (None for a facility)
    totals: dict[int, int]  # seat -> bid (R-BID-6)
    crew: dict[int, int]  # seat -> crew riding on its tiles there
    tiles: dict[int, list[int]]  # seat -> its tile values there
    winner: int | None  # part/facility: R-RES-2; mission: the first completer (set later)
    order: list[int]  # mission: the seats asked, in R-MIS-2 order
    order_key: dict[int, int]  # seat -> its place in this round's turn order


@dataclass
class _Round:
    number: int
    #: (seat, tile, slot, crew) per tile placed, in order
    placements: list[tuple[int, int, int, bool]] = field(default_factory=list)
    targets: dict[int, _Target] = field(default_factory=dict)  # by slot


class _Tracker:
    """Counts one record's auction facts while it replays."""

    def __init__(self, game: FarlightGame) -> None:
        self.n = game.num_players
        self.cards = game.cards
        self.tickets_count = game.config.rule_options.lone_zero_mission_chance
        self.seats: list[SeatCounters] = [dict.fromkeys(COUNTERS, 0) for _ in range(self.n)]
        self.round = _Round(game.round)
        self.install_round: dict[int, int] = {}  # part id -> round it was installed
        self.closed_rounds: set[int] = set()

    # ------------------------------------------------------------------ before each action
    def before(self, game: FarlightGame, action: Action) -> None:
        seat = game.current_player
        assert seat is not None
        if isinstance(action, Bid):
            slot = game.target_slot[action.target]
            self.round.placements.append((seat, action.tile, slot, action.crew))
            if sum(len(hand) for hand in game.hands) == 1:  # the round's last tile (R-BID-1)
                self._flip(game, action)
        elif isinstance(action, CompleteMission):
            self._complete(game, seat)
        elif isinstance(action, Install):
            self.seats[seat]["part.installed"] += 1
            self.install_round[game.part_index[action.part]] = game.round
        elif isinstance(action, RefitRemove):
            self.seats[seat]["part.removed"] += 1
            self.seats[seat]["facility.parts_removed"] += 1
        self._decided(game, seat, action)

    def forced(self, game: FarlightGame, action: Action) -> None:
        """The engine's `on_forced` hook: a decision with one option, taken automatically."""
        seat = game.current_player
        assert seat is not None
        self._decided(game, seat, action)

    def _decided(self, game: FarlightGame, seat: int, action: Action) -> None:
        """What chosen and forced decisions share: a discard; Engineer's +1 (R-RES-5)."""
        if isinstance(action, Discard):
            self.seats[seat]["part.discarded"] += 1
        elif isinstance(action, ChooseEngine) and game.phase is Phase.ENGINEER:
            self.seats[seat]["facility.engine_pips"] += 1

    def _flip(self, game: FarlightGame, last: Bid) -> None:
        """The round's bids, face up: winners and prices from the step's BidResult events."""
        order_key = {s: game.order_key(s) for s in range(self.n)}
        for event in step_events(game, last):
            if not isinstance(event, BidResult):
                continue
            target = game.targets[event.slot]
            if target.kind is TargetKind.PART:
                card = game.spaces[target.index]
            elif target.kind is TargetKind.MISSION:
                card = game.stacks[target.index][0]
            else:
                card = None
            self.round.targets[event.slot] = _Target(
                kind=event.kind,
                index=target.index,
                card=card,
                totals={b.seat: b.total for b in event.bids},
                crew={b.seat: b.crew for b in event.bids},
                tiles={b.seat: list(b.tiles) for b in event.bids},
                winner=event.winner,
                order=list(event.order),
                order_key=order_key,
            )
            if event.winner is not None and target.kind is TargetKind.PART:
                self.seats[event.winner]["part.bonus_crew"] += game.bonus[target.index]

    def _complete(self, game: FarlightGame, seat: int) -> None:
        """A completion (R-MIS-4..6): its points, and which of the seat's parts it needed."""
        mission_id = game.mission_being_resolved()
        stack = game.mission_stack
        assert mission_id is not None and stack is not None
        mission = self.cards.missions[mission_id]
        first = game.completers == 0
        points = mission.value if first else math.ceil(mission.value / 2)
        counters = self.seats[seat]
        if first:
            slot = game.target_slot[Target(TargetKind.MISSION, stack)]
            self.round.targets[slot].winner = seat
            counters["mission.points"] += points
        else:
            counters["mission.late"] += 1
            counters["mission.late_points"] += points
        for part in game.ship_parts[seat]:
            if not _completes_without(game, seat, mission_id, part):
                counters["part.missions"] += 1
                counters["part.mission_points"] += points

    # ------------------------------------------------------------------- after each action
    def after(self, game: FarlightGame) -> None:
        """Close the round once the game has moved past it (its benefits are paid)."""
        if game.round != self.round.number or game.is_over:
            self._close_round(game, ended=True)
            self.round = _Round(game.round)

    def _close_round(self, game: FarlightGame, ended: bool) -> None:
        """Count a round; `ended`: it is over, so its benefits were paid (R-BEN-1)."""
        number = self.round.number
        if number in self.closed_rounds:
            return
        self.closed_rounds.add(number)
        # The ships now are the ships their benefits were paid on: nothing changes a ship
        # between benefits and the next round's resolution (R-BEN-1 comes after installs).
        for seat in range(self.n if ended else 0):
            counters = self.seats[seat]
            for part in game.ship_parts[seat]:
                new = self.install_round.get(part) == number
                for icon in self.cards.parts[part].icons:
                    if icon.timing is Timing.ONCE and not new:
                        continue
                    if icon.kind is IconKind.CREW:
                        counters["part.crew_yield"] += 1
                    elif icon.kind is IconKind.SCIENCE:
                        counters["part.science_yield"] += 1
        if self.round.targets:
            self._count_round(self.round)

    def _count_round(self, rnd: _Round) -> None:
        """Everything that needs the whole round: placements, wins, prices, overbids, top."""
        seats_in = {seat for seat, _, _, _ in rnd.placements}
        for seat in seats_in:
            self.seats[seat]["rounds"] += 1
        for seat, tile, slot, crew in rnd.placements:
            target = rnd.targets[slot]
            counters = self.seats[seat]
            counters[f"{target.kind}.tiles"] += 1
            if tile != 0:
                continue
            if crew:
                counters["zero.with_crew"] += 1
            elif target.kind == "mission" and target.totals[seat] == 0 and self.tickets_count:
                counters["zero.tickets"] += 1  # R-MIS-2: asked after every real bid
            else:
                counters["zero.bluffs"] += 1
        for target in rnd.targets.values():
            for seat, total in target.totals.items():
                counters = self.seats[seat]
                counters[f"{target.kind}.targets"] += 1
                if seat != target.winner:
                    if target.kind == "mission":
                        counters["mission.crew_lost"] += target.crew[seat]
                    continue
                kind = target.kind
                counters[f"{kind}.won"] += 1
                counters[f"{kind}.price"] += total
                counters[f"{kind}.crew_spent"] += target.crew[seat]
                if kind != "mission":
                    counters[f"{kind}.forgone_crew"] += sum(1 for t in target.tiles[seat] if t)
                if kind == "facility":
                    self._facility_won(seat, target.index)
                lowest = lowest_winning_bid(target, seat, self.tickets_count)
                if total > lowest:
                    counters[f"{kind}.overbids"] += 1
                    counters[f"{kind}.overbid_excess"] += total - lowest
        for seat in seats_in:
            mine = {slot: t.totals[seat] for slot, t in rnd.targets.items() if seat in t.totals}
            best = max(mine.values())
            top = [slot for slot, total in mine.items() if total == best]
            won = sum(1 for slot in top if rnd.targets[slot].winner == seat)
            self.seats[seat]["top.rounds"] += 1
            self.seats[seat]["top.won"] += won / len(top)

    def _facility_won(self, seat: int, facility: int) -> None:
        counters = self.seats[seat]
        counters[f"facility.{_FACILITY_NAMES[facility]}"] += 1
        if facility == HIRE:
            counters["facility.crew"] += HIRE_CREW
        elif facility == DISCOVER:
            counters["facility.science"] += 1

    def finish(self, game: FarlightGame) -> list[SeatCounters]:
        self._close_round(game, ended=game.is_over)
        for seat in range(self.n):
            self.seats[seat]["part.kept"] = len(game.ship_parts[seat])
        return self.seats


def lowest_winning_bid(target: _Target, seat: int, tickets: bool) -> int:
    """The lowest bid with which `seat` would still have won `target`, the others' bids as
    they were.

    Part or facility (R-RES-2): at least 1, above every other bid, or equal to one placed by a
    seat later in turn order. Mission: the same against the seats asked after it (R-MIS-2), so
    the order, and every decision in it, stays as it was; with lone-0 chances a 0 is asked
    too, so the floor is 0 when nobody was asked after it.
    """
    key = target.order_key
    if target.kind == "mission":
        others = target.order[target.order.index(seat) + 1 :]
        lowest = 0 if tickets else 1
    else:
        others = [s for s in target.totals if s != seat]
        lowest = 1
    for other in others:
        tie_wins = key[seat] < key[other]
        lowest = max(lowest, target.totals[other] + (0 if tie_wins else 1))
    return lowest


def _completes_without(game: FarlightGame, seat: int, mission_id: int, part: int) -> bool:
    """Whether `seat` could have completed the mission (R-MIS-4/5) with that part's engines
    and bio-tech gone, its crew buying the missing temporary bio-tech as the engine does."""
    mission = game.cards.missions[mission_id]
    card = game.cards.parts[part]
    if mission.engines:
        have = sorted((v for r, v in game.engines(seat) if r not in card.engines), reverse=True)
        need = sorted(mission.engines, reverse=True)
        if len(have) < len(need) or any(h < r for h, r in zip(have, need, strict=False)):
            return False
    biotech = game.biotech(seat) - card.biotech + game.temp_biotech[seat]
    shortfall = max(0, mission.biotech - biotech)
    return game.crew[seat] >= TEMP_BIOTECH_COST * shortfall


def seat_auctions(record: Mapping[str, Any]) -> list[SeatCounters]:
    """Per seat, the auction counters of one game record (`COUNTERS`, all sums).

    Raises RecordError when the record does not replay. A record that stops before the game
    ends is counted as far as it goes (its last round only if its bids flipped).
    """
    actions = record_actions(record)
    replay = iter_replay(record)
    _, game = next(replay)
    tracker = _Tracker(game)
    game.on_forced = tracker.forced
    try:
        for action in actions:
            tracker.before(game, action)
            _, game = next(replay)
            tracker.after(game)
        next(replay, None)  # the replay checks the recorded outcome
    finally:
        game.on_forced = None
    return tracker.finish(game)
