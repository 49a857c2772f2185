"""Assembly: resolution of part and facility bids (R-RES-1..6), installing (R-INST-1..5) and
benefits (R-BEN-1..4)."""

from __future__ import annotations

import pytest
from scenarios import (
    facility,
    finish_round,
    give,
    install_directly,
    make_game,
    names,
    part_id,
    part_space,
    play_bids,
    put_part,
    ranks_of,
    set_first_player,
    ship_cells,
    sink_round,
    slot_of,
    use_sink,
    win_parts,
)

from farlight_env.game import (
    Bid,
    ChooseEngine,
    ConfigError,
    Discard,
    FarlightGame,
    Install,
    Phase,
    RefitRemove,
    RefitStop,
    SelectPart,
    SkipEngine,
)
from farlight_env.game.ship import CORE

REFIT = facility("Refit")
HIRE = facility("Hire")
DISCOVER = facility("Discover")
ENGINEER = facility("Engineer")
P0 = part_space(0)
P1 = part_space(1)


def installs(game) -> list[tuple[int, int]]:
    """The cells offered for the selected pending part."""
    return sorted((a.row, a.col) for a in game.legal_actions() if isinstance(a, Install))


def rank(game, name: str) -> int:
    (r,) = ranks_of(game, name)
    return r


# ================================================================ R-RES: part and facility bids
def test_r_res_1_parts_then_refit_hire_discover_engineer_missions_later():
    """R-RES-1: part spaces first, then Refit, Hire, Discover, Engineer; missions wait."""
    game = make_game(2)
    sink = use_sink(game)
    install_directly(game, 0, "Ion Drive", (0, 1), dice=2)
    install_directly(game, 0, "Plasma Thruster", (0, -1), dice=4)
    put_part(game, 0, "Hydroponics Garden")
    play_bids(
        game,
        {0: [Bid(1, P0), Bid(2, REFIT), Bid(3, HIRE), Bid(4, ENGINEER), Bid(0, sink, crew=True)]},
        fill=sink,
    )
    # Refit is the first decision: the part space is already resolved, Hire not yet.
    assert game.phase is Phase.REFIT and game.current_player == 0
    assert names(game, game.pending[0]) == ["Hydroponics Garden"]
    assert game.spaces[0] is None
    assert game.crew[0] == 2  # 3 - 1 crew riding on the mission tile; no Hire yet
    assert game.bids[slot_of(game, HIRE)] == [(0, 3, False)]
    assert game.bids[slot_of(game, ENGINEER)] == [(0, 4, False)]
    assert (0, 0, True) in game.bids[slot_of(game, sink)]  # mission bids are not resolved here
    game.apply(RefitRemove("Ion Drive"))
    game.apply(RefitStop())
    # Engineer after Refit: only Plasma Thruster is left, so it is chosen automatically.
    assert game.engine_values[rank(game, "Plasma Thruster")] == 5
    assert rank(game, "Ion Drive") not in game.engine_values
    assert game.crew[0] == 5  # Hire resolved
    assert game.phase is Phase.INSTALL
    assert game.bids[slot_of(game, sink)]  # still waiting for the launch


def test_r_res_2_highest_bid_wins():
    """R-RES-2: bids 2, 4 and 3 on a part: the 4 wins."""
    game = make_game(3)
    sink = use_sink(game)
    put_part(game, 0, "Proton Analyzer")
    play_bids(game, {0: [Bid(2, P0)], 1: [Bid(4, P0)], 2: [Bid(3, P0)]}, fill=sink)
    assert names(game, game.pending[1]) == ["Proton Analyzer"]
    assert game.pending[0] == game.pending[2] == []


@pytest.mark.parametrize(
    ("first", "tied", "winner"),
    [(2, (0, 1), 0), (1, (0, 2), 2), (0, (1, 2), 1), (2, (2, 0), 2), (1, (1, 0), 1)],
)
def test_r_res_2_tie_goes_to_earliest_in_turn_order_from_first_player(first, tied, winner):
    """R-RES-2: equal bids; the tied player earliest in turn order from the first player wins."""
    game = make_game(3)
    sink = use_sink(game)
    set_first_player(game, first)
    put_part(game, 0, "Proton Analyzer")
    play_bids(game, {tied[0]: [Bid(3, P0)], tied[1]: [Bid(2, P0, crew=True)]}, fill=sink)
    assert names(game, game.pending[winner]) == ["Proton Analyzer"]
    loser = tied[1] if winner == tied[0] else tied[0]
    assert game.pending[loser] == []


