"""Launch: missions (R-MIS-1..8) and the round reset (R-RESET-1..6)."""

from __future__ import annotations

import pytest
from scenarios import (
    SINK_MISSION,
    facility,
    finish_round,
    give,
    install_directly,
    make_game,
    mission_id,
    mission_stack,
    part_space,
    play_bids,
    put_part,
    ranks_of,
    set_first_player,
    set_stacks,
    sink_round,
    use_sink,
)

from farlight_env.game import (
    Bid,
    CompleteMission,
    EndReason,
    FarlightGame,
    PassMission,
    Phase,
)

M0, M1, M2 = mission_stack(0), mission_stack(1), mission_stack(2)
SINK = M2


def resolving(game: FarlightGame) -> str:
    return game.cards.missions[game.mission_being_resolved()].name


def give_biotech(game: FarlightGame, seat: int) -> None:
    """One bio-tech icon on the seat's ship (a different icon-free card per seat)."""
    name, cell = [
        ("Hydroponics Garden", (1, 0)),
        ("Algae Farm", (0, 1)),
        ("Terrarium Module", (1, 0)),
    ][seat]
    install_directly(game, seat, name, cell)


def decide_all(game: FarlightGame, choices: dict[int, bool]) -> list[tuple[str, int]]:
    """Answer mission decisions (True = complete) until the missions are over."""
    seen = []
    while game.phase is Phase.MISSION:
        seat = game.current_player
        name = resolving(game)
        seen.append((name, seat))
        game.apply(CompleteMission(name) if choices.get(seat) else PassMission(name))
    return seen


# ============================================================================ R-MIS
def test_r_mis_1_missions_resolve_by_ascending_value_ties_by_name():
    """R-MIS-1: the bid-on missions resolve by value ascending, equal values by name."""
    game = make_game(2)
    set_stacks(game, [["Colonist Training"], ["Orbital Debris Sweep"], ["Lunar Relay Station"]])
    give(game, 0, science=3)
    install_directly(game, 0, "Ion Drive", (0, 1), dice=4)
    install_directly(game, 0, "Hydroponics Garden", (1, 0))
    play_bids(
        game,
        {
            0: [Bid(1, M0), Bid(2, M1), Bid(3, M2), Bid(4, facility("Hire")), Bid(0, M0)],
            1: [Bid(t, facility("Refit")) for t in range(5)],
        },
    )
    order = [name for name, _ in decide_all(game, {})]
    # values 2 (Lunar Relay Station), 2 (Orbital Debris Sweep), 5 (Colonist Training)
    assert order == ["Lunar Relay Station", "Orbital Debris Sweep", "Colonist Training"]


def test_r_mis_1_missions_without_bids_are_not_resolved():
    """R-MIS-1: only available missions that received bids are resolved."""
    game = make_game(2)
    set_stacks(game, [["Colonist Training"], ["Lunar Relay Station"], [SINK_MISSION]])
    give(game, 0, science=3)
    give(game, 1, science=3)
    play_bids(game, {0: [Bid(1, M1)]}, fill=SINK)
    assert [name for name, _ in decide_all(game, {})] == ["Lunar Relay Station"]


def _lunar_position(first: int, **rule_options):
    game = make_game(3, rule_options=rule_options)
    set_stacks(game, [["Lunar Relay Station"], ["Mars Elevator"], [SINK_MISSION]])
    set_first_player(game, first)
    for seat in range(3):
        give(game, seat, science=1)
    return game


def test_r_mis_2_bidders_by_bid_descending_ties_by_turn_order():
    """R-MIS-2: bids 2, 4, 2 with seat 2 first player: seat 1, then seat 2, then seat 0."""
    game = _lunar_position(first=2)
    play_bids(game, {0: [Bid(2, M0)], 1: [Bid(4, M0)], 2: [Bid(1, M0, crew=True)]}, fill=SINK)
    assert [seat for _, seat in decide_all(game, {})] == [1, 2, 0]


def test_r_mis_2_lone_zero_never_asked_when_option_off():
    """R-MIS-2 [option] lone_zero_mission_chance=False: a lone 0 tile on a mission is never
    asked, even if it could complete (the earlier reading)."""
    game = _lunar_position(first=0, lone_zero_mission_chance=False)
    play_bids(game, {0: [Bid(0, M0)], 1: [Bid(1, M0)], 2: [Bid(3, M0)]}, fill=SINK)
    assert [seat for _, seat in decide_all(game, {0: True, 1: True, 2: True})] == [2, 1]
    assert game.points == [0, 1, 2]
    assert game.science == [1, 0, 0]


