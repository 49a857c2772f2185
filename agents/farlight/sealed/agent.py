"""The parent's side of a sealed seat: `SealedAgent` plays an agent from a boxed child
(agents.farlight.sealed.box), checks every answer, measures every decision itself and forfeits one
that goes over its budget (`MoveBudget`)."""

from __future__ import annotations

import atexit
import math
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgspec
import numpy as np

from agents.farlight.sealed.box import Box, close_all
from agents.farlight.sealed.protocol import (
    ANSWERS,
    MAX_REPLY_BYTES,
    Act,
    Chose,
    Failed,
    Make,
    Ready,
    Reply,
    Request,
    one_line,
    read_frame,
    readable,
    write_frame,
)
from farlight_env.game.hidden import PlayerView
from farlight_env.game.serialize import game_to_json

#: Seconds a child may take to start and build its agent, and to answer one decision when
#: no wall budget is set; past either the game fails.
START_SECONDS = 120.0
DECISION_SECONDS = 600.0
#: How often the parent reads a thinking child's CPU time when a CPU budget is set.
CPU_POLL_SECONDS = 0.02


class SealedAgentError(RuntimeError):
    """A sealed agent that failed, died, played an illegal move or answered out of protocol."""


@dataclass(frozen=True, slots=True)
class MoveBudget:
    """What one decision of a sealed agent may spend, as the parent measures it: wall seconds
    from its request to the answer, and CPU seconds of the child and its descendants since
    the child's previous answer. A decision past either is forfeited (`fallback_action`)."""

    seconds: float | None = None
    cpu_seconds: float | None = None

    def __post_init__(self) -> None:
        for name in ("seconds", "cpu_seconds"):
            value = getattr(self, name)
            if value is not None and not (math.isfinite(value) and value > 0):
                raise ValueError(f"a move budget's {name} must be a positive number, got {value}")

    @classmethod
    def given(cls, seconds: float | None, cpu_seconds: float | None) -> MoveBudget | None:
        """The budget a journal or the flags stored as two figures; None if neither was set."""
        if seconds is None and cpu_seconds is None:
            return None
        return cls(seconds, cpu_seconds)


def fallback_action(action_mask: np.ndarray) -> int:
    """A forfeited decision's move: the lowest-numbered legal action (docs/evaluation.md)."""
    return int(np.flatnonzero(action_mask)[0])


class _OverBudget(Exception):
    """A decision that went over its budget; `killed` if the child was still thinking."""

    def __init__(self, killed: bool) -> None:
        super().__init__("over budget")
        self.killed = killed


class _Child:
    """A box and the conversation with it: numbered requests, checked answers, and the wall
    and CPU time of the last one as the parent measured them."""

    def __init__(self, warm: str) -> None:
        self.box = Box(warm)
        self.encode = msgspec.msgpack.Encoder().encode
        self.decode = msgspec.msgpack.Decoder(Reply).decode
        self.requests = 0
        self.cpu_mark = 0.0  # the child's CPU when it last answered
        self.last_seconds = self.last_cpu_seconds = 0.0

    def number(self) -> int:
        self.requests += 1
        return self.requests

    def ask(self, request: Request, budget: MoveBudget | None, seconds: float) -> Reply:
        """Send `request` and return the answer; over `budget` (a move's) raise _OverBudget; a
        failure of any other kind kills the child and raises SealedAgentError."""
        timed = budget is not None and budget.seconds is not None
        limit = budget.seconds if timed else seconds
        cpu_limit = budget.cpu_seconds if budget else None
        started = time.monotonic()
        try:
            write_frame(self.box.requests, self.encode(request))
            self._await(started + limit, cpu_limit, late=timed)
            body = read_frame(self.box.replies, MAX_REPLY_BYTES, started + limit)
            self._measure(started)
            reply = self.decode(body)
            if reply.id != request.id or not isinstance(reply, (ANSWERS[type(request)], Failed)):
                answer = type(reply).__name__
                raise SealedAgentError(f"out of protocol: {answer} to request {request.id}")
            if readable(self.box.replies, 0):
                raise SealedAgentError("out of protocol: more than one answer")
        except _OverBudget:
            self._measure(started)
            self.close()
            raise
        except TimeoutError:  # the answer begun but unfinished at the deadline
            self._measure(started)
            self.close()
            if timed:
                raise _OverBudget(killed=True) from None
            raise SealedAgentError(f"no answer within {limit:g} s") from None
        except (EOFError, BrokenPipeError):
            code = self.box.exit_code()
            self.close()
            raise SealedAgentError(f"the sealed agent's process ended (exit code {code})") from None
        except (ValueError, msgspec.DecodeError) as exc:
            self.close()
            raise SealedAgentError(f"out of protocol: {one_line(exc)}") from None
        except SealedAgentError:
            self.close()
            raise
        if budget is not None and _over(budget, self.last_seconds, self.last_cpu_seconds):
            raise _OverBudget(killed=False)
        return reply

    def _await(self, deadline: float, cpu_limit: float | None, late: bool) -> None:
        """Wait for the answer to begin; raise _OverBudget when the budget runs out first."""
        while True:
            left = deadline - time.monotonic()
            if readable(self.box.replies, min(left, CPU_POLL_SECONDS) if cpu_limit else left):
                return
            if cpu_limit is not None and self.box.cpu_seconds() - self.cpu_mark > cpu_limit:
                raise _OverBudget(killed=True)
            if time.monotonic() >= deadline:
                if late:
                    raise _OverBudget(killed=True)
                raise TimeoutError("no answer in time")

    def _measure(self, started: float) -> None:
        cpu = self.box.cpu_seconds()
        self.last_seconds, self.last_cpu_seconds = time.monotonic() - started, cpu - self.cpu_mark
        self.cpu_mark = cpu

    def close(self) -> None:
        self.box.close()