def test_r_res_2_zero_bid_never_wins():
    """R-RES-2 (TANSTAFL): a lone 0 tile without crew does not win, even alone."""
    game = make_game(2)
    sink = use_sink(game)
    put_part(game, 0, "Proton Analyzer")
    pid = part_id(game, "Proton Analyzer")
    play_bids(game, {0: [Bid(0, P0)]}, fill=sink)
    assert game.phase is Phase.BIDDING and game.round == 2
    assert game.pending == [[], []]
    assert game.spaces[0] == pid
    assert game.bonus[0] == 1  # still on the station at the reset
    assert game.crew == [3, 3]


def test_r_res_2_target_without_winner_when_all_bids_are_zero():
    """R-RES-2: two lone 0 tiles: no winner, the part stays."""
    game = make_game(2)
    sink = use_sink(game)
    put_part(game, 0, "Proton Analyzer")
    play_bids(game, {0: [Bid(0, P0)], 1: [Bid(0, P0)]}, fill=sink)
    assert game.pending == [[], []]
    assert game.spaces[0] == part_id(game, "Proton Analyzer")
    assert game.crew == [3, 3]


def test_r_res_3_winner_tiles_back_crew_to_supply_part_pending_with_bonus():
    """R-RES-3: the winner's tiles come back, its riding crew goes to the supply, the part is
    pending for it together with the bonus crew on the space."""
    game = make_game(2)
    sink = use_sink(game)
    put_part(game, 0, "Proton Analyzer")
    game.bonus[0] = 2
    play_bids(game, {0: [Bid(3, P0, crew=True), Bid(1, P0, crew=True)], 1: [Bid(4, P0)]}, fill=sink)
    assert game.phase is Phase.INSTALL and game.current_player == 0
    assert names(game, game.pending[0]) == ["Proton Analyzer"]
    assert game.spaces[0] is None and game.bonus[0] == 0
    assert game.crew[0] == 3 - 2 + 2  # two riding crew lost, two bonus crew gained
    assert 3 in game.hands[0] and 1 in game.hands[0]
    assert game.crew[1] == 3 + 1  # the loser's non-zero tile


def test_r_res_4_losers_get_tiles_crew_and_one_per_nonzero_tile():
    """R-RES-4: a loser takes back its tiles and crew and gains 1 crew per non-zero tile."""
    game = make_game(3)
    sink = use_sink(game)
    put_part(game, 0, "Proton Analyzer")
    play_bids(
        game,
        {
            0: [Bid(4, P0, crew=True)],
            1: [Bid(2, P0, crew=True), Bid(0, P0, crew=True)],
            2: [Bid(1, P0), Bid(3, P0)],
        },
        fill=sink,
    )
    assert names(game, game.pending[0]) == ["Proton Analyzer"]
    assert game.crew[1] == 3 - 2 + 2 + 1  # both crew back, +1 for the 2 tile, 0 for the 0 tile
    assert game.crew[2] == 3 + 2  # +1 for each of the 1 and 3 tiles
    assert game.crew[0] == 2
    assert 2 in game.hands[1] and 0 in game.hands[1]
    assert 1 in game.hands[2] and 3 in game.hands[2]


def test_r_res_4_all_bidders_are_losers_where_nobody_won():
    """R-RES-4: without a winner every bidder takes its (0) tiles back; no crew for 0 tiles."""
    game = make_game(3)
    sink = use_sink(game)
    play_bids(game, {0: [Bid(0, HIRE)], 1: [Bid(0, HIRE)], 2: [Bid(0, HIRE)]}, fill=sink)
    assert game.crew == [3, 3, 3]
    assert game.phase is Phase.BIDDING
    assert all(sorted(h) == [0, 1, 2, 3, 4] for h in game.hands)