def test_r_mis_3_each_bidder_chooses_complete_or_pass():
    """R-MIS-3: a bidder able to complete chooses between complete and pass."""
    game = _lunar_position(first=0)
    play_bids(game, {0: [Bid(2, M0)]}, fill=SINK)
    assert game.phase is Phase.MISSION and game.current_player == 0
    assert game.legal_actions() == [
        CompleteMission("Lunar Relay Station"),
        PassMission("Lunar Relay Station"),
    ]


ENGINE_PARTS = (
    ("Ion Drive", (0, 1)),
    ("Plasma Thruster", (0, -1)),
    ("Cold Gas Thrusters", (-1, 0)),
)


@pytest.mark.parametrize(
    ("dice", "can"),
    [
        ((6,), False),  # one engine cannot match two required dice
        ((6, 4), True),
        ((4, 4), True),
        ((5, 3), False),
        ((3, 3, 3), False),
        ((1, 6, 6), True),
        ((4, 3, 5), True),
    ],
)
def test_r_mis_4_each_required_die_needs_a_distinct_engine_at_least_as_high(dice, can):
    """R-MIS-4: Mars Elevator needs two engines of 4+ (and 2 science)."""
    game = make_game(2)
    set_stacks(game, [["Mars Elevator"], ["Lunar Relay Station"], [SINK_MISSION]])
    give(game, 0, science=2)
    for (name, cell), value in zip(ENGINE_PARTS, dice, strict=False):
        install_directly(game, 0, name, cell, dice=value)
    play_bids(game, {0: [Bid(3, M0)]}, fill=SINK)
    if can:
        assert game.phase is Phase.MISSION and game.current_player == 0
        assert CompleteMission("Mars Elevator") in game.legal_actions()
        game.apply(CompleteMission("Mars Elevator"))
        assert game.points[0] == 7 and game.science[0] == 0
    else:  # the pass is the only option and is applied automatically
        assert game.phase is Phase.BIDDING and game.round == 2
        assert game.points[0] == 0 and game.science[0] == 2
        assert PassMission("Mars Elevator") not in game.history


@pytest.mark.parametrize(("crew", "can"), [(3, True), (2, False)])
def test_r_mis_4_biotech_from_ship_plus_temporary(crew, can):
    """R-MIS-4/5: Hydroponic Supply Run needs 2 bio-tech: 1 on the ship + 1 bought for 3 crew."""
    game = make_game(2)
    set_stacks(game, [["Hydroponic Supply Run"], ["Lunar Relay Station"], [SINK_MISSION]])
    give_biotech(game, 0)
    give(game, 0, crew=crew)
    play_bids(game, {0: [Bid(3, M0)]}, fill=SINK)
    if can:
        game.apply(CompleteMission("Hydroponic Supply Run"))
        assert game.crew[0] == 0 and game.points[0] == 3
    else:
        assert game.phase is Phase.BIDDING and game.points[0] == 0 and game.crew[0] == 2


@pytest.mark.parametrize(("science", "can"), [(3, True), (2, True), (1, False)])
def test_r_mis_4_science_is_paid(science, can):
    """R-MIS-4: Solar Flare Study costs 2 science, paid to the supply."""
    game = make_game(2)
    set_stacks(game, [["Solar Flare Study"], ["Lunar Relay Station"], [SINK_MISSION]])
    give(game, 0, science=science)
    play_bids(game, {0: [Bid(3, M0)]}, fill=SINK)
    if can:
        game.apply(CompleteMission("Solar Flare Study"))
        assert game.science[0] == science - 2 and game.points[0] == 3
    else:
        assert game.phase is Phase.BIDDING and game.science[0] == 1 and game.points[0] == 0


def test_r_mis_5_temporary_biotech_bought_fewest_kept_for_the_round_then_lost():
    """R-MIS-5: 3 crew per temporary bio-tech, the fewest needed; it serves every mission of the
    round and is gone after the last mission."""
    game = make_game(2)
    set_stacks(game, [["Hydroponic Supply Run"], ["Colonist Training"], [SINK_MISSION]])
    give(game, 0, crew=9, science=1)
    play_bids(game, {0: [Bid(1, M0), Bid(2, M1)]}, fill=SINK)
    assert resolving(game) == "Hydroponic Supply Run"  # value 3, before Colonist Training (5)
    game.apply(CompleteMission("Hydroponic Supply Run"))
    assert game.crew[0] == 3 and game.temp_biotech[0] == 2
    assert resolving(game) == "Colonist Training"
    game.apply(CompleteMission("Colonist Training"))  # 1 bio-tech: already bought this round
    assert game.crew[0] == 3 and game.science[0] == 0
    assert game.points[0] == 3 + 5
    assert game.phase is Phase.BIDDING and game.round == 2
    assert game.temp_biotech == [0, 0]


