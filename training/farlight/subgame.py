"""The sub-game a run trains on: which decision kinds the learner takes and which agent plays
the others (`--learner-decisions bidding --autopilot heuristic`; docs/subgames.md).

The learner's env asks it only for decisions of those kinds; evaluations seat it as the same
sub-game agent, and the policy files it exports name the sub-game, so a snapshot or the final
`policy.pt` plays as the learner did (agents/farlight/subgame.py, agents/farlight/policy/agent.py).

The run config keeps the user's list (for flags and run_config.json); `learner_kinds` parses
it once per config into the typed `LearnerDecisions` that every env and agent is handed.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from agents.farlight.subgame import SubgameAgent
from agents.registry import FACTORIES, SUBGAME_AGENTS, is_plain_agent, make
from farlight_env.env.autopilot import DECISION_KINDS
from farlight_env.env.subgame import LearnerDecisions
from farlight_env.game.config import ConfigError

KINDS_HELP = ", ".join(DECISION_KINDS)
#: Where a config keeps its parsed learner decisions, with the list they were parsed from.
_PARSED = "_learner_decisions_parsed"


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


def learner_kinds(config: Any) -> LearnerDecisions:
    """The run's learner decisions, typed: parsed the first time they are asked for and kept
    on the config (parsed anew only if the field is changed); ConfigError when invalid."""
    raw = config.learner_decisions
    key = tuple(raw) if isinstance(raw, list) else raw
    kept = vars(config).get(_PARSED)
    if kept is None or kept[0] != key:
        kept = (key, LearnerDecisions.parse(raw))
        vars(config)[_PARSED] = kept  # not a dataclass field: run_config.json never sees it
    return kept[1]


def is_subgame(config: Any) -> bool:
    return not learner_kinds(config).full


def subgame_problems(config: Any) -> list[str]:
    """'--learner-decisions: ...' / '--autopilot: ...' for options that cannot work."""
    kinds = config.learner_decisions
    if not isinstance(kinds, list) or not all(isinstance(k, str) for k in kinds):
        return ["--learner-decisions must be a comma-separated list of decision kinds"]
    try:
        learner_kinds(config)
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
    """Keyword arguments of the learner's env (empty for the full game); the decisions typed."""
    if not is_subgame(config):
        return {}
    return {"learner_decisions": learner_kinds(config), "autopilot": config.autopilot}


def subgame_fields(config: Any) -> dict[str, str]:
    """What an exported policy file says about its sub-game (nothing for the full game)."""
    if not is_subgame(config):
        return {}
    return {"learner_decisions": learner_kinds(config).label, "autopilot": config.autopilot}


def as_learner(agent: Any, config: Any, seed: int = 0) -> Any:
    """The learner seated as it trains: with the run's autopilot for the other decisions."""
    if not is_subgame(config):
        return agent
    return SubgameAgent(agent, learner_kinds(config), make(config.autopilot, seed=seed))
