"""What every route reads of a request and how it answers, whatever game it serves: the seat
tokens sent, query integers, and the JSON errors (a 4xx, a 429 past a rate limit)."""

from __future__ import annotations

import logging

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from farlight_web.limits import RateLimiter, retry_after
from farlight_web.schemas import BodyError, ClientGone

MAX_TOKENS = 64  # tokens read from one Authorization header
log = logging.getLogger("farlight_web")


def error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def request_tokens(request: Request) -> list[str]:
    """The seat tokens sent as `Authorization: Bearer <token> [<token> ...]`."""
    header = request.headers.get("authorization", "")
    scheme, _, rest = header.partition(" ")
    if scheme.lower() != "bearer":
        return []
    return [t for t in rest.split() if 0 < len(t) <= 200][:MAX_TOKENS]


def too_many(limiter: RateLimiter, client: str) -> Response | None:
    """A 429 answer when `client` has used its rate, else None (and a token is spent)."""
    wait = limiter.take(client)
    if wait is None:
        return None
    after = retry_after(wait)
    return JSONResponse(
        {"error": f"too many requests from {client}: try again in {after} s"},
        status_code=429,
        headers={"Retry-After": after},
    )


def refused(exc: BodyError, request: Request) -> Response:
    """The 4xx of a bad body; a client that went away mid-body is one bounded log line."""
    if isinstance(exc, ClientGone):
        log.warning("%s %s: %s", request.method, request.url.path[:100], exc)
    return error(str(exc), exc.status)


def query_int(request: Request, name: str) -> int | None:
    text = request.query_params.get(name)
    if text is None or text == "":
        return None
    if not text.isdigit() or len(text) > 12:
        raise BodyError(f"query parameter {name} must be a non-negative integer, got {text!r}")
    return int(text)
