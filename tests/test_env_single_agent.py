"""The Gymnasium single-agent env: registration, SB3 checks, learner seat, opponent policies,
final rewards, reproducible resets, action masks, illegal actions and a MaskablePPO smoke run."""

from __future__ import annotations

from collections import Counter

import gymnasium
import numpy as np
import pytest

import farlight_env
from farlight_env.env.aec import final_rewards
from farlight_env.env.single_agent import FarlightSingleAgentEnv
from farlight_env.game import FarlightGame

GYM_ID = "farlight_env/Farlight-v0"


def lowest_legal(observation: np.ndarray, action_mask: np.ndarray) -> int:
    """A deterministic opponent: the lowest legal index."""
    return int(np.flatnonzero(action_mask)[0])


class CountingPolicy:
    """Lowest legal index; records the seat to act at every call (read from the live env)."""

    def __init__(self, env: FarlightSingleAgentEnv | None = None) -> None:
        self.env = env
        self.calls = 0
        self.seats: Counter[int] = Counter()

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        self.calls += 1
        assert observation.dtype == np.float32 and observation.ndim == 1
        assert action_mask.any(), "an opponent was asked to act with no legal action"
        if self.env is not None:
            self.seats[self.env.aec.game.current_player] += 1
        return lowest_legal(observation, action_mask)


def make(**kwargs) -> FarlightSingleAgentEnv:
    return gymnasium.make(GYM_ID, **kwargs).unwrapped


def learner_game(env: FarlightSingleAgentEnv) -> FarlightGame:
    game = env.aec.game
    assert game is not None
    return game


def play_episode(env: FarlightSingleAgentEnv, seed: int, choose=lowest_legal) -> dict:
    """Reset with `seed`, play the learner with `choose`; return the trajectory."""
    obs, info = env.reset(seed=seed)
    observations, rewards, infos = [obs], [], [info]
    terminated = truncated = False
    while not (terminated or truncated):
        mask = env.action_masks()
        obs, reward, terminated, truncated, info = env.step(choose(obs, mask))
        observations.append(obs)
        rewards.append(reward)
        infos.append(info)
    return {
        "observations": observations,
        "rewards": rewards,
        "infos": infos,
        "terminated": terminated,
        "truncated": truncated,
    }


# ------------------------------------------------------------------ registration, checks
def test_gymnasium_make_builds_the_registered_env() -> None:
    assert farlight_env.GYM_ID == GYM_ID
    env = gymnasium.make(GYM_ID, num_players=2)
    raw = env.unwrapped
    assert isinstance(raw, FarlightSingleAgentEnv)
    assert raw.num_players == 2 and raw.aec.possible_agents == ["player_0", "player_1"]
    obs, info = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape == (raw.aec.encoder.size,)
    assert obs.dtype == np.float32
    assert env.observation_space.contains(obs)
    assert env.action_space.n == raw.aec.codec.size
    assert info["learner_seat"] in (0, 1)
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(raw.action_masks())[0]))
    assert reward == 0.0 and not terminated and not truncated
    env.close()


def test_sb3_check_env_passes() -> None:
    env_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    for seat in (0, 1, "random"):
        env_checker.check_env(make(num_players=2, learner_seat=seat), warn=True)


@pytest.mark.parametrize(
    ("kwargs", "option"),
    [
        ({"learner_seat": 2}, "learner_seat"),
        ({"learner_seat": -1}, "learner_seat"),
        ({"learner_seat": "first"}, "learner_seat"),
        ({"opponents": [lowest_legal, lowest_legal, lowest_legal]}, "opponents"),
        ({"opponents": ["not a policy"]}, "opponents"),
        ({"opponents": "nobody"}, "opponents"),
        ({"opponents": [lowest_legal, 7]}, "opponents"),
        ({"num_players": 6}, "num_players"),
    ],
)
def test_bad_config_raises_naming_the_option(kwargs: dict, option: str) -> None:
    kwargs = {"num_players": 2, **kwargs}
    with pytest.raises(ValueError, match=option):
        gymnasium.make(GYM_ID, **kwargs)