def test_r_mis_5_complete_is_legal_only_if_requirements_can_be_met():
    """R-MIS-5 [decision]: 5 crew cannot buy the 2 bio-tech of Hydroponic Supply Run."""
    game = make_game(2)
    set_stacks(game, [["Hydroponic Supply Run"], ["Lunar Relay Station"], [SINK_MISSION]])
    give(game, 0, crew=5)
    play_bids(game, {0: [Bid(1, M0)]}, fill=SINK)
    assert game.phase is Phase.BIDDING and game.points[0] == 0 and game.crew[0] == 5


def test_r_mis_6_first_completer_full_value_later_ones_half_rounded_up():
    """R-MIS-6: Colonist Training (5) completed by three players scores 5, 3, 3."""
    game = make_game(3)
    set_stacks(game, [["Colonist Training"], ["Lunar Relay Station"], [SINK_MISSION]])
    for seat in range(3):
        give_biotech(game, seat)
        give(game, seat, science=1)
    play_bids(game, {0: [Bid(2, M0)], 1: [Bid(4, M0)], 2: [Bid(3, M0)]}, fill=SINK)
    seen = decide_all(game, {0: True, 1: True, 2: True})
    assert [seat for _, seat in seen] == [1, 2, 0]
    assert game.points == [3, 5, 3]
    assert game.science == [0, 0, 0]


def test_r_mis_6_later_completers_score_half_rounded_up():
    """R-MIS-6: a value-2 mission gives 2 to the first completer and 1 to the next; a passing
    player in between does not count as a completer."""
    game = make_game(3)
    set_stacks(game, [["Orbital Debris Sweep"], ["Lunar Relay Station"], [SINK_MISSION]])
    engines = [
        ("Ion Drive", (0, 1)),
        ("Plasma Thruster", (0, 1)),
        ("Pulse Detonation Engine", (-1, 0)),
    ]
    for seat, (name, cell) in enumerate(engines):
        install_directly(game, seat, name, cell, dice=3)
    play_bids(game, {0: [Bid(4, M0)], 1: [Bid(3, M0)], 2: [Bid(2, M0)]}, fill=SINK)
    seen = decide_all(game, {0: False, 1: True, 2: True})
    assert [seat for _, seat in seen] == [0, 1, 2]
    assert game.points == [0, 2, 1]


def test_r_mis_7_tiles_return_crew_to_supply_no_crew_for_losing():
    """R-MIS-7: mission tiles come home; their crew goes to the supply; no crew for losing."""
    game = make_game(2)
    set_stacks(game, [["Colonist Training"], ["Lunar Relay Station"], [SINK_MISSION]])
    give_biotech(game, 0)
    give_biotech(game, 1)
    give(game, 1, science=1)
    play_bids(game, {0: [Bid(2, M0, crew=True)], 1: [Bid(3, M0, crew=True)]}, fill=SINK)
    assert decide_all(game, {1: True}) == [("Colonist Training", 1)]  # seat 0 cannot (0 science)
    assert game.phase is Phase.BIDDING and game.round == 2
    assert game.crew == [2, 2]
    assert game.points == [0, 5]
    assert game.hands == [[0, 1, 2, 3, 4], [0, 1, 2, 3, 4]]
    assert all(not bids for bids in game.bids)


def test_r_mis_8_completed_mission_leaves_uncompleted_stays():
    """R-MIS-8: a completed mission leaves and uncovers the next; an uncompleted one stays."""
    game = make_game(2)
    set_stacks(
        game,
        [
            ["Colonist Training", "Mars Elevator"],
            ["Lunar Relay Station", "Ceres Refinery"],
            [SINK_MISSION],
        ],
    )
    give_biotech(game, 0)
    give(game, 0, science=2)
    play_bids(game, {0: [Bid(1, M0), Bid(2, M1)]}, fill=SINK)
    decide_all(game, {0: True})  # Lunar Relay Station first (value 2): complete it too
    assert game.points[0] == 2 + 5
    names = [[game.cards.missions[m].name for m in s] for s in game.stacks]
    assert names == [["Mars Elevator"], ["Ceres Refinery"], [SINK_MISSION]]
    assert mission_id(game, "Colonist Training") in game.missions_out