def _over(budget: MoveBudget, seconds: float, cpu_seconds: float) -> bool:
    return (budget.seconds is not None and seconds > budget.seconds) or (
        budget.cpu_seconds is not None and cpu_seconds > budget.cpu_seconds
    )


#: One child per kind of warm-up that has run no agent yet, booting while a game plays, so
#: the next game's child is ready: a child plays one game of one agent, then it is killed.
_SPARES: dict[str, _Child] = {}


def _take(agent: str) -> _Child:
    """A child that has run no agent yet (a spare if one is ready), and a spare for next time."""
    from agents.registry import needs_torch

    warm = "torch" if needs_torch(agent) else ""
    child = _SPARES.pop(warm, None)
    if child is None or not child.box.alive():
        if child is not None:
            child.close()
        child = _Child(warm)
    _SPARES[warm] = _Child(warm)
    return child


@atexit.register
def close_children() -> None:
    """End every child of this process, spares included, and all they started."""
    _SPARES.clear()
    close_all()


# A forked process (a subprocess env) has its own spares; its parent's are not its children.
os.register_at_fork(after_in_child=_SPARES.clear)


class SealedAgent:
    """The parent's stand-in for an agent playing from its own boxed process (the Agent
    protocol).

    Made per game like any agent, each in a fresh child that `close()` kills, so nothing an
    agent leaves in its process reaches another game or agent. `last_cpu_seconds` and
    `last_seconds` are the CPU (the child's and its descendants', from /proc) and wall time of
    the last decision, as the parent measured them; `forfeits` counts the decisions that went
    over `move_budget` and were played by `fallback_action`. After a forfeit that killed the
    child, a fresh one plays on.
    """

    def __init__(
        self,
        agent: str,
        seed: int,
        card_set: dict[str, Any],
        move_budget: MoveBudget | None = None,
        **kwargs: Any,
    ) -> None:
        self._agent, self._seed, self._kwargs, self._card_set = agent, int(seed), kwargs, card_set
        self.move_budget = move_budget
        self.forfeits = 0
        self.last_cpu_seconds = self.last_seconds = 0.0
        self._child: _Child | None = None
        self._start()

    def _start(self) -> _Child:
        """A child (idle or new) with this game's agent made in it."""
        child = _take(self._agent)
        make = Make(
            child.number(), self._agent, str(self._seed), dict(self._kwargs), self._card_set
        )
        reply = child.ask(make, None, START_SECONDS)
        if not isinstance(reply, Ready):
            child.close()
            raise SealedAgentError(reply.error if isinstance(reply, Failed) else "no agent")
        self.name = reply.name
        self.needs_observation = reply.needs_observation
        self._child = child
        return child

    def reset(self) -> None:
        """The child made (and reset) a fresh agent for this game already."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        view = info.get("view")
        if not isinstance(view, PlayerView):
            raise ValueError("a sealed agent needs info['view'] (the seat's PlayerView)")
        child = self._child or self._start()
        observation = np.ascontiguousarray(observation)
        request = Act(
            child.number(),
            view.seat,
            observation.tobytes(),
            observation.dtype.str,
            list(observation.shape),
            np.ascontiguousarray(action_mask, np.int8).tobytes(),
            {k: v for k, v in info.items() if k not in ("view", "seat")},
            game_to_json(view.redacted(), with_cards=False),
        )
        try:
            reply = child.ask(request, self.move_budget, DECISION_SECONDS)
        except _OverBudget as over:
            self._record(child)
            self.forfeits += 1
            if over.killed:
                self._child = None
            return fallback_action(action_mask)
        except SealedAgentError:
            self._child = None  # closed by ask
            raise
        self._record(child)
        if not isinstance(reply, Chose):
            raise self._fail(reply.error if isinstance(reply, Failed) else "no action")
        if not 0 <= reply.action < len(action_mask) or not action_mask[reply.action]:
            raise self._fail(f"illegal action {reply.action}: the mask forbids it")
        return reply.action

    def _record(self, child: _Child) -> None:
        self.last_seconds, self.last_cpu_seconds = child.last_seconds, child.last_cpu_seconds

    def _fail(self, error: str) -> SealedAgentError:
        """A child whose agent failed is killed, never reused."""
        if self._child is not None:
            self._child.close()
            self._child = None
        return SealedAgentError(error)

    def close(self) -> None:
        """End the game's child and everything it started."""
        if self._child is not None:
            self._child.close()
            self._child = None
