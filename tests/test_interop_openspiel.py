"""Farlight as an OpenSpiel game (issue #30; docs/interop/openspiel.md): `python_farlight` loads
with its parameters, passes OpenSpiel's own state checks (serialisation included), deals
explicitly, is deterministic given its deal, shows each seat only what it may know, plays whole
games with OpenSpiel's bots, and pays what the PettingZoo env pays."""

from __future__ import annotations

import base64
import json
import os
import pickle
import re
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from farlight_env import farlight_v0  # noqa: E402
from farlight_env.encode import ObservationEncoder  # noqa: E402
from farlight_env.encode.codec import ActionCodec  # noqa: E402
from farlight_env.game import Phase  # noqa: E402
from farlight_env.game.config import ConfigError, IllegalActionError  # noqa: E402
from farlight_env.openspiel import (  # noqa: E402
    GAME_NAME,
    FarlightState,
    StateStringError,
    deal_seed,
)
from farlight_env.openspiel_state_text import MAX_STATE_CHARS  # noqa: E402
from tests.doc_snippets import run_page  # noqa: E402

GameType = pyspiel.GameType


def load(**params: object) -> pyspiel.Game:
    return pyspiel.load_game(GAME_NAME, params)


def dealt(game: pyspiel.Game, deal: int = 0) -> FarlightState:
    """A new state past the chance node, dealt `deal`."""
    state = game.new_initial_state()
    assert state.is_chance_node()
    state.apply_action(deal)
    return state


def random_states(game: pyspiel.Game, seed: int, every: int = 1):
    """Every `every`-th decision state of one random game, deal `seed` (the live state: copy
    to keep)."""
    state, rng, step = dealt(game, seed), np.random.default_rng(seed), 0
    while not state.is_terminal():
        if step % every == 0:
            yield state
        state.apply_action(int(rng.choice(state.legal_actions())))
        step += 1
    yield state


def views(state: FarlightState, player: int) -> tuple:
    """Everything the OpenSpiel API shows `player` of a state."""
    return (
        state.information_state_string(player),
        state.observation_string(player),
        np.asarray(state.information_state_tensor(player)).tobytes(),
        np.asarray(state.observation_tensor(player)).tobytes(),
    )


# ------------------------------------------------------------------ the game and its type
def test_game_type_and_parameters() -> None:
    rules = "token_rounding:down;lone_zero_mission_chance:false"
    game = load(players=3, deals=1000, grid_size=9, max_rounds=7, rules=rules)
    kind = game.get_type()
    assert kind.short_name == GAME_NAME
    assert kind.dynamics == GameType.Dynamics.SEQUENTIAL
    assert kind.chance_mode == GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == GameType.Information.IMPERFECT_INFORMATION
    assert kind.utility == GameType.Utility.GENERAL_SUM
    assert kind.reward_model == GameType.RewardModel.TERMINAL
    assert (kind.min_num_players, kind.max_num_players) == (2, 5)
    assert kind.provides_information_state_tensor and kind.provides_observation_tensor
    assert kind.provides_information_state_string and kind.provides_observation_string
    assert game.num_players() == 3 and game.max_chance_outcomes() == 1000
    assert game.utility_sum() is None and (game.min_utility(), game.max_utility()) == (-1, 1)
    state = dealt(game)
    engine = state.farlight
    assert engine.config.grid_size == 9 and engine.config.max_rounds == 7
    assert engine.config.rule_options.token_rounding == "down"
    assert engine.config.rule_options.lone_zero_mission_chance is False
    assert game.num_distinct_actions() == ActionCodec(engine.cards, 9).size
    size = ObservationEncoder(engine.cards, 9).size
    assert game.observation_tensor_shape() == game.information_state_tensor_shape() == [size]
    assert pyspiel.load_game(str(game)).get_parameters() == game.get_parameters()
    assert load().max_chance_outcomes() == 2**16