def test_r_res_5_refit_removes_any_number_of_parts_never_the_core():
    """R-RES-5: Refit: one decision per part, then stop; removed parts and their engines leave
    the game; the core is never offered."""
    game = make_game(2)
    sink = use_sink(game)
    install_directly(game, 0, "Ion Drive", (0, 1), dice=2)
    install_directly(game, 0, "Hydroponics Garden", (1, 0))
    install_directly(game, 0, "Cold Gas Thrusters", (-1, 0), dice=5)
    ids = {n: part_id(game, n) for n in ("Ion Drive", "Hydroponics Garden", "Cold Gas Thrusters")}
    play_bids(game, {0: [Bid(1, REFIT)]}, fill=sink)
    assert game.phase is Phase.REFIT
    offered = [a for a in game.legal_actions() if isinstance(a, RefitRemove)]
    assert sorted(a.part for a in offered) == sorted(ids)
    assert RefitStop() in game.legal_actions()
    game.apply(RefitRemove("Ion Drive"))
    assert game.phase is Phase.REFIT
    game.apply(RefitRemove("Cold Gas Thrusters"))
    assert game.legal_actions() == [RefitRemove("Hydroponics Garden"), RefitStop()]
    game.apply(RefitStop())
    assert ship_cells(game, 0) == {(0, 0): "CORE", (1, 0): "Hydroponics Garden"}
    assert names(game, game.ship_parts[0]) == ["Hydroponics Garden"]
    assert ids["Ion Drive"] in game.out_of_game and ids["Cold Gas Thrusters"] in game.out_of_game
    assert rank(game, "Ion Drive") not in game.engine_values
    assert rank(game, "Cold Gas Thrusters") not in game.engine_values
    assert game.engines(0) == []


def test_r_res_5_refit_removing_every_part_leaves_the_core():
    """R-RES-5: after the last part is removed Refit stops by itself; the core stays."""
    game = make_game(2)
    sink = use_sink(game)
    install_directly(game, 0, "Hydroponics Garden", (1, 0))
    play_bids(game, {0: [Bid(1, REFIT)]}, fill=sink)
    assert game.legal_actions() == [RefitRemove("Hydroponics Garden"), RefitStop()]
    game.apply(RefitRemove("Hydroponics Garden"))
    assert game.ships[0] == {(0, 0): CORE}
    assert game.phase is Phase.BIDDING and game.round == 2


def test_r_res_5_refit_without_parts_has_no_effect():
    """R-RES-5: winning Refit with no installed part asks nothing."""
    game = make_game(2)
    sink = use_sink(game)
    play_bids(game, {0: [Bid(1, REFIT)]}, fill=sink)
    assert game.phase is Phase.BIDDING and game.round == 2
    assert game.ships[0] == {(0, 0): CORE}
    assert RefitStop() not in game.history


def test_r_res_5_hire_gives_3_crew_discover_1_science():
    """R-RES-5: Hire +3 crew, Discover +1 science (the winners' riding crew is spent)."""
    game = make_game(2)
    sink = use_sink(game)
    play_bids(game, {0: [Bid(2, HIRE, crew=True)], 1: [Bid(1, DISCOVER)]}, fill=sink)
    assert game.crew == [3 - 1 + 3, 3]
    assert game.science == [0, 1]


def test_r_res_5_engineer_choice_among_engines_below_6():
    """R-RES-5: Engineer adds 1 to one installed engine of the winner's choice; engines at 6
    are not offered; there is no skip."""
    game = make_game(2)
    sink = use_sink(game)
    install_directly(game, 0, "Ion Drive", (0, 1), dice=2)
    install_directly(game, 0, "Plasma Thruster", (0, -1), dice=5)
    install_directly(game, 0, "Cold Gas Thrusters", (-1, 0), dice=6)
    play_bids(game, {0: [Bid(1, ENGINEER)]}, fill=sink)
    assert game.phase is Phase.ENGINEER
    ion, plasma, cold = (
        rank(game, n) for n in ("Ion Drive", "Plasma Thruster", "Cold Gas Thrusters")
    )
    assert set(game.legal_actions()) == {ChooseEngine(ion), ChooseEngine(plasma)}
    game.apply(ChooseEngine(plasma))
    assert game.engine_values[plasma] == 6  # max 6
    assert game.engine_values[ion] == 2
    assert game.engine_values[cold] == 6


