"""Change stamps: the engine renews a stamp whenever what it covers changes, so observers
(the observation encoder, the action codec) may skip whatever still carries a stamp they saw.

Stamps are process-wide unique, so one ledger serves every game here: clones, saved and
reloaded games and edited positions included. Equal seat, board or ship stamps must mean
equal facts; under one bid stamp bids change only as `bid_log` says.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from farlight_env.game import FarlightGame, Phase
from farlight_env.game.hidden import determinize, redact
from tests import scenarios


def seat_facts(game: FarlightGame, p: int) -> tuple:
    """What `seat_stamps[p]` covers: crew, science, points, hand, temporary bio-tech, won
    parts waiting to be installed and the dice on them."""
    parts = game.cards.parts
    dice = tuple(game.engine_values.get(r) for part in game.pending[p] for r in parts[part].engines)
    return (
        *(game.crew[p], game.science[p], game.points[p], tuple(game.hands[p])),
        *(game.temp_biotech[p], tuple(game.pending[p]), dice),
    )


def board_facts(game: FarlightGame) -> tuple:
    """What `board_stamp` covers: part spaces, bonus crew, station dice, deck, face-up awards
    and mission stacks."""
    parts = game.cards.parts
    dice = tuple(
        game.engine_values.get(r)
        for part in game.spaces
        if part is not None
        for r in parts[part].engines
    )
    return (
        *(tuple(game.spaces), tuple(game.bonus), dice, tuple(game.deck)),
        *(tuple(game.awards_up), tuple(tuple(stack) for stack in game.stacks)),
    )


def ship_facts(game: FarlightGame, p: int) -> tuple:
    parts = game.cards.parts
    dice = tuple(game.engine_values[r] for part in game.ship_parts[p] for r in parts[part].engines)
    return tuple(sorted(game.ships[p].items())), tuple(game.ship_parts[p]), dice


class Ledger:
    """Every stamp seen so far and the facts it stood for."""

    def __init__(self) -> None:
        self.seats: dict[int, tuple] = {}
        self.boards: dict[int, tuple] = {}
        self.ships: dict[int, tuple] = {}
        self.bids: dict[int, tuple[list[tuple], int]] = {}  # bids and bid_log length seen
        self.checked = 0

    def check(self, game: FarlightGame) -> None:
        for p in range(game.num_players):
            facts = seat_facts(game, p)
            assert self.seats.setdefault(game.seat_stamps[p], facts) == facts, f"seat {p}"
            facts = ship_facts(game, p)
            assert self.ships.setdefault(game.ship_stamps[p], facts) == facts, f"ship {p}"
        facts = board_facts(game)
        assert self.boards.setdefault(game.board_stamp, facts) == facts, "board"
        bids = [tuple(placed) for placed in game.bids]
        seen, logged = self.bids.setdefault(game.bid_stamp, (bids, len(game.bid_log)))
        grown = [list(placed) for placed in seen]  # what was seen, changed as logged since
        events = game.bid_log[logged:]
        last_clear = {~entry: i for i, entry in enumerate(events) if entry < 0}
        for i, entry in enumerate(events):
            if entry < 0:
                grown[~entry] = []
            elif i < last_clear.get(entry, -1):
                grown[entry].append(None)  # placed, then taken back: nothing left to compare
            else:
                grown[entry].append(bids[entry][len(grown[entry])])
        assert [tuple(placed) for placed in grown] == bids, "bids changed beyond bid_log"
        self.bids[game.bid_stamp] = (bids, len(game.bid_log))
        self.checked += 1


def play(game: FarlightGame, rng: random.Random, steps: int, ledger: Ledger) -> None:
    for _ in range(steps):
        if game.is_over:
            return
        ledger.check(game)
        game.apply(rng.choice(game.legal_actions()))
    ledger.check(game)


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_stamps_change_with_what_they_cover(num_players: int, fuzz_games: int) -> None:
    """Through whole games, with clones and reloaded copies branching off on their own."""
    ledger = Ledger()
    for seed in range(max(2, fuzz_games // 10)):
        rng = random.Random(seed)
        game = FarlightGame(num_players, seed=seed)
        while not game.is_over:
            play(game, rng, rng.randrange(1, 40), ledger)
            branch = game.clone() if rng.random() < 0.5 else FarlightGame.from_json(game.to_json())
            play(branch, random.Random(rng.random()), rng.randrange(1, 60), ledger)
    assert ledger.checked > 200


def test_clones_share_seat_and_board_stamps_but_not_the_bid_stamp() -> None:
    """A clone's bids may grow apart from the original's, so it takes its own bid stamp."""
    game = FarlightGame(4, seed=3)
    for _ in range(7):
        game.apply(game.legal_actions()[0])
    clone = game.clone()
    assert clone.seat_stamps == game.seat_stamps and clone.board_stamp == game.board_stamp
    assert clone.ship_stamps == game.ship_stamps
    assert clone.bid_stamp != game.bid_stamp


def test_ships_changed_alike_share_stamps_and_other_dice_do_not() -> None:
    """Clones with their own chance (as search draws them) making the same moves share ship
    stamps while their ships agree (dice included), and the ledger stays true throughout."""
    ledger = Ledger()
    game = FarlightGame(2, seed=8)
    seen, shared = set(game.ship_stamps), set()
    for seed in range(20):
        branch, moves = game.clone(rng=np.random.default_rng(seed)), random.Random(0)
        stamps = set()
        while not branch.is_over:
            ledger.check(branch)
            stamps.update(branch.ship_stamps)
            legal = branch.legal_actions()
            branch.apply(legal[moves.randrange(len(legal))])
        ledger.check(branch)
        shared |= (stamps - set(game.ship_stamps)) & seen
        seen |= stamps
    assert shared


def test_loading_and_invalidating_renew_every_change_stamp() -> None:
    game = FarlightGame(3, seed=4)
    before = (game.seat_stamps[:], game.board_stamp, game.bid_stamp)
    loaded = FarlightGame.from_json(game.to_json())
    game.invalidate_cache()
    for other in (game, loaded):
        assert not set(other.seat_stamps) & set(before[0])
        assert other.board_stamp != before[1] and other.bid_stamp != before[2]


def test_scenario_edits_keep_the_ledger_true() -> None:
    """Direct edits followed by `invalidate_cache` (as tests/scenarios.py does) renew stamps."""
    ledger = Ledger()
    game = scenarios.make_game(4, seed=5)
    ledger.check(game)
    scenarios.give(game, 1, crew=9, science=2, points=4)
    ledger.check(game)
    scenarios.put_part(game, 0, game.cards.parts[game.deck[0]].name)
    ledger.check(game)
    scenarios.clear_space(game, 1)
    ledger.check(game)
    assert game.phase is Phase.BIDDING


@pytest.mark.parametrize("num_players", [2, 4])
def test_redacted_copies_keep_the_ledger_true(num_players: int) -> None:
    """Redacted copies of one board share a board stamp (their boards are equal: canonical
    deck and awards), so agents' caches keyed on it hit from one decision to the next; the
    ledger holds for them as for live games, and determinizations take their own stamps."""
    ledger, rng = Ledger(), random.Random(num_players)
    game = FarlightGame(num_players, seed=num_players)
    stamps = 0
    while not game.is_over:
        seat = rng.randrange(num_players)
        first, second = redact(game, seat), redact(game, (seat + 1) % num_players)
        assert first.board_stamp == second.board_stamp != game.board_stamp
        ledger.check(first)
        ledger.check(second)
        drawn = determinize(game, seat, np.random.default_rng(stamps))
        assert drawn.board_stamp not in (first.board_stamp, game.board_stamp)
        ledger.check(drawn)
        stamps += 1
        play(game, rng, rng.randrange(1, 12), ledger)
    assert stamps > 10
