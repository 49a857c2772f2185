"""The sealed child's loop: answer Make and Act requests on stdin until it closes.

It builds a `SealedView` from each request (no live game behind it), calls `agent.act` and
answers one int; every answer repeats its request's number. The agent's own prints go to
stderr, never into the answers.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import os
import sys
from typing import Any

import msgspec
import numpy as np

from agents.farlight.sealed.protocol import (
    MAX_REQUEST_BYTES,
    Act,
    Chose,
    Failed,
    Make,
    Ready,
    Reply,
    Request,
    one_line,
    read_frame,
    write_frame,
)

PR_SET_CHILD_SUBREAPER = 36


def main(parent_pid: int, warm: str = "") -> None:
    """Serve the parent `parent_pid` until it closes our stdin (or dies: then we die too);
    with `warm` "torch", import torch while no request is waiting (a policy agent's child)."""
    from agents.registry import make
    from agents.torch_threads import single_threaded_worker
    from farlight_env.cards.io import card_set_from_dict
    from farlight_env.game.hidden import SealedView
    from farlight_env.processes import die_with_parent

    die_with_parent(parent_pid)
    if sys.platform.startswith("linux"):  # orphaned descendants stay ours, so the parent's
        ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # /proc count sees them
    if warm == "torch":
        with contextlib.suppress(ImportError):
            import torch  # noqa: F401 - ready before the agent is asked for
    single_threaded_worker()
    out = os.dup(1)
    os.dup2(2, 1)
    inp = sys.stdin.buffer.fileno()
    requests = msgspec.msgpack.Decoder(Request)
    encode = msgspec.msgpack.Encoder().encode
    agent: Any = None
    cards: Any = None
    known_cards: dict[bytes, Any] = {}  # one CardSet object per card set: codecs are cached
    while True:
        try:
            body = read_frame(inp, MAX_REQUEST_BYTES)
        except EOFError:
            return
        request_id = -1
        try:
            request = requests.decode(body)
            request_id = request.id
            if isinstance(request, Make):
                key = msgspec.json.encode(request.card_set, order="sorted")
                cards = known_cards.get(key)
                if cards is None:
                    cards = known_cards[key] = card_set_from_dict(request.card_set, source="parent")
                agent = _build(make, request)
                agent.reset()
                name = str(getattr(agent, "name", type(agent).__name__))
                needs = bool(getattr(agent, "needs_observation", True))
                reply: Reply = Ready(request.id, name, needs)
            else:
                if agent is None:
                    raise RuntimeError("asked to act before any agent was made")
                view = SealedView.from_json(request.game, request.seat, cards)
                info = {**request.info, "seat": request.seat, "view": view}
                action = agent.act(*_inputs(request), info)
                reply = Chose(request.id, int(action))
        except Exception as exc:  # noqa: BLE001 - any agent error goes back by name
            reply = Failed(request_id, one_line(exc))
        write_frame(out, encode(reply))


def _inputs(request: Act) -> tuple[np.ndarray, np.ndarray]:
    """The observation and mask of a request, writable, as the env gives them."""
    observation = np.frombuffer(bytearray(request.observation), request.observation_dtype)
    mask = np.frombuffer(bytearray(request.mask), np.int8)
    return observation.reshape(request.observation_shape), mask


def _build(make: Any, request: Make) -> Any:
    """The agent a Make names: registered or saved (agents.make), or module:factory."""
    module, colon, attr = request.agent.partition(":")
    if colon and not request.agent.endswith(".pt"):
        factory = getattr(importlib.import_module(module), attr)
        return factory(seed=int(request.seed), **request.kwargs)
    return make(request.agent, seed=int(request.seed), **request.kwargs)