def test_r_res_5_engineer_single_engine_below_6_is_automatic():
    """R-RES-5: with one engine below 6 the Engineer choice is forced (applied automatically)."""
    game = make_game(2)
    sink = use_sink(game)
    install_directly(game, 0, "Ion Drive", (0, 1), dice=3)
    install_directly(game, 0, "Cold Gas Thrusters", (-1, 0), dice=6)
    play_bids(game, {0: [Bid(1, ENGINEER)]}, fill=sink)
    assert game.engine_values[rank(game, "Ion Drive")] == 4
    assert game.engine_values[rank(game, "Cold Gas Thrusters")] == 6
    assert game.phase is Phase.BIDDING and game.round == 2


def test_r_res_5_engineer_without_engine_has_no_effect():
    """R-RES-5: Engineer with no engine (or only engines at 6) does nothing."""
    game = make_game(2)
    sink = use_sink(game)
    install_directly(game, 1, "Cold Gas Thrusters", (-1, 0), dice=6)
    play_bids(game, {0: [Bid(1, ENGINEER)]}, fill=sink)
    assert game.phase is Phase.BIDDING and game.round == 2
    game2 = make_game(2)
    sink2 = use_sink(game2)
    install_directly(game2, 0, "Cold Gas Thrusters", (-1, 0), dice=6)
    play_bids(game2, {0: [Bid(1, ENGINEER)]}, fill=sink2)
    assert game2.engine_values[rank(game2, "Cold Gas Thrusters")] == 6
    assert game2.phase is Phase.BIDDING and game2.round == 2


def test_r_res_6_refit_never_forces_other_parts_off():
    """R-RES-6 [decision]: parts no longer linked to the core stay where they are."""
    game = make_game(2)
    sink = use_sink(game)
    install_directly(game, 0, "Hydroponics Garden", (1, 0))
    install_directly(game, 0, "Cryosleep Pods", (2, 0))  # linked only through Hydroponics
    play_bids(game, {0: [Bid(1, REFIT)]}, fill=sink)
    game.apply(RefitRemove("Hydroponics Garden"))
    game.apply(RefitStop())
    assert ship_cells(game, 0) == {(0, 0): "CORE", (2, 0): "Cryosleep Pods"}
    assert game.biotech(0) == 1  # Cryosleep Pods still counts
    # R-INST-3 counts every installed piece, so a new part may link to the floating one
    win_parts(game, {0: ["Hall Effect Booster"]}, fill=sink)  # up, down
    assert installs(game) == [(-1, 0), (1, 0), (3, 0)]


# ===================================================================== R-INST: installing
def test_r_inst_1_players_install_in_turn_order_choosing_the_part_order():
    """R-INST-1: in turn order; a player with several pending parts picks which comes next."""
    game = make_game(3)
    sink = use_sink(game)
    set_first_player(game, 1)
    win_parts(
        game,
        {0: ["Hydroponics Garden"], 1: ["Ion Drive", "Deep Field Telescope"], 2: ["Algae Farm"]},
        fill=sink,
    )
    assert game.phase is Phase.INSTALL and game.current_player == 1
    assert set(game.legal_actions()) == {
        SelectPart("Ion Drive"),
        SelectPart("Deep Field Telescope"),
    }
    game.apply(SelectPart("Deep Field Telescope"))
    assert game.legal_actions() == [
        Install("Deep Field Telescope", 1, 0),
        Discard("Deep Field Telescope"),
    ]
    game.apply(Install("Deep Field Telescope", 1, 0))
    # the last pending part of seat 1 is selected automatically
    assert game.current_player == 1
    assert set(game.legal_actions()) == {
        Install("Ion Drive", 0, -1),
        Install("Ion Drive", 0, 1),
        Discard("Ion Drive"),
    }
    game.apply(Discard("Ion Drive"))
    assert part_id(game, "Ion Drive") in game.out_of_game
    assert rank(game, "Ion Drive") not in game.engine_values
    order = [game.current_player]
    game.apply(Install("Algae Farm", 0, 1))
    order.append(game.current_player)
    game.apply(Install("Hydroponics Garden", -1, 0))
    assert order == [2, 0]
    assert names(game, game.ship_parts[1]) == ["Deep Field Telescope"]
    assert names(game, game.ship_parts[2]) == ["Algae Farm"]
    assert names(game, game.ship_parts[0]) == ["Hydroponics Garden"]
    assert game.pending == [[], [], []]


