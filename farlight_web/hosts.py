"""The Host check: a request must name this server, so a page on another site cannot reach
it through DNS rebinding (a name it controls, pointed at this machine).

Accepted: any IP literal (the browser asked for an address, not a name), `localhost` and the
names the server was given (`*`: any), each with or without a port. Refused with a JSON 400:
any other name, and a malformed header: an IPv6 literal with a zone id (`[fe80::1%eth0]`) or
invalid hex, anything after `]` but `:PORT`, an IPv6 address without brackets, a port that
is not a number up to 65535.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

#: Host names always accepted (with any port); IP literals are too (no DNS, no rebinding).
LOCAL_HOSTS = ("localhost",)
#: What may follow a host in a Host header: nothing, or a port of at most five digits.
PORT = re.compile(r"(:[0-9]{1,5})?")


def host_name(host: str) -> tuple[str, bool] | None:
    """(name, whether it is an IP literal) of a Host header (`name[:port]`, `[v6][:port]`);
    None when it is malformed: an IPv6 literal with a zone id (`%eth0`), invalid hex or
    anything after `]` but a port, a bare IPv6 address, a port that is no number to 65535."""
    host = host.strip().lower()
    if host.startswith("["):
        literal, closed, rest = host[1:].partition("]")
        if not closed or "%" in literal or not _port_ok(rest):
            return None
        try:
            ipaddress.IPv6Address(literal)
        except ValueError:
            return None
        return literal, True
    name, colon, port = host.partition(":")
    if not name or (colon and not _port_ok(colon + port)):
        return None
    try:
        ipaddress.IPv4Address(name)
        return name, True
    except ValueError:
        return name, False


def _port_ok(rest: str) -> bool:
    return PORT.fullmatch(rest) is not None and (not rest or int(rest[1:]) <= 65535)


def host_allowed(host: str, allowed: Iterable[str]) -> bool:
    """Whether a Host header names this server: an IP literal (the browser asked for an
    address, not a name: no rebinding possible), localhost or an allowed name."""
    found = host_name(host)
    if found is None:
        return False
    name, literal = found
    allowed = {a.lower() for a in allowed}
    return literal or "*" in allowed or name in allowed or name in LOCAL_HOSTS


class HostCheck:
    """Refuse (400, JSON) any request whose Host header does not name this server."""

    def __init__(self, app: ASGIApp, allowed: Iterable[str]) -> None:
        self.app = app
        self.allowed = tuple(allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            headers = dict(scope.get("headers") or [])
            host = headers.get(b"host", b"").decode("latin-1")
            if not host_allowed(host, self.allowed):
                shown = host[:80] or "none"
                message = (
                    f"Host {shown!r} is not this server's name; start farlight serve with "
                    "--allow-host NAME to accept it"
                )
                response = JSONResponse({"error": message}, status_code=400)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
