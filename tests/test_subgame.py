"""The sub-game as one driver (farlight_env/env/subgame.py): `learner_decisions` is parsed once,
at the API edge, into a typed `LearnerDecisions`; the AEC env, the single-agent env, the vector
env and RLlib's league env all play the same sub-game through `SubGame`, so the same seed and
learner actions give the same decisions and the same game; a bad kind is one clear error."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import pytest

from agents.farlight.subgame import SubgameAgent
from farlight_env import farlight_v0
from farlight_env.env.autopilot import DECISION_KINDS
from farlight_env.env.single_agent import FarlightSingleAgentEnv
from farlight_env.env.subgame import FULL_GAME, LearnerDecisions
from farlight_env.game import Phase
from farlight_env.game.config import ConfigError
from farlight_env.vector import make_vector_env

KINDS = "bidding,mission"
#: The opponents' part of the same sub-game, parsed before any test counts parses.
TYPED = LearnerDecisions.parse(KINDS)


def pick(mask: np.ndarray) -> int:
    """The learner's move: a fixed legal action of the mask (no generator to keep in step)."""
    legal = np.flatnonzero(mask)
    return int(legal[len(legal) // 2])


class Picker:
    """`pick` as an Agent (the learner's part of the opponent in the single-agent env)."""

    name = "picker"
    needs_observation = False

    def reset(self) -> None:
        pass

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Any) -> int:
        return pick(action_mask)


class FirstLegal(Picker):
    """A deterministic autopilot, the same object in every form (nothing to reseed)."""

    name = "first"

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Any) -> int:
        return int(np.flatnonzero(action_mask)[0])


AUTOPILOT = FirstLegal()


def digest(vector: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(vector).tobytes()).hexdigest()[:16]


def aec_game(game_seed: int, learners: set[int]) -> tuple[list, list]:
    """The AEC env's game at `game_seed`: (its history, the learner decisions of `learners`
    as (seat, kind, mask digest))."""
    env = farlight_v0.env(num_players=2, learner_decisions=KINDS, autopilot=AUTOPILOT)
    env.reset(options={"game_seed": game_seed})
    trace = []
    for agent in env.agent_iter():
        obs, _r, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.unwrapped.agent_name_mapping[agent]
        if seat in learners:
            trace.append((seat, info["decision"], digest(obs["action_mask"])))
        env.step(pick(obs["action_mask"]))
    return list(env.unwrapped.game.history), trace


def single_agent_env(**kwargs: Any) -> dict[str, Any]:
    """Seat 0 learns KINDS; seat 1 is an opponent playing what an AEC learner seat would."""
    opponent = SubgameAgent(Picker(), TYPED, AUTOPILOT)
    return dict(num_players=2, learner_seat=0, opponents=[opponent], **kwargs)


