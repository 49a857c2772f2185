"""Agents: the Agent protocol, baseline policies and the registry `agents.make(name, **kw)`.

Baselines: `random` (uniform legal), `heuristic` (rule-based), `ismcts` (information-set
Monte Carlo tree search), `ppo` (the trained policy shipped in agents/data, needs torch).
`make` also accepts a path to a saved policy file (`*.pt`). `evaluate(agent)` runs the
benchmark farlight-eval-v1 (agents/evaluate.py, docs/evaluation.md) and returns a scorecard.
"""

from agents.base import Agent, EngineAgent
from agents.evaluate import evaluate
from agents.registry import AGENT_NAMES, make

__all__ = ["AGENT_NAMES", "Agent", "EngineAgent", "evaluate", "make"]
