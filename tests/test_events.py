"""farlight_env.view.events: what a step sets off besides the action (bid results with prices,
automatic discards, forced passes, the tiebreak), checked against the engine's own outcome,
and the terminal replay that prints it (issue #26, item 3)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from farlight_env.game import FarlightGame, Phase
from farlight_env.platform.records import save_record
from farlight_env.records.record import build_record
from farlight_env.view.events import (
    AutoDiscard,
    AutoMove,
    BidResult,
    Tiebreak,
    final_tiebreak,
    step_events,
    to_builtins,
)


def random_steps(num_players: int, seed: int):
    """(game before, action, events) for every step of a random game, the game stepped on."""
    game = FarlightGame(num_players, seed=seed)
    rng = random.Random(seed)
    while not game.is_over:
        action = rng.choice(game.legal_actions())
        events = step_events(game, action)
        yield game.clone(), action, events
        game.apply(action)


def find(kind, predicate=lambda e: True, players=3, seeds=range(60)):
    for seed in seeds:
        for before, action, events in random_steps(players, seed):
            for event in events:
                if isinstance(event, kind) and predicate(event):
                    return before, action, event
    raise AssertionError(f"no {kind.__name__} in the seeds tried")  # pragma: no cover


@pytest.mark.parametrize("players", [2, 4])
def test_step_events_change_nothing_and_replay_the_step_exactly(players: int) -> None:
    """The copy the events are read from ends where the game ends: same state, byte for byte."""
    for before, action, _events in random_steps(players, seed=players):
        saved = before.to_json()
        copy = before.clone()
        step_events(before, action)
        assert before.to_json() == saved
        copy.apply(action)
        game = before.clone()
        game.apply(action)
        assert copy.to_json() == game.to_json()


def test_r_res_2_bid_results_name_the_winner_and_the_price_the_engine_settled() -> None:
    """Every part space's result agrees with the engine: the winner's bid is the highest of at
    least 1 (ties to turn order), the part goes to that seat (pending, installed or discarded),
    and a space without a winner keeps its part."""
    checked = 0
    for seed in range(10):
        for before, action, events in random_steps(3, seed):
            results = [e for e in events if isinstance(e, BidResult)]
            if not results:
                continue
            after = before.clone()
            after.on_forced = None
            after.apply(action)
            for result in results:
                totals = {b.seat: b.total for b in result.bids}
                assert all(b.total == sum(b.tiles) + b.crew for b in result.bids)  # R-BID-6
                if result.kind == "mission":
                    assert result.winner is None and set(result.order) <= set(totals)
                    continue
                best = max(totals.values())
                if best < 1:
                    assert result.winner is None and "no winner" in result.text
                    continue
                assert result.price == totals[result.winner] == best
                first = min((s for s in totals if totals[s] == best), key=before.order_key)
                assert result.winner == first, "R-RES-2: ties go to turn order"
                assert f"P{result.winner} wins it for {best}" in result.text
                if result.kind == "part":
                    part = before.spaces[result.slot]
                    seat = result.winner
                    assert part in after.pending[seat] + after.ship_parts[seat] + after.out_of_game
                    checked += 1
    assert checked > 50


def test_r_inst_5_a_part_too_dear_is_discarded_automatically_and_said() -> None:
    before, action, event = find(AutoDiscard, lambda e: e.reason == "crew")
    assert event.crew < event.cost
    assert f"P{event.seat}'s {event.part} is discarded automatically" in event.text
    assert f"it costs {event.cost} crew and P{event.seat} has {event.crew}" in event.text
    after = before.clone()
    after.apply(action)
    assert before.part_index[event.part] in after.out_of_game
    assert event.part not in [str(a) for a in after.history]  # nobody chose it: not recorded


def test_r_inst_3_a_part_that_fits_nowhere_is_discarded_automatically_and_said() -> None:
    _before, _action, event = find(AutoDiscard, lambda e: e.reason == "room")
    assert event.crew >= event.cost
    assert "no free cell of the ship links to it (R-INST-3)" in event.text


def test_r_mis_4_a_mission_the_seat_cannot_complete_is_passed_and_said() -> None:
    _before, _action, event = find(AutoMove, lambda e: e.action.startswith("pass"))
    assert "it cannot complete it (R-MIS-4)" in event.text


def test_r_end_4_the_tiebreak_names_the_awards_drawn() -> None:
    before, action, event = find(Tiebreak)
    after = before.clone()
    after.apply(action)
    assert after.is_over and final_tiebreak(after) == event
    assert len(event.tied) >= 2 and event.winners == after.winners()
    assert all(after.scores()[s] == event.score for s in event.tied)
    kept = event.tied
    for draw in event.draws:  # each face-down award in its order narrows the tie
        assert draw.award in after.awards_down
        assert set(draw.kept) <= set(kept)
        kept = draw.kept
    assert kept == event.winners
    assert event.draws[0].award in event.text and "R-END-4" in event.text


def test_no_tiebreak_when_one_seat_leads() -> None:
    game = FarlightGame(2, seed=3)
    rng = random.Random(3)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    scores = game.scores()
    if scores.count(max(scores)) == 1:
        assert final_tiebreak(game) is None
    assert final_tiebreak(FarlightGame(2, seed=3)) is None  # not over: nothing to break


def test_events_are_plain_json_with_a_type_tag() -> None:
    before, action, _event = find(AutoDiscard)
    data = to_builtins(step_events(before, action))
    json.dumps(data)
    assert {d["type"] for d in data} >= {"auto_discard"}
    assert all("text" in d for d in data)


def test_step_events_refuse_a_finished_game() -> None:
    before, action, _ = find(Tiebreak)
    before.apply(action)
    with pytest.raises(ValueError, match="over"):
        step_events(before, action)


def _record_of(seed: int, players: int, tmp_path: Path) -> Path:
    game = FarlightGame(players, seed=seed)
    rng = random.Random(seed)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    record = build_record(game, ["random"] * players, seed, {"num_players": players})
    path = tmp_path / f"game-{seed}.json"
    save_record(record, path)
    return path


def test_farlight_replay_shows_automatic_discards_bid_prices_and_the_tiebreak(tmp_path) -> None:
    """The terminal replay prints what each step set off: it used to show neither a part
    discarded automatically nor why a tie was decided."""
    discarded, _action, discard = find(AutoDiscard, lambda e: e.reason == "crew")
    tied, _action, tie = find(Tiebreak)
    for seed, wanted in ((discarded.seed, discard.text), (tied.seed, tie.text)):
        path = _record_of(seed, 3, tmp_path)
        done = subprocess.run(
            [sys.executable, "-m", "farlight_cli", "replay", str(path)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        assert wanted in done.stdout
        assert "Bids revealed (all tiles flip):" in done.stdout
        assert " wins it for " in done.stdout  # the price of each won target
    assert f"tiebreak: {tie.text}" in done.stdout  # beside the final scores too


def test_phase_of_a_bid_result_is_the_end_of_bidding() -> None:
    before, action, _event = find(BidResult)
    assert before.phase is Phase.BIDDING and sum(len(h) for h in before.hands) == 1
