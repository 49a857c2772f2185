"""The search written once for every game (#50): `ismcts` plays a game declared to the platform
(the throw-away duel, tests/toy_game.py) through the `State` protocol, on a `SeatView` that
carries nothing hidden from its seat, and Farlight's ISMCTS is the same loop (its golden
decisions: tests/test_ismcts_golden.py)."""

from __future__ import annotations

import numpy as np
import pytest

from agents import registry
from agents.random_agent import RandomAgent
from agents.search import PlatformSearch, TreeSearch
from evaluation.arena import play_episode
from farlight_env.platform import SeatView, aec, register
from farlight_env.platform.registry import unregister
from tests.toy_game import DUEL, DuelState


@pytest.fixture(autouse=True)
def duel_registered():
    register(DUEL, replace=True)
    yield
    unregister("duel")


def _match(games: int, players: int, iterations: int = 100) -> float:
    """ismcts's share of the wins against random in the other seats, its seat rotated."""
    won = 0.0
    for game in range(games):
        env = aec.raw_env("duel", num_players=players, illegal_action="raise")
        env.reset(seed=game)
        seat = game % players
        seats = [
            registry.make("ismcts", seed=game, iterations=iterations)
            if s == seat
            else RandomAgent(seed=1_000 + 7 * game + s)
            for s in range(players)
        ]
        play_episode(env, seats)
        winners = env.state.winners()
        won += (seat in winners) / len(winners)
    return won / games


def test_ismcts_plays_another_game_through_the_protocol_and_beats_random() -> None:
    # Measured: 163.5 of 200 two-player games, 121.3 of 200 three-player ones (random: 1/N).
    assert _match(200, players=2) == pytest.approx(163.5 / 200)
    assert _match(200, players=3) == pytest.approx(121 / 200 + 1 / 600)


def test_the_search_is_deterministic_for_a_seed() -> None:
    state = DUEL.new_state(3, 5, {})
    state.apply_action(1)
    view = SeatView.of(state, 1)
    mask = state.legal_mask()
    picks = [PlatformSearch(seed=3, iterations=50).act(np.zeros(1), mask, {"view": view})]
    picks += [PlatformSearch(seed=3, iterations=50).act(np.zeros(1), mask, {"view": view})]
    assert picks[0] == picks[1]


def test_a_seat_view_is_the_same_whatever_the_others_hidden_cards() -> None:
    """Seat 0's view and stand-in do not depend on seat 1's card (nor its future draws)."""
    rng = np.random.default_rng
    seen = set()
    for other in range(6):
        state = DuelState([4, other, 2], rng(other), [])
        state.apply_action(1)
        view = SeatView.of(state, 0)
        seen.add((repr(view.view), view.stand_in.to_json()))
    assert len(seen) == 1


def test_a_determinization_keeps_what_the_seat_knows() -> None:
    state = DuelState([4, 1, 2], np.random.default_rng(0), [1])
    view = SeatView.of(state, 2)
    for draw in range(20):
        copy = view.determinized(np.random.default_rng(draw))
        assert copy.view(2) == state.view(2)


def test_ismcts_refuses_a_seat_view_it_is_not_given() -> None:
    with pytest.raises(ValueError, match="pass info\\['view'\\] \\(a SeatView\\)"):
        PlatformSearch(iterations=5).act(np.zeros(1), np.array([1, 1], np.int8), {})


def test_farlights_ismcts_is_the_shared_loop() -> None:
    from agents.farlight.ismcts import ISMCTSAgent

    assert issubclass(ISMCTSAgent, TreeSearch)
    assert ISMCTSAgent._iterate is TreeSearch._iterate and ISMCTSAgent.run is TreeSearch.run