def test_r_inst_1_discarded_part_leaves_the_game():
    """R-INST-1: a discarded pending part leaves the game (not back to the station or deck)."""
    game = make_game(2)
    sink = use_sink(game)
    win_parts(game, {0: ["Proton Analyzer"]}, fill=sink)
    pid = part_id(game, "Proton Analyzer")
    game.apply(Discard("Proton Analyzer"))
    finish_round(game)
    assert pid in game.out_of_game
    assert pid not in game.deck and pid not in game.spaces and pid not in game.ship_parts[0]


def test_r_inst_2_grid_is_bounded():
    """R-INST-2 [decision]: cells outside the configured grid are illegal (3x3 here)."""
    game = make_game(2, grid_size=3)
    sink = use_sink(game)
    install_directly(game, 0, "Hydroponics Garden", (-1, 0))
    win_parts(game, {0: ["Cryosleep Pods"]}, fill=sink)
    assert installs(game) == [(1, 0)]  # (-2, 0) would be outside the 3x3 grid
    big = make_game(2)
    sink = use_sink(big)
    install_directly(big, 0, "Hydroponics Garden", (-1, 0))
    win_parts(big, {0: ["Cryosleep Pods"]}, fill=sink)
    assert installs(big) == [(-2, 0), (1, 0)]


COLUMN = (
    "Hydroponics Garden",
    "Cryosleep Pods",
    "Engine Tuning Rig",
    "Hall Effect Booster",
    "Proton Analyzer",
    "Officers' Wardroom",
)  # all with up and down connectors


@pytest.mark.parametrize(("grid", "top_offered"), [(13, False), (15, True)])
def test_r_inst_2_default_grid_13_by_13_reaches_6_cells_from_the_core(grid, top_offered):
    """R-INST-2 [decision]: the default 13x13 grid spans rows -6..6: above a column of parts
    reaching row -6 nothing more fits (a 15x15 grid offers row -7)."""
    game = make_game(2) if grid == 13 else make_game(2, grid_size=grid)
    assert game.config.grid_size == grid and game.half == grid // 2
    sink = use_sink(game)
    for i, name in enumerate(COLUMN):
        install_directly(game, 0, name, (-1 - i, 0), dice=1)
    win_parts(game, {0: ["Escape Pod Bay"]}, fill=sink)  # down, right, up
    expected = [(0, -1), (1, 0)] + ([(-7, 0)] if top_offered else [])
    assert installs(game) == sorted(expected)


def test_r_inst_2_grid_size_must_be_odd_and_at_least_3():
    """R-INST-2: the core sits in the centre, so the grid side is odd."""
    for bad in (1, 2, 4, 12):
        with pytest.raises(ConfigError):
            FarlightGame(2, 0, grid_size=bad)
    assert FarlightGame(2, 0, grid_size=5).half == 2


@pytest.mark.parametrize(
    ("part", "cells"),
    [
        ("Cold Gas Thrusters", [(-1, 0)]),  # down only: above the core
        ("Deep Field Telescope", [(1, 0)]),  # up only: below the core
        ("Docking Clamp", [(0, -1)]),  # right only: left of the core
        ("Arboretum Dome", [(0, 1)]),  # left only: right of the core
        ("Hydroponics Garden", [(-1, 0), (1, 0)]),
        ("Ion Drive", [(0, -1), (0, 1)]),
        ("Solar Sail Array", [(0, -1), (1, 0)]),  # up + right
        ("Quantum Vacuum Thruster", [(-1, 0), (0, -1), (0, 1), (1, 0)]),
    ],
)
def test_r_inst_3_cells_next_to_the_core_need_a_facing_pair(part, cells):
    """R-INST-3: a cell is legal only where the new part's connector faces the core's."""
    game = make_game(2)
    sink = use_sink(game)
    win_parts(game, {0: [part]}, fill=sink)
    assert installs(game) == cells


