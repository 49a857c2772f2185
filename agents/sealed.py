"""Sealed seats: an agent under test plays from its own process and sees only what its seat may.

The parent keeps the real game. For each decision it sends the child the observation and mask
(bytes), the info's plain values and the seat's redacted game (`SealedView.to_json`); the child
builds a `SealedView` (no live game behind it), calls `agent.act` and answers one int, which the
parent checks against the mask. Messages are msgpack frames (4-byte length, then the body) over
the child's stdin and a private copy of its stdout (the agent's own prints go to stderr);
nothing is unpickled on either side. A child is reused across decisions and games: the pool
keeps one per seat a worker has sealed so far, and a child that fails is killed, not reused.
"""

from __future__ import annotations

import atexit
import os
import select
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from farlight_env.game.hidden import PlayerView
from farlight_env.game.serialize import game_to_json

#: Seconds a child may take to start and build its agent, and to answer one decision.
START_SECONDS = 120.0
DECISION_SECONDS = 600.0
#: Bounds on one frame: requests carry a game (~15 kB) and vectors; answers are tiny.
MAX_REQUEST_BYTES = 64 << 20
MAX_REPLY_BYTES = 64 << 10


# --------------------------------------------------------------------------- the protocol
class Make(msgspec.Struct, tag="make"):
    """Build the agent for a new game (an `agents.make` name or *.pt path, or
    "package.module:factory" for an agent that is not registered; seed; keyword arguments)
    and use `card_set` (a card file's data) for every view until the next Make."""

    agent: str
    seed: int
    kwargs: dict[str, Any]
    card_set: dict[str, Any]


class Act(msgspec.Struct, tag="act"):
    """One decision: the observation and mask as raw bytes, the info's plain values, and the
    seat's redacted game as saved-game JSON without its card set."""

    seat: int
    observation: bytes
    observation_dtype: str
    observation_shape: list[int]
    mask: bytes
    info: dict[str, Any]
    game: str


class Ready(msgspec.Struct, tag="ready"):
    name: str
    needs_observation: bool


class Chose(msgspec.Struct, tag="chose"):
    action: int
    cpu_seconds: float


class Failed(msgspec.Struct, tag="failed"):
    error: str  # "ExceptionType: first line of its message"


Request = Make | Act
Reply = Ready | Chose | Failed


class SealedAgentError(RuntimeError):
    """A sealed agent that failed, timed out, died or answered out of turn."""


def _write_frame(fd: int, body: bytes) -> None:
    data = len(body).to_bytes(4, "big") + body
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read_exact(fd: int, count: int, deadline: float | None) -> bytes:
    chunks, left = [], count
    while left:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([fd], [], [], wait)[0]:
                raise TimeoutError("no answer in time")
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise EOFError("the process ended")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _read_frame(fd: int, limit: int, deadline: float | None = None) -> bytes:
    size = int.from_bytes(_read_exact(fd, 4, deadline), "big")
    if size > limit:
        raise ValueError(f"a message of {size} bytes (at most {limit})")
    return _read_exact(fd, size, deadline)


def _one_line(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}"[:500]


# --------------------------------------------------------------------------- the child
def child_main(parent_pid: int) -> None:
    """The child's loop: answer Make and Act requests on stdin until it closes."""
    from agents.registry import make
    from agents.tournament.backends import single_threaded_worker
    from agents.workers import die_with_parent
    from farlight_env.cards.io import card_set_from_dict
    from farlight_env.game.hidden import SealedView

    die_with_parent(parent_pid)
    single_threaded_worker()
    out = os.dup(1)
    os.dup2(2, 1)  # the agent's prints go to stderr, never into the answers
    inp = sys.stdin.buffer.fileno()
    requests = msgspec.msgpack.Decoder(Request)
    encode = msgspec.msgpack.Encoder().encode
    agent: Any = None
    cards: Any = None
    known_cards: dict[bytes, Any] = {}  # one CardSet object per card set: codecs are cached
    while True:
        try:
            body = _read_frame(inp, MAX_REQUEST_BYTES)
        except EOFError:
            return
        try:
            request = requests.decode(body)
            if isinstance(request, Make):
                key = msgspec.json.encode(request.card_set, order="sorted")
                cards = known_cards.get(key)
                if cards is None:
                    cards = known_cards[key] = card_set_from_dict(request.card_set, source="parent")
                agent = _build(make, request)
                agent.reset()
                name = str(getattr(agent, "name", type(agent).__name__))
                reply: Reply = Ready(name, bool(getattr(agent, "needs_observation", True)))
            else:
                if agent is None:
                    raise RuntimeError("asked to act before any agent was made")
                cpu = time.process_time()
                observation = np.frombuffer(
                    bytearray(request.observation), request.observation_dtype
                )
                observation = observation.reshape(request.observation_shape)
                mask = np.frombuffer(bytearray(request.mask), np.int8)  # writable, as the env's
                view = SealedView.from_json(request.game, request.seat, cards)
                info = {**request.info, "seat": request.seat, "view": view}
                action = agent.act(observation, mask, info)
                reply = Chose(int(action), time.process_time() - cpu)
        except Exception as exc:  # noqa: BLE001 - any agent error goes back by name
            reply = Failed(_one_line(exc))
        _write_frame(out, encode(reply))