# --------------------------------------------------------------------------- learner seat
@pytest.mark.parametrize("seat", [0, 1])
def test_fixed_learner_seat(seat: int) -> None:
    env = make(num_players=2, learner_seat=seat)
    for seed in range(4):
        obs, info = env.reset(seed=seed)
        game = learner_game(env)
        assert info["learner_seat"] == seat == env.learner_seat
        assert game.current_player == seat  # opponents already played up to the learner
        np.testing.assert_array_equal(obs, env.aec.encoder.encode(game, seat))
        for _ in range(20):
            obs, _r, terminated, truncated, info = env.step(lowest_legal(obs, env.action_masks()))
            assert info["learner_seat"] == seat
            if terminated or truncated:
                break
            assert learner_game(env).current_player == seat
            np.testing.assert_array_equal(obs, env.aec.encoder.encode(learner_game(env), seat))


@pytest.mark.parametrize("num_players", [2, 3])
def test_random_learner_seat_takes_every_seat_over_seeds(num_players: int) -> None:
    env = make(num_players=num_players, learner_seat="random")
    seats = Counter()
    for seed in range(30):
        _obs, info = env.reset(seed=seed)
        seats[info["learner_seat"]] += 1
        assert learner_game(env).current_player == info["learner_seat"]
    assert set(seats) == set(range(num_players)), seats


# ------------------------------------------------------------------------------ opponents
def test_callable_opponent_plays_every_other_decision() -> None:
    policy = CountingPolicy()
    env = make(num_players=2, learner_seat=0, opponents=policy)
    policy.env = env
    learner_steps = 0
    obs, _info = env.reset(seed=3)
    done = False
    while not done:
        obs, _reward, terminated, truncated, _info = env.step(lowest_legal(obs, env.action_masks()))
        learner_steps += 1
        done = terminated or truncated
    game = learner_game(env)
    assert game.is_over
    assert policy.calls > 0 and set(policy.seats) == {1}
    # every recorded decision was made by the learner or by the opponent policy
    assert len(game.history) == learner_steps + policy.calls


def test_opponents_given_at_construction_one_per_other_seat() -> None:
    """A list of n-1 policies maps onto the other seats in seat order."""
    first, second = CountingPolicy(), CountingPolicy()
    env = make(num_players=3, learner_seat=1, opponents=[first, second])
    first.env = second.env = env
    obs, _info = env.reset(seed=8)
    learner_steps = 0
    done = False
    while not done:
        obs, _reward, terminated, truncated, _info = env.step(lowest_legal(obs, env.action_masks()))
        learner_steps += 1
        done = terminated or truncated
    assert set(first.seats) == {0} and set(second.seats) == {2}
    assert len(learner_game(env).history) == learner_steps + first.calls + second.calls


def test_opponents_given_through_gymnasium_make_are_used() -> None:
    policy = CountingPolicy()
    env = make(num_players=2, learner_seat=1, opponents=policy)
    env.reset(seed=0)
    assert policy.calls >= 2  # seat 0 bids first: two tiles before the learner's turn
    calls = policy.calls
    assert len(learner_game(env).history) == calls


def test_one_agent_name_plays_every_opponent_seat() -> None:
    """`opponents="random"` is one agent name for every seat, as `["random"]` is, not the
    six one-letter names its characters would make."""
    by_string = make(num_players=2, learner_seat=1, opponents="random")
    by_list = make(num_players=2, learner_seat=1, opponents=["random"])
    assert len(by_string.opponents) == 2
    assert all(type(o).__name__ == "RandomAgent" for o in by_string.opponents)
    assert type(by_list.opponents[0]).__name__ == "RandomAgent"
    first, second = play_episode(by_string, seed=5), play_episode(by_list, seed=5)
    assert first["terminated"] or first["truncated"]
    assert first["rewards"] == second["rewards"]
    np.testing.assert_array_equal(first["observations"][-1], second["observations"][-1])


def test_named_opponents_repeat_a_seeded_episode() -> None:
    """Agents built from names are reseeded from each game's seed: one env replays seed 4
    after other games exactly."""
    env = make(num_players=3, learner_seat=0, opponents="random")
    before = play_episode(env, seed=4)
    play_episode(env, seed=9)
    again = play_episode(env, seed=4)
    assert before["rewards"] == again["rewards"]
    for a, b in zip(before["observations"], again["observations"], strict=True):
        np.testing.assert_array_equal(a, b)


