"""Build agents by name (or from a saved policy path) for tournaments, play and training."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.base import Agent


def _random(**kw: Any) -> Agent:
    from agents.random_agent import RandomAgent

    return RandomAgent(**kw)


def _heuristic(**kw: Any) -> Agent:
    from agents.heuristic import HeuristicAgent

    return HeuristicAgent(**kw)


def _ismcts(**kw: Any) -> Agent:
    from agents.ismcts import ISMCTSAgent

    return ISMCTSAgent(**kw)


FACTORIES: dict[str, Callable[..., Agent]] = {
    "random": _random,
    "heuristic": _heuristic,
    "ismcts": _ismcts,
}
AGENT_NAMES: tuple[str, ...] = tuple(FACTORIES)


def make(name: str, **kwargs: Any) -> Agent:
    """An agent by registered name.

    Keyword arguments go to the agent (e.g. `seed=`, `iterations=` for ismcts).
    """
    factory = FACTORIES.get(name)
    if factory is not None:
        return factory(**kwargs)
    raise ValueError(f"unknown agent {name!r}: expected one of {', '.join(AGENT_NAMES)}")