def test_r_inst_3_adjacent_without_facing_pair_is_illegal():
    """R-INST-3: being next to a piece is not enough; a matching facing pair is needed."""
    game = make_game(2)
    sink = use_sink(game)
    install_directly(game, 0, "Ion Drive", (0, 1), dice=1)  # left/right only
    win_parts(game, {0: ["Hydroponics Garden"]}, fill=sink)  # up/down only
    # (-1, 1) and (1, 1) touch Ion Drive, which has no up/down connector
    assert installs(game) == [(-1, 0), (1, 0)]


def test_r_inst_3_one_matching_pair_is_enough_other_sides_may_block():
    """R-INST-3: a part may go where one facing pair matches while another side is blocked."""
    game = make_game(2)
    sink = use_sink(game)
    install_directly(game, 0, "Hydroponics Garden", (1, 0))  # up/down
    install_directly(game, 0, "Plasma Thruster", (0, 1), dice=1)  # down/left/right
    win_parts(game, {0: ["Quantum Vacuum Thruster"]}, fill=sink)
    # (1, 1): up faces Plasma Thruster's down (match); left faces Hydroponics (no right)
    assert installs(game) == [(-1, 0), (0, -1), (0, 2), (1, 1), (2, 0)]
    game.apply(Install("Quantum Vacuum Thruster", 1, 1))
    assert ship_cells(game, 0)[(1, 1)] == "Quantum Vacuum Thruster"
    assert game.connectors(0) == (6, 6, 1)


def test_r_inst_4_no_rotation_and_installed_parts_never_move():
    """R-INST-4: a part keeps its printed orientation (a down-only part fits only above a piece
    with an up connector); parts already installed stay on their cells."""
    game = make_game(2)
    sink = use_sink(game)
    install_directly(game, 0, "Ion Drive", (0, 1), dice=1)
    win_parts(game, {0: ["Cold Gas Thrusters", "Hydroponics Garden"]}, fill=sink)
    game.apply(SelectPart("Hydroponics Garden"))
    game.apply(Install("Hydroponics Garden", -1, 0))
    assert installs(game) == [(-2, 0)]  # only above a piece with an up connector
    assert all(not hasattr(a, "rotation") for a in game.legal_actions())
    game.apply(Install("Cold Gas Thrusters", -2, 0))
    assert ship_cells(game, 0) == {
        (0, 0): "CORE",
        (0, 1): "Ion Drive",
        (-1, 0): "Hydroponics Garden",
        (-2, 0): "Cold Gas Thrusters",
    }


def test_r_inst_5_crew_cost_is_paid():
    """R-INST-5: installing Twin Vector Nozzles (cost 2) with 2 crew leaves 0 crew."""
    game = make_game(2)
    sink = use_sink(game)
    give(game, 0, crew=2)
    win_parts(game, {0: ["Twin Vector Nozzles"]}, fill=sink)
    game.apply(Install("Twin Vector Nozzles", 0, 1))
    assert game.crew[0] == 0
    assert names(game, game.ship_parts[0]) == ["Twin Vector Nozzles"]


def test_r_inst_5_too_little_crew_only_discard():
    """R-INST-5: with less crew than the cost the part cannot be installed; discarding is the
    only option, so it is applied automatically."""
    game = make_game(2)
    sink = use_sink(game)
    give(game, 0, crew=1)
    win_parts(game, {0: ["Twin Vector Nozzles"]}, fill=sink)
    pid = part_id(game, "Twin Vector Nozzles")
    assert game.phase is Phase.BIDDING and game.round == 2
    assert game.ships[0] == {(0, 0): CORE}
    assert pid in game.out_of_game
    assert game.crew[0] == 1
    assert Discard("Twin Vector Nozzles") not in game.history


