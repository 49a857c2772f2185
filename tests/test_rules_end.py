"""End of game (R-END-1..4) and ship geometry (R-SHIP-1..2).

Final scoring is reached through real play: a game with max_rounds=1 whose single round puts
every tile on a mission nobody can complete ends by the round cap (R-RESET-6) and is scored.
The ships and counters are built with icon-free parts so the round changes nothing.
"""

from __future__ import annotations

import math

import pytest
from scenarios import (
    facility,
    give,
    install_directly,
    make_game,
    play_bids,
    ranks_of,
    sink_round,
    use_sink,
    win_parts,
)

from farlight_env.cards import AWARDS
from farlight_env.game import Bid, FarlightGame, Install, Phase


def end_game(n: int = 3, up=("Juggernaut", "Colonist", "Rocketeer"), down=None):
    """A game to be ended by `finish`; `up` are the face-up awards, `down` the hidden order."""
    game = make_game(n, max_rounds=1)
    game.awards_up = list(up)
    game.awards_down = list(down) if down else [a for a in AWARDS if a not in up]
    return game


def finish(game: FarlightGame) -> FarlightGame:
    sink = use_sink(game)
    sink_round(game, sink)
    assert game.is_over
    return game


def awards(game: FarlightGame) -> list[int]:
    return [b["awards"] for b in game.final_breakdown]


# The (6, 6, 1) ship: core, Hydroponics Garden below, Plasma Thruster right, and Quantum Vacuum
# Thruster diagonal whose left side faces Hydroponics Garden (no right connector): blocked.
def blocked_ship(game: FarlightGame, seat: int) -> None:
    install_directly(game, seat, "Hydroponics Garden", (1, 0))
    install_directly(game, seat, "Plasma Thruster", (0, 1), dice=1)
    install_directly(game, seat, "Quantum Vacuum Thruster", (1, 1), dice=1)


# ============================================================================ R-END-1
def test_r_end_1_colonist_most_biotech():
    """R-END-1 Colonist: most bio-tech icons; all tied for the best score 5."""
    game = end_game(up=("Colonist", "Researcher", "Commander"))
    install_directly(game, 0, "Arboretum Dome", (0, 1))  # 2
    install_directly(game, 1, "Bioreactor Tank", (0, -1))  # 2 (down, right)
    install_directly(game, 2, "Hydroponics Garden", (1, 0))  # 1
    assert game.award_holders("Colonist") == [0, 1]
    finish(game)
    assert awards(game) == [15, 15, 10]  # Researcher and Commander: all tied


def test_r_end_1_commander_most_crew():
    """R-END-1 Commander: most crew."""
    game = end_game(up=("Commander", "Researcher", "Juggernaut"))
    give(game, 0, crew=5)
    give(game, 1, crew=7)
    give(game, 2, crew=7)
    finish(game)
    assert game.award_holders("Commander") == [1, 2]
    assert awards(game) == [10, 15, 15]


def test_r_end_1_efficiency_fewest_open_or_blocked_connectors():
    """R-END-1 Efficiency: fewest connectors that are open or blocked (fewest wins)."""
    game = end_game(up=("Efficiency", "Researcher", "Commander"))
    # seat 0: core only, 4 open
    install_directly(game, 1, "Arboretum Dome", (0, 1))  # core + 2 parts: 3 open
    install_directly(game, 1, "Terrarium Module", (1, 0))  # left, up
    blocked_ship(game, 2)  # 6 open + 1 blocked = 7
    assert [game.award_value(s, "Efficiency") for s in range(3)] == [4, 3, 7]
    assert game.award_holders("Efficiency") == [1]
    finish(game)
    assert awards(game) == [10, 15, 10]


def test_r_end_1_efficiency_counts_blocked_connectors():
    """R-END-1 Efficiency: a blocked connector counts like an open one."""
    game = end_game(up=("Efficiency", "Researcher", "Commander"))
    blocked_ship(game, 0)  # 6 open + 1 blocked
    assert game.award_value(0, "Efficiency") == 7
    assert game.award_value(0, "Potential") == 6