def test_the_chance_node_offers_every_deal_uniformly() -> None:
    game = load(deals=50)
    state = game.new_initial_state()
    assert state.is_chance_node() and state.current_player() == pyspiel.PlayerId.CHANCE
    assert state.chance_outcomes() == [(k, 1 / 50) for k in range(50)]
    assert state.legal_actions() == list(range(50))
    assert len({state.action_to_string(pyspiel.PlayerId.CHANCE, k) for k in range(50)}) == 50
    with pytest.raises(Exception, match="deal must be 0..49"):
        state.apply_action(50)
    state.apply_action(49)
    assert not state.is_chance_node() and state.history() == [49]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"players": 6}, "num_players must be 2..5"),
        ({"grid_size": 8}, "grid_size must be odd"),
        ({"reward_mode": "margin"}, "reward_mode must be one of"),
        ({"rules": "token_rounding:sideways"}, "token_rounding"),
        ({"deals": 0}, "deals must be 1"),
    ],
)
def test_bad_parameters_are_refused_with_the_engine_message(params: dict, message: str) -> None:
    with pytest.raises(Exception, match=message):
        load(**params)


# ------------------------------------------------------------------ OpenSpiel's own checks
@pytest.mark.parametrize(
    "params", [{"players": 2}, {"players": 3, "grid_size": 9}, {"players": 5, "deals": 7}]
)
def test_openspiel_random_sim_test(params: dict) -> None:
    """OpenSpiel's C++ state checks (clone, legal-action masks and order, unique action strings,
    chance outcomes, observables for every seat, returns within bounds, and serialisation of
    game and state at every step) on whole random games."""
    pyspiel.random_sim_test(load(**params), num_sims=2, serialize=True, verbose=False)


def test_states_serialize_and_deserialize_exactly() -> None:
    """What random_sim_test's serialize=True checks, by the state's own serialize()."""
    game = load(players=3, max_rounds=3)
    for state in random_states(game, seed=2, every=3):
        again = pyspiel.load_game(str(game)).deserialize_state(state.serialize())
        assert str(again) == str(state) and again.history() == state.history()
        assert again.legal_actions() == state.legal_actions()
        assert again.returns() == state.returns()


def test_a_round_trip_gives_the_same_state_and_the_same_future() -> None:
    """serialize -> deserialize (the state's own and pyspiel's game-and-state pair) gives a
    state with the same string, history, legal actions and, played on alike, the same game."""
    game = load(players=3, max_rounds=2)
    for state in random_states(game, seed=5, every=7):
        text = pyspiel.serialize_game_and_state(game, state)
        copies = [
            game.deserialize_state(state.serialize()),
            pyspiel.deserialize_game_and_state(text)[1],
        ]
        for again in copies:
            assert isinstance(again, FarlightState) and str(again) == str(state)
            assert again.history() == state.history()
            assert again.move_number() == state.move_number()
            assert again.legal_actions() == state.legal_actions()
        original, rng = state.clone(), np.random.default_rng(3)
        while not original.is_terminal():
            action = int(rng.choice(original.legal_actions()))
            for one in (original, *copies):
                one.apply_action(action)
            assert all(str(one) == str(original) for one in copies)
        assert all(one.returns() == original.returns() for one in copies)


def pickled_state_string(marker: Path) -> str:
    """OpenSpiel's default Python-state format whose pickle, if loaded, creates `marker`."""

    class Payload:
        def __reduce__(self) -> tuple:
            return (os.system, (f"touch {marker}",))

    data = base64.b64encode(pickle.dumps({"engine": Payload()})).decode()
    return f"history=-1:5\nmove_number=1\n__dict__={data}"


def game_and_state_string(state_text: str, game: str = "python_farlight()") -> str:
    return f"[Meta]\nVersion: 1\n\n[Game]\n{game}\n[State]\n{state_text}\n"


def test_a_pickled_state_string_is_refused_unread_by_both_loaders(tmp_path: Path) -> None:
    """The string OpenSpiel's own serializer writes for a Python game carries a pickle its
    loaders unpickle: this game refuses it, and the command the pickle holds never runs."""
    marker = tmp_path / "ran"
    text = pickled_state_string(marker)
    with pytest.raises(StateStringError, match="pickled Python-state format is refused"):
        load().deserialize_state(text)
    with pytest.raises(pyspiel.SpielError, match="pickled Python-state format is refused"):
        pyspiel.deserialize_game_and_state(game_and_state_string(text))
    assert not marker.exists()


def test_other_games_still_load_through_pyspiel() -> None:
    game = pyspiel.load_game("kuhn_poker")
    state = game.new_initial_state().child(0).child(1)
    _, again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert str(again) == str(state) and again.history() == [0, 1]


