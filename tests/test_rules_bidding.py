"""Bidding: docs/rules.md R-BID-1..6."""

from __future__ import annotations

import numpy as np
import pytest
from scenarios import (
    clear_space,
    facility,
    give,
    make_game,
    mission_stack,
    part_space,
    play_bids,
    set_first_player,
    set_stacks,
    slot_of,
    use_sink,
)

from farlight_env.cards import FACILITIES
from farlight_env.game import Bid, IllegalActionError, Phase, Target, TargetKind

HIRE = facility("Hire")
DISCOVER = facility("Discover")
REFIT = facility("Refit")


def test_r_bid_1_three_passes_2_2_1_tiles_in_turn_order():
    """R-BID-1: passes of 2, 2 and 1 tiles, each in turn order from the first player."""
    game = make_game(3)
    sink = use_sink(game)
    set_first_player(game, 1)
    seen = []
    sizes = []
    for _ in range(15):
        seat = game.current_player
        seen.append(seat)
        sizes.append(len(game.hands[seat]))
        game.apply(Bid(min(game.hands[seat]), sink))
    assert seen == [1, 1, 2, 2, 0, 0, 1, 1, 2, 2, 0, 0, 1, 2, 0]
    # hand size before each placement: every player places its 5th tile in pass 3
    assert sizes == [5, 4, 5, 4, 5, 4, 3, 2, 3, 2, 3, 2, 1, 1, 1]
    assert game.phase is Phase.BIDDING and game.round == 2  # the round was played out


def test_r_bid_1_all_five_tiles_are_always_placed():
    """R-BID-1: there is no way to stop bidding early; every legal action places a tile, and
    the round's resolution starts only when all 5 tiles of every player are down."""
    game = make_game(2)
    sink = use_sink(game)
    for step in range(10):
        legal = game.legal_actions()
        assert legal and all(isinstance(a, Bid) for a in legal)
        assert game.phase is Phase.BIDDING and game.round == 1
        placed = sum(5 - len(h) for h in game.hands)
        assert placed == step
        game.apply(Bid(min(game.hands[game.current_player]), sink))
    assert game.round == 2


def test_r_bid_2_targets_are_filled_spaces_facilities_available_missions():
    """R-BID-2: a tile still in hand may go on any part space holding a part, any of the
    4 facilities, or the available (top) mission of a non-empty stack."""
    game = make_game(2)
    clear_space(game, 3)
    set_stacks(game, [["Colonist Training", "Mars Elevator"], [], ["Alpha Centauri Expedition"]])
    targets = (
        [part_space(i) for i in (0, 1, 2, 4, 5, 6)]
        + [facility(name) for name in FACILITIES]
        + [mission_stack(0), mission_stack(2)]
    )
    expected = {Bid(t, tg, c) for t in range(5) for tg in targets for c in (False, True)}
    assert set(game.legal_actions()) == expected
    assert len(game.legal_actions()) == len(expected)
    game.apply(Bid(2, mission_stack(0)))
    expected_after = {b for b in expected if b.tile != 2}
    assert set(game.legal_actions()) == expected_after
    with pytest.raises(IllegalActionError):
        game.apply(Bid(2, HIRE))  # tile 2 is no longer in hand
    with pytest.raises(IllegalActionError):
        game.apply(Bid(1, part_space(3)))  # empty space
    with pytest.raises(IllegalActionError):
        game.apply(Bid(1, mission_stack(1)))  # empty stack
    assert game.hands[0] == [0, 1, 3, 4]


def test_r_bid_3_crew_rides_on_the_tile():
    """R-BID-3: a placement with crew moves exactly 1 crew from the player onto the tile."""
    game = make_game(2)
    use_sink(game)
    game.apply(Bid(4, HIRE, crew=True))
    assert game.crew[0] == 2
    assert game.bids[slot_of(game, HIRE)] == [(0, 4, True)]
    game.apply(Bid(3, HIRE, crew=False))
    assert game.crew[0] == 2
    assert game.bids[slot_of(game, HIRE)] == [(0, 4, True), (0, 3, False)]


def test_r_bid_3_crew_placement_needs_a_crew():
    """R-BID-3: with 0 crew no placement with crew is legal."""
    game = make_game(2)
    give(game, 0, crew=1)
    game.apply(Bid(1, DISCOVER, crew=True))
    assert game.crew[0] == 0
    legal = game.legal_actions()
    assert legal and not any(b.crew for b in legal)
    with pytest.raises(IllegalActionError):
        game.apply(Bid(2, DISCOVER, crew=True))
    assert game.crew[0] == 0 and game.hands[0] == [0, 2, 3, 4]