def test_deterministic_opponents_make_deterministic_games() -> None:
    runs = []
    for _ in range(2):
        env = make(num_players=2, learner_seat=0, opponents=lowest_legal)
        runs.append(play_episode(env, seed=21))
    assert runs[0]["rewards"] == runs[1]["rewards"]
    for a, b in zip(runs[0]["observations"], runs[1]["observations"], strict=True):
        np.testing.assert_array_equal(a, b)


# ------------------------------------------------------------------------- final rewards
def test_learner_gets_its_final_reward_when_an_opponent_ends_the_game() -> None:
    """A natural end (climactic mission or empty deck, not the round cap) reached on an
    opponent's move: the learner's step returns the final reward, nothing is lost."""
    last_mover = {"who": None}

    def opponent(observation: np.ndarray, action_mask: np.ndarray) -> int:
        last_mover["who"] = "opponent"
        return lowest_legal(observation, action_mask)

    env = make(num_players=2, learner_seat="random", opponents=opponent)
    found = None
    for seed in range(60):
        rng = np.random.default_rng(seed)
        obs, _info = env.reset(seed=seed)
        rewards = []
        done = False
        while not done:
            last_mover["who"] = "learner"
            legal = np.flatnonzero(env.action_masks())
            obs, reward, terminated, truncated, info = env.step(
                int(legal[rng.integers(len(legal))])
            )
            rewards.append(reward)
            done = terminated or truncated
        if last_mover["who"] == "opponent" and not learner_game(env).is_truncated:
            found = (rewards, info, terminated, truncated)
            break
    assert found is not None, "no seed in 0..59 where an opponent's move ends the game"
    rewards, info, terminated, truncated = found
    game = learner_game(env)
    assert game.is_over and terminated is True and truncated is False
    expected = final_rewards(game, "win")[env.learner_seat]
    assert rewards[-1] == expected
    assert expected == (1.0 if game.winners() == [env.learner_seat] else -1.0)  # no shared win
    assert all(r == 0.0 for r in rewards[:-1])
    assert info["scores"] == game.scores() and info["winners"] == game.winners()
    assert not env.action_masks().any()


@pytest.mark.parametrize("reward_mode", ["win", "margin", "rank"])
def test_final_reward_follows_the_reward_mode(reward_mode: str) -> None:
    env = make(num_players=3, learner_seat=2, reward_mode=reward_mode)
    run = play_episode(env, seed=4)
    game = learner_game(env)
    assert run["rewards"][-1] == final_rewards(game, reward_mode)[2]
    assert all(r == 0.0 for r in run["rewards"][:-1])


def test_round_cap_truncates_with_the_final_reward() -> None:
    env = make(num_players=2, learner_seat=0, max_rounds=1)
    run = play_episode(env, seed=2)
    game = learner_game(env)
    assert game.is_truncated and run["truncated"] is True and run["terminated"] is False
    assert run["rewards"][-1] == final_rewards(game, "win")[0]


# --------------------------------------------------------------------------- reproducible
def test_reset_with_the_same_seed_reproduces_the_episode() -> None:
    env_a, env_b = make(num_players=3), make(num_players=3)
    for seed in (0, 17):
        run_a, run_b = play_episode(env_a, seed), play_episode(env_b, seed)
        again = play_episode(env_a, seed)  # the same env object, reset again
        for other in (run_b, again):
            assert len(other["observations"]) == len(run_a["observations"])
            for x, y in zip(run_a["observations"], other["observations"], strict=True):
                np.testing.assert_array_equal(x, y)
            assert other["rewards"] == run_a["rewards"]
            assert other["infos"][0]["learner_seat"] == run_a["infos"][0]["learner_seat"]
        assert learner_game(env_a).to_json() == learner_game(env_b).to_json()
    first = [play_episode(env_a, s)["observations"][0] for s in (1, 2)]
    assert not all(np.array_equal(first[0], o) for o in first[1:])  # seeds matter