def saved(state: FarlightState) -> dict:
    return json.loads(state.serialize())


def crafted_strings() -> dict[str, tuple[str, str]]:
    """Broken or foreign state strings of a dealt 2-player game -> (text, the error's words)."""
    game = load()
    state = dealt(game, 3)
    state.apply_action(state.legal_actions()[0])
    good = saved(state)
    other = saved(dealt(game, 4))

    def edit(**changes: object) -> str:
        return json.dumps({**good, **changes})

    crew = json.loads(json.dumps(good["game"]))
    crew["state"]["crew"][0] = -5
    moved = json.loads(json.dumps(good["game"]))
    moved["state"]["crew"][0] += 1
    return {
        "not json": ("{not json", "not this game's JSON state"),
        "a list": ("[1, 2]", "not this game's JSON state"),
        "deep": ("[" * 100_000 + "]" * 100_000, "not this game's JSON state"),
        "other format": (edit(format="farlight-game"), "expected 'farlight-openspiel-state'"),
        "other version": (edit(version=2), "version 2"),
        "unknown field": (edit(extra=1), "unknown field"),
        "a float action": (edit(history=[[-1, 3], [0, 1.5]]), "not this game's JSON state"),
        "wrong player": (edit(history=[[-1, 3], [1, good["history"][1][1]]]), "player 1 acts"),
        "illegal action": (edit(history=[[-1, 3], [0, 10**6]]), "is not legal there"),
        "no such deal": (edit(history=[[-1, 2**16]]), "is not legal there"),
        "other deal": (edit(history=other["history"]), "does not replay to the stored game"),
        "short history": (edit(history=good["history"][:1]), "does not replay"),
        "edited game": (edit(game=moved), "does not replay to the stored game"),
        "corrupt game": (edit(game=crew), "state.crew[0]"),
        "game before deal": (edit(history=[]), "the history does not deal one"),
        "deal without game": (edit(game=None), "none is stored"),
        "too long": (" " * (MAX_STATE_CHARS + 1), "more than"),
        "history past the end": (edit(history=[[-1, 3]] + [[0, 0]] * 30_000), "longer than any"),
    }


@pytest.mark.parametrize("name", list(crafted_strings()))
def test_crafted_state_strings_are_one_clean_error_through_both_loaders(name: str) -> None:
    text, words = crafted_strings()[name]
    game = load()
    for read in (
        game.deserialize_state,
        lambda t: pyspiel.deserialize_game_and_state(game_and_state_string(t)),
    ):
        with pytest.raises(StateStringError, match=re.escape(words)) as caught:
            read(text)
        assert isinstance(caught.value, pyspiel.SpielError) and isinstance(caught.value, ValueError)
        message = str(caught.value)
        assert "\n" not in message and len(message) < 400 and "Traceback" not in message


def test_a_history_that_goes_on_past_the_end_is_refused() -> None:
    game = load(max_rounds=1)
    *_, end = random_states(game, seed=1)
    data = saved(end)
    data["history"].append([0, 0])
    with pytest.raises(StateStringError, match="the game is over"):
        game.deserialize_state(json.dumps(data))


def test_a_resampled_state_is_not_serialized() -> None:
    """Its history is not its game's: a string of it could never be read back."""
    state = dealt(load(), 2)
    other = state.resample_from_infostate(0, pyspiel.UniformProbabilitySampler(1, 0.0, 1.0))
    with pytest.raises(pyspiel.SpielError, match="resampled state cannot be serialized"):
        other.serialize()


# ------------------------------------------------------------------ errors
def test_errors_are_spiel_errors_and_the_engines_own() -> None:
    """RLlib's OpenSpielEnv catches pyspiel.SpielError to replace an illegal move; Farlight code
    catches IllegalActionError and ConfigError: each error is both, and an illegal action
    leaves the state as it was."""
    state = dealt(load(), 0)
    before = str(state), state.history()
    illegal = next(
        a for a in range(load().num_distinct_actions()) if a not in state.legal_actions()
    )
    for action in (illegal, 10**6):
        with pytest.raises(pyspiel.SpielError) as caught:
            state.apply_action(action)
        assert isinstance(caught.value, IllegalActionError)
        assert (str(state), state.history()) == before
    with pytest.raises(IllegalActionError, match="deal must be"):
        load(deals=5).new_initial_state().apply_action(5)
    with pytest.raises(pyspiel.SpielError) as bad_game:
        load(players=9)
    assert isinstance(bad_game.value, ConfigError)
    with pytest.raises(pyspiel.SpielError, match="not dealt yet"):
        _ = load().new_initial_state().farlight


