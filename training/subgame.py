"""The sub-game a run trains on: which decision kinds the learner takes and which agent plays
the others (`--learner-decisions bidding --autopilot heuristic`; docs/subgames.md).

The learner's env asks it only for decisions of those kinds; evaluations seat it as the same
sub-game agent, and the policy files it exports name the sub-game, so a snapshot or the final
`policy.pt` plays as the learner did (agents/subgame.py, agents/policy/agent.py).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from agents.registry import FACTORIES, SUBGAME_AGENTS, is_plain_agent, make
from agents.subgame import SubgameAgent
from farlight_env.env.autopilot import DECISION_KINDS, decisions_label, parse_decisions
from farlight_env.game.config import ConfigError

KINDS_HELP = ", ".join(DECISION_KINDS)


@dataclasses.dataclass
class SubGameOptions:
    """The learner's decision kinds and its autopilot (run-config fields and flags)."""

    learner_decisions: list[str] = dataclasses.field(
        default_factory=lambda: ["all"],
        metadata={
            "help": f"decision kinds the learner takes: all, or some of {KINDS_HELP}; "
            "the autopilot plays the others"
        },
    )
    autopilot: str = dataclasses.field(
        default="heuristic",
        metadata={
            "help": "agent that plays the learner's other decisions (a name or ismcts@N)",
            "metavar": "NAME",
        },
    )


def learner_kinds(config: Any) -> frozenset[str]:
    return parse_decisions(config.learner_decisions)


def is_subgame(config: Any) -> bool:
    return learner_kinds(config) != frozenset(DECISION_KINDS)


def subgame_problems(config: Any) -> list[str]:
    """'--learner-decisions: ...' / '--autopilot: ...' for options that cannot work."""
    kinds = config.learner_decisions
    if not isinstance(kinds, list) or not all(isinstance(k, str) for k in kinds):
        return ["--learner-decisions must be a comma-separated list of decision kinds"]
    try:
        parse_decisions(kinds)
    except ConfigError as exc:
        return [f"--{str(exc).replace('_', '-')}"]
    name = config.autopilot
    if not is_plain_agent(name):
        return [
            f"--autopilot: unknown agent {name!r}: a training run's autopilot is an agent name "
            f"({', '.join(n for n in FACTORIES if n not in SUBGAME_AGENTS)}) or ismcts@N"
        ]
    return []


def subgame_kwargs(config: Any) -> dict[str, Any]:
    """Keyword arguments of the learner's env (empty for the full game)."""
    if not is_subgame(config):
        return {}
    return {"learner_decisions": learner_kinds(config), "autopilot": config.autopilot}


def subgame_fields(config: Any) -> dict[str, str]:
    """What an exported policy file says about its sub-game (nothing for the full game)."""
    if not is_subgame(config):
        return {}
    label = decisions_label(learner_kinds(config))
    return {"learner_decisions": label, "autopilot": config.autopilot}


def as_learner(agent: Any, config: Any, seed: int = 0) -> Any:
    """The learner seated as it trains: with the run's autopilot for the other decisions."""
    if not is_subgame(config):
        return agent
    return SubgameAgent(agent, learner_kinds(config), make(config.autopilot, seed=seed))