def test_r_end_1_juggernaut_most_parts_core_excluded():
    """R-END-1 Juggernaut: most installed parts, the core not counted."""
    game = end_game(up=("Juggernaut", "Researcher", "Commander"))
    install_directly(game, 0, "Arboretum Dome", (0, 1))
    install_directly(game, 0, "Hydroponics Garden", (1, 0))
    install_directly(game, 1, "Airlock Junction", (1, 0))
    install_directly(game, 2, "Algae Farm", (0, 1))
    install_directly(game, 2, "Terrarium Module", (1, 0))
    assert [game.award_value(s, "Juggernaut") for s in range(3)] == [2, 1, 2]
    finish(game)
    assert game.award_holders("Juggernaut") == [0, 2]
    assert awards(game) == [15, 10, 15]


def test_r_end_1_potential_most_open_connectors_blocked_excluded():
    """R-END-1 Potential: most open connectors (blocked ones do not count)."""
    game = end_game(up=("Potential", "Researcher", "Commander"))
    blocked_ship(game, 0)  # 6 open (+1 blocked)
    install_directly(game, 1, "Airlock Junction", (1, 0))  # core 3 + left, right = 5 open
    assert [game.award_value(s, "Potential") for s in range(3)] == [6, 5, 4]
    finish(game)
    assert awards(game) == [15, 10, 10]


def test_r_end_1_researcher_most_science():
    """R-END-1 Researcher: most science."""
    game = end_game(up=("Researcher", "Juggernaut", "Colonist"))
    give(game, 0, science=2)
    give(game, 1, science=5)
    give(game, 2, science=1)
    finish(game)
    assert awards(game) == [10, 15, 10]


def test_r_end_1_rocketeer_highest_engine_sum():
    """R-END-1 Rocketeer: highest sum of engine values (not the most engines)."""
    game = end_game(up=("Rocketeer", "Researcher", "Commander"))
    install_directly(game, 0, "Ion Drive", (0, 1), dice=6)
    install_directly(game, 1, "Twin Vector Nozzles", (0, 1), dice=(3, 4))
    install_directly(game, 2, "Cold Gas Thrusters", (-1, 0), dice=2)
    install_directly(game, 2, "Solar Sail Array", (1, 0), dice=2)
    install_directly(game, 2, "Plasma Thruster", (0, 1), dice=2)
    assert [game.award_value(s, "Rocketeer") for s in range(3)] == [6, 7, 6]
    finish(game)
    assert game.award_holders("Rocketeer") == [1]
    assert awards(game) == [10, 15, 10]


@pytest.mark.parametrize("award", AWARDS)
def test_r_end_1_ties_at_zero_still_score(award):
    """R-END-1 [decision]: equal values score for everyone, even at zero (Efficiency: all 4)."""
    others = [a for a in AWARDS if a != award]
    game = end_game(up=(award, *others[:2]))
    give(game, 0, crew=0)
    give(game, 1, crew=0)
    give(game, 2, crew=0)
    finish(game)
    assert game.award_holders(award) == [0, 1, 2]
    assert awards(game) == [15, 15, 15]  # bare ships, no crew or science: every award tied


def test_r_end_1_every_face_up_award_gives_5():
    """R-END-1: three face-up awards, each worth 5 to its holders; face-down ones score nothing."""
    game = end_game(up=("Commander", "Researcher", "Juggernaut"), down=None)
    give(game, 0, crew=5, points=3)
    give(game, 1, crew=4, science=2, points=4)
    give(game, 2, crew=4, science=2)
    install_directly(game, 2, "Airlock Junction", (1, 0))
    finish(game)
    # Commander: seat 0; Researcher: seats 1, 2; Juggernaut: seat 2
    assert game.final_breakdown == [
        {"missions": 3, "awards": 5, "tokens": 2},
        {"missions": 4, "awards": 5, "tokens": 2},
        {"missions": 0, "awards": 10, "tokens": 2},
    ]
    assert game.scores() == [10, 11, 12]
    assert game.winners() == [2]


