"""Build agents by name (or from a saved policy path) for tournaments, play and training."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agents.base import Agent

#: How to install the `train` extra (torch pinned first, as docs/quickstart.md says), named in
#: every message about an agent that needs it.
TRAIN_EXTRA = "pip install torch==2.13.0 && pip install -e '.[train]'"
#: Agents that run a network: they need torch, the `train` extra (so does any saved *.pt).
NEEDS_TORCH = frozenset({"ppo", "rollout", "bidder"})
#: Agents that are sub-game policies (a network for some decision kinds, an autopilot for the
#: rest); a policy file may not name one as its own autopilot.
SUBGAME_AGENTS = frozenset({"bidder"})


#: Agents that play any game declared to the platform (through its `State` protocol); the
#: others (the heuristic, networks and policy files) play Farlight only.
ANY_GAME_AGENTS = frozenset({"random", "ismcts"})


def plays_game(name: str, game: str) -> bool:
    """Whether agent `name` (or `ismcts@N`, or a policy file) can play `game`: a policy file
    plays the game it was trained for (a file that cannot be read is left to its loader)."""
    base = "ismcts" if budget_spec(name) is not None else name
    if base in ANY_GAME_AGENTS:
        return True
    if name.endswith(".pt") and Path(name).is_file():
        played = policy_file_game(name)
        return played is None or played == game
    return game == "farlight"


def policy_file_game(path: str | Path) -> str | None:
    """The game a saved policy plays ('farlight' for Farlight's files; None for a game policy
    file that cannot be read, or without torch)."""
    if not torch_installed():
        return None
    from agents.game_policy.file import file_game

    return file_game(path)


def needs_torch(name: str) -> bool:
    """Whether agent `name` runs a network (ppo, rollout or a saved policy *.pt)."""
    return name in NEEDS_TORCH or name.endswith(".pt")


def torch_installed() -> bool:
    return importlib.util.find_spec("torch") is not None


def missing_extra(name: str) -> str | None:
    """'agent ppo needs the train extra ...' when `name` needs torch and torch is missing."""
    if not needs_torch(name) or torch_installed():
        return None
    return f"agent {name} needs the train extra (torch is not installed): {TRAIN_EXTRA}"


def _import_network_agents(name: str) -> None:
    """Fail with the extra to install, not a bare "No module named 'torch'"."""
    message = missing_extra(name)
    if message is not None:
        raise ModuleNotFoundError(message, name="torch")


def _random(**kw: Any) -> Agent:
    from agents.random_agent import RandomAgent

    return RandomAgent(**kw)


def _heuristic(**kw: Any) -> Agent:
    from agents.farlight.heuristic import HeuristicAgent

    return HeuristicAgent(**kw)


def _ismcts(**kw: Any) -> Agent:
    from agents.farlight.ismcts import ISMCTSAgent

    return ISMCTSAgent(**kw)


def _ppo(**kw: Any) -> Agent:
    """The policy shipped with the project (needs torch: the `train` extra)."""
    _import_network_agents("ppo")
    from agents.farlight.policy import SHIPPED_POLICY, PolicyAgent

    return PolicyAgent(kw.pop("path", SHIPPED_POLICY), **kw)


def _rollout(**kw: Any) -> Agent:
    """The shipped policy (or `path=`) improved by play-outs where it hesitates (needs torch)."""
    _import_network_agents("rollout")
    from agents.farlight.rollout import RolloutAgent

    return RolloutAgent(**kw)


def _bidder(**kw: Any) -> Agent:
    """The shipped bidding policy for bids, the heuristic for every other decision (a policy
    trained with --learner-decisions bidding --autopilot heuristic; needs torch)."""
    _import_network_agents("bidder")
    from agents.farlight.policy import BIDDER_POLICY, PolicyAgent

    return PolicyAgent(kw.pop("path", BIDDER_POLICY), **kw)


FACTORIES: dict[str, Callable[..., Agent]] = {
    "random": _random,
    "heuristic": _heuristic,
    "ismcts": _ismcts,
    "ppo": _ppo,
    "rollout": _rollout,
    "bidder": _bidder,
}
AGENT_NAMES: tuple[str, ...] = tuple(FACTORIES)
#: Registered agents that are a `PolicyAgent` of a shipped file (they take `shared=`).
POLICY_AGENTS = frozenset({"ppo", "bidder"})

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


def is_plain_agent(name: object) -> bool:
    """A registered name or `ismcts@N`, but no sub-game agent and no file: what may play as an
    autopilot in a training run or a policy file."""
    if not isinstance(name, str):
        return False
    return (name in FACTORIES and name not in SUBGAME_AGENTS) or budget_spec(name) is not None


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
        + f", ismcts@N (N iterations, 1..{MAX_BUDGET}) or a saved policy path (*.pt); "
        f"{', '.join(sorted(NEEDS_TORCH))} and *.pt need the train extra (torch)"
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
        _import_network_agents(name)
        from agents.farlight.policy import PolicyAgent
        from agents.game_policy.file import is_game_policy

        if is_game_policy(path):  # a policy of another game (#50): its own small network
            from agents.game_policy.agent import GamePolicyAgent

            return GamePolicyAgent(path, **kwargs)
        return PolicyAgent(path, **kwargs)
    raise ValueError(
        f"unknown agent {name!r}: expected one of {', '.join(FACTORIES)}, ismcts@N "
        f"(N = 1..{MAX_BUDGET} iterations) or a path to a saved policy (.pt)"
    )


def make_shared(name: str, **kwargs: Any) -> Agent:
    """`make`, where a policy (a shipped one by name, or a `*.pt` file) plays a network shared
    by every agent of the same file in this process (`PolicyAgent(shared=True)`): for many
    games' opponents, which only play it."""
    if name in POLICY_AGENTS or name.endswith(".pt"):
        kwargs["shared"] = True
    return make(name, **kwargs)
