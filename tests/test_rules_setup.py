"""Components and setup: docs/rules.md R-COMP-1..4 and R-SETUP-1..6.

Every test names the rule it checks; expected values are exact.
"""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scenarios import facility, give, make_game, play_bids, use_sink

from farlight_env.cards import (
    AWARDS,
    FACILITIES,
    CardSet,
    MissionCard,
    PartCard,
    Side,
    card_set_to_dict,
    standard_card_set,
)
from farlight_env.game import Bid, ConfigError, FarlightGame, GameConfig, Phase
from farlight_env.game.ship import CORE

STD = standard_card_set()
SPACES = {2: 7, 3: 9, 4: 10, 5: 12}


def station_ranks(game: FarlightGame) -> list[int]:
    return sorted(
        (r for p in game.spaces if p is not None for r in game.cards.parts[p].engines),
        reverse=True,
    )


# ------------------------------------------------------------------------------ R-COMP
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_r_comp_1_two_to_five_players_seated_0_to_n_minus_1(n):
    """R-COMP-1: 2..5 players, seats 0..n-1."""
    game = make_game(n)
    assert game.num_players == n
    assert game.turn_order() == list(range(n))
    assert len(game.crew) == len(game.hands) == len(game.ships) == n
    assert game.current_player == 0


@pytest.mark.parametrize("n", [0, 1, 6, 7])
def test_r_comp_1_other_player_counts_are_refused(n):
    """R-COMP-1: fewer than 2 or more than 5 players is not a game."""
    with pytest.raises(ConfigError):
        FarlightGame(n, 0)


@pytest.mark.parametrize("n", [2, 5])
def test_r_comp_1_agent_names_player_0_to_player_n_minus_1(n):
    """R-COMP-1: PettingZoo agent names are player_0 ... player_{n-1}, seat i = player_i."""
    farlight_v0 = pytest.importorskip("farlight_env.farlight_v0")
    env = farlight_v0.raw_env(num_players=n)
    assert list(env.possible_agents) == [f"player_{i}" for i in range(n)]
    env.reset(seed=0)
    assert env.agent_selection == f"player_{env.game.current_player}"


def test_r_comp_2_crew_and_science_have_no_cap():
    """R-COMP-2: crew and science are unlimited (Hire +3 on 100 crew, Discover +1 on 50 sci)."""
    game = make_game(2)
    sink = use_sink(game)
    give(game, 0, crew=100, science=50)
    play_bids(game, {0: [Bid(4, facility("Hire")), Bid(3, facility("Discover"))]}, fill=sink)
    assert game.phase is Phase.BIDDING and game.round == 2
    assert game.crew[0] == 103
    assert game.science[0] == 51


def _engine_heavy_set() -> CardSet:
    """20 parts with two engine icons each, so the station of 5 players holds 24 icons."""
    parts = tuple(
        PartCard(f"Engine {i:02d}", frozenset({Side.UP, Side.DOWN}), engines=(2 * i + 1, 2 * i + 2))
        for i in range(20)
    )
    missions = tuple(MissionCard(f"Regular {i}", 1 + i, science=1) for i in range(9)) + tuple(
        MissionCard(f"Climax {i}", 20 + i, climactic=True, science=6) for i in range(3)
    )
    return CardSet("engine-heavy", parts, missions)


def test_r_comp_2_engine_dice_are_unlimited():
    """R-COMP-2 with R-SETUP-5: every station engine icon gets a die, however many there are."""
    game = FarlightGame(5, 0, card_set=_engine_heavy_set())
    ranks = station_ranks(game)
    assert len(ranks) == 24
    assert sorted(game.engine_values) == sorted(ranks)
    assert all(1 <= v <= 6 for v in game.engine_values.values())