# --------------------------------------------------------------------------------- masks
def test_action_masks_match_the_learners_legal_actions() -> None:
    env = make(num_players=3, learner_seat=1)
    obs, _info = env.reset(seed=6)
    rng = np.random.default_rng(6)
    done = False
    checked = 0
    while not done:
        game = learner_game(env)
        mask = env.action_masks()
        assert mask.dtype == bool and mask.shape == (env.action_space.n,)
        assert game.current_player == 1
        decoded = {env.aec.codec.decode(int(i), game) for i in np.flatnonzero(mask)}
        assert decoded == set(game.legal_actions())
        assert mask.sum() == len(game.legal_actions())
        checked += 1
        legal = np.flatnonzero(mask)
        obs, _r, terminated, truncated, _info = env.step(int(legal[rng.integers(len(legal))]))
        done = terminated or truncated
    assert checked > 20
    after = env.action_masks()
    assert after.dtype == bool and after.shape == (env.action_space.n,) and not after.any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


# ------------------------------------------------------------------------ illegal actions
def test_illegal_action_ends_the_episode_with_minus_one_by_default() -> None:
    env = make(num_players=2, learner_seat=0)
    obs, _info = env.reset(seed=0)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, terminated, truncated, info = env.step(bad)
    assert reward == -1.0 and terminated is True and truncated is False
    assert info["illegal_action"] is True
    assert not env.action_masks().any()
    assert obs.shape == env.observation_space.shape


def test_illegal_action_raise_mode_raises() -> None:
    env = make(num_players=2, learner_seat=0, illegal_action="raise")
    env.reset(seed=0)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    with pytest.raises(ValueError, match=rf"illegal action {bad} .*phase bidding"):
        env.step(bad)


def test_an_opponents_illegal_action_does_not_penalise_the_learner() -> None:
    def clumsy(observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(np.flatnonzero(action_mask == 0)[0])

    env = make(num_players=2, learner_seat=0, opponents=clumsy)
    obs, _info = env.reset(seed=0)
    for _ in range(2):  # seat 0 places its two tiles, then the opponent errs
        obs, reward, terminated, truncated, _info = env.step(lowest_legal(obs, env.action_masks()))
    assert terminated is True and truncated is False
    assert reward == 0.0
    assert env.aec.rewards["player_1"] == -1.0


# ---------------------------------------------------------------------- MaskablePPO smoke
def test_maskable_ppo_learns_and_predicts_legal_actions() -> None:
    sb3_contrib = pytest.importorskip("sb3_contrib")
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny net: threads only add contention under xdist
    try:
        env = gymnasium.make(GYM_ID, num_players=2)
        model = sb3_contrib.MaskablePPO(
            "MlpPolicy",
            env,
            n_steps=64,
            batch_size=32,
            n_epochs=2,
            policy_kwargs=dict(net_arch=[32]),
            seed=0,
            device="cpu",
            verbose=0,
        )
        model.learn(total_timesteps=128)
        assert model.num_timesteps == 128
        raw = env.unwrapped
        obs, _info = env.reset(seed=1)
        for _ in range(30):
            mask = raw.action_masks()
            action, _state = model.predict(obs, action_masks=mask, deterministic=False)
            assert mask[int(action)], f"MaskablePPO chose illegal action {action}"
            obs, _r, terminated, truncated, _info = env.step(int(action))
            if terminated or truncated:
                obs, _info = env.reset()
    finally:
        torch.set_num_threads(threads)


def test_illegal_action_flag_marks_only_the_learners_own_mistake() -> None:
    """info["illegal_action"] is the learner's signal that *it* erred (reward -1); an
    opponent's mistake ends the episode too but must not be reported as the learner's."""

    def clumsy(observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(np.flatnonzero(action_mask == 0)[0])

    env = make(num_players=2, learner_seat=0, opponents=clumsy)
    obs, _info = env.reset(seed=0)
    for _ in range(2):
        obs, reward, terminated, _truncated, info = env.step(lowest_legal(obs, env.action_masks()))
    assert terminated is True and reward == 0.0
    assert info.get("illegal_action") is not True, (
        "the learner's info says illegal_action=True although the opponent made the illegal move"
    )


@pytest.mark.parametrize("action", [True, 0.7, "0", float("nan"), None], ids=repr)
def test_a_non_integer_action_is_a_type_error_and_changes_nothing(action: object) -> None:
    env = make(num_players=2, learner_seat=0)
    obs, _info = env.reset(seed=3)
    before = env.aec.game.to_json()
    with pytest.raises(TypeError, match="must be an int"):
        env.step(action)
    assert env.aec.game.to_json() == before
    legal = np.flatnonzero(env.action_masks())
    env.step(np.int64(legal[0]))  # a numpy integer is an action
