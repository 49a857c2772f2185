"""The PettingZoo AEC environment: API conformance, seeding, rendering, configuration errors,
end-of-game rewards in every mode, illegal actions, masks and action descriptions."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.utils import wrappers

import farlight_env
from farlight_env import farlight_v0
from farlight_env.env.aec import final_rewards, raw_env
from farlight_env.game import ChooseEngine, EndReason, FarlightGame, Phase

try:  # rendering lives in its own modules; the render test needs them
    import farlight_env.env.render_picture  # noqa: F401
    import farlight_env.env.render_text  # noqa: F401

    RENDER_IMPORT_ERROR: str | None = None
except ImportError as exc:  # pragma: no cover - only while a render module is missing
    RENDER_IMPORT_ERROR = f"farlight_env.env's render modules cannot be imported: {exc}"

PLAYER_COUNTS = (2, 3, 4, 5)
REWARD_MODES = ("win", "margin", "rank")


def random_action(obs: dict, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(obs["action_mask"])
    return int(legal[rng.integers(len(legal))])


def play_to_end(env, rng: np.random.Generator, before_step: Callable | None = None) -> dict:
    """Drive `env.agent_iter()` with random legal actions to the end.

    Returns, per agent, what `env.last()` and `_cumulative_rewards` said when it was done.
    Every reward seen before an agent is done must be 0 (rewards come at the end only).
    """
    done: dict[str, dict] = {}
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        if termination or truncation:
            assert agent not in done, f"{agent} reported done twice"
            done[agent] = {
                "reward": reward,
                "cumulative": env.unwrapped._cumulative_rewards[agent],
                "termination": termination,
                "truncation": truncation,
                "info": dict(info),
                "mask": obs["action_mask"].copy(),
            }
            env.step(None)
            continue
        assert reward == 0.0, f"{agent} got reward {reward} before the end"
        action = random_action(obs, rng)
        if before_step is not None:
            before_step(env, action)
        env.step(action)
    return done


# ------------------------------------------------------------------ pettingzoo test suites
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_api_test(num_players: int) -> None:
    api_test(farlight_v0.env(num_players=num_players), num_cycles=300)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_seed_test(num_players: int) -> None:
    seed_test(lambda: farlight_v0.env(num_players=num_players), num_cycles=300)


@pytest.mark.skipif(RENDER_IMPORT_ERROR is not None, reason=RENDER_IMPORT_ERROR or "")
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_pettingzoo_render_test(num_players: int, capsys: pytest.CaptureFixture) -> None:
    def make(render_mode: str | None = None):
        return farlight_v0.env(num_players=num_players, render_mode=render_mode)

    render_test(make, custom_tests={"ansi": lambda text: len(text.strip()) > 0})
    assert capsys.readouterr().out.strip()  # "human" printed the board


def test_raw_env_passes_api_test_too() -> None:
    api_test(farlight_v0.raw_env(num_players=3), num_cycles=200)


# ----------------------------------------------------------------------- metadata, make
def test_metadata() -> None:
    meta = raw_env.metadata
    assert meta["name"] == "farlight_v0"
    assert meta["is_parallelizable"] is False
    assert set(meta["render_modes"]) == {"ansi", "human", "rgb_array"}
    env = farlight_v0.env()
    assert env.metadata["name"] == "farlight_v0"
    assert isinstance(env, wrappers.OrderEnforcingWrapper)
    assert isinstance(env.unwrapped, raw_env)


def test_the_docs_say_pettingzoo_make_needs_1_27_while_the_floor_is_lower() -> None:
    """pyproject allows a pettingzoo without make() (AgileRL's venv pins <1.27): every page
    that shows `pettingzoo.make` says, right there, that it needs 1.27."""
    root = Path(__file__).resolve().parents[1]
    floor = re.search(r'"pettingzoo>=([0-9.]+)"', (root / "pyproject.toml").read_text())
    assert floor is not None, "pyproject.toml has no pettingzoo floor"
    if tuple(map(int, floor.group(1).split("."))) >= (1, 27):
        return
    pages = [root / "README.md", *sorted((root / "docs").rglob("*.md"))]
    for page in pages:
        text = page.read_text()
        for found in re.finditer(r"pettingzoo\.make\(", text):
            window = text[found.start() : found.start() + 300]
            assert "1.27" in window, f"{page.name}: pettingzoo.make without its 1.27 note"


@pytest.mark.skipif(
    not hasattr(pettingzoo, "make"),
    reason=f"pettingzoo {pettingzoo.__version__} has no make(): its registry arrived in 1.27 "
    "(farlight_env registers only where it exists; AgileRL's venv has 1.26, .ci/agilerl)",
)
def test_pettingzoo_make_builds_the_registered_env() -> None:
    env = pettingzoo.make("aec", farlight_env.PETTINGZOO_ID, num_players=3)
    assert farlight_env.PETTINGZOO_ID == "farlight_env/Farlight-v0"
    assert isinstance(env.unwrapped, raw_env)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    env.reset(seed=0)
    assert env.unwrapped.game.num_players == 3
    obs, *_ = env.last()
    env.step(random_action(obs, np.random.default_rng(0)))
    assert len(env.unwrapped.game.history) == 1


def test_default_is_four_players_and_agent_names() -> None:
    env = farlight_v0.env()
    env.reset(seed=0)
    assert env.possible_agents == [f"player_{i}" for i in range(4)]
    assert env.agents == env.possible_agents
    assert env.agent_selection == "player_0"  # R-SETUP-6: seat 0 starts by default


# ---------------------------------------------------------------------- config errors
@pytest.mark.parametrize(
    ("kwargs", "option"),
    [
        ({"num_players": 6}, "num_players"),
        ({"num_players": 1}, "num_players"),
        ({"num_players": "4"}, "num_players"),
        ({"reward_mode": "score"}, "reward_mode"),
        ({"illegal_action": "ignore"}, "illegal_action"),
        ({"render_mode": "svg"}, "render_mode"),
        ({"grid_size": 4}, "grid_size"),
        ({"max_rounds": 0}, "max_rounds"),
    ],
)
@pytest.mark.parametrize("factory", [farlight_v0.env, farlight_v0.raw_env], ids=["env", "raw"])
def test_bad_config_raises_naming_the_option(factory, kwargs: dict, option: str) -> None:
    with pytest.raises(ValueError, match=option) as info:
        factory(**kwargs)
    value = next(iter(kwargs.values()))
    assert repr(value) in str(info.value) or str(value) in str(info.value)


def test_spaces_have_the_same_shape_for_every_player_count() -> None:
    shapes = set()
    for num_players in PLAYER_COUNTS:
        env = farlight_v0.env(num_players=num_players)
        for agent in env.possible_agents:
            space = env.observation_space(agent)
            obs_space, mask_space = space["observation"], space["action_mask"]
            assert obs_space.dtype == np.float32 and mask_space.dtype == np.int8
            assert mask_space.shape == (env.action_space(agent).n,)
            shapes.add((obs_space.shape, mask_space.shape, env.action_space(agent).n))
    assert len(shapes) == 1, shapes


# ----------------------------------------------------------------------- full games
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
@pytest.mark.parametrize("reward_mode", REWARD_MODES)
def test_full_random_game_every_agent_done_with_its_final_reward(
    num_players: int, reward_mode: str
) -> None:
    env = farlight_v0.env(num_players=num_players, reward_mode=reward_mode)
    env.reset(seed=num_players)
    rng = np.random.default_rng(num_players)
    done = play_to_end(env, rng)
    game = env.unwrapped.game
    assert game.is_over and env.agents == []
    assert set(done) == set(env.possible_agents)
    expected = final_rewards(game, reward_mode)
    truncated = game.end_reason is EndReason.ROUND_CAP
    for seat, agent in enumerate(env.possible_agents):
        record = done[agent]
        assert record["reward"] == expected[seat]
        assert record["cumulative"] == expected[seat]
        assert record["termination"] is (not truncated)
        assert record["truncation"] is truncated
        assert record["info"]["scores"] == game.scores()
        assert record["info"]["winners"] == game.winners()
        assert record["info"]["end_reason"] == game.end_reason.value
        assert not record["mask"].any(), "a finished game has no legal action"
    if reward_mode == "win":
        assert sorted(expected) in (
            [-1.0] * (num_players - 1) + [1.0],
            sorted([0.0] * len(game.winners()) + [-1.0] * (num_players - len(game.winners()))),
        )


def _hand_expected(scores: list[int], winners: list[int], mode: str) -> list[float]:
    """The reward rules of DESIGN written out long-hand, independently of the env."""
    n = len(scores)
    if mode == "win":
        if len(winners) == 1:
            return [1.0 if p == winners[0] else -1.0 for p in range(n)]
        return [0.0 if p in winners else -1.0 for p in range(n)]
    if mode == "margin":
        out = []
        for p in range(n):
            best_other = max(s for q, s in enumerate(scores) if q != p)
            out.append(float(scores[p] - best_other))
        return out
    # rank: positions 0..n-1 map linearly to +1..-1; tied seats share the mean of their positions
    order = sorted(range(n), key=lambda p: -scores[p])
    value_at = [1.0 - 2.0 * k / (n - 1) for k in range(n)]
    out = [0.0] * n
    for p in range(n):
        positions = [k for k, q in enumerate(order) if scores[q] == scores[p]]
        out[p] = sum(value_at[k] for k in positions) / len(positions)
    return out


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_final_rewards_match_hand_computed_values_on_random_games(num_players: int) -> None:
    for seed in range(6):
        game = FarlightGame(num_players, seed=seed)
        rng = np.random.default_rng(seed)
        while not game.is_over:
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])
        scores, winners = game.scores(), game.winners()
        assert winners and max(scores) == scores[winners[0]]
        for mode in REWARD_MODES:
            got = final_rewards(game, mode)
            want = _hand_expected(scores, winners, mode)
            assert got == pytest.approx(want, abs=1e-12), (mode, scores, winners)
        assert math.isclose(sum(final_rewards(game, "rank")), 0.0, abs_tol=1e-9)


def _finished_identical_game(points: list[int], **edits) -> FarlightGame:
    """A fresh game (all seats alike: core only, 3 crew, 0 science) with mission points set,
    ended by final scoring (R-END) so the awards tie for everyone."""
    game = FarlightGame(len(points), seed=0)
    game.points = list(points)
    for name, value in edits.items():
        setattr(game, name, value)
    game.invalidate_cache()
    game._end(EndReason.CLIMACTIC)
    return game


def test_scripted_shared_victory_rewards() -> None:
    """R-END-4: equal totals and identical award values for every tiebreak -> shared victory."""
    game = _finished_identical_game([5, 5, 0])
    # 3 face-up awards tied by all (+15 each), ceil((3 crew + 0 science) / 3) = 1 token
    assert game.scores() == [21, 21, 16]
    assert game.winners() == [0, 1]
    assert final_rewards(game, "win") == [0.0, 0.0, -1.0]
    assert final_rewards(game, "margin") == [0.0, 0.0, -5.0]
    assert final_rewards(game, "rank") == [0.5, 0.5, -1.0]


def test_scripted_tiebreak_gives_a_sole_winner_but_rank_and_margin_see_a_tie() -> None:
    """R-END-4: the face-down Commander award breaks a tie in totals; win mode follows
    winners(), rank and margin follow the equal scores."""
    game = _finished_identical_game(
        [0, 0],
        crew=[5, 4],  # tokens ceil(5/3) = ceil(4/3) = 2 for both
        awards_up=["Colonist", "Juggernaut", "Potential"],
        awards_down=["Commander", "Efficiency", "Researcher", "Rocketeer"],
    )
    assert game.scores() == [17, 17]
    assert game.winners() == [0]
    assert final_rewards(game, "win") == [1.0, -1.0]
    assert final_rewards(game, "margin") == [0.0, 0.0]
    assert final_rewards(game, "rank") == [0.0, 0.0]


def test_scripted_rank_and_margin_with_a_tie_for_last() -> None:
    game = _finished_identical_game([10, 3, 7, 3])
    assert game.scores() == [26, 19, 23, 19]
    assert game.winners() == [0]
    assert final_rewards(game, "win") == [1.0, -1.0, -1.0, -1.0]
    assert final_rewards(game, "margin") == [3.0, -7.0, -3.0, -7.0]
    assert final_rewards(game, "rank") == pytest.approx([1.0, -2.0 / 3.0, 1.0 / 3.0, -2.0 / 3.0])


def test_final_rewards_rejects_an_unknown_mode() -> None:
    game = _finished_identical_game([1, 0])
    with pytest.raises(ValueError, match="reward_mode"):
        final_rewards(game, "elo")


def test_env_shared_victory_gives_zero_to_each_winner() -> None:
    """The env pays what final_rewards says: with winners() patched to two seats just before
    the game-ending action, both get 0 and the third -1."""
    env = farlight_v0.env(num_players=3)
    env.reset(seed=5)
    raw = env.unwrapped

    def patch_before_last_action(env, action: int) -> None:
        game = raw.game
        lookahead = game.clone()
        lookahead.apply(raw.codec.decode(action, lookahead))
        if lookahead.is_over:
            game.winners = lambda: [0, 1]  # instance attribute shadows the method

    done = play_to_end(env, np.random.default_rng(5), before_step=patch_before_last_action)
    assert [done[a]["reward"] for a in env.possible_agents] == [0.0, 0.0, -1.0]
    assert [done[a]["cumulative"] for a in env.possible_agents] == [0.0, 0.0, -1.0]
    assert done["player_2"]["info"]["winners"] == [0, 1]


@pytest.mark.parametrize("reward_mode", REWARD_MODES)
def test_round_cap_truncates_every_agent_with_its_final_reward(reward_mode: str) -> None:
    """R-RESET-6: max_rounds=1 ends the game after round 1 as truncated, final scoring applied."""
    env = farlight_v0.env(num_players=3, max_rounds=1, reward_mode=reward_mode)
    env.reset(seed=3)
    done = play_to_end(env, np.random.default_rng(0))
    game = env.unwrapped.game
    assert game.end_reason is EndReason.ROUND_CAP and game.round == 1
    expected = final_rewards(game, reward_mode)
    for seat, agent in enumerate(env.possible_agents):
        assert done[agent]["truncation"] is True
        assert done[agent]["termination"] is False
        assert done[agent]["reward"] == expected[seat]
        assert done[agent]["cumulative"] == expected[seat]
        assert done[agent]["info"]["end_reason"] == "round_cap"
    if reward_mode == "win":
        assert sorted(expected) != [0.0] * 3  # final scoring did happen


# ----------------------------------------------------------------------- illegal actions
def _illegal_index(obs: dict) -> int:
    return int(np.flatnonzero(obs["action_mask"] == 0)[0])


def _advance_to_phase(env, phase: Phase, rng: np.random.Generator) -> None:
    while env.unwrapped.game.phase is not phase:
        obs, *_ = env.last()
        assert not env.unwrapped.game.is_over, f"game ended before phase {phase.value}"
        env.step(random_action(obs, rng))


@pytest.mark.parametrize("phase", [Phase.BIDDING, Phase.INSTALL])
def test_illegal_action_raises_by_default_naming_index_and_phase(phase: Phase) -> None:
    env = farlight_v0.env(num_players=3)
    env.reset(seed=2)
    _advance_to_phase(env, phase, np.random.default_rng(2))
    obs, *_ = env.last()
    bad = _illegal_index(obs)
    game = env.unwrapped.game
    before, agent = game.to_json(), env.agent_selection
    with pytest.raises(ValueError, match=rf"illegal action {bad} .*{agent}.*phase {phase.value}"):
        env.step(bad)
    # nothing half-applied: same state, same agent, and play goes on
    assert game.to_json() == before and env.agent_selection == agent
    env.step(random_action(obs, np.random.default_rng(0)))


BAD_ACTIONS = [None, True, False, 0.7, 1.0, "0", float("nan"), np.float64(3.0), np.bool_(True)]


@pytest.mark.parametrize("make", [farlight_v0.raw_env, farlight_v0.env], ids=["raw", "wrapped"])
@pytest.mark.parametrize("action", BAD_ACTIONS, ids=repr)
def test_a_non_integer_action_is_refused_not_cast(make, action: object) -> None:
    """True, 0.7, "0", nan and None (for a live agent) are TypeErrors naming the agent and the
    phase, also with illegal_action="terminate"; nothing changes and play goes on."""
    env = make(num_players=2, illegal_action="terminate")
    env.reset(seed=0)
    game = env.unwrapped.game
    before = game.to_json()
    with pytest.raises(TypeError, match=r"action of player_0 in phase bidding must be an int"):
        env.step(action)
    assert game.to_json() == before and not any(env.unwrapped.terminations.values())
    obs, *_ = env.last()
    env.step(random_action(obs, np.random.default_rng(0)))


@pytest.mark.parametrize("index", [-1, 10**6, np.int64(-3)])
def test_an_out_of_range_index_is_a_value_error(index) -> None:
    env = farlight_v0.env(num_players=2)
    env.reset(seed=0)
    with pytest.raises(ValueError, match="out of range"):
        env.step(index)


@pytest.mark.parametrize("kind", [np.int16, np.int32, np.int64, np.uint16, int])
def test_numpy_integer_actions_play_a_whole_game(kind) -> None:
    env = farlight_v0.env(num_players=2)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    for _agent in env.agent_iter():
        obs, _r, term, trunc, _info = env.last()
        env.step(None if term or trunc else kind(random_action(obs, rng)))
    game = env.unwrapped.game
    assert game.is_over
    assert FarlightGame.from_json(game.to_json()).to_json() == game.to_json()


@pytest.mark.parametrize("illegal_reward", [-1.0, -3.5])
def test_illegal_action_terminate_penalises_only_the_offender(illegal_reward: float) -> None:
    env = farlight_v0.env(num_players=4, illegal_action="terminate", illegal_reward=illegal_reward)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(7):  # a few legal moves first, so the offender is not seat 0
        obs, *_ = env.last()
        env.step(random_action(obs, rng))
    offender = env.agent_selection
    obs, *_ = env.last()
    env.step(_illegal_index(obs))
    done = play_to_end(env, rng)
    assert set(done) == set(env.possible_agents) and env.agents == []
    for agent, record in done.items():
        assert record["termination"] is True and record["truncation"] is False
        assert record["reward"] == (illegal_reward if agent == offender else 0.0)
        assert record["cumulative"] == record["reward"]
        assert record["info"]["illegal_action"] == offender


def test_default_illegal_reward_is_minus_one() -> None:
    env = farlight_v0.env(num_players=2, illegal_action="terminate")
    env.reset(seed=0)
    obs, *_ = env.last()
    env.step(_illegal_index(obs))
    done = play_to_end(env, np.random.default_rng(0))
    assert done["player_0"]["reward"] == -1.0 and done["player_1"]["reward"] == 0.0


# --------------------------------------------------------------------------------- masks
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_only_the_acting_agent_has_a_non_zero_mask(num_players: int) -> None:
    env = farlight_v0.env(num_players=num_players)
    env.reset(seed=10 + num_players)
    raw = env.unwrapped
    rng = np.random.default_rng(num_players)
    steps = 0
    while not raw.game.is_over:
        acting = env.agent_selection
        assert raw.agent_name_mapping[acting] == raw.game.current_player
        if steps % 5 == 0:
            for agent in env.agents:
                mask = raw.observe(agent)["action_mask"]
                np.testing.assert_array_equal(mask, raw.action_mask(agent))
                if agent == acting:
                    np.testing.assert_array_equal(mask, raw.codec.mask(raw.game))
                    assert mask.sum() == len(raw.game.legal_actions()) >= 1
                else:
                    assert not mask.any(), f"{agent} is not to act but has legal actions"
        obs, *_ = env.last()
        env.step(random_action(obs, rng))
        steps += 1
    for agent in raw.possible_agents:
        assert not raw.observe(agent)["action_mask"].any()


# -------------------------------------------------------------------- describe_action
def test_describe_action_names_every_index_in_every_decision_kind() -> None:
    env = farlight_v0.env(num_players=3)
    raw = env.unwrapped
    kinds_seen: set[str] = set()
    wanted = {"bidding", "refit", "engineer", "select", "place", "upgrade", "overhaul", "mission"}
    for seed in range(40):
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while not raw.game.is_over:
            game = raw.game
            kind = game.phase.value
            if game.phase is Phase.INSTALL:
                kind = "select" if game.selected_part() is None else "place"
            if kind not in kinds_seen:
                kinds_seen.add(kind)
                mask = raw.action_mask(env.agent_selection)
                for index in range(raw.codec.size):
                    text = raw.describe_action(index)
                    assert isinstance(text, str) and text.strip(), index
                    if mask[index]:
                        action = raw.codec.decode(index, game)
                        if isinstance(action, ChooseEngine):
                            value = game.engine_values[action.rank]
                            assert text.startswith(f"{action} (now {value}): ")
                            if game.phase is Phase.OVERHAUL:  # R-BEN-3: says what it does
                                assert text.endswith("the overhaul sets it to 6")
                            else:
                                assert text.endswith(f"+1 makes it {min(6, value + 1)}")
                        else:
                            assert text == str(action)
            obs, *_ = env.last()
            env.step(random_action(obs, rng))
        if kinds_seen >= wanted:
            break
    assert kinds_seen >= wanted, f"missing {wanted - kinds_seen}"
    with pytest.raises(ValueError, match="out of range"):
        raw.describe_action(raw.codec.size)
