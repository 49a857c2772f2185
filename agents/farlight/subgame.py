"""An agent for a sub-game: one agent takes the decision kinds it was trained on, an autopilot
the rest (the `bidder`: a bidding policy with the heuristic for everything else)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from farlight_env.encode.layout import DECISIONS
from farlight_env.env.autopilot import DECISION_KINDS
from farlight_env.env.subgame import LearnerDecisions

#: The observation's first field is the one-hot decision kind (farlight_env.encode.layout).
KIND_AT = tuple(phase.value for phase in DECISIONS)


def decision_of(observation: np.ndarray, info: Mapping[str, Any]) -> str:
    """The kind of the decision to take: the env's `info["decision"]` where given, else the
    observation's one-hot `decision` field."""
    kind = info.get("decision")
    if isinstance(kind, str):
        return kind
    return KIND_AT[int(np.argmax(observation[: len(KIND_AT)]))]


class SubgameAgent:
    """Plays decisions of `kinds` with `agent` and every other one with `autopilot`."""

    def __init__(
        self,
        agent: Any,
        kinds: LearnerDecisions | str | Iterable[str],
        autopilot: Any,
        name: str | None = None,
    ) -> None:
        self.agent = agent
        #: The agent's kinds, typed (a run's parsed value is taken as it is).
        self.decisions = LearnerDecisions.of(kinds)
        self.kinds = self.decisions.kinds
        self.autopilot = autopilot
        self.name = name or f"{getattr(agent, 'name', 'agent')}+{getattr(autopilot, 'name', '')}"
        # the autopilot may read the view only; the learned part reads the observation
        self.needs_observation = getattr(agent, "needs_observation", True)

    def reset(self) -> None:
        for part in (self.agent, self.autopilot):
            if callable(getattr(part, "reset", None)):
                part.reset()

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        kind = decision_of(observation, info)
        if self.decisions.covers(kind):
            return self.agent.act(observation, action_mask, info)
        return self.autopilot.act(observation, action_mask, info)

    @property
    def subgame(self) -> dict[str, str]:
        return {"learner_decisions": self.decisions.label, "autopilot": self.autopilot.name}


__all__ = ["DECISION_KINDS", "KIND_AT", "SubgameAgent", "decision_of"]