# ------------------------------------------------------------------ determinism
def test_same_deal_and_actions_give_the_same_game() -> None:
    """The deal fixes every later die: no chance node follows it, and replaying it with the same
    actions, in a fresh game, gives the same states and returns."""
    games = [load(players=4, max_rounds=4) for _ in range(2)]
    runs = [[(str(s), s.returns()) for s in random_states(g, seed=11)] for g in games]
    assert runs[0] == runs[1]
    assert str(dealt(games[0], 12)) != runs[0][0][0]
    assert not any(s.is_chance_node() for s in random_states(games[0], seed=11))


def test_clones_continue_identically() -> None:
    """A clone carries the engine's generator: the same actions give the same future dice."""
    state = dealt(load(max_rounds=3), 4)
    twin = state.clone()
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        action = int(rng.choice(state.legal_actions()))
        state.apply_action(action)
        twin.apply_action(action)
        assert str(state) == str(twin)
    assert state.returns() == twin.returns()


# ------------------------------------------------------------------ hidden information
def test_hidden_facts_do_not_change_what_a_seat_is_shown() -> None:
    """Redrawing every fact hidden from p (opponents' face-down tiles, the deck's and the
    face-down awards' order, the future dice) leaves p's strings and tensors identical; the
    opponent whose tiles were redrawn is shown the change (the comparison can fail)."""
    game = load(players=3, max_rounds=3)
    sampler = pyspiel.UniformProbabilitySampler(7, 0.0, 1.0)
    checked = changed = 0
    for state in random_states(game, seed=6, every=4):
        for p in range(3):
            other = state.resample_from_infostate(p, sampler)
            assert str(other) != str(state) or state.is_terminal()
            assert views(other, p) == views(state, p)
            fresh = ObservationEncoder(state.farlight.cards, 13).encode(other.farlight, p)
            assert np.array_equal(fresh, other.observation_tensor(p))  # no stale cache
            checked += 1
            if state.farlight.phase is Phase.BIDDING:
                q = (p + 1) % 3
                changed += views(other, q)[0] != views(state, q)[0]
    assert checked > 30 and changed > 0


def test_the_deal_itself_is_not_shown() -> None:
    """history() holds the deal (as kuhn_poker's holds the cards), but no seat's string or
    tensor names it or the engine seed it stands for; str(state), the whole truth, does."""
    state = dealt(load(players=3), 40961)
    assert state.history() == [40961] and str(deal_seed(40961)) in str(state)
    for p in range(3):
        for text in views(state, p)[:2]:
            assert "40961" not in text and str(deal_seed(40961)) not in text


def test_the_deck_order_alone_is_invisible() -> None:
    state = dealt(load(), 8)
    other = state.clone()
    other.farlight.deck.reverse()
    other.farlight.invalidate_cache()
    assert str(other) != str(state)
    assert views(other, 0) == views(state, 0) and views(other, 1) == views(state, 1)


# ------------------------------------------------------------------ bots
def test_random_bots_play_whole_games_through_evaluate_bots() -> None:
    """evaluate_bots samples the deal with its own seed: the same seed, the same game."""
    for players in (2, 5):
        game = load(players=players)
        runs = [
            pyspiel.evaluate_bots(
                game.new_initial_state(),
                [pyspiel.make_uniform_random_bot(p, 10 + p) for p in range(players)],
                seed,
            )
            for seed in (0, 0)
        ]
        assert runs[0] == runs[1]
        assert len(runs[0]) == players and set(runs[0]) <= {-1.0, 0.0, 1.0}