# ============================================================================ R-END-2
@pytest.mark.parametrize(
    ("crew", "science"),
    [(0, 0), (1, 0), (3, 0), (4, 0), (2, 2), (4, 3), (6, 0), (7, 2), (0, 10)],
)
def test_r_end_2_crew_plus_science_over_3_rounded_up(crew, science):
    """R-END-2: ceil((crew + science) / 3) points."""
    game = end_game(n=2, up=("Juggernaut", "Colonist", "Rocketeer"))
    give(game, 0, crew=crew, science=science)
    finish(game)
    table = {(0, 0): 0, (1, 0): 1, (3, 0): 1, (4, 0): 2, (2, 2): 2, (4, 3): 3, (6, 0): 2}
    table.update({(7, 2): 3, (0, 10): 4})
    expected = table[(crew, science)]
    assert expected == math.ceil((crew + science) / 3)
    assert game.final_breakdown[0]["tokens"] == expected
    assert game.scores()[0] == 15 + expected


# ============================================================================ R-END-3
def test_r_end_3_highest_total_wins():
    """R-END-3: the highest total (missions + awards + tokens) wins."""
    game = end_game(up=("Juggernaut", "Colonist", "Rocketeer"))
    give(game, 0, points=7)
    give(game, 1, points=9, crew=0)
    give(game, 2, points=8, crew=6)
    assert game.scores() == [7, 9, 8]  # during play: mission points only
    assert game.winners() == []
    finish(game)
    assert game.scores() == [7 + 15 + 1, 9 + 15 + 0, 8 + 15 + 2]
    assert game.winners() == [2]


# ============================================================================ R-END-4
TIED_UP = ("Juggernaut", "Colonist", "Rocketeer")  # all tied at 0 with bare ships


def _tied_game(down):
    """Seats 0 and 1 tie at 19 points, seat 2 has 18 and the most science."""
    game = end_game(up=TIED_UP, down=down)
    give(game, 0, crew=3, science=3, points=2)  # 2 + 15 + 2
    give(game, 1, crew=5, science=1, points=2)  # 2 + 15 + 2
    give(game, 2, crew=3, science=6, points=0)  # 0 + 15 + 3
    return game


@pytest.mark.parametrize(
    ("down", "winner"),
    [
        (("Potential", "Researcher", "Commander", "Efficiency"), [0]),
        (("Potential", "Commander", "Researcher", "Efficiency"), [1]),
        (("Commander", "Researcher", "Potential", "Efficiency"), [1]),
        (("Researcher", "Commander", "Potential", "Efficiency"), [0]),
    ],
)
def test_r_end_4_tie_broken_by_face_down_awards_in_order(down, winner):
    """R-END-4: the face-down awards are drawn in their hidden order; only the tied players
    compete (seat 2 has the most science but is not tied); a drawn award all tied players
    share (Potential) changes nothing."""
    game = _tied_game(down)
    finish(game)
    assert game.scores() == [19, 19, 18]
    assert game.winners() == winner


def test_r_end_4_still_tied_after_the_pool_share_the_victory():
    """R-END-4: players equal on every face-down award share the victory."""
    game = end_game(up=TIED_UP, down=("Potential", "Researcher", "Commander", "Efficiency"))
    for seat in (0, 1):
        give(game, seat, crew=3, science=3, points=2)
    give(game, 2, crew=3, points=0)
    finish(game)
    assert game.scores() == [19, 19, 16]
    assert game.winners() == [0, 1]


def test_r_end_4_single_top_scorer_needs_no_tiebreak():
    """R-END-3/4: a unique top score wins outright, whatever the face-down awards say."""
    game = end_game(up=TIED_UP, down=("Researcher", "Commander", "Potential", "Efficiency"))
    give(game, 0, points=5)
    give(game, 1, science=6, crew=6)
    finish(game)
    assert game.scores() == [5 + 15 + 1, 15 + 4, 15 + 1]
    assert game.winners() == [0]


