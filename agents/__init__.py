"""Agents: the Agent protocol, baseline policies and the registry `agents.make(name, **kw)`.

Baselines: `random` (uniform legal), `heuristic` (rule-based), `ismcts` (information-set
Monte Carlo tree search), `ppo` (the trained policy shipped in agents/data, needs torch).
`make` also accepts a path to a saved policy file (`*.pt`). This package holds players only;
measuring them (tournaments, the evaluation protocols, exploitability) is `evaluation`.
"""

from agents.base import Agent
from agents.farlight.engine_agent import EngineAgent
from agents.registry import AGENT_NAMES, make

__all__ = ["AGENT_NAMES", "Agent", "EngineAgent", "make"]