def ismcts_bot(game: pyspiel.Game, seed: int, simulations: int) -> ismcts.ISMCTSBot:
    """OpenSpiel's Python ISMCTS with random rollouts; its worlds are drawn reproducibly."""
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))
    bot = ismcts.ISMCTSBot(
        game, evaluator, 2.0, simulations, random_state=np.random.RandomState(seed)
    )
    sampler = pyspiel.UniformProbabilitySampler(seed, 0.0, 1.0)
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, sampler))
    return bot


def test_ismcts_bot_plays_whole_games_through_evaluate_bots() -> None:
    game = load(players=3, max_rounds=2)
    bots = [ismcts_bot(game, 0, 8), pyspiel.make_uniform_random_bot(1, 1), ismcts_bot(game, 2, 8)]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 0)
    assert len(returns) == 3 and set(returns) <= {-1.0, 0.0, 1.0}


def test_what_the_docs_say_does_not_work_still_fails_cleanly() -> None:
    """The C++ ISMCTS cannot resample a Python state; the Python ISMCTS has no restart_at for
    the Python evaluate_bots (docs/interop/openspiel.md). If one starts working, say so there."""
    from open_spiel.python.algorithms import evaluate_bots

    game = load(max_rounds=1)
    native = pyspiel.ISMCTSBot(0, pyspiel.RandomRolloutEvaluator(1, 0), 2.0, 4)
    random_bot = pyspiel.make_uniform_random_bot(1, 1)
    with pytest.raises(pyspiel.SpielError, match=r"ResampleFromInfostate\(\) not implemented"):
        pyspiel.evaluate_bots(game.new_initial_state(), [native, random_bot], 0)
    with pytest.raises(pyspiel.SpielError, match=r"RestartAt\(state\) not implemented"):
        bots = [ismcts_bot(game, 0, 4), random_bot]
        evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(0))


# ------------------------------------------------------------------ the env pays the same
@pytest.mark.parametrize(("reward_mode", "deal"), [("win", 21), ("rank", 65535)])
def test_returns_and_tensors_equal_the_envs_for_the_same_deal_and_actions(
    reward_mode: str, deal: int
) -> None:
    """Deal k is env.reset(seed=k)'s game: the same action indices give the same
    observations, masks and final rewards."""
    env = farlight_v0.env(num_players=3, reward_mode=reward_mode)
    env.reset(seed=deal)
    state = dealt(load(players=3, reward_mode=reward_mode), deal)
    rng = np.random.default_rng(deal)
    rewards: dict[str, float] = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            rewards[agent] = reward
            env.step(None)
            continue
        seat = int(agent.split("_")[1])
        assert state.current_player() == seat
        assert np.flatnonzero(obs["action_mask"]).tolist() == state.legal_actions()
        assert np.array_equal(obs["observation"], state.observation_tensor(seat))
        action = int(rng.choice(state.legal_actions()))
        env.step(action)
        state.apply_action(action)
    assert state.is_terminal()
    assert state.returns() == [rewards[f"player_{p}"] for p in range(3)]


# ------------------------------------------------------------------ the docs page
def test_docs_page_runs() -> None:
    """The page's state-string block (#53) too: a string read back, a crafted one refused."""
    out = run_page("docs/interop/openspiel.md", expected_blocks=4).splitlines()
    assert out[0].startswith("returns [") and out[1] == "16306 (5, 17, 13, 13)"
    assert "round 1 · bidding · to act: P0" in out[2] and out[3].startswith("ISMCTS returns [")
    assert out[4] == "[[-1, 0], [0, 0]]"
    assert out[5] == "python_farlight state string: the history does not replay to the stored game"


def test_the_state_string_page_says_what_the_code_checks() -> None:
    """docs/interop/openspiel.md names the bound, the format tag and version, and the error's
    prefix the code uses (#53)."""
    from farlight_env.openspiel_state_text import MAX_STATE_CHARS, STATE_FORMAT, STATE_VERSION

    page = (Path(__file__).resolve().parents[1] / "docs" / "interop" / "openspiel.md").read_text()
    section = page.split("## State strings", 1)[1].split("\n## ", 1)[0]
    assert f"at most {MAX_STATE_CHARS:,} characters" in section
    assert f"(`{STATE_FORMAT}`, {STATE_VERSION})" in section
    assert f'"format":"{STATE_FORMAT}","version":{STATE_VERSION},"history"' in section
    assert "`python_farlight state string:`" in section and "StateStringError" in section
