"""Sealed seats: an agent under test plays from its own boxed process and sees only what its
seat may.

The parent keeps the real game. For each decision it sends the child the observation and mask
(bytes), the info's plain values and the seat's redacted game (`SealedView.to_json`); the child
builds a `SealedView` (no live game behind it), calls `agent.act` and answers one int, which the
parent checks against the mask (agents.farlight.sealed.protocol, agents.farlight.sealed.child). The
child runs in a box (agents.farlight.sealed.box: its own session, scratch folder, clean import path,
and as root a
uid of its own); the parent measures its time and forfeits a decision over budget
(agents.farlight.sealed.agent). A child plays one agent's games only and is killed when it fails.
"""

from agents.farlight.sealed.agent import (
    MoveBudget,
    SealedAgent,
    SealedAgentError,
    close_children,
    fallback_action,
)
from agents.farlight.sealed.box import guard_process, protect_folder

__all__ = [
    "MoveBudget",
    "SealedAgent",
    "SealedAgentError",
    "close_children",
    "fallback_action",
    "guard_process",
    "protect_folder",
]
