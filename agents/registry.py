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


def _rollout(**kw: Any) -> Agent:
    """The shipped policy (or `path=`) improved by play-outs where it hesitates (needs torch)."""
    from agents.rollout import RolloutAgent

    return RolloutAgent(**kw)


FACTORIES: dict[str, Callable[..., Agent]] = {
    "random": _random,
    "heuristic": _heuristic,
    "ismcts": _ismcts,
    "ppo": _ppo,
    "rollout": _rollout,
}
AGENT_NAMES: tuple[str, ...] = tuple(FACTORIES)

#: `ismcts@N` names a search with its own budget (N iterations per decision), so one lineup,
#: league or opponent list can hold several budgets and each keeps its own label.
BUDGET_SEPARATOR = "@"
MAX_BUDGET = 100_000


def budget_spec(name: str) -> tuple[str, int] | None:
    """`("ismcts", N)` for a valid `ismcts@N` name, else None."""
    base, sep, budget = name.partition(BUDGET_SEPARATOR)
    if not sep or base != "ismcts" or not budget.isdigit() or budget != str(int(budget)):
        return None
    iterations = int(budget)
    return (base, iterations) if 1 <= iterations <= MAX_BUDGET else None


def unknown_agents(names: list[str]) -> list[str]:
    """The names that are neither registered nor an existing saved policy (*.pt) file."""
    return [
        n
        for n in names
        if n not in FACTORIES
        and budget_spec(n) is None
        and not (n.endswith(".pt") and Path(n).is_file())
    ]


def agent_names_help() -> str:
    return (
        ", ".join(FACTORIES)
        + f", ismcts@N (N iterations, 1..{MAX_BUDGET}) or a saved policy path (*.pt)"
    )


def make(name: str, **kwargs: Any) -> Agent:
    """An agent by registered name, or a saved policy given by its path (`*.pt`).

    Keyword arguments go to the agent (e.g. `seed=`, `iterations=` for ismcts).
    """
    factory = FACTORIES.get(name)
    if factory is not None:
        return factory(**kwargs)
    spec = budget_spec(name)
    if spec is not None:
        return FACTORIES[spec[0]](**{**kwargs, "iterations": spec[1]})
    if name.endswith(".pt"):
        path = Path(name)
        if not path.exists():
            raise FileNotFoundError(f"no saved policy at {path}")
        from agents.policy import PolicyAgent

        return PolicyAgent(path, **kwargs)
    raise ValueError(
        f"unknown agent {name!r}: expected one of {', '.join(FACTORIES)}, ismcts@N "
        f"(N = 1..{MAX_BUDGET} iterations) or a path to a saved policy (.pt)"
    )
