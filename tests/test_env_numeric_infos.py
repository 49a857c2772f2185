"""`raw_env(infos="numeric")`: numbers only, the same keys, shapes and dtypes from reset to the
end (what TorchRL needs), the same facts as the default infos, nothing hidden; the default
still carries `info["view"]` for the planning agents."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from pettingzoo.test import api_test
from test_env_hidden_info import random_states, swap_board_and_hand_tile

from farlight_env import farlight_v0
from farlight_env.env.infos import END_REASONS, NUMERIC_INFO_KEYS, PHASES, numeric_info
from farlight_env.env.single_agent import FarlightSingleAgentEnv
from farlight_env.game import FarlightGame, Phase
from farlight_env.game.config import ConfigError
from farlight_env.game.hidden import PlayerView


def shape_and_dtype(info: dict) -> dict:
    return {k: (np.shape(v), np.asarray(v).dtype.kind) for k, v in info.items()}


def play(env, seed: int, max_steps: int = 10_000) -> list[dict]:
    """One random legal game through the AEC loop; every info seen by the acting agent."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    seen = []
    for _agent in env.agent_iter(max_steps):
        obs, _r, termination, truncation, info = env.last()
        seen.append(dict(info))
        if termination or truncation:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return seen


@pytest.mark.parametrize("num_players", [2, 5])
def test_numeric_infos_keep_their_keys_shapes_and_dtypes_from_reset_to_the_end(
    num_players: int,
) -> None:
    env = farlight_v0.env(num_players=num_players, infos="numeric")
    seen = play(env, seed=num_players)
    first = shape_and_dtype(seen[0])
    assert tuple(seen[0]) == NUMERIC_INFO_KEYS
    assert first["scores"] == first["winners"] == ((num_players,), first["scores"][1])
    for info in seen:
        assert shape_and_dtype(info) == first
        for value in info.values():
            assert np.asarray(value).dtype.kind in "iu"  # numbers, never objects or strings
    assert seen[-1]["phase"] == PHASES.index(Phase.OVER)
    assert seen[-1]["end_reason"] >= 0 and seen[-1]["winners"].sum() >= 1


def test_numeric_infos_say_what_the_full_ones_say() -> None:
    """Same seed, same actions: the numbers index the full infos' strings, end facts agree."""
    full = play(farlight_v0.env(num_players=3), seed=4)
    numeric = play(farlight_v0.env(num_players=3, infos="numeric"), seed=4)
    assert len(full) == len(numeric)
    for f, n in zip(full, numeric, strict=True):
        assert PHASES[n["phase"]].value == f["phase"] == f["decision"]
        assert n["decision"] == n["phase"] and n["round"] == f["round"]
        assert "view" not in n and isinstance(f["view"], PlayerView)
    last_f, last_n = full[-1], numeric[-1]
    assert last_n["scores"].tolist() == last_f["scores"]
    assert np.flatnonzero(last_n["winners"]).tolist() == sorted(last_f["winners"])
    assert END_REASONS[last_n["end_reason"]].value == last_f["end_reason"]


def test_the_view_stays_one_call_away_with_numeric_infos() -> None:
    env = farlight_v0.env(num_players=3, infos="numeric")
    env.reset(seed=1)
    agent = env.agent_selection
    view = env.unwrapped.player_view(agent)
    assert isinstance(view, PlayerView) and view.seat == int(agent[-1])
    assert view is env.unwrapped.player_view(agent)  # built once per game


