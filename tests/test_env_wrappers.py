"""`farlight_v0.env()`'s lean order wrapper keeps PettingZoo's contract: every misuse raises (or
warns) exactly what the stock OrderEnforcingWrapper raises, and a game played through both gives
the same observations, rewards and infos. Bad actions are refused by `raw_env.step` itself with a
TypeError or ValueError (never an `assert`, which `python -O` strips)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from pettingzoo.utils import wrappers

from farlight_env import farlight_v0
from farlight_env.env.aec import raw_env


def stock_env(**kwargs: Any):
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


def outcome(call: Callable[[], Any]) -> tuple[str, str]:
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - the error itself is what is compared
        return type(exc).__name__, str(exc)
    return "ok", ""


BEFORE_RESET: list[Callable[[Any], Any]] = [
    lambda e: e.last(),
    lambda e: e.step(0),
    lambda e: e.observe("player_0"),
    lambda e: e.agents,
    lambda e: e.agent_selection,
    lambda e: e.rewards,
    lambda e: e.terminations,
    lambda e: e.truncations,
    lambda e: e.infos,
    lambda e: e.num_agents,
    lambda e: e.agent_iter(),
    lambda e: e.render(),
    lambda e: e._private_thing,
]


@pytest.mark.parametrize("misuse", range(len(BEFORE_RESET)))
def test_misuse_before_reset_raises_like_pettingzoo(misuse: int) -> None:
    call = BEFORE_RESET[misuse]
    lean, stock = farlight_v0.env(num_players=2), stock_env(num_players=2)
    assert outcome(lambda: call(lean)) == outcome(lambda: call(stock))


BAD_ACTIONS: list[Any] = [None, -1, 10**6, 2.0, "1", np.int64(-3), np.float32(1.0), [1]]


@pytest.mark.parametrize("action", BAD_ACTIONS, ids=repr)
def test_out_of_bounds_actions_raise_like_pettingzoo(action: Any) -> None:
    results = []
    for env in (farlight_v0.env(num_players=3), stock_env(num_players=3)):
        env.reset(seed=1)
        results.append(outcome(lambda env=env: env.step(action)))
    assert results[0] == results[1]
    assert results[0][0] in ("TypeError", "ValueError")


def test_numpy_integers_and_bools_are_judged_alike() -> None:
    """numpy integers are actions; a bool is refused as a TypeError through either wrapper."""
    for action in (np.int64(0), True, 0):
        results = []
        for env in (farlight_v0.env(num_players=2), stock_env(num_players=2)):
            env.reset(seed=2)
            results.append(outcome(lambda env=env, action=action: env.step(action)))
        assert results[0] == results[1]


def test_same_game_through_lean_and_stock_wrappers(caplog: pytest.LogCaptureFixture) -> None:
    lean, stock = farlight_v0.env(num_players=4), stock_env(num_players=4)
    assert str(lean) == str(stock)
    lean.reset(seed=5)
    stock.reset(seed=5)
    rng = np.random.default_rng(5)
    for agent, other in zip(lean.agent_iter(), stock.agent_iter(), strict=True):
        assert agent == other
        a, b = lean.last(), stock.last()
        assert np.array_equal(a[0]["observation"], b[0]["observation"])
        assert np.array_equal(a[0]["action_mask"], b[0]["action_mask"])
        assert a[1:] == b[1:]
        if a[2] or a[3]:
            action = None
        else:
            legal = np.flatnonzero(a[0]["action_mask"])
            action = int(legal[rng.integers(len(legal))])
        lean.step(action)
        stock.step(action)
    assert lean.rewards == stock.rewards and not lean.agents
    lean.step(None)  # no agents left: PettingZoo logs a warning, as the stock wrapper does
    assert "step() called after all agents are terminated" in caplog.text


def test_dead_agent_must_step_none() -> None:
    for env in (farlight_v0.env(num_players=2), stock_env(num_players=2)):
        env.reset(seed=3)
        env.unwrapped.terminations = dict.fromkeys(env.unwrapped.agents, True)
        assert outcome(lambda env=env: env.step(0))[0] == "ValueError"