def test_r_comp_3_component_counts():
    """R-COMP-3: 57 parts, 23 missions, 7 awards, 4 facilities, one Primary Core per player."""
    assert len(STD.parts) == 57
    assert len(STD.missions) == 23
    assert 0 < len(STD.climactic_missions) < 23
    assert len(AWARDS) == 7 and len(set(AWARDS)) == 7
    assert FACILITIES == ("Refit", "Hire", "Discover", "Engineer")
    game = make_game(5)
    for seat in range(5):
        assert list(game.ships[seat].values()).count(CORE) == 1
        assert game.ships[seat] == {(0, 0): CORE}
    # Every card of the set is in the game's bookkeeping exactly once.
    parts = Counter(game.deck + [p for p in game.spaces if p is not None] + game.out_of_game)
    assert sorted(parts) == list(range(57)) and set(parts.values()) == {1}
    missions = Counter([m for s in game.stacks for m in s] + game.missions_out)
    assert sorted(missions) == list(range(23)) and set(missions.values()) == {1}


def test_r_comp_4_standard_set_is_declared_reconstructed():
    """R-COMP-4: the shipped set says plainly that it is a reconstruction."""
    assert STD.reconstructed is True
    assert "reconstructed" in STD.description.lower()
    assert make_game(2).cards is STD


def test_r_comp_4_a_users_card_file_is_accepted(tmp_path):
    """R-COMP-4: a user's own card file in the same format drives a game."""
    data = card_set_to_dict(STD)
    data["name"] = "my transcription"
    data["reconstructed"] = False
    data["parts"][0]["name"] = "Transcribed Telescope"
    path = tmp_path / "cards.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    game = FarlightGame(3, 0, card_set=path)
    assert game.cards.name == "my transcription"
    assert game.cards.reconstructed is False
    assert "Transcribed Telescope" in game.part_index
    assert "Deep Field Telescope" not in game.part_index


# ------------------------------------------------------------------------------ R-SETUP
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_r_setup_1_each_player_starts_with_core_tiles_3_crew(n):
    """R-SETUP-1: core at (0,0) with 4 connectors, tiles 0..4, 3 crew, 0 science, 0 points."""
    game = make_game(n, seed=7)
    for seat in range(n):
        assert game.ships[seat] == {(0, 0): CORE}
        assert game.ship_parts[seat] == []
        assert game.connectors(seat) == (4, 0, 0)  # up, down, left, right all open
        assert sorted(game.hands[seat]) == [0, 1, 2, 3, 4]
        assert game.crew[seat] == 3
        assert game.science[seat] == 0
        assert game.points[seat] == 0
    assert game.scores() == [0] * n


@pytest.mark.parametrize("seed", range(10))
def test_r_setup_2_three_awards_face_up_four_face_down(seed):
    """R-SETUP-2: the 7 awards split 3 face up, 4 face down."""
    game = make_game(3, seed=seed)
    assert len(game.awards_up) == 3
    assert len(game.awards_down) == 4
    assert sorted(game.awards_up + game.awards_down) == sorted(AWARDS)


def test_r_setup_2_awards_are_shuffled():
    """R-SETUP-2: which awards are face up and the face-down order depend on the shuffle."""
    ups = {tuple(sorted(make_game(3, seed=s).awards_up)) for s in range(30)}
    downs = {tuple(make_game(3, seed=s).awards_down) for s in range(30)}
    assert len(ups) > 5
    assert len(downs) > 5


def test_r_setup_2_face_down_order_is_hidden_from_players():
    """R-SETUP-2: the face-down award order never reaches an observation."""
    obsmod = pytest.importorskip("farlight_env.encode.observation")
    game = make_game(3, seed=4)
    other = game.clone()
    other.awards_down = list(reversed(game.awards_down))
    encoder = obsmod.ObservationEncoder(game.cards, game.config.grid_size)
    for seat in range(3):
        assert np.array_equal(encoder.encode(game, seat), encoder.encode(other, seat))