def test_r_mis_8_mission_nobody_completed_stays_available():
    """R-MIS-8: everyone passed: the mission is still on top next round."""
    game = make_game(2)
    set_stacks(
        game, [["Colonist Training", "Mars Elevator"], ["Lunar Relay Station"], [SINK_MISSION]]
    )
    give_biotech(game, 0)
    give(game, 0, science=1)
    play_bids(game, {0: [Bid(1, M0)]}, fill=SINK)
    decide_all(game, {0: False})
    assert game.available_missions()[0] == mission_id(game, "Colonist Training")
    assert len(game.stacks[0]) == 2
    assert mission_id(game, "Colonist Training") not in game.missions_out


# ========================================================================== R-RESET
def test_r_reset_1_completing_a_climactic_mission_ends_the_game():
    """R-RESET-1: Dyson Swarm Prototype (climactic, 12) completed: the game ends this round."""
    game = make_game(2)
    set_stacks(game, [["Dyson Swarm Prototype"], ["Lunar Relay Station"], [SINK_MISSION]])
    install_directly(game, 0, "Twin Vector Nozzles", (0, 1), dice=(6, 6))
    give(game, 0, science=4)
    game.awards_up = ["Researcher", "Commander", "Juggernaut"]
    play_bids(game, {0: [Bid(4, M0)]}, fill=SINK)
    game.apply(CompleteMission("Dyson Swarm Prototype"))
    assert game.is_over and game.phase is Phase.OVER
    assert game.end_reason is EndReason.CLIMACTIC
    assert not game.is_truncated
    assert game.round == 1
    # 12 + Researcher (0 = 0 science, tie) + Commander (3 = 3 crew, tie) + Juggernaut + 1 token
    assert game.scores() == [12 + 5 + 5 + 5 + 1, 5 + 5 + 1]
    assert game.winners() == [0]


def test_r_reset_1_regular_mission_does_not_end_the_game():
    """R-RESET-1: only a climactic mission ends the game."""
    game = make_game(2)
    set_stacks(game, [["Lunar Relay Station"], ["Mars Elevator"], [SINK_MISSION]])
    give(game, 0, science=1)
    play_bids(game, {0: [Bid(4, M0)]}, fill=SINK)
    game.apply(CompleteMission("Lunar Relay Station"))
    assert not game.is_over and game.round == 2


def test_r_reset_2_one_bonus_crew_on_every_part_left_on_the_station():
    """R-RESET-2: +1 bonus crew per part still on the station (a refilled space starts at 0)."""
    game = make_game(3)
    sink = use_sink(game)
    play_bids(game, {0: [Bid(4, part_space(0))]}, fill=sink)
    finish_round(game)
    assert game.bonus == [0] + [1] * 8
    sink_round(game, sink)
    assert game.bonus == [1] + [2] * 8
    play_bids(game, {1: [Bid(1, part_space(4))]}, fill=sink)
    finish_round(game)
    assert game.bonus == [2, 3, 3, 3, 0, 3, 3, 3, 3]


def test_r_reset_2_bonus_crew_goes_to_the_winner():
    """R-RESET-2 with R-RES-3: two rounds of bonus crew go to the part's eventual winner."""
    game = make_game(2)
    sink = use_sink(game)
    sink_round(game, sink)
    sink_round(game, sink)
    assert game.bonus[2] == 2
    play_bids(game, {1: [Bid(1, part_space(2))]}, fill=sink)
    assert game.crew[1] == 3 + 2


def test_r_reset_3_refill_empty_spaces_in_space_order_from_the_deck():
    """R-RESET-3: the top of the deck goes to the lowest empty space, and so on."""
    game = make_game(3)
    sink = use_sink(game)
    top, second = game.deck[-1], game.deck[-2]
    size = len(game.deck)
    play_bids(game, {0: [Bid(1, part_space(3)), Bid(2, part_space(1))]}, fill=sink)
    finish_round(game)
    assert game.spaces[1] == top
    assert game.spaces[3] == second
    assert len(game.deck) == size - 2
    assert not game.is_over


def _short_deck(game: FarlightGame, keep: int) -> None:
    cut = len(game.deck) - keep
    game.out_of_game.extend(game.deck[:cut])
    del game.deck[:cut]


def test_r_reset_3_game_ends_when_the_deck_cannot_fill_every_empty_space():
    """R-RESET-3: two empty spaces, one card left: the game ends (final scoring applied)."""
    game = make_game(2)
    sink = use_sink(game)
    _short_deck(game, 1)
    play_bids(game, {0: [Bid(1, part_space(3)), Bid(2, part_space(1))]}, fill=sink)
    finish_round(game)
    assert game.is_over
    assert game.end_reason is EndReason.DECK
    assert not game.is_truncated
    assert game.final_breakdown is not None


