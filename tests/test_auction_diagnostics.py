"""Auction diagnostics (docs/auction_diagnostics.md): exact counts on a scripted round, the
rules they cite, sums that agree with the final score, and the tournament and scorecard wiring."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from PIL import Image
from scenarios import facility, mission_stack, part_space, play_bids

from evaluation.eval_v1 import format_scorecard
from evaluation.farlight.diagnostics import agent_diagnostics, format_diagnostics
from farlight_env.game import Bid, FarlightGame
from farlight_env.platform.records import RecordError
from farlight_env.records import build_record
from farlight_env.tools.auction import COUNTERS, lowest_winning_bid, seat_auctions

ROOT = Path(__file__).resolve().parent.parent


def scripted_round(**rule_options: object) -> dict:
    """Round 1 of a 2-player game (seat 0 first), recorded right after the tiles flip.

    P0: 4 on space 0, 0 on space 1, 1+crew on space 2, 2 on Discover, 3 on space 4.
    P1: 1 on space 0, 0 alone on mission stack 0, 2 on space 2, 3 on space 3, 4 on space 5.
    """
    game = FarlightGame(2, seed=0, rule_options=rule_options or None)
    p0 = [
        Bid(4, part_space(0)),
        Bid(0, part_space(1)),
        Bid(1, part_space(2), crew=True),
        Bid(2, facility("Discover")),
        Bid(3, part_space(4)),
    ]
    p1 = [
        Bid(1, part_space(0)),
        Bid(0, mission_stack(0)),
        Bid(2, part_space(2)),
        Bid(3, part_space(3)),
        Bid(4, part_space(5)),
    ]
    play_bids(game, {0: p0, 1: p1})
    return build_record(game, ["a", "b"], None, {"num_players": 2})


def nonzero(counters: dict) -> dict:
    return {k: v for k, v in counters.items() if v}


def test_r_res_2_r_res_3_r_mis_2_scripted_round_exact_counters() -> None:
    """R-RES-2: P0's 4 against 1 wins space 0, where a bid of 1 (P0 is first in turn order,
    ties go to it) would also have won: an overbid of 3. Space 1's lone 0 wins nothing (a
    bluff). On space 2 P0's 1+crew ties P1's 2 and wins on turn order at the lowest winning
    bid: no overbid, 1 crew spent (R-RES-3). Unopposed bids above 1 are overbids. P1's lone 0
    on a mission is a ticket (R-MIS-2)."""
    p0, p1 = seat_auctions(scripted_round())
    assert nonzero(p0) == {
        "rounds": 1,
        "part.tiles": 4,
        "part.targets": 4,
        "part.won": 3,  # spaces 0, 2, 4
        "part.price": 4 + 2 + 3,
        "part.crew_spent": 1,
        "part.forgone_crew": 3,  # tiles 4, 1 and 3 would each have brought a crew (R-RES-4)
        "part.overbids": 2,  # space 0 (by 3) and space 4 (by 2)
        "part.overbid_excess": 5,
        "facility.tiles": 1,
        "facility.targets": 1,
        "facility.won": 1,
        "facility.price": 2,
        "facility.forgone_crew": 1,
        "facility.overbids": 1,
        "facility.overbid_excess": 1,
        "facility.discover": 1,
        "facility.science": 1,
        "zero.bluffs": 1,
        "top.rounds": 1,
        "top.won": 1,  # its highest bid, 4 on space 0, won
    }
    assert nonzero(p1) == {
        "rounds": 1,
        "part.tiles": 4,
        "part.targets": 4,
        "part.won": 2,  # spaces 3 and 5, unopposed
        "part.price": 7,
        "part.forgone_crew": 2,
        "part.overbids": 2,
        "part.overbid_excess": 2 + 3,
        "mission.tiles": 1,
        "mission.targets": 1,
        "zero.tickets": 1,
        "top.rounds": 1,
        "top.won": 1,
    }
    assert set(p0) == set(COUNTERS)


def test_r_mis_2_lone_zero_without_a_chance_is_a_bluff() -> None:
    """R-MIS-2 [option] lone_zero_mission_chance=False: a lone 0 is never asked, so it is no
    ticket."""
    _, p1 = seat_auctions(scripted_round(lone_zero_mission_chance=False))
    assert (p1["zero.tickets"], p1["zero.bluffs"]) == (0, 1)


def target(kind, totals, order=(), first=0, seats=3):
    key = {s: (s - first) % seats for s in range(seats)}
    return SimpleNamespace(kind=kind, totals=totals, order=list(order), order_key=key)


def test_r_res_2_lowest_winning_bid_follows_the_tie_rules() -> None:
    """R-RES-2: at least 1; equal to a later seat's bid, one more than an earlier seat's."""
    assert lowest_winning_bid(target("part", {0: 4}), 0, True) == 1
    assert lowest_winning_bid(target("part", {0: 4, 1: 0}), 0, True) == 1
    assert lowest_winning_bid(target("part", {0: 4, 1: 3}), 0, True) == 3
    assert lowest_winning_bid(target("part", {0: 4, 1: 3}, first=1), 0, True) == 4
    assert lowest_winning_bid(target("facility", {2: 5, 0: 2, 1: 3}, first=2), 2, True) == 3


def test_r_mis_2_lowest_winning_bid_on_a_mission_keeps_the_order() -> None:
    """R-MIS-2: the seats asked after the first completer stay after it; with nobody after it
    a lone 0 would have been asked too (1 without lone-0 chances)."""
    alone = target("mission", {1: 3}, order=[1])
    assert lowest_winning_bid(alone, 1, True) == 0
    assert lowest_winning_bid(alone, 1, False) == 1
    # seat 0 passed (asked first), seat 2 completed first, seat 1 was asked after it
    three = target("mission", {0: 6, 2: 4, 1: 2}, order=[0, 2, 1])
    assert lowest_winning_bid(three, 2, True) == 3  # seat 1 is earlier in turn order
    ticket_after = target("mission", {2: 4, 1: 0}, order=[2, 1], first=2)
    assert lowest_winning_bid(ticket_after, 2, True) == 0  # a 0 first in turn order still leads


def played_game(seed: int, players: int) -> tuple[FarlightGame, dict]:
    from agents.registry import make

    seats = [make("heuristic", seed=seed + s) for s in range(players)]
    game = FarlightGame(players, seed=seed)
    while not game.is_over:
        game.apply(seats[game.current_player].choose(game.clone(), game.current_player))
    names = ["heuristic"] * players
    return game, build_record(game, names, None, {"num_players": players})


@pytest.mark.parametrize(("seed", "players"), [(3, 2), (4, 4)])
def test_whole_game_sums_agree_with_the_game(seed: int, players: int) -> None:
    """Mission points of wins and late completions are the score's mission part (R-MIS-6);
    every won part was installed or discarded (R-INST-1); every tile and every 0 is counted
    once (R-BID-1); the record is not changed."""
    game, record = played_game(seed, players)
    before = copy.deepcopy(record)
    seats = seat_auctions(record)
    assert record == before
    for seat, c in enumerate(seats):
        assert (
            c["mission.points"] + c["mission.late_points"] == game.final_breakdown[seat]["missions"]
        )
        assert c["part.won"] == c["part.installed"] + c["part.discarded"]
        assert (
            c["part.kept"] == c["part.installed"] - c["part.removed"] == len(game.ship_parts[seat])
        )
        assert c["rounds"] == game.round
        assert sum(c[f"{k}.tiles"] for k in ("part", "facility", "mission")) == 5 * game.round
        assert c["zero.tickets"] + c["zero.bluffs"] + c["zero.with_crew"] == game.round
        facilities = ("refit", "hire", "discover", "engineer")
        assert c["facility.won"] == sum(c[f"facility.{f}"] for f in facilities)
    wins = sum(c["part.won"] for c in seats)
    assert wins == sum(len(p) for p in game.ship_parts) + sum(
        c["part.discarded"] + c["part.removed"] for c in seats
    )
    assert seat_auctions(json.loads(json.dumps(record))) == seats  # the record alone decides


def test_a_record_that_does_not_replay_is_refused() -> None:
    _, record = played_game(3, 2)
    record["scores"] = [s + 1 for s in record["scores"]]
    with pytest.raises(RecordError, match="does not replay"):
        seat_auctions(record)


def test_agents_sum_their_seats_and_rates_follow() -> None:
    record = scripted_round()
    record["players"] = ["x", "x"]
    block = agent_diagnostics([record, record])["x"]
    assert block["seats"] == 4
    assert block["counters"]["part.won"] == 2 * (3 + 2)
    assert block["rates"]["part.win_rate"] == 5 / 8
    assert block["rates"]["overbid_rate"] == (2 + 1 + 2) / (3 + 1 + 2)
    assert block["rates"]["mission.win_rate"] == 0 and block["rates"]["mission.mean_price"] is None
    assert block["rates"]["ticket_share"] == 2 / 20
    table = format_diagnostics({"x": block, "nobody": agent_diagnostics([], ["nobody"])["nobody"]})
    assert "overbid" in table and "83%" in table and " - " in table


def test_old_scorecards_print_without_the_line() -> None:
    """A published scorecard written before the diagnostics still prints."""
    card = json.loads((ROOT / "docs/scorecards/heuristic/scorecard.json").read_text())
    assert "diagnostics" not in card
    assert "auction:" not in format_scorecard(card)
    card["diagnostics"] = agent_diagnostics([scripted_round()], ["a"])["a"]
    assert "auction: won part 75%, facility 100%, mission -" in format_scorecard(card)


def test_tournament_cli_prints_and_writes_the_diagnostics(tmp_path: Path) -> None:
    out = tmp_path / "t"
    args = ["tournament", "--agents", "heuristic,random", "--players", "2", "--games", "4"]
    args += ["--diagnostics", "--no-progress", "--out", str(out)]
    proc = subprocess.run(
        [sys.executable, "-m", "farlight_cli", *args], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "auction diagnostics" in text
    rows = [line.split()[0] for line in text.split("auction diagnostics", 1)[1].splitlines()[3:5]]
    assert rows == ["heuristic", "random"]
    data = json.loads((out / "results.json").read_text())
    assert set(data["diagnostics"]) == {"heuristic", "random"}
    assert data["diagnostics"] == json.loads(json.dumps(agent_diagnostics(data["games"])))
    assert data["diagnostics"]["heuristic"]["seats"] == 4
    with Image.open(out / "auction_diagnostics.png") as image:
        assert image.format == "PNG" and image.size[0] > 600
    quiet = subprocess.run(
        [sys.executable, "-m", "farlight_cli", *args[:7], "--no-progress"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert quiet.returncode == 0 and "auction diagnostics" not in quiet.stdout