@pytest.mark.parametrize(("n", "regular"), [(2, 2), (3, 2), (4, 3), (5, 3)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_r_setup_3_mission_stacks(n, regular, seed):
    """R-SETUP-3: 3 stacks, each = N regular missions above one climactic, sorted ascending
    (value, then name), lowest on top and available; the unused missions leave the game."""
    game = make_game(n, seed=seed)
    missions = game.cards.missions
    assert len(game.stacks) == 3
    for stack in game.stacks:
        cards = [missions[m] for m in stack]
        assert len(cards) == regular + 1
        assert [c.climactic for c in cards] == [False] * regular + [True]
        assert cards == sorted(cards, key=lambda c: (c.value, c.name))
    assert game.available_missions() == [s[0] for s in game.stacks]
    assert len(game.missions_out) == 23 - 3 * (regular + 1)
    assert not set(game.missions_out) & {m for s in game.stacks for m in s}


def test_r_setup_3_climactic_and_regular_draws_are_random():
    """R-SETUP-3: the climactic missions and the regular deal vary with the shuffle."""
    stacks = {tuple(map(tuple, make_game(4, seed=s).stacks)) for s in range(20)}
    climactic = {frozenset(st[-1] for st in make_game(4, seed=s).stacks) for s in range(20)}
    assert len(stacks) == 20
    assert len(climactic) > 3


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_r_setup_4_part_spaces_filled(n):
    """R-SETUP-4: 7 / 9 / 10 / 12 part spaces, all filled from the shuffled deck."""
    game = make_game(n, seed=3)
    assert len(game.spaces) == SPACES[n]
    assert all(p is not None for p in game.spaces)
    assert game.bonus == [0] * SPACES[n]
    assert len(game.deck) == 57 - SPACES[n]
    assert sorted(game.deck + game.spaces) == list(range(57))


def test_r_setup_4_deck_is_shuffled():
    """R-SETUP-4: the station differs between games with different seeds."""
    stations = {tuple(make_game(3, seed=s).spaces) for s in range(10)}
    assert len(stations) == 10


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 5))
def test_r_setup_5_engine_dice_sorted_onto_ranks(seed, n):
    """R-SETUP-5: one d6 per station engine icon; highest die on the highest rank."""
    game = FarlightGame(n, seed)
    ranks = station_ranks(game)
    assert sorted(game.engine_values) == sorted(ranks)  # no die anywhere else
    values = [game.engine_values[r] for r in ranks]
    assert all(1 <= v <= 6 for v in values)
    assert values == sorted(values, reverse=True)


def test_r_setup_5_engine_dice_sorted_with_many_icons():
    """R-SETUP-5: with 24 station icons the dice are still sorted by rank."""
    for seed in range(5):
        game = FarlightGame(5, seed, card_set=_engine_heavy_set())
        values = [game.engine_values[r] for r in station_ranks(game)]
        assert values == sorted(values, reverse=True)
        assert len(set(values)) > 1  # real dice, not one constant


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_r_setup_6_first_player_is_seat_0_by_default(n):
    """R-SETUP-6 [decision]: seat 0 holds the first-player marker by default."""
    for seed in range(5):
        game = make_game(n, seed=seed)
        assert game.first_player == 0
        assert game.current_player == 0
    assert GameConfig().random_first_player is False


def test_r_setup_6_random_first_player_option():
    """R-SETUP-6 [decision]: with the option the first player is drawn from the game's RNG."""
    firsts = []
    for seed in range(40):
        game = make_game(4, seed=seed, random_first_player=True)
        assert game.current_player == game.first_player
        firsts.append(game.first_player)
        again = make_game(4, seed=seed, random_first_player=True)
        assert again.first_player == game.first_player  # reproducible from the seed
    assert set(firsts) == {0, 1, 2, 3}


def test_r_setup_3_equal_values_sort_alphabetically_ignoring_case() -> None:
    """R-SETUP-3 / R-MIS-1 [decision]: ties by name, alphabetically regardless of letter case
    (plain character order would put 'Zeta' before 'alpha')."""
    from farlight_env.cards.model import MissionCard
    from farlight_env.game.phases.missions import mission_order as _mission_order

    cards = [
        MissionCard("Zeta Relay", 5, science=1),
        MissionCard("alpha Survey", 5, science=1),
        MissionCard("Beta Outpost", 4, science=1),
    ]
    ordered = sorted(cards, key=_mission_order)
    assert [m.name for m in ordered] == ["Beta Outpost", "alpha Survey", "Zeta Relay"]