# ============================================================================ R-SHIP-1
def test_r_ship_1_core_alone_has_four_open_connectors():
    """R-SHIP-1: (open, connected, blocked) of a bare core is (4, 0, 0)."""
    game = make_game(2)
    assert game.connectors(0) == (4, 0, 0)


def test_r_ship_1_facing_pair_is_connected_on_both_sides():
    """R-SHIP-1: core + Ion Drive on its right: two connected connectors, four open."""
    game = make_game(2)
    install_directly(game, 0, "Ion Drive", (0, 1))
    assert game.connectors(0) == (4, 2, 0)


def test_r_ship_1_connector_facing_a_piece_without_the_opposite_is_blocked():
    """R-SHIP-1: open 6 (core up and left, Hydroponics down, Plasma right, QVT right and down),
    connected 6, blocked 1 (Quantum Vacuum Thruster's left faces Hydroponics Garden)."""
    game = make_game(2)
    blocked_ship(game, 0)
    assert game.connectors(0) == (6, 6, 1)


def test_r_ship_1_blocked_connector_of_the_core():
    """R-SHIP-1: the core's own connectors can be blocked: a part installed on one pair whose
    back faces the core without a connector blocks the core's side."""
    game = make_game(2)
    install_directly(game, 0, "Proton Analyzer", (-1, 0))  # down, right, up
    install_directly(game, 0, "Ramscoop Intake", (-1, 1))  # down, left
    install_directly(game, 0, "Hydroponics Garden", (0, 1))  # up, down; no left
    # open: core down, core left, Proton up, Hydroponics down; blocked: core right
    assert game.connectors(0) == (4, 6, 1)


def test_r_ship_1_connector_at_the_grid_edge_counts_as_open():
    """R-SHIP-1 [decision]: a connector pointing off the grid is open."""
    game = make_game(2, grid_size=3)
    sink = use_sink(game)
    win_parts(game, {0: ["Hydroponics Garden"]}, fill=sink)
    game.apply(Install("Hydroponics Garden", -1, 0))
    # core: up connected, 3 open; Hydroponics: down connected, up open (off the grid)
    assert game.connectors(0) == (4, 2, 0)


# ============================================================================ R-SHIP-2
def test_r_ship_2_engines_are_icons_on_installed_parts_with_values():
    """R-SHIP-2: each engine icon of an installed part is one engine with its 1-6 die value;
    station engines are nobody's."""
    game = make_game(2)
    install_directly(game, 0, "Twin Vector Nozzles", (0, 1), dice=(2, 5))
    install_directly(game, 0, "Ion Drive", (0, -1), dice=6)
    r12, r13 = ranks_of(game, "Twin Vector Nozzles")
    (ion,) = ranks_of(game, "Ion Drive")
    assert sorted(game.engines(0)) == sorted([(r12, 2), (r13, 5), (ion, 6)])
    assert game.engines(1) == []
    assert game.award_value(0, "Rocketeer") == 13
    station = {r for p in game.spaces for r in game.cards.parts[p].engines}
    assert not station & {r for r, _ in game.engines(0) + game.engines(1)}


def test_r_ship_2_engine_values_stay_between_1_and_6():
    """R-SHIP-2: upgrades never push an engine above 6."""
    game = make_game(2)
    sink = use_sink(game)
    install_directly(game, 0, "Nanofabricator", (-1, 0))
    install_directly(game, 0, "Ion Drive", (0, 1), dice=5)
    (ion,) = ranks_of(game, "Ion Drive")
    play_bids(game, {0: [Bid(1, facility("Engineer"))]}, fill=sink)
    assert game.engine_values[ion] == 6  # Engineer: automatic single choice
    assert game.phase is Phase.BIDDING  # the upgrade has nothing left to improve
    for _ in range(2):
        sink_round(game, sink)
    assert game.engines(0) == [(ion, 6)]
