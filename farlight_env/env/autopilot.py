"""Sub-games by decision kind: the learner takes only the decisions it studies, an autopilot
takes the rest inside the env, seeing what its seat may know.

A researcher who studies bidding passes ``learner_decisions={"bidding"}``: refits, engineer
icons, installs, upgrades, overhauls and missions are then played by ``autopilot`` (any agent
name, ``ismcts@N``, a saved policy path, or an Agent object) between the learner's decisions.
The game itself is the full game: rewards, termination, seeds and records are unchanged, so a
record of a sub-game replays with `farlight replay`.

Agent names are resolved through the ``farlight_env.agents`` entry point, which the project's
``agents`` package provides: the env layer imports nothing above it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from farlight_env.game.config import ConfigError, Phase
from farlight_env.platform.agents import installed_make, is_agent, reseed

if TYPE_CHECKING:
    from farlight_env.env.subgame import LearnerDecisions

#: The decision kinds, as the observation's `decision` field and `info["decision"]` name them.
DECISION_KINDS: tuple[str, ...] = tuple(p.value for p in Phase if p is not Phase.OVER)
ALL = "all"
#: Which action blocks of `ActionCodec` each decision kind draws its actions from.
KIND_BLOCKS: dict[str, tuple[str, ...]] = {
    "bidding": ("bid",),
    "refit": ("refit", "refit_stop"),
    "engineer": ("engine",),
    "install": ("select", "install", "discard"),
    "upgrade": ("engine", "skip"),
    "overhaul": ("engine", "skip"),
    "mission": ("complete", "pass"),
}
DEFAULT_AUTOPILOT = "heuristic"


def parse_decisions(spec: str | Iterable[str] | None) -> frozenset[str]:
    """The kinds of `LearnerDecisions.parse(spec)` (kept for callers that want a plain set)."""
    from farlight_env.env.subgame import LearnerDecisions

    return LearnerDecisions.parse(spec).kinds


def decisions_label(kinds: frozenset[str]) -> str:
    """ "all" or the kinds in the observation's order, comma-separated (for configs and files)."""
    from farlight_env.env.subgame import LearnerDecisions

    return LearnerDecisions(frozenset(kinds)).label


def agent_factory() -> Callable[..., Any]:
    """`make(name, seed=...)` of the installed agents package (ConfigError when none is)."""
    make = installed_make()
    if make is None:
        raise ConfigError(
            "an autopilot given by name needs the agents package (pip install -e .); "
            "or pass an Agent object"
        )
    return make


def build_autopilot(spec: Any, seed: int | None = None) -> Any:
    """An Agent from a name, a policy path or an Agent object (returned as is)."""
    if is_agent(spec):
        return spec
    if not isinstance(spec, str) or not spec:
        raise ConfigError(
            f"autopilot must be an agent name, a policy path or an Agent object, got {spec!r}"
        )
    try:
        return agent_factory()(spec, seed=seed)
    except (ValueError, OSError) as exc:
        raise ConfigError(f"autopilot: {exc}") from exc


class Autopilot:
    """Plays the decisions outside `kinds` for the seats it drives, one agent per seat.

    A game's autopilot moves depend on the game's seed only: each seat's agent is reseeded from
    (game seed, seat) when a game starts, so seeded runs repeat exactly.
    """

    def __init__(self, decisions: LearnerDecisions, spec: Any, num_players: int) -> None:
        self.decisions = decisions
        self.kinds = decisions.kinds
        self.spec = spec
        self.active = not decisions.full
        self.label = spec if isinstance(spec, str) else getattr(spec, "name", type(spec).__name__)
        self._game_seed = 0
        #: Each seat's agent, built when that seat first needs one (one shared Agent object,
        #: told the seat in its info, when an object was given).
        self.agents: dict[int, Any] = {}
        if self.active and not is_agent(spec):
            self.agents[0] = build_autopilot(spec, seed=0)  # a bad name fails here, at once

    def start(self, game_seed: int) -> None:
        """A new game: reset the agents and draw their generators from the game's seed."""
        self._game_seed = game_seed
        prepared: set[int] = set()
        for seat, agent in self.agents.items():
            if id(agent) not in prepared:  # one shared object is reset once
                prepared.add(id(agent))
                self._prepare(agent, seat)

    def _prepare(self, agent: Any, seat: int) -> None:
        if callable(getattr(agent, "reset", None)):
            agent.reset()
        reseed(agent, self._game_seed, seat, 0)

    def agent(self, seat: int) -> Any:
        """The agent playing `seat`'s autopilot decisions in this game."""
        agent = self.agents.get(seat)
        if agent is None:
            agent = self.spec if is_agent(self.spec) else build_autopilot(self.spec, seed=seat)
            self.agents[seat] = agent
            if not is_agent(self.spec):
                self._prepare(agent, seat)
        return agent

    def describe(self) -> dict[str, str]:
        """The sub-game as plain data: {"learner_decisions": "all" or "bidding,...",
        "autopilot": its name} (records and run files store it)."""
        return {"learner_decisions": self.decisions.label, "autopilot": self.label}

    def drives(self, phase: Phase) -> bool:
        """Whether a decision of this kind is the autopilot's (never once the game is over)."""
        return self.active and phase is not Phase.OVER and not self.decisions.covers(phase)

    def act(
        self, seat: int, observation: np.ndarray, mask: np.ndarray, info: Mapping[str, Any]
    ) -> int:
        action = self.agent(seat).act(observation, mask, info)
        if type(action) is not int and not isinstance(action, np.integer):
            raise RuntimeError(f"autopilot {self.label} returned {action!r}, not an action index")
        if not 0 <= int(action) < len(mask) or not mask[int(action)]:
            raise RuntimeError(f"autopilot {self.label} chose action {action}, which is illegal")
        return int(action)