def test_numeric_infos_hide_nothing() -> None:
    """Two games differing only in facts hidden from a seat (opponents' face-down tiles, the
    deck's order, the RNG) give equal numeric infos; the env writes exactly `numeric_info`."""
    rng = np.random.default_rng(3)
    compared = 0
    for game in random_states(3, 21, every=3):
        for viewer in range(3):
            other = game.clone()
            for owner in set(range(3)) - {viewer}:
                swapped = swap_board_and_hand_tile(other, owner, rng)
                other = other if swapped is None else swapped
            rng.shuffle(other.deck)
            other.rng = np.random.default_rng(int(rng.integers(2**31)))
            a, b = numeric_info(game), numeric_info(other)
            assert a.keys() == b.keys()
            assert all(np.array_equal(a[k], b[k]) for k in a)
            compared += 1
    assert compared >= 30
    env = farlight_v0.env(num_players=3, infos="numeric")
    env.reset(seed=2)
    for agent in env.agent_iter(200):
        expected = numeric_info(env.unwrapped.game)
        assert all(np.array_equal(env.infos[agent][k], expected[k]) for k in expected)
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(int(legal[0]) if len(legal) else None)


def test_numeric_infos_pass_pettingzoo_api_test() -> None:
    api_test(farlight_v0.env(num_players=3, infos="numeric"), num_cycles=200)


def test_an_illegal_action_names_the_offending_seat_in_numeric_infos() -> None:
    env = farlight_v0.env(num_players=3, illegal_action="terminate", infos="numeric")
    env.reset(seed=0)
    offender = env.agent_selection
    obs = env.observe(offender)
    env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    for agent in env.possible_agents:
        assert env.infos[agent]["illegal_action"] == int(offender[-1])
        assert env.terminations[agent]


def test_the_infos_option_is_checked_and_pickles() -> None:
    with pytest.raises(ConfigError, match=r"infos must be one of \('full', 'numeric'\)"):
        farlight_v0.raw_env(infos="tensor")
    env = pickle.loads(pickle.dumps(farlight_v0.raw_env(num_players=2, infos="numeric")))
    assert env.info_mode == "numeric"
    env.reset(seed=0)
    assert tuple(env.infos["player_0"]) == NUMERIC_INFO_KEYS
    assert farlight_v0.raw_env().info_mode == "full"


def test_a_subgame_with_numeric_infos_lets_its_autopilot_plan_on_the_view() -> None:
    """The autopilot (heuristic) reads the seat's view, which numeric infos do not carry."""
    env = farlight_v0.env(num_players=2, infos="numeric", learner_decisions="bidding")
    seen = play(env, seed=6)
    assert {PHASES[i["decision"]] for i in seen[:-2]} == {Phase.BIDDING}


def test_the_single_agent_env_takes_numeric_infos() -> None:
    env = FarlightSingleAgentEnv(num_players=2, learner_seat=0, infos="numeric")
    _obs, info = env.reset(seed=0)
    assert tuple(info) == ("learner_seat", *NUMERIC_INFO_KEYS)
    done = False
    while not done:
        action = int(np.flatnonzero(env.action_masks())[0])
        _obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    assert info["end_reason"] >= 0 and info["scores"].shape == (2,)
    assert FarlightSingleAgentEnv(num_players=2).reset(seed=0)[1]["phase"] == "bidding"


def test_numeric_info_of_a_fresh_game() -> None:
    info = numeric_info(FarlightGame(4, seed=0))
    assert info["phase"] == PHASES.index(Phase.BIDDING) and info["end_reason"] == -1
    assert info["scores"].tolist() == [0, 0, 0, 0] and info["illegal_action"] == -1


@pytest.mark.parametrize("infos", ["full", "numeric"])
def test_an_info_kept_from_an_earlier_step_keeps_its_values(infos: str) -> None:
    """Libraries that store infos (RLlib's episodes, replay buffers) must not see later
    values appear in earlier steps: the env gives a fresh dict when phase or round changes."""
    env = farlight_v0.env(num_players=2, infos=infos)
    env.reset(seed=5)
    kept = []
    rng = np.random.default_rng(0)
    for _agent in env.agent_iter():
        obs, _reward, term, trunc, info = env.last()
        kept.append((info, dict(info)))
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert len({id(info) for info, _ in kept}) > 2  # new dicts as the game went on
    for info, snapshot in kept:
        assert info.keys() == snapshot.keys()
        for key, value in snapshot.items():
            assert np.array_equal(info[key], value) if key != "view" else info[key] is value
