"""`farlight_env.vector`: batched masked games for Gymnasium vector users, SB3 and SuperSuit.

Also pins the two SuperSuit behaviours docs/interop/supersuit.md describes, so the page is
revisited when a SuperSuit release changes them.
"""

from __future__ import annotations

import numpy as np
import pytest

from farlight_env import farlight_v0
from farlight_env.vector import make_masked_env, make_vector_env, random_legal_actions

N = 3


def play(env, steps: int, seed: int) -> list:
    """Random legal play for `steps` steps; everything the env handed back, for comparing."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    trace = [obs]
    for _ in range(steps):
        masks = env.action_masks()
        assert masks.any(axis=1).all()  # same-step autoreset: always a legal action
        obs, rewards, terminated, truncated, infos = env.step(random_legal_actions(masks, rng))
        trace.append((obs, rewards, terminated, truncated, infos.get("final_obs")))
    env.close()
    return trace


def assert_same(a, b) -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys()
        for key in a:
            assert_same(a[key], b[key])
    elif isinstance(a, (tuple, list)) or (isinstance(a, np.ndarray) and a.dtype == object):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert_same(x, y)
    else:
        np.testing.assert_array_equal(a, b)


@pytest.fixture(scope="module")
def traces() -> dict[str, list]:
    """160 steps of 3 two-player games (several games end), in-process and with workers."""
    return {
        workers: play(make_vector_env(N, workers=workers == "workers", num_players=2), 160, 4)
        for workers in ("in-process", "workers")
    }


def test_observations_are_batched_dicts_with_legal_masks(traces):
    env = make_vector_env(N, num_players=3)
    assert env.single_observation_space["observation"].shape == (16306,)
    assert env.observation_space["action_mask"].shape == (N, 496)
    env.close()
    for obs, *_ in traces["in-process"][1:]:
        assert obs["observation"].shape == (N, 16306) and obs["observation"].dtype == np.float32
        assert obs["action_mask"].shape == (N, 496) and obs["action_mask"].dtype == np.int8


def test_a_finished_game_resets_in_the_same_step_and_keeps_its_last_observation(traces):
    ends = 0
    for obs, rewards, terminated, truncated, final in traces["in-process"][1:]:
        done = terminated | truncated
        assert not rewards[~done].any()  # the reward comes when a game ends
        for i in np.flatnonzero(done):
            ends += 1
            assert rewards[i] != 0 or truncated[i]
            assert not final[i]["action_mask"].any()  # the ended game's last observation
            assert obs["action_mask"][i].any()  # the new game's first
    assert ends >= N


def test_seeded_runs_repeat_and_workers_give_what_the_process_gives(traces):
    again = play(make_vector_env(N, num_players=2), 160, 4)
    assert_same(again, traces["in-process"])
    assert_same(traces["workers"], traces["in-process"])
    other = play(make_vector_env(N, num_players=2), 5, 5)
    assert not np.array_equal(other[0]["observation"], again[0]["observation"])
    # envs of one vector env get different seeds (s, s+1, ...), so different games
    first = traces["in-process"][0]["observation"]
    assert not np.array_equal(first[0], first[1])


def test_gymnasiums_env_checker_accepts_the_single_env():
    from gymnasium.utils.env_checker import check_env

    check_env(make_masked_env(num_players=2), skip_render_check=True)


def test_masked_ppo_reads_the_masks_of_the_sb3_adapter():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks

    from training.farlight.sb3.vec_env import make_sb3_vec_env

    for workers in (False, True):
        env = make_sb3_vec_env(2, workers=workers, seed=1, num_players=2)
        env.reset()
        masks = get_action_masks(env)
        assert masks.shape == (2, 496) and masks.any(axis=1).all()
        env.close()


def test_supersuits_gymnasium_vectorizer_runs_the_masked_env_in_workers():
    ss = pytest.importorskip("supersuit")
    env = ss.gym_vec_env_v0(make_masked_env(num_players=2), 2, multiprocessing=True)
    obs, _ = env.reset(seed=0)
    assert obs["action_mask"].shape == (2, 496)
    obs, *_ = env.step(random_legal_actions(obs["action_mask"], np.random.default_rng(0)))
    assert obs["observation"].shape == (2, 16306)
    env.close()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # its __del__
def test_supersuits_aec_vectorizer_gives_object_arrays_and_no_workers():
    """What docs/interop/supersuit.md reports: in-process, an object array of dicts; with
    num_cpus > 1, SuperSuit refuses Dict observations (its worker code also reads the
    pre-1.22 PettingZoo attributes `terms`/`truncs`, which no current env has)."""
    ss = pytest.importorskip("supersuit")
    vec = ss.vectorize_aec_env_v0(farlight_v0.env(num_players=2), num_envs=2)
    vec.reset(seed=0)
    obs = vec.last()[0]
    assert obs.dtype == object and isinstance(obs[0], dict)
    with pytest.raises(AssertionError, match="only support Box and Discrete"):
        ss.vectorize_aec_env_v0(farlight_v0.env(num_players=2), num_envs=2, num_cpus=2)


def test_the_docs_page_runs():
    from doc_snippets import run_page

    out = run_page("docs/interop/supersuit.md", expected_blocks=2)
    assert "(4, 496)" in out
