"""The request bodies the API accepts, validated with msgspec before anything acts on them.

Each failure becomes one message naming the field (`$.seat`: "Expected `int`, got `str`"), sent
back as a 400. Bodies are read with a size bound first (`read_body`). The new-game body is the
game's (Farlight's: `farlight_web.farlight.schemas`).
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
from starlette.requests import ClientDisconnect, Request

MAX_BODY_BYTES = 64 << 10  # every JSON request the page sends is a few hundred bytes
MAX_UPLOAD_BYTES = 32 << 20  # an uploaded record or results.json


class BodyError(ValueError):
    """A request body that is too large, not JSON, or not the expected shape (HTTP status)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class ClientGone(BodyError):
    """The client closed the connection (or the server's read deadline did) before its body
    arrived: nobody reads the answer, the log gets one line."""


class Choice(msgspec.Struct, forbid_unknown_fields=True):
    """POST /api/games/{id}/actions: the legal action's index and the decision it answers
    (the state's `version`: a choice made for an older decision is refused)."""

    index: Annotated[int, msgspec.Meta(ge=0, le=2**31)]
    version: Annotated[int, msgspec.Meta(ge=0, le=2**31)]


class Claim(msgspec.Struct, forbid_unknown_fields=True):
    """POST /api/games/{id}/claim: the invite code of a seat (none: an older game's unclaimed
    seat)."""

    invite: Annotated[str, msgspec.Meta(min_length=1, max_length=100)] | None = None


class OpenReplay(msgspec.Struct, forbid_unknown_fields=True):
    """POST /api/replays: a file under --data, and which game of a results.json."""

    file: Annotated[str, msgspec.Meta(min_length=1, max_length=1000)]
    game: Annotated[int, msgspec.Meta(ge=0, le=2**31)] | None = None


def check_json_type(request: Request) -> None:
    """Refuse (415) a body that is not declared `application/json`: a browser sends a
    cross-site "simple" request (form or text/plain) without asking first; never JSON."""
    declared = request.headers.get("content-type", "")
    if declared.split(";")[0].strip().lower() != "application/json":
        shown = declared[:60] or "none"
        raise BodyError(f"Content-Type must be application/json, got {shown}", 415)


async def read_body(request: Request, limit: int = MAX_BODY_BYTES) -> bytes:
    """The request body (declared application/json), refused (413) as soon as it passes
    `limit` bytes."""
    check_json_type(request)
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > limit:
        raise BodyError(f"request body too large: {declared} bytes (limit {limit})", 413)
    chunks: list[bytes] = []
    size = 0
    try:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise BodyError(f"request body too large (limit {limit} bytes)", 413)
            chunks.append(chunk)
    except ClientDisconnect:
        shown = f" of {declared[:20]}" if declared else ""
        raise ClientGone(f"the client went away after {size}{shown} bytes of its body") from None
    return b"".join(chunks)


def decode(body: bytes, kind: type[Any]) -> Any:
    """`body` as a `kind` struct; BodyError naming the bad field otherwise."""
    if not body.strip():
        raise BodyError(f"empty request body: expected a JSON object ({kind.__name__})")
    try:
        body.decode("utf-8")
    except UnicodeDecodeError as exc:
        message = f"request body is not UTF-8 text: {exc.reason} at byte {exc.start}"
        raise BodyError(message) from None
    try:
        return msgspec.json.decode(body, type=kind)
    except msgspec.ValidationError as exc:
        raise BodyError(f"invalid {kind.__name__}: {exc}") from None
    except msgspec.DecodeError as exc:
        raise BodyError(f"malformed JSON: {exc}") from None
