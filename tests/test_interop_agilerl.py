"""AgileRL (its PettingZoo self-play tutorial loop) plays Farlight: docs/interop/agilerl.md's code
runs a DQN with masked `get_action` over whole self-play games, a replay buffer and learn steps.

AgileRL 2.58.0 pins pettingzoo<1.27, so it lives in a venv of its own (`.ci/agilerl`); in the
main venv this module skips. REQUIRE_AGILERL=1 (set by .ci/agilerl) turns the skip into a failure.
"""

from __future__ import annotations

import ast
import os

import pytest

if os.environ.get("REQUIRE_AGILERL") != "1":
    pytest.importorskip("agilerl")
# Imported outright: an AgileRL that is installed but cannot load its algorithms (a missing
# dependency) fails here instead of skipping.
from agilerl.algorithms import DQN  # noqa: E402
from doc_snippets import run_page  # noqa: E402

PAGE = "docs/interop/agilerl.md"


def test_docs_self_play_loop_plays_whole_games_legally() -> None:
    printed = run_page(PAGE, expected_blocks=3)
    totals = ast.literal_eval(printed.strip().splitlines()[-1])
    assert totals["games"] == 3
    assert totals["illegal"] == 0
    # two-player games are about 250 decisions; every one of them went through get_action
    assert totals["decisions"] > 3 * 50
    assert totals["learn_steps"] > 0


def test_get_action_respects_a_batch_of_masks() -> None:
    import numpy as np

    from farlight_env import farlight_v0

    env = farlight_v0.env(num_players=2)
    env.reset(seed=3)
    space = env.observation_space("player_0")["observation"]
    net_config = {"head_config": {"hidden_size": [16]}}
    agent = DQN(space, env.action_space("player_0"), net_config=net_config)
    states, masks = [], []
    for _ in env.agent_iter(max_iter=64):
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        states.append(observation["observation"])
        masks.append(observation["action_mask"])
        env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    for epsilon in (0.0, 1.0):  # greedy on masked Q-values, and masked random exploration
        actions = agent.get_action(np.stack(states), epsilon, np.stack(masks))
        assert all(mask[a] == 1 for mask, a in zip(masks, actions, strict=True))
