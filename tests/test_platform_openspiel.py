"""Any declared game as an OpenSpiel game (#50), on the throw-away duel (tests/toy_game.py):
OpenSpiel's own random simulation test (serialization included), its bots and algorithms,
states read back only by replaying their history, and a seat's strings free of others' cards."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from farlight_env.openspiel_state_text import StateStringError  # noqa: E402
from farlight_env.platform import register as register_game  # noqa: E402
from farlight_env.platform.openspiel import PlatformSpielError, register  # noqa: E402
from farlight_env.platform.registry import unregister  # noqa: E402
from tests.toy_game import DUEL  # noqa: E402

NAME = register(DUEL)  # with OpenSpiel, once per process (its registry cannot forget a game)


@pytest.fixture(autouse=True)
def duel_registered():
    """The duel known by name to the platform for each test (other test files unregister it)."""
    register_game(DUEL, replace=True)
    yield
    unregister("duel")


def dealt(players: int = 3, deal: int = 5, **params):
    game = pyspiel.load_game(NAME, {"players": players, **params})
    state = game.new_initial_state()
    state.apply_action(deal)
    return game, state


def test_the_duel_registers_under_its_name_with_the_declarations_parameters() -> None:
    assert NAME == "python_duel" and register("duel") == NAME  # once
    game = pyspiel.load_game(NAME)
    assert game.num_players() == 2 and game.num_distinct_actions() == 2
    assert game.max_game_length() == 2 and game.get_parameters()["stakes"] == 1
    with pytest.raises(PlatformSpielError, match="duel is for 2-4 players, not 5"):
        pyspiel.load_game(NAME, {"players": 5})


@pytest.mark.parametrize("players", [2, 3, 4])
def test_openspiels_random_simulation_test_passes(players: int) -> None:
    game = pyspiel.load_game(NAME, {"players": players, "deals": 50})
    pyspiel.random_sim_test(game, num_sims=20, serialize=True, verbose=False)


def test_openspiels_bots_play_it_to_the_platform_envs_returns() -> None:
    from open_spiel.python.algorithms import evaluate_bots

    game = pyspiel.load_game(NAME, {"players": 3})
    bots = [pyspiel.make_uniform_random_bot(seat, seat) for seat in range(3)]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))
    assert sorted(set(returns)) in ([-1.0, 1.0], [0.0], [1.0, -1.0])


def test_cfr_solves_the_two_player_duel() -> None:
    """A tabular algorithm walks the whole tree through information-state strings."""
    from open_spiel.python.algorithms import cfr, expected_game_score

    game = pyspiel.load_game(NAME, {"players": 2, "deals": 12})
    solver = cfr.CFRSolver(game)
    for _ in range(20):
        solver.evaluate_and_update_policy()
    policy = solver.average_policy()
    values = expected_game_score.policy_value(game.new_initial_state(), [policy] * 2)
    assert len(values) == 2 and abs(sum(values)) < 1e-9  # zero-sum for two seats


def test_a_state_string_is_the_history_and_is_read_back_by_replaying_it() -> None:
    game, state = dealt()
    state.apply_action(1)
    text = state.serialize()
    again = game.deserialize_state(text)
    assert str(again) == str(state) and again.history() == state.history()
    for bad, why in (
        (text.replace('"history":[[-1,5],[0,1]]', '"history":[[-1,5],[1,1]]'), "player 1 acts"),
        ("history=1\n__dict__=gASV", "pickled Python-state format is refused"),
        ('{"format":"other","version":1,"history":[]}', "format 'other'"),
    ):
        with pytest.raises(StateStringError, match=why):
            game.deserialize_state(bad)
    both = pyspiel.serialize_game_and_state(game, state)
    loaded_game, loaded = pyspiel.deserialize_game_and_state(both)
    assert str(loaded) == str(state)


def test_a_pickled_state_round_trips_through_the_games_checked_json() -> None:
    _game, state = dealt()
    copy = pickle.loads(pickle.dumps(state))
    assert str(copy) == str(state)


def test_a_seats_strings_and_tensor_do_not_depend_on_the_others_cards() -> None:
    """Deals that give seat 0 the same card differ in the others' cards only."""
    seen = {}
    for deal in range(40):
        game, state = dealt(deal=deal)
        card = state.state.cards[0]
        state.apply_action(1)
        facts = (
            state.observation_string(0),
            state.information_state_string(0),
            tuple(state.observation_tensor(0)),
        )
        seen.setdefault(card, set()).add(facts)
    assert len(seen) > 1 and all(len(facts) == 1 for facts in seen.values())


def test_a_resampled_state_keeps_what_the_seat_knows_and_refuses_serialization() -> None:
    _game, state = dealt()
    state.apply_action(1)
    draws = iter(np.linspace(0.05, 0.95, 10))
    for _ in range(10):
        other = state.resample_from_infostate(1, lambda: next(draws))
        assert other.information_state_string(1) == state.information_state_string(1)
        assert other.state.view(1) == state.state.view(1)
    with pytest.raises(PlatformSpielError, match="resampled state cannot be serialized"):
        other.serialize()


def test_an_illegal_action_is_one_spiel_error() -> None:
    _game, state = dealt()
    with pytest.raises(pyspiel.SpielError):
        state.apply_action(7)
