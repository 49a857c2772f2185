"""The rollout agent: the policy's favourite unless play-outs in sampled worlds say otherwise.

It must pick legal moves in every kind of decision at 2-5 players without touching the game it
is shown, replay a seeded game exactly, decide on what its seat may see only (R-BID-5,
R-SETUP-2: worlds are drawn from the seat's view), really override the policy where the
play-outs disagree, and refuse settings that would make no search or an endless one.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_agents import (
    PLAYER_COUNTS,
    act,
    assert_legal_in_every_kind,
    bidding_states_with_hidden_tiles,
    play_env_game,
    random_play_states,
    tools,
)
from test_hidden import board_tiles, with_other_hidden_facts

torch = pytest.importorskip("torch", reason="the rollout agent plays a policy (train extra)")

from agents import make  # noqa: E402 - after the importorskip above
from agents.farlight.policy import SHIPPED_POLICY  # noqa: E402
from evaluation.eval_v1 import _file_hash  # noqa: E402
from farlight_env.game import FarlightGame  # noqa: E402

torch.set_num_threads(1)
#: Search at every decision where the policy has two moves above 2%, in one sampled world.
ALWAYS = {"confidence": 1.0, "worlds": 1, "candidates": 2}


@pytest.fixture(scope="module")
def states() -> dict[int, dict[str, list[FarlightGame]]]:
    return random_play_states()


def searcher(seed: int = 0, **settings: object) -> object:
    return make("rollout", seed=seed, **{**ALWAYS, **settings})


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_legal_in_every_kind_of_decision_and_the_game_is_untouched(states, num_players) -> None:
    agent = searcher(seed=num_players)
    assert_legal_in_every_kind(agent, states[num_players])
    assert agent.searches >= 4, "play-outs settled too few decisions to test anything"


def test_same_seed_same_game_and_reset_replays() -> None:
    runs = [play_env_game([searcher(seed=s) for s in range(2)], 4, max_rounds=2) for _ in "ab"]
    (game_a, played_a), (game_b, played_b) = runs
    assert played_a == played_b
    assert game_a.to_json() == game_b.to_json()


def test_reset_restarts_its_seeded_worlds(states) -> None:
    agent = searcher(seed=5, worlds=2)
    decisions = [act(agent, game) for game in states[2]["bidding"][:8]]
    agent.reset()
    assert [act(agent, game) for game in states[2]["bidding"][:8]] == decisions


def test_decision_is_blind_to_hidden_facts(states) -> None:
    """R-BID-5, R-SETUP-2: swapping facts the seat cannot see changes no decision."""
    rng = np.random.default_rng(0)
    searches = 0
    for game in bidding_states_with_hidden_tiles(states, count=6):
        seat = game.current_player
        other = with_other_hidden_facts(game, seat, rng)
        assert any(board_tiles(game, q) != board_tiles(other, q) for q in range(game.num_players))
        first, second = searcher(seed=11), searcher(seed=11)
        a, b = act(first, game), act(second, other)
        assert a == b, f"decision {a} became {b} when only hidden facts changed"
        assert first.searches == second.searches
        searches += first.searches
    assert searches >= 3, "too few of these decisions went to play-outs to test anything"


def test_play_outs_override_the_policy_where_they_disagree(states) -> None:
    """The search is real: in some positions the play-outs pick another move than the policy's
    favourite; with a confidence no favourite falls below, it is the policy exactly."""
    policy = make("ppo")
    positions = [g for n in (2, 3) for g in states[n]["bidding"][::6]]
    favourites = [act(policy, game) for game in positions]
    searched = [act(searcher(seed=1, worlds=2, candidates=3), game) for game in positions]
    assert sum(a != b for a, b in zip(favourites, searched, strict=True)) > 0
    never_searches = make("rollout", seed=1, confidence=1e-9)
    assert [act(never_searches, game) for game in positions] == favourites


@pytest.mark.parametrize("num_players", [2, 4])
def test_self_play_outs_are_legal_and_never_ask_the_heuristic(
    states, num_players, monkeypatch
) -> None:
    """With opponents="self" (the default) the policy plays every seat of its play-outs; the
    heuristic must never be consulted, and with opponents="heuristic" it must be."""
    from agents.farlight.heuristic import HeuristicAgent

    monkeypatch.setattr(HeuristicAgent, "choose", _refuse)
    agent = searcher(seed=num_players)
    assert_legal_in_every_kind(agent, states[num_players])
    assert agent.searches >= 4, "play-outs settled too few decisions to test anything"
    modelled = searcher(seed=num_players, opponents="heuristic")
    with pytest.raises(AssertionError, match="heuristic consulted"):
        assert_legal_in_every_kind(modelled, states[num_players])


def _refuse(*_: object) -> None:
    raise AssertionError("heuristic consulted")


def test_heuristic_play_outs_are_blind_to_hidden_facts(states) -> None:
    """R-BID-5, R-SETUP-2: with the heuristic playing the others, worlds still come from the
    seat's view only."""
    rng = np.random.default_rng(1)
    for game in bidding_states_with_hidden_tiles(states, count=4):
        other = with_other_hidden_facts(game, game.current_player, rng)
        first = searcher(seed=3, opponents="heuristic")
        second = searcher(seed=3, opponents="heuristic")
        assert act(first, game) == act(second, other)


@pytest.mark.parametrize(
    ("setting", "value"),
    [("candidates", 1), ("candidates", 11), ("worlds", 0), ("worlds", 65), ("worlds", True),
     ("confidence", 0.0), ("confidence", 1.5), ("confidence", "high"),
     ("opponents", "nobody"), ("opponents", None)],
)  # fmt: skip
def test_bad_settings_are_refused_with_their_name(setting: str, value: object) -> None:
    with pytest.raises(ValueError, match=f"rollout {setting} must be"):
        make("rollout", **{setting: value})


def test_a_searched_decision_needs_the_player_view() -> None:
    game = FarlightGame(2, seed=0)
    codec, encoder = tools(game)
    with pytest.raises(ValueError, match=r"info\['view'\]"):
        searcher().act(encoder.encode(game, 0), codec.mask(game), {})


def test_the_benchmark_fingerprints_the_policy_file_it_plays(tmp_path) -> None:
    """farlight-eval-v1 records which policy file a rollout scorecard was made with."""
    copy = tmp_path / "copy.pt"
    copy.write_bytes(SHIPPED_POLICY.read_bytes() + b"")
    shipped = _file_hash("rollout")
    assert shipped is not None and shipped == _file_hash("ppo")
    assert _file_hash("rollout", {"path": str(copy)}) == shipped
    copy.write_bytes(SHIPPED_POLICY.read_bytes()[:-1] + b"x")
    assert _file_hash("rollout", {"path": str(copy)}) != shipped