def test_r_reset_3_deck_exactly_enough_goes_on():
    """R-RESET-3: two empty spaces and two cards: the game goes on with an empty deck."""
    game = make_game(2)
    sink = use_sink(game)
    _short_deck(game, 2)
    play_bids(game, {0: [Bid(1, part_space(3)), Bid(2, part_space(1))]}, fill=sink)
    finish_round(game)
    assert not game.is_over and game.round == 2
    assert game.deck == []
    assert all(p is not None for p in game.spaces)
    sink_round(game, sink)  # nothing to refill: an empty deck does not end the game
    assert not game.is_over and game.round == 3


def _station_ok(game: FarlightGame) -> list[int]:
    ranks = sorted(
        (r for p in game.spaces if p is not None for r in game.cards.parts[p].engines),
        reverse=True,
    )
    values = [game.engine_values[r] for r in ranks]
    assert values == sorted(values, reverse=True)
    assert all(1 <= v <= 6 for v in values)
    return ranks


def test_r_reset_4_station_dice_rerolled_ship_engines_kept():
    """R-RESET-4: station dice are re-rolled (sorted onto ranks, R-SETUP-5); ship engines keep
    their values."""
    game = make_game(2)
    sink = use_sink(game)
    install_directly(game, 0, "Plasma Thruster", (0, 1), dice=2)
    put_part(game, 0, "Cold Gas Thrusters", dice=6)  # rank 1
    put_part(game, 1, "Ion Drive", dice=5)  # rank 3
    put_part(game, 2, "Twin Vector Nozzles", dice=(1, 1))  # ranks 12, 13: unsorted on purpose
    (plasma,) = ranks_of(game, "Plasma Thruster")
    history = []
    for _ in range(5):
        sink_round(game, sink)
        ranks = _station_ok(game)
        assert sorted(game.engine_values) == sorted([*ranks, plasma])
        assert game.engine_values[plasma] == 2
        history.append(tuple(game.engine_values[r] for r in ranks))
    assert len(set(history)) > 1  # rolled anew each round


def test_r_reset_5_first_player_marker_passes_to_the_next_seat():
    """R-RESET-5: seat + 1 mod n each round; bidding starts with the new first player."""
    game = make_game(3)
    sink = use_sink(game)
    firsts = [game.first_player]
    for _ in range(4):
        sink_round(game, sink)
        firsts.append(game.first_player)
        assert game.current_player == game.first_player
    assert firsts == [0, 1, 2, 0, 1]


def test_r_reset_6_round_cap_truncates_with_final_scoring():
    """R-RESET-6 [decision]: with max_rounds=2 the game ends after round 2, reported as
    truncated, with awards and tokens scored."""
    game = make_game(2, max_rounds=2)
    sink = use_sink(game)
    game.awards_up = ["Researcher", "Commander", "Juggernaut"]
    give(game, 0, crew=4)
    sink_round(game, sink)
    assert not game.is_over
    sink_round(game, sink)
    assert game.is_over and game.round == 2
    assert game.end_reason is EndReason.ROUND_CAP and game.end_reason.value == "round_cap"
    assert game.is_truncated
    # Researcher tie at 0 (both), Commander seat 0 (4 > 3), Juggernaut tie at 0 (both)
    assert game.final_breakdown == [
        {"missions": 0, "awards": 15, "tokens": 2},
        {"missions": 0, "awards": 10, "tokens": 1},
    ]
    assert game.scores() == [17, 11]
    assert game.legal_actions() == []


def test_r_reset_6_default_cap_is_50_rounds():
    """R-RESET-6: the default cap is 50 rounds."""
    game = make_game(2)
    sink = use_sink(game)
    for _ in range(49):
        sink_round(game, sink)
    assert game.round == 50 and not game.is_over
    sink_round(game, sink)
    assert game.is_over and game.is_truncated and game.round == 50


def test_r_reset_6_environment_reports_the_round_cap_as_truncation():
    """R-RESET-6: the PettingZoo environment reports a capped game as truncated, not ended."""
    farlight_v0 = pytest.importorskip("farlight_env.farlight_v0")
    env = farlight_v0.raw_env(num_players=2, max_rounds=1)
    env.reset(seed=3)
    for _ in range(200):
        if all(env.truncations.values()) or all(env.terminations.values()):
            break
        game = env.game
        env.step(env.codec.encode(game.legal_actions()[0]))
    assert env.game.end_reason is EndReason.ROUND_CAP
    assert all(env.truncations.values())
    assert not any(env.terminations.values())
