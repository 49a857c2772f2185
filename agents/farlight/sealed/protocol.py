"""The messages between the parent and a sealed child: msgpack frames (4-byte length, then
the body) over the child's stdin and a private copy of its stdout; nothing is unpickled.

Every request carries a number that its answer must repeat: an answer to another request, an
answer of the wrong kind or bytes beyond one answer are a desync, and that child is killed.
"""

from __future__ import annotations

import os
import select
import time
from typing import Annotated, Any

import msgspec

#: Bounds on one frame: requests carry a game (~15 kB) and vectors; answers are tiny.
MAX_REQUEST_BYTES = 64 << 20
MAX_REPLY_BYTES = 64 << 10


class Make(msgspec.Struct, tag="make"):
    """Build the agent for a new game (an `agents.make` name or *.pt path, or
    "package.module:factory" for an agent that is not registered; seed; keyword arguments)
    and use `card_set` (a card file's data) for every view until the next Make."""

    id: int
    agent: str
    #: In decimal: a held-out game's agent seeds have 129 bits, past msgpack's integers.
    seed: Annotated[str, msgspec.Meta(pattern="^[0-9]{1,45}$")]
    kwargs: dict[str, Any]
    card_set: dict[str, Any]


class Act(msgspec.Struct, tag="act"):
    """One decision: the observation and mask as raw bytes, the info's plain values, and the
    seat's redacted game as saved-game JSON without its card set."""

    id: int
    seat: int
    observation: bytes
    observation_dtype: str
    observation_shape: list[int]
    mask: bytes
    info: dict[str, Any]
    game: str


class Ready(msgspec.Struct, tag="ready"):
    id: int
    name: str
    needs_observation: bool


class Chose(msgspec.Struct, tag="chose"):
    id: int
    action: int


class Failed(msgspec.Struct, tag="failed"):
    id: int
    error: str  # "ExceptionType: first line of its message"


Request = Make | Act
Reply = Ready | Chose | Failed
#: The answers each request may get (besides Failed).
ANSWERS: dict[type, type] = {Make: Ready, Act: Chose}


def write_frame(fd: int, body: bytes) -> None:
    data = len(body).to_bytes(4, "big") + body
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def readable(fd: int, seconds: float) -> bool:
    """Whether `fd` has bytes (or its end) to read within `seconds`."""
    return bool(select.select([fd], [], [], max(seconds, 0.0))[0])


def read_exact(fd: int, count: int, deadline: float | None) -> bytes:
    chunks, left = [], count
    while left:
        if deadline is not None and not readable(fd, deadline - time.monotonic()):
            raise TimeoutError("no answer in time")
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise EOFError("the process ended")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int, limit: int, deadline: float | None = None) -> bytes:
    size = int.from_bytes(read_exact(fd, 4, deadline), "big")
    if size > limit:
        raise ValueError(f"a message of {size} bytes (at most {limit})")
    return read_exact(fd, size, deadline)


def one_line(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {text}"[:500]
