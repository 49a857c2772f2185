"""The ecosystem's own paths on `farlight_v1`, with only the env line changed (#49): each
library's example or utility, run against the real package at a tiny budget. On farlight_v0
several of these stop (an illegal action raises; infos hold the game)."""

from __future__ import annotations

import importlib.util
import random
import runpy
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from farlight_env import farlight_v0, farlight_v1

ROOT = Path(__file__).resolve().parents[1]


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_pettingzoo_average_total_reward_runs_on_v1_only() -> None:
    """It plays unmasked random actions (it reads no observation): v1 ends such a game with
    -1 for the offender, v0 raises."""
    from pettingzoo.utils import average_total_reward

    random.seed(0)
    env = farlight_v1.env(num_players=4)
    env.reset(seed=0)
    assert average_total_reward(env, max_episodes=3) < 0  # illegal moves cost their players
    with pytest.raises(ValueError):
        average_total_reward(farlight_v0.env(num_players=4), max_episodes=1)


@pytest.mark.parametrize("wrapper", ["sticky_actions_v0", "delay_observations_v0"])
def test_supersuit_action_and_observation_wrappers_play_v1(wrapper: str) -> None:
    """SuperSuit's wrappers step actions of their own choosing (sticky: the last action again,
    legal or not) or hand back delayed observations; v1 plays on, and ends a game cleanly at
    -1 where an action is illegal."""
    import supersuit

    if wrapper == "sticky_actions_v0":
        env = supersuit.sticky_actions_v0(farlight_v1.env(num_players=2), 0.5)
    else:
        env = supersuit.delay_observations_v0(farlight_v1.env(num_players=2), 2)
    rng = np.random.default_rng(0)
    ended = []
    for game in range(4):
        env.reset(seed=game)
        for agent in env.agent_iter(max_iter=5000):
            _, _, termination, truncation, _ = env.last()
            if termination or truncation:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(env.unwrapped.action_mask(agent)))))
        ended.append(all(env.terminations.values()) or all(env.truncations.values()))
    assert all(ended)


def test_rllibs_pettingzoo_env_check_passes_on_v1() -> None:
    pytest.importorskip("ray.rllib", reason="needs the rllib extra")
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    check_multiagent_environments(farlight_v1.rllib_env(num_players=2))


def test_torchrl_pettingzoo_wrapper_rolls_out_unmasked_random_actions_on_v1() -> None:
    """TorchRL's wrapper (AEC envs need `use_mask=True`, which marks the acting seat) rolled
    out with uniform actions that ignore the action mask, as an untrained policy plays: each
    illegal one ends its game at -1 and the rollout goes on over game ends."""
    pytest.importorskip("torchrl", reason="needs the interop extra")
    import torch
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import MarlGroupMapType

    torch.manual_seed(0)
    env = PettingZooWrapper(
        env=farlight_v1.env(num_players=2),
        use_mask=True,
        group_map=MarlGroupMapType.ALL_IN_ONE_GROUP,
        seed=0,
    )
    size = env.full_action_spec["agents", "action"].space.n

    def unmasked(tensordict):
        tensordict["agents", "action"] = torch.randint(0, size, (2,))
        return tensordict

    rollout = env.rollout(40, policy=unmasked, break_when_any_done=False)
    assert int(rollout["next", "done"].sum()) >= 2
    rewards = rollout["next", "agents", "reward"]
    assert float(rewards.min()) == -1.0


def test_pettingzoo_sb3_action_mask_recipe_trains_on_v1() -> None:
    """The SB3 action-mask tutorial's recipe (scripts/sb3_tutorial_speed.py): one MaskablePPO
    model for every seat, masks from ActionMasker; 256 steps of learning."""
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    recipe = _script("sb3_tutorial_speed")
    env = recipe.OneModelEverySeat(farlight_v1.env(num_players=4))
    model = recipe.masked_learner(env, seed=0, n_steps=128)
    model.learn(total_timesteps=256)
    assert model.num_timesteps == 256


def test_the_replayed_game_keeps_the_spaces_masks_and_episode_ends() -> None:
    """The speed script's learner-alone figure plays recorded steps back: same spaces, the
    recorded mask with each observation, an episode end where the game ended."""
    pytest.importorskip("sb3_contrib", reason="needs the train extra")
    recipe = _script("sb3_tutorial_speed")
    game = recipe.OneModelEverySeat(farlight_v1.env(num_players=2, max_rounds=1))
    tape = recipe.Replayed(game, steps=300, seed=0)
    assert tape.observation_space == game.observation_space
    assert tape.action_space == game.action_space
    observation, _ = tape.reset()
    ends = 0
    for at in range(300):
        assert observation is tape.tape[at][0] and tape.action_mask() is tape.tape[at][1]
        assert tape.tape[at][1].any()
        observation, _, ended, _, _ = tape.step(int(np.flatnonzero(tape.action_mask())[0]))
        ends += ended
    assert ends == sum(step[2] for step in tape.tape) >= 1


def test_openspiels_example_plays_python_farlight() -> None:
    """open_spiel/python/examples/example.py as installed, with the one import that
    registers Farlight: a random game to its end."""
    pytest.importorskip("pyspiel", reason="needs the interop extra")
    import open_spiel

    example = Path(open_spiel.__file__).parent / "python" / "examples" / "example.py"
    code = f"""
        import sys, runpy
        import farlight_env  # registers python_farlight when pyspiel is imported
        sys.argv = ["example.py", "--game_string=python_farlight"]
        runpy.run_path({str(example)!r}, run_name="__main__")
    """
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Utility for player 0 is" in done.stdout


@pytest.mark.slow
def test_rllibs_open_spiel_self_play_example_trains_on_python_farlight() -> None:
    """ray/rllib/examples/multi_agent/self_play_with_open_spiel.py as installed, one
    iteration, `--env=python_farlight`: its env runners build the game by name, so the driver
    starts Ray with Farlight's setup hook (docs/interop/openspiel.md)."""
    pytest.importorskip("ray.rllib", reason="needs the rllib extra")
    pytest.importorskip("pyspiel", reason="needs the interop extra")
    import ray.rllib

    example = Path(ray.rllib.__file__).parent / "examples/multi_agent/self_play_with_open_spiel.py"
    code = f"""
        import sys, runpy
        import farlight_env, ray
        ray.init(num_cpus=2, include_dashboard=False,
                 runtime_env={{"worker_process_setup_hook": "farlight_env.register_openspiel"}})
        sys.argv = ["x", "--env=python_farlight", "--stop-iters=1", "--num-env-runners=1",
                    "--num-episodes-human-play=0", "--checkpoint-freq=0", "--no-tune"]
        runpy.run_path({str(example)!r}, run_name="__main__")
    """
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Stop criterion (training_iteration=1) fulfilled!" in done.stdout + done.stderr


del runpy  # imported for the examples' own use of it in the subprocesses above
