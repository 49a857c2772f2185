"""The rulebook's worked examples, with the project's rules (docs/rules.md) and exact outcomes.

Seats: John = 0, Lisa = 1, Sarah = 2.
"""

from __future__ import annotations

from scenarios import (
    SINK_MISSION,
    facility,
    give,
    install_directly,
    make_game,
    mission_stack,
    names,
    part_id,
    part_space,
    play_bids,
    put_part,
    set_first_player,
    set_stacks,
    sink_round,
    slot_of,
    use_sink,
)

from farlight_env.game import Bid, CompleteMission, PassMission, Phase

JOHN, LISA, SARAH = 0, 1, 2
SPACE = part_space(0)


def proton_analyzer_round():
    """R-BID-6, R-RES-2..4: John 3+crew and 2+crew (7), Lisa a lone 0, Sarah 4 and 3 (7);
    Sarah holds the first-player marker."""
    game = make_game(3)
    sink = use_sink(game)
    set_first_player(game, SARAH)
    put_part(game, 0, "Proton Analyzer")
    slot = slot_of(game, SPACE)
    totals = {}

    def look(number):
        if number == 1:
            totals.update({seat: game.bid_total(seat, slot) for seat in (JOHN, LISA, SARAH)})

    play_bids(
        game,
        {
            JOHN: [Bid(3, SPACE, crew=True), Bid(2, SPACE, crew=True)],
            LISA: [Bid(0, SPACE)],
            SARAH: [Bid(4, SPACE), Bid(3, SPACE)],
        },
        fill=sink,
        after_pass=look,
    )
    return game, totals


def test_example_proton_analyzer_tie_goes_to_sarah_first_player():
    """R-RES-2: 7 against 7; Sarah is earliest in turn order (she is first player) and wins."""
    game, totals = proton_analyzer_round()
    assert totals == {JOHN: 7, LISA: 0, SARAH: 7}
    assert names(game, game.pending[SARAH]) == ["Proton Analyzer"]
    assert game.pending[JOHN] == game.pending[LISA] == []
    assert game.spaces[0] is None
    assert game.phase is Phase.INSTALL and game.current_player == SARAH
    assert game.crew[SARAH] == 3  # no crew rode on her tiles, no bonus yet
    assert 4 in game.hands[SARAH] and 3 in game.hands[SARAH]


def test_example_john_lost_bid_gets_tiles_crew_and_two_more_crew():
    """R-RES-4: John takes back both tiles and both crew, plus 1 crew per non-zero tile (2)."""
    game, _ = proton_analyzer_round()
    assert game.crew[JOHN] == 3 - 2 + 2 + 2  # 5
    assert 3 in game.hands[JOHN] and 2 in game.hands[JOHN]


def test_example_lisa_lone_zero_gets_only_her_tile_back():
    """R-RES-4: Lisa's 0 tile comes back; a 0 tile earns no crew."""
    game, _ = proton_analyzer_round()
    assert game.crew[LISA] == 3
    assert 0 in game.hands[LISA]


def test_example_colonist_training_launch():
    """R-MIS-2..8: John bid 4, Lisa 3, Sarah 0 + crew = 1, all with 1 bio-tech. John has no
    science and cannot complete: he passes automatically. Lisa completes first for 5. Sarah could
    complete for ceil(5 / 2) = 3 but passes."""
    game = make_game(3)
    set_stacks(
        game, [["Colonist Training", "Mars Elevator"], ["Lunar Relay Station"], [SINK_MISSION]]
    )
    sink = mission_stack(2)
    target = mission_stack(0)
    install_directly(game, JOHN, "Hydroponics Garden", (1, 0))
    install_directly(game, LISA, "Algae Farm", (0, 1))
    install_directly(game, SARAH, "Terrarium Module", (1, 0))
    give(game, LISA, science=1)
    give(game, SARAH, science=1)
    play_bids(
        game,
        {JOHN: [Bid(4, target)], LISA: [Bid(3, target)], SARAH: [Bid(0, target, crew=True)]},
        fill=sink,
    )
    # John (bid 4) is first in line but has no science: only "pass" was possible
    assert game.phase is Phase.MISSION and game.current_player == LISA
    assert game.legal_actions() == [
        CompleteMission("Colonist Training"),
        PassMission("Colonist Training"),
    ]
    game.apply(CompleteMission("Colonist Training"))
    assert game.points == [0, 5, 0]
    assert game.science[LISA] == 0
    assert game.current_player == SARAH
    assert CompleteMission("Colonist Training") in game.legal_actions()
    what_if = game.clone()
    what_if.apply(CompleteMission("Colonist Training"))
    assert what_if.points == [0, 5, 3]
    game.apply(PassMission("Colonist Training"))
    assert game.points == [0, 5, 0]
    assert game.phase is Phase.BIDDING and game.round == 2
    assert game.history.count(PassMission("Colonist Training")) == 1  # Sarah's, not John's
    assert game.crew == [3, 3, 2]  # Sarah's crew went to the supply (R-MIS-7)
    assert game.science == [0, 0, 1]
    assert game.available_missions()[0] == game.mission_index["Mars Elevator"]  # R-MIS-8