def test_r_bid_3_at_most_one_crew_per_tile_only_at_placement():
    """R-BID-3: one crew at most per tile, and no action adds crew to a placed tile: a tile's
    contribution is its value + 0 or 1."""
    game = make_game(2)
    give(game, 0, crew=10)
    game.apply(Bid(4, HIRE, crew=True))
    slot = slot_of(game, HIRE)
    assert game.bid_total(0, slot) == 5
    game.apply(Bid(0, DISCOVER))
    # seat 1's turn: nothing seat 0 or seat 1 can do touches the tile already placed
    assert all(isinstance(a, Bid) and a.tile in game.hands[1] for a in game.legal_actions())
    assert game.bids[slot] == [(0, 4, True)]
    assert game.crew[0] == 9


def test_r_bid_4_several_tiles_on_one_target_same_turn_and_across_turns():
    """R-BID-4: tiles may pile up on one target, in one turn and over several turns."""
    game = make_game(2)
    sink = use_sink(game)
    hire = slot_of(game, HIRE)
    game.apply(Bid(1, HIRE))
    game.apply(Bid(2, HIRE))  # same turn
    assert game.bid_total(0, hire) == 3
    game.apply(Bid(0, sink))
    game.apply(Bid(1, sink))
    game.apply(Bid(3, HIRE, crew=True))  # next pass, same target again
    assert game.bid_total(0, hire) == 7
    assert [t for p, t, _ in game.bids[hire] if p == 0] == [1, 2, 3]


def test_r_bid_4_stacked_tiles_resolve_as_one_bid():
    """R-BID-4 with R-BID-6: 1 + 2 + 3 + crew on Hire (7) beats a rival's 4 + crew (5)."""
    game = make_game(2)
    sink = use_sink(game)
    play_bids(
        game,
        {
            0: [Bid(1, HIRE), Bid(2, HIRE), Bid(3, HIRE, crew=True)],
            1: [Bid(4, HIRE, crew=True)],
        },
        fill=sink,
    )
    # seat 0 wins: 3 - 1 (crew to supply) + 3 (Hire); seat 1 loses: 3 - 1 + 1 (crew back) + 1
    assert game.crew == [5, 4]


def _observe(game, seat):
    obsmod = pytest.importorskip("farlight_env.encode.observation")
    return obsmod.ObservationEncoder(game.cards, game.config.grid_size).encode(game, seat)


def test_r_bid_5_tile_values_are_hidden_from_others():
    """R-BID-5: other players see target, owner and crew of a tile, never its value."""
    one = make_game(3)
    two = make_game(3)
    one.apply(Bid(1, HIRE))
    one.apply(Bid(4, DISCOVER))
    two.apply(Bid(4, HIRE))
    two.apply(Bid(1, DISCOVER))
    for seat in (1, 2):
        assert np.array_equal(_observe(one, seat), _observe(two, seat))
    assert not np.array_equal(_observe(one, 0), _observe(two, 0))  # the owner knows


def test_r_bid_5_target_owner_and_crew_are_public():
    """R-BID-5: where a tile went and whether crew rides on it is visible to everyone."""
    base = make_game(3)
    base.apply(Bid(3, HIRE))
    other_target = make_game(3)
    other_target.apply(Bid(3, REFIT))
    with_crew = make_game(3)
    with_crew.apply(Bid(3, HIRE, crew=True))
    for variant in (other_target, with_crew):
        assert not np.array_equal(_observe(base, 1), _observe(variant, 1))


def test_r_bid_6_bid_is_sum_of_tiles_plus_crew():
    """R-BID-6: 3 + crew and 2 + crew on one target is a bid of 7."""
    game = make_game(3)
    target = Target(TargetKind.PART, 0)
    slot = slot_of(game, target)
    game.apply(Bid(3, target, crew=True))
    game.apply(Bid(2, target, crew=True))
    assert game.bid_total(0, slot) == 7
    game.apply(Bid(4, target))
    assert game.bid_total(1, slot) == 4
    assert game.bid_total(2, slot) == 0


def test_r_bid_6_zero_tile_with_crew_is_a_bid_of_one():
    """R-BID-6: a 0 tile with crew bids 1, so it beats nothing and wins alone."""
    game = make_game(2)
    sink = use_sink(game)
    play_bids(game, {0: [Bid(0, DISCOVER, crew=True)]}, fill=sink)
    assert game.science == [1, 0]
    assert game.crew == [2, 3]