# ------------------------------------------------------------------------- the typed value
def test_learner_decisions_parse_label_and_cover() -> None:
    decisions = LearnerDecisions.parse(" mission, bidding ")
    assert decisions.kinds == {"bidding", "mission"} and decisions.label == "bidding,mission"
    assert decisions.covers("bidding") and decisions.covers(Phase.MISSION)
    assert not decisions.covers("install") and not decisions.covers(Phase.OVER)
    assert not decisions.full and LearnerDecisions.parse(["mission", "bidding"]) == decisions
    assert LearnerDecisions.of(decisions) is decisions  # a typed value is never parsed again
    for spec in ("all", None, list(DECISION_KINDS)):
        assert LearnerDecisions.parse(spec) == FULL_GAME
    assert FULL_GAME.full and FULL_GAME.label == "all"
    with pytest.raises(AttributeError):
        decisions.kinds = frozenset()  # type: ignore[misc] - frozen


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every value `LearnerDecisions.parse` is called with, from now on."""
    seen: list[Any] = []
    original = LearnerDecisions.parse.__func__  # type: ignore[attr-defined]

    def counting(cls: type[LearnerDecisions], spec: Any) -> LearnerDecisions:
        seen.append(spec)
        return original(cls, spec)

    monkeypatch.setattr(LearnerDecisions, "parse", classmethod(counting))
    return seen


def play_single(env: FarlightSingleAgentEnv, seed: int) -> None:
    env.reset(seed=seed)
    done = False
    while not done:
        _obs, _r, term, trunc, _info = env.step(pick(env.action_masks()))
        done = term or trunc


def test_each_env_form_parses_the_user_s_value_once(parses: list[Any]) -> None:
    env = farlight_v0.env(num_players=2, learner_decisions=KINDS, autopilot="heuristic")
    env.reset(seed=1)
    for _ in range(20):
        env.step(pick(env.last()[0]["action_mask"]))
    assert parses == [KINDS]
    play_single(FarlightSingleAgentEnv(**single_agent_env(learner_decisions=KINDS)), 2)
    assert parses == [KINDS] * 2
    vector = make_vector_env(3, **single_agent_env(learner_decisions=KINDS))
    vector.reset(seed=0)
    for _ in range(5):
        vector.step(np.array([pick(m) for m in vector.action_masks()]))
    assert parses == [KINDS] * 3  # once for the three games


def test_a_training_run_parses_its_learner_decisions_once(parses: list[Any]) -> None:
    pytest.importorskip("torch", reason="training needs the train extra")
    from agents import make
    from training.farlight.config import PPOConfig, ship_encoder_frozen
    from training.farlight.envs import training_env_kwargs
    from training.farlight.subgame import as_learner, is_subgame, subgame_fields, subgame_kwargs

    config = PPOConfig(learner_decisions=["bidding"], autopilot="heuristic", n_envs=1)
    assert parses == [["bidding"]]  # validated: parsed, and the typed value kept
    kwargs = training_env_kwargs(config)
    assert kwargs["learner_decisions"] == LearnerDecisions(frozenset({"bidding"}))
    env = FarlightSingleAgentEnv(num_players=2, opponents="heuristic", **kwargs)
    play_single(env, 0)
    assert is_subgame(config) and not ship_encoder_frozen(config)
    assert subgame_fields(config) == {"learner_decisions": "bidding", "autopilot": "heuristic"}
    learner = as_learner(make("random", seed=0), config)
    assert learner.subgame == subgame_fields(config) and subgame_kwargs(config)
    assert parses == [["bidding"]]
    config.learner_decisions = ["mission"]  # an edited field is read anew, once
    assert subgame_fields(config)["learner_decisions"] == "mission"
    assert subgame_fields(config)["learner_decisions"] == "mission"
    assert parses == [["bidding"], ["mission"]]


def test_the_rllib_env_takes_the_run_s_typed_value(parses: list[Any]) -> None:
    pytest.importorskip("ray.rllib", reason="needs the rllib extra")
    from training.farlight.rllib.env import LeagueEnv

    decisions = LearnerDecisions.parse(KINDS)
    env = LeagueEnv({"num_players": 2, "subgame": {"learner_decisions": decisions}})
    env.reset(seed=0)
    assert env.sub_game.decisions is decisions and parses == [KINDS]


# ------------------------------------------------------------------- one sub-game, all forms
@pytest.mark.parametrize("seed", [0, 3])
def test_the_single_agent_env_plays_the_aec_env_s_game(seed: int) -> None:
    env = FarlightSingleAgentEnv(**single_agent_env(learner_decisions=KINDS, autopilot=AUTOPILOT))
    _obs, info = env.reset(seed=seed)
    trace, done = [], False
    while not done:
        mask = env.action_masks()
        trace.append((0, info["decision"], digest(mask.astype(np.int8))))
        _obs, _r, term, trunc, info = env.step(pick(mask))
        done = term or trunc
    history, expected = aec_game(env.aec.game.seed, {0})
    assert trace == expected and list(env.aec.game.history) == history
    assert {kind for _seat, kind, _mask in trace} <= {"bidding", "mission"}


def test_the_vector_env_plays_the_single_agent_env_s_decisions() -> None:
    kwargs = single_agent_env(learner_decisions=KINDS, autopilot=AUTOPILOT)
    single = FarlightSingleAgentEnv(**kwargs)
    obs, _info = single.reset(seed=7)
    expected, rewards, done = [], [], False
    while not done:
        expected.append((digest(obs), digest(single.action_masks())))
        obs, reward, term, trunc, _info = single.step(pick(single.action_masks()))
        rewards.append(reward)
        done = term or trunc
    vector = make_vector_env(1, **kwargs)
    batch, _infos = vector.reset(seed=7)
    got, got_rewards = [], []
    for _ in expected:
        masks = vector.action_masks()
        got.append((digest(batch["observation"][0]), digest(masks[0])))
        batch, reward, _term, _trunc, _infos = vector.step(np.array([pick(masks[0])]))
        got_rewards.append(float(reward[0]))
    assert got == expected and got_rewards == rewards


def test_the_rllib_env_plays_the_aec_env_s_game() -> None:
    pytest.importorskip("ray.rllib", reason="needs the rllib extra")
    from training.farlight.rllib.env import LeagueEnv

    subgame = {"learner_decisions": KINDS, "autopilot": AUTOPILOT}
    env = LeagueEnv({"num_players": 2, "seed": 4, "subgame": subgame})
    for seed in range(2):
        obs, _ = env.reset(seed=seed)
        trace = []
        while True:
            ((agent, o),) = obs.items()
            seat = env.aec.agent_name_mapping[agent]
            mask = o["action_mask"]
            trace.append((seat, env.aec.game.phase.value, digest(mask)))
            obs, _r, terminated, truncated, _ = env.step({agent: pick(mask)})
            if terminated["__all__"] or truncated["__all__"]:
                break
        history, expected = aec_game(env.aec.game.seed, {0, 1})
        assert trace == expected and list(env.aec.game.history) == history


# ------------------------------------------------------------------------------- mistakes
VALID = ", ".join(DECISION_KINDS)
EXPECTED = f"learner_decisions: unknown decision kind 'bid'; expected 'all' or some of {VALID}"


def test_an_unknown_kind_is_one_clear_error_in_every_form() -> None:
    makers = [
        lambda: LearnerDecisions.parse("bid"),
        lambda: farlight_v0.env(num_players=2, learner_decisions="bid"),
        lambda: FarlightSingleAgentEnv(num_players=2, learner_decisions=["bid"]),
        lambda: make_vector_env(2, learner_decisions={"bid"}),
        lambda: SubgameAgent(Picker(), "bid", AUTOPILOT),
    ]
    for build in makers:
        with pytest.raises(ConfigError) as refused:
            build()
        assert str(refused.value) == EXPECTED


def test_a_training_config_refuses_an_unknown_kind_in_one_line() -> None:
    pytest.importorskip("torch", reason="training needs the train extra")
    from training.farlight.config import PPOConfig

    with pytest.raises(ValueError) as refused:
        PPOConfig(learner_decisions=["bid"])
    assert str(refused.value) == "--" + EXPECTED.replace("_", "-")


def test_a_typed_value_holds_only_decision_kinds() -> None:
    with pytest.raises(ConfigError, match="are not decision kinds"):
        LearnerDecisions(frozenset({"flying"}))
    with pytest.raises(ConfigError, match="are not decision kinds"):
        LearnerDecisions(frozenset())
