"""Build agents by name (or from a saved policy path) for tournaments, play and training."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
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


def _ppo(**kw: Any) -> Agent:
    """The policy shipped with the project (needs torch: the `train` extra)."""
    from agents.policy import SHIPPED_POLICY, PolicyAgent

    return PolicyAgent(kw.pop("path", SHIPPED_POLICY), **kw)


FACTORIES: dict[str, Callable[..., Agent]] = {
    "random": _random,
    "heuristic": _heuristic,
    "ismcts": _ismcts,
    "ppo": _ppo,
}
AGENT_NAMES: tuple[str, ...] = tuple(FACTORIES)


def unknown_agents(names: list[str]) -> list[str]:
    """The names that are neither registered nor an existing saved policy (*.pt) file."""
    return [
        n for n in names if n not in FACTORIES and not (n.endswith(".pt") and Path(n).is_file())
    ]


def agent_names_help() -> str:
    return ", ".join(FACTORIES) + " or a saved policy path (*.pt)"


def make(name: str, **kwargs: Any) -> Agent:
    """An agent by registered name, or a saved policy given by its path (`*.pt`).

    Keyword arguments go to the agent (e.g. `seed=`, `iterations=` for ismcts).
    """
    factory = FACTORIES.get(name)
    if factory is not None:
        return factory(**kwargs)
    if name.endswith(".pt"):
        path = Path(name)
        if not path.exists():
            raise FileNotFoundError(f"no saved policy at {path}")
        from agents.policy import PolicyAgent

        return PolicyAgent(path, **kwargs)
    raise ValueError(
        f"unknown agent {name!r}: expected one of {', '.join(FACTORIES)} or a path to a "
        "saved policy (.pt)"
    )
