"""Sub-games by decision kind (docs/subgames.md): the learner is asked only for the kinds it
studies, the autopilot plays the rest from its seat's view, and the game is the full game
(rewards, termination, seeds and records unchanged)."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from agents import make
from agents.farlight.heuristic import HeuristicAgent
from agents.farlight.subgame import KIND_AT, SubgameAgent, decision_of
from farlight_env import farlight_v0
from farlight_env.env.autopilot import DECISION_KINDS, KIND_BLOCKS, parse_decisions
from farlight_env.env.single_agent import FarlightSingleAgentEnv
from farlight_env.game import FarlightGame, Phase
from farlight_env.game.config import ConfigError
from farlight_env.game.hidden import PlayerView
from farlight_env.game.scoring import final_rewards
from farlight_env.records import build_record, verify_record

BIDDING = {"bidding"}


def bidding_env(**kw):
    return farlight_v0.env(num_players=3, learner_decisions=BIDDING, autopilot="heuristic", **kw)


def play_masked_random(env, seed: int, rewards: dict | None = None) -> list[str]:
    """Play one game with a masked random learner; the decision kinds it was asked for (and
    each agent's final reward into `rewards`)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    kinds = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            if rewards is not None:
                rewards[agent] = reward
            env.step(None)
            continue
        kinds.append(info["decision"])
        assert KIND_AT[int(np.argmax(obs["observation"][: len(KIND_AT)]))] == info["decision"]
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        assert agent is not None
    return kinds


# ------------------------------------------------------------------ PettingZoo's own tests
def test_bidding_subgame_passes_pettingzoo_api_and_seed_tests() -> None:
    api_test(bidding_env(), num_cycles=300)
    seed_test(functools.partial(bidding_env), num_cycles=80)


@pytest.mark.parametrize("kinds", [{"bidding"}, {"install"}, {"mission", "upgrade"}])
def test_the_learner_is_asked_only_for_its_kinds(kinds: set[str]) -> None:
    env = farlight_v0.env(num_players=2, learner_decisions=kinds, autopilot="heuristic")
    for seed in range(3):
        got: dict[str, float] = {}
        asked = play_masked_random(env, seed, got)
        assert asked and set(asked) <= kinds
        game = env.unwrapped.game
        assert game.is_over  # every game is played to its end, as the full game is
        rewards = final_rewards(game, env.unwrapped.reward_mode)
        assert [got[a] for a in env.possible_agents] == rewards


def test_all_is_the_full_game_and_asks_every_kind() -> None:
    env = farlight_v0.env(num_players=2, learner_decisions="all")
    asked = {k for s in range(3) for k in play_masked_random(env, s)}
    assert {"bidding", "install"} <= asked
    assert not env.unwrapped.autopilot.active


def test_a_subgame_replays_from_its_record() -> None:
    """The autopilot's moves are the game's moves: the record replays to the same end."""
    env = bidding_env()
    for seed in range(3):
        play_masked_random(env, seed)
        game = env.unwrapped.game
        record = build_record(game, ["learner"] * 3, seed, env.unwrapped.config)
        replayed = verify_record(record)
        assert replayed.scores() == game.scores() and replayed.history == game.history


def test_same_seed_same_game_and_another_seed_another() -> None:
    histories = []
    for seed in (4, 4, 5):
        env = bidding_env()
        play_masked_random(env, seed)
        histories.append(env.unwrapped.game.history)
    assert histories[0] == histories[1] != histories[2]


# --------------------------------------------------------------------- hidden information
def _scrambled(game: FarlightGame, seat: int, rng: np.random.Generator) -> FarlightGame:
    """A copy that differs from `game` only in facts `seat` may not know (deck order, the
    face-down awards' order, the game's generator)."""
    other = game.clone()
    rng.shuffle(other.deck)
    other.awards_down = [other.awards_down[k] for k in rng.permutation(len(other.awards_down))]
    other.rng = np.random.default_rng(int(rng.integers(2**31)))
    other.invalidate_cache()
    return other


class SpyAutopilot:
    """The heuristic as autopilot, checking at every move that what it is handed, and what it
    decides, are the same when the facts its seat may not know are scrambled."""

    name = "spy"
    needs_observation = True

    def __init__(self, env) -> None:
        self.env = env
        self.heuristic = HeuristicAgent(seed=0)
        self.twin = HeuristicAgent(seed=0)
        self.rng = np.random.default_rng(3)
        self.moves = 0

    def reset(self) -> None:
        pass

    def act(self, observation, action_mask, info) -> int:
        raw = self.env.unwrapped
        seat = info["seat"]
        view = info["view"]
        assert isinstance(view, PlayerView) and view.seat == seat
        assert info["decision"] not in BIDDING
        other = _scrambled(raw.game, seat, self.rng)
        assert raw.encoder.encode(other, seat).tobytes() == observation.tobytes()
        twin_view = PlayerView(other, seat)
        assert twin_view.redacted().to_json() == view.redacted().to_json()
        chosen = self.heuristic.act(observation, action_mask, info)
        twin_info = {**info, "view": twin_view}
        assert self.twin.act(observation, raw.codec.mask(other), twin_info) == chosen
        self.moves += 1
        return chosen


def test_the_autopilot_sees_only_its_seats_view() -> None:
    env = farlight_v0.env(num_players=3, learner_decisions=BIDDING, autopilot="heuristic")
    spy = SpyAutopilot(env)
    env = farlight_v0.env(num_players=3, learner_decisions=BIDDING, autopilot=spy)
    spy.env = env
    for seed in range(2):
        play_masked_random(env, seed)
    assert spy.moves > 20


# ------------------------------------------------------------------------- action blocks
def test_action_blocks_hold_every_legal_action_of_their_kind() -> None:
    env = farlight_v0.env(num_players=3)
    raw = env.unwrapped
    blocks = raw.action_blocks()
    assert set(blocks) == set(DECISION_KINDS) == set(KIND_BLOCKS)
    seen = set()
    rng = np.random.default_rng(0)
    for seed in range(4):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _r, term, trunc, info = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            ranges = blocks[info["decision"]]
            assert all(any(a <= i < b for a, b in ranges) for i in legal), info["decision"]
            seen.add(info["decision"])
            env.step(int(legal[rng.integers(len(legal))]))
            assert agent
    assert {"bidding", "install", "mission"} <= seen
    bid = raw.codec.blocks["bid"]
    assert blocks["bidding"] == [(bid.start, bid.stop)]


# --------------------------------------------------------------------- the Gymnasium env
def test_gymnasium_subgame_asks_only_for_bids_and_opponents_play_everything() -> None:
    env = FarlightSingleAgentEnv(
        num_players=2, opponents=[make("heuristic", seed=1)], learner_decisions="bidding"
    )
    for seed in range(3):
        _obs, info = env.reset(seed=seed)
        done = False
        while not done:
            assert info["decision"] == "bidding"
            legal = np.flatnonzero(env.action_masks())
            _obs, reward, term, trunc, info = env.step(int(legal[0]))
            done = term or trunc
        assert env.aec.game.is_over and reward in (-1.0, 0.0, 1.0)
        moves = {type(a).__name__ for a in env.aec.game.history}
        assert {"Install", "SelectPart"} & moves  # installs were played, by someone


def test_gymnasium_make_takes_the_subgame_options() -> None:
    import gymnasium

    env = gymnasium.make(
        "farlight_env/Farlight-v0", learner_decisions=["mission"], autopilot="random"
    )
    _obs, info = env.reset(seed=0)
    assert info["decision"] in ("mission", "over")


# ------------------------------------------------------------------------------- mistakes
@pytest.mark.parametrize(
    ("kinds", "message"),
    [
        ("bid", "unknown decision kind 'bid'"),
        ("all,bidding", "'all' cannot be combined"),
        ("", "unknown decision kind (none)"),
        ([3], "must be names of decision kinds"),
    ],
)
def test_bad_learner_decisions_are_refused(kinds, message: str) -> None:
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_decisions(kinds)


def test_bad_autopilot_is_refused_at_construction() -> None:
    with pytest.raises(ConfigError, match="autopilot: unknown agent 'nobody'"):
        farlight_v0.env(num_players=2, learner_decisions="bidding", autopilot="nobody")
    with pytest.raises(ConfigError, match="autopilot must be"):
        farlight_v0.env(num_players=2, learner_decisions="bidding", autopilot=3)


# ------------------------------------------------------------------------- sub-game agents
def test_subgame_agent_routes_by_decision_kind() -> None:
    env = farlight_v0.env(num_players=2)
    env.reset(seed=2)
    heuristic = make("heuristic", seed=0)

    class Recorder:
        name = "recorder"

        def __init__(self) -> None:
            self.kinds: list[str] = []

        def reset(self) -> None:
            pass

        def act(self, observation, mask, info) -> int:
            self.kinds.append(decision_of(observation, {}))
            return int(np.flatnonzero(mask)[0])

    recorder = Recorder()
    agent = SubgameAgent(recorder, "bidding", heuristic)
    for name in env.agent_iter():
        obs, _r, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.unwrapped.agent_name_mapping[name]
        full = {**info, "seat": seat}
        env.step(agent.act(obs["observation"], obs["action_mask"], full))
    assert recorder.kinds and set(recorder.kinds) == {"bidding"}
    assert agent.subgame == {"learner_decisions": "bidding", "autopilot": "heuristic"}
    assert env.unwrapped.game.phase is Phase.OVER


# ---------------------------------------------------------------------------- the docs page
def test_the_subgames_page_code_runs() -> None:
    """docs/subgames.md's Python blocks run as written (and print what the page says)."""
    import contextlib
    import io
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "subgames.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", page, re.S)
    assert len(blocks) == 2
    for block in blocks:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, "docs/subgames.md", "exec"), {})
        for comment in re.findall(r"# (\[.*)$", block, re.M):
            assert comment.strip() == out.getvalue().strip()