def test_r_inst_5_too_little_crew_with_other_parts_offers_discard_only():
    """R-INST-5: when the expensive part is handled by choice, only Discard is legal for it."""
    game = make_game(2)
    sink = use_sink(game)
    give(game, 0, crew=1)
    win_parts(game, {0: ["Twin Vector Nozzles", "Hydroponics Garden"]}, fill=sink)
    game.apply(SelectPart("Twin Vector Nozzles"))
    # a single legal option is applied at once: the part is gone
    assert part_id(game, "Twin Vector Nozzles") in game.out_of_game
    assert installs(game) == [(-1, 0), (1, 0)]


def test_r_inst_5_won_engine_keeps_its_station_die():
    """R-INST-5: engine dice on a won part stay on it at their value (and are not re-rolled)."""
    game = make_game(2)
    sink = use_sink(game)
    win_parts(game, {0: ["Twin Vector Nozzles"]}, fill=sink, dice={"Twin Vector Nozzles": (5, 2)})
    game.apply(Install("Twin Vector Nozzles", 0, 1))
    r12, r13 = ranks_of(game, "Twin Vector Nozzles")
    assert game.engine_values[r12] == 5 and game.engine_values[r13] == 2
    assert game.phase is Phase.BIDDING and game.round == 2  # the station was re-rolled
    assert sorted(game.engines(0)) == [(r12, 5), (r13, 2)]
    sink_round(game, sink)
    assert sorted(game.engines(0)) == [(r12, 5), (r13, 2)]


# ====================================================================== R-BEN: benefits
def test_r_ben_1_every_round_icons_always_one_time_icons_only_when_installed():
    """R-BEN-1: every-round icons pay each round; one-time icons only in the install round."""
    game = make_game(2)
    sink = use_sink(game)
    install_directly(game, 0, "Deep Field Telescope", (1, 0))  # science every round
    install_directly(game, 0, "Docking Clamp", (0, -1))  # crew once, installed earlier
    win_parts(game, {0: ["Escape Pod Bay"]}, fill=sink)  # crew once, cost 0
    assert installs(game) == [(-1, 0)]
    game.apply(Install("Escape Pod Bay", -1, 0))
    assert (game.crew[0], game.science[0]) == (3 + 1, 1)
    assert (game.crew[1], game.science[1]) == (3, 0)
    sink_round(game, sink)
    assert (game.crew[0], game.science[0]) == (4, 2)  # only the telescope pays again


def test_r_ben_2_crew_and_science_icons():
    """R-BEN-2: each crew icon +1 crew, each science icon +1 science."""
    game = make_game(2)
    sink = use_sink(game)
    # Command Bridge: cost 2, crew every round + science once; Cryosleep Pods: cost 1, 2x crew once
    win_parts(game, {0: ["Command Bridge"], 1: ["Cryosleep Pods"]}, fill=sink)
    game.apply(Install("Command Bridge", -1, 0))
    game.apply(Install("Cryosleep Pods", 1, 0))
    assert game.crew == [3 - 2 + 1, 3 - 1 + 2]
    assert game.science == [1, 0]
    sink_round(game, sink)
    assert game.crew == [3, 4]
    assert game.science == [1, 0]


def _upgrade_position(first: int = 0):
    game = make_game(2)
    sink = use_sink(game)
    set_first_player(game, first)
    install_directly(game, 0, "Nanofabricator", (-1, 0))  # upgrade every round
    install_directly(game, 0, "Zero-G Foundry", (0, 1))  # overhaul every round
    install_directly(game, 0, "Ion Drive", (0, -1), dice=3)
    install_directly(game, 0, "Solar Sail Array", (1, 0), dice=6)
    install_directly(game, 1, "Fusion Torch", (-1, 0), dice=2)  # upgrade every round + engine
    return game, sink


