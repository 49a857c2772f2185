"""Agents by name for code below the `agents` package (envs' opponents and autopilots): the
installed package's `make`, found through an entry point, so no env imports it."""

from __future__ import annotations

import functools
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

import numpy as np

#: Entry-point group through which agent names become agents (the `agents` package's `make`).
AGENT_ENTRY_POINT = "farlight_env.agents"


@functools.cache
def installed_make() -> Callable[..., Any] | None:
    """`make(name, seed=...)` of the installed agents package, or None when none is. Found
    once per process: scanning the installed entry points takes 10-25 ms."""
    found = [ep for ep in entry_points(group=AGENT_ENTRY_POINT) if ep.name == "make"]
    return found[0].load() if found else None


def named_opponent(name: str, index: int, error: type[ValueError]) -> Any:
    """The agent called `name` for opponent slot `index` (seeded by it); `error` (the env's own
    type) naming the slot when there is no such agent or it is not one."""
    make = installed_make()
    if make is None:
        raise error(f"opponents[{index}]: an agent given by name needs the agents package")
    try:
        agent = make(name, seed=index)
    except (ValueError, OSError, ImportError) as exc:
        raise error(f"opponents[{index}]: {exc}") from exc
    if not is_agent(agent):
        raise error(f"opponents[{index}]: {name!r} did not make an Agent")
    return agent


def opponent_for(opponents: list[Any], seat: int, learner_seat: int, num_players: int) -> Any:
    """The policy of `seat` in a single-agent env's opponent list: one per seat (the learner's
    unused) or one per other seat in order; None where none is given."""
    if len(opponents) == num_players:
        return opponents[seat]
    others = [s for s in range(num_players) if s != learner_seat]
    return opponents[others.index(seat)]


def is_agent(value: Any) -> bool:
    """An object with act(observation, action_mask, info) -> int."""
    return callable(getattr(value, "act", None))


def reseed(agent: Any, seed: int, seat: int, version: int, depth: int = 2) -> None:
    """Give each random generator of `agent`, and of the agents it holds (a search's play-out
    policy), a fresh one drawn from (seed, seat, version): its decisions then depend on the
    position and those numbers only (caches kept by agents change no decision)."""
    count = 0
    for name, value in list(vars(agent).items()) if hasattr(agent, "__dict__") else ():
        if isinstance(value, np.random.Generator):
            setattr(agent, name, np.random.default_rng([seed, seat, version, count]))
            count += 1
        elif depth > 0 and is_agent(value) and hasattr(value, "__dict__"):
            reseed(value, seed, seat + 1000 * (count + 1), version, depth - 1)
            count += 1