def _build(make: Any, request: Make) -> Any:
    """The agent a Make names: registered or saved (agents.make), or module:factory."""
    module, colon, attr = request.agent.partition(":")
    if colon and not request.agent.endswith(".pt"):
        import importlib

        factory = getattr(importlib.import_module(module), attr)
        return factory(seed=request.seed, **request.kwargs)
    return make(request.agent, seed=request.seed, **request.kwargs)


# --------------------------------------------------------------------------- the parent
class _Child:
    """One child process and its pipes."""

    def __init__(self) -> None:
        root = str(Path(__file__).resolve().parents[1])  # so that the child imports this agents
        path = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
        code = f"from agents.sealed import child_main; child_main({os.getpid()})"
        self.process = subprocess.Popen(
            [sys.executable, "-c", code],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env={**os.environ, "PYTHONPATH": path, "OMP_NUM_THREADS": "1"},
        )
        self.encode = msgspec.msgpack.Encoder().encode
        self.replies = msgspec.msgpack.Decoder(Reply)

    def ask(self, request: Request, seconds: float) -> Reply:
        assert self.process.stdin is not None and self.process.stdout is not None
        try:
            _write_frame(self.process.stdin.fileno(), self.encode(request))
            body = _read_frame(
                self.process.stdout.fileno(), MAX_REPLY_BYTES, time.monotonic() + seconds
            )
            return self.replies.decode(body)
        except TimeoutError:
            self.close()
            raise SealedAgentError(f"no answer within {seconds:g} s") from None
        except (EOFError, BrokenPipeError):
            try:
                code = self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                code = None
            self.close()
            raise SealedAgentError(f"the sealed agent's process ended (exit code {code})") from None
        except (ValueError, msgspec.DecodeError) as exc:
            self.close()
            raise SealedAgentError(f"a malformed answer: {_one_line(exc)}") from None

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()


_IDLE: list[_Child] = []  # children of this process waiting for their next game


def _take() -> _Child:
    while _IDLE:
        child = _IDLE.pop()
        if child.alive:
            return child
        child.close()
    return _Child()


@atexit.register
def close_children() -> None:
    """End every idle child (they also die with this process)."""
    while _IDLE:
        _IDLE.pop().close()


class SealedAgent:
    """The parent's stand-in for an agent playing from its own process (the Agent protocol).

    Made per game like any agent; `close()` gives its child back to the pool for the next
    game (or kills it if it failed). `last_cpu_seconds` is the CPU the child spent on the last
    decision, which the parent's own clock does not see.
    """

    def __init__(self, agent: str, seed: int, card_set: dict[str, Any], **kwargs: Any) -> None:
        self._child: _Child | None = _take()
        self._make = Make(agent, int(seed), dict(kwargs), card_set)
        self.last_cpu_seconds = 0.0
        reply = self._ask(self._make, START_SECONDS)
        if not isinstance(reply, Ready):
            raise self._fail(reply)
        self.name = reply.name
        self.needs_observation = reply.needs_observation

    def reset(self) -> None:
        """The child made (and reset) a fresh agent for this game already."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        view = info.get("view")
        if not isinstance(view, PlayerView):
            raise ValueError("a sealed agent needs info['view'] (the seat's PlayerView)")
        observation = np.ascontiguousarray(observation)
        plain = {k: v for k, v in info.items() if k not in ("view", "seat")}
        request = Act(
            view.seat,
            observation.tobytes(),
            observation.dtype.str,
            list(observation.shape),
            np.ascontiguousarray(action_mask, np.int8).tobytes(),
            plain,
            game_to_json(view.redacted(), with_cards=False),
        )
        reply = self._ask(request, DECISION_SECONDS)
        if not isinstance(reply, Chose):
            raise self._fail(reply)
        self.last_cpu_seconds = reply.cpu_seconds
        action = reply.action
        if not 0 <= action < len(action_mask) or not action_mask[action]:
            raise SealedAgentError(f"illegal action {action}: the mask forbids it")
        return action

    def _ask(self, request: Request, seconds: float) -> Reply:
        if self._child is None:
            raise SealedAgentError("the sealed agent was closed")
        try:
            return self._child.ask(request, seconds)
        except SealedAgentError:
            self._child = None  # closed by ask
            raise

    def _fail(self, reply: Reply) -> SealedAgentError:
        if self._child is not None:  # a refusal leaves the child sound: keep it
            _IDLE.append(self._child)
            self._child = None
        error = reply.error if isinstance(reply, Failed) else f"answered {type(reply).__name__}"
        return SealedAgentError(error)

    def close(self) -> None:
        """Give the child back to the pool (for this worker's next game)."""
        if self._child is not None:
            _IDLE.append(self._child)
            self._child = None