def test_r_ben_3_upgrade_then_overhaul_engines_below_6_or_skip():
    """R-BEN-3: an upgrade adds 1 to a chosen engine, an overhaul sets one to 6; engines at 6
    are not offered; each icon may be skipped; upgrades come before overhauls."""
    game, sink = _upgrade_position()
    ion, sail, torch = (rank(game, n) for n in ("Ion Drive", "Solar Sail Array", "Fusion Torch"))
    play_bids(game, {}, fill=sink)
    assert (game.phase, game.current_player) == (Phase.UPGRADE, 0)
    assert game.legal_actions() == [ChooseEngine(ion), SkipEngine()]
    game.apply(ChooseEngine(ion))
    assert game.engine_values[ion] == 4
    assert (game.phase, game.current_player) == (Phase.OVERHAUL, 0)
    assert game.legal_actions() == [ChooseEngine(ion), SkipEngine()]
    game.apply(ChooseEngine(ion))
    assert game.engine_values[ion] == 6
    assert game.engine_values[sail] == 6
    assert (game.phase, game.current_player) == (Phase.UPGRADE, 1)
    assert game.legal_actions() == [ChooseEngine(torch), SkipEngine()]
    game.apply(SkipEngine())
    assert game.engine_values[torch] == 2
    assert game.phase is Phase.BIDDING and game.round == 2


def test_r_ben_3_players_decide_in_turn_order():
    """R-BEN-3: benefit decisions go player by player in turn order from the first player."""
    game, sink = _upgrade_position(first=1)
    play_bids(game, {}, fill=sink)
    seen = []
    while game.phase in (Phase.UPGRADE, Phase.OVERHAUL):
        seen.append((game.current_player, game.phase))
        game.apply(SkipEngine())
    assert seen == [(1, Phase.UPGRADE), (0, Phase.UPGRADE), (0, Phase.OVERHAUL)]


def test_r_ben_3_upgrade_caps_at_6_and_nothing_to_improve_asks_nothing():
    """R-BEN-3: an upgrade on a 5 gives 6; with every engine at 6 no icon asks anything."""
    game = make_game(2)
    sink = use_sink(game)
    install_directly(game, 0, "Nanofabricator", (-1, 0))
    install_directly(game, 0, "Ion Drive", (0, -1), dice=5)
    play_bids(game, {}, fill=sink)
    game.apply(ChooseEngine(rank(game, "Ion Drive")))
    assert game.engine_values[rank(game, "Ion Drive")] == 6
    assert game.phase is Phase.BIDDING
    play_bids(game, {}, fill=sink)  # the next round: the engine is at 6, no decision
    assert game.phase is Phase.BIDDING and game.round == 3


def test_r_ben_3_two_upgrade_icons_are_two_decisions():
    """R-BEN-3: each icon is one decision (Engine Tuning Rig: two one-time upgrades)."""
    game = make_game(2)
    sink = use_sink(game)
    install_directly(game, 0, "Ion Drive", (0, -1), dice=2)
    win_parts(game, {0: ["Engine Tuning Rig"]}, fill=sink)
    game.apply(Install("Engine Tuning Rig", -1, 0))
    ion = rank(game, "Ion Drive")
    assert game.phase is Phase.UPGRADE
    game.apply(ChooseEngine(ion))
    assert game.phase is Phase.UPGRADE
    game.apply(ChooseEngine(ion))
    assert game.engine_values[ion] == 4
    assert game.phase is Phase.BIDDING
    sink_round(game, sink)  # one-time icons: nothing the next round
    assert game.engine_values[ion] == 4


def test_r_ben_4_biotech_is_counted_not_gained():
    """R-BEN-4: bio-tech is the number of bio-tech icons on installed parts; no resource grows."""
    game = make_game(2)
    sink = use_sink(game)
    install_directly(game, 0, "Arboretum Dome", (0, 1))  # 2 bio-tech
    install_directly(game, 0, "Hydroponics Garden", (1, 0))  # 1 bio-tech
    assert game.biotech(0) == 3 and game.biotech(1) == 0
    for _ in range(2):
        sink_round(game, sink)
        assert game.biotech(0) == 3
        assert (game.crew[0], game.science[0]) == (3, 0)
    assert game.bonus[0] == 2  # two rounds of bonus crew on space 0
    win_parts(game, {0: ["Cloning Vats"]}, fill=sink)  # 2 bio-tech, cost 1
    game.apply(Install("Cloning Vats", -1, 0))
    assert game.biotech(0) == 5
    assert game.crew[0] == 3 + 2 - 1  # bonus crew in, installation cost out