def test_example_rocketeer_sum_not_count():
    """R-END-1 Rocketeer: John's 4 engines sum to 13, Lisa's 3 engines to 16: Lisa holds it."""
    game = make_game(2, max_rounds=1)
    game.awards_up = ["Rocketeer", "Researcher", "Commander"]
    install_directly(game, JOHN, "Cold Gas Thrusters", (-1, 0), dice=4)
    install_directly(game, JOHN, "Solar Sail Array", (1, 0), dice=3)
    install_directly(game, JOHN, "Ion Drive", (0, 1), dice=3)
    install_directly(game, JOHN, "Plasma Thruster", (0, -1), dice=3)
    install_directly(game, LISA, "Twin Vector Nozzles", (0, 1), dice=(6, 5))
    install_directly(game, LISA, "Hall Effect Booster", (-1, 0), dice=5)
    assert len(game.engines(JOHN)) == 4 and game.award_value(JOHN, "Rocketeer") == 13
    assert len(game.engines(LISA)) == 3 and game.award_value(LISA, "Rocketeer") == 16
    assert game.award_holders("Rocketeer") == [LISA]
    sink_round(game, use_sink(game))
    assert game.is_over
    assert [b["awards"] for b in game.final_breakdown] == [10, 15]


def test_example_tanstafl_lone_zero_on_empty_target_wins_nothing():
    """R-RES-2 (TANSTAFL): a lone 0 tile on a target nobody else bid on has no winner."""
    game = make_game(3)
    sink = use_sink(game)
    put_part(game, 0, "Proton Analyzer")
    play_bids(game, {LISA: [Bid(0, SPACE)], JOHN: [Bid(0, facility("Hire"))]}, fill=sink)
    assert game.phase is Phase.BIDDING and game.round == 2
    assert game.pending == [[], [], []]
    assert game.spaces[0] == part_id(game, "Proton Analyzer")
    assert game.bonus[0] == 1
    assert game.crew == [3, 3, 3]  # no Hire for John's lone 0 either


def test_example_tanstafl_zero_tile_with_crew_wins():
    """R-RES-2 with R-BID-6: a 0 tile with crew is a bid of 1 and wins an empty target."""
    game = make_game(3)
    sink = use_sink(game)
    put_part(game, 0, "Proton Analyzer")
    play_bids(game, {LISA: [Bid(0, SPACE, crew=True)]}, fill=sink)
    assert names(game, game.pending[LISA]) == ["Proton Analyzer"]
    assert game.crew[LISA] == 2  # the riding crew went to the supply


def test_example_maximum_bid_is_15():
    """R-BID-6: all five tiles with crew on one target: 0+1+2+3+4 + 5 crew = 15."""
    game = make_game(2)
    sink = use_sink(game)
    put_part(game, 0, "Hydroponics Garden")  # crew cost 0: John can install it with 0 crew
    give(game, JOHN, crew=5)
    slot = slot_of(game, SPACE)
    johns = iter([Bid(t, SPACE, crew=True) for t in (4, 3, 2, 1, 0)])
    lisas = iter(
        [Bid(4, SPACE, crew=True), Bid(3, SPACE, crew=True), *[Bid(t, sink) for t in (0, 1, 2)]]
    )
    for _ in range(9):  # everything but Lisa's last tile
        game.apply(next(johns) if game.current_player == JOHN else next(lisas))
    assert game.bid_total(JOHN, slot) == 15
    assert game.hands[JOHN] == [] and game.crew[JOHN] == 0
    assert game.bid_total(LISA, slot) == 9
    game.apply(next(lisas))
    assert names(game, game.pending[JOHN]) == ["Hydroponics Garden"]
    assert game.crew[LISA] == 3 - 2 + 2 + 2
