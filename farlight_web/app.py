"""The Starlette app: the JSON API (documented in docs/web.md), the page and the rules page.

It assembles the routes every game's server has (`routes`, what they share in `routes.Server`)
with Farlight's (`farlight.routes`: new games, whose lineups are in `farlight.lineups`, the
listings, replays and uploads); games live in `farlight.sessions` (another registered game's
in `platform_tables`, #50), files in `farlight.library`, request shapes in `schemas`. Every
error is a JSON object {"error": "..."} with a 4xx status, and nothing changes on an error (a
bug's 500 is JSON too). Bot thinking and replays run in worker threads, never on the event loop.

Trust: a seat's token comes as `Authorization: Bearer <token>` (several, space-separated, for a
client holding several); without one a request sees the spectator view. The Host header must
name this server (`allowed_hosts`, any IP literal, or `*` for any; `farlight_web.hosts`): a
page on another site cannot reach it through DNS rebinding. Every POST must declare
`application/json`, which a cross-site form or "simple" request cannot. A record of an
unfinished game replays only as the token's seat or a spectator sees it, without its scores.

Resources are bounded (`farlight_web.limits`, docs/safety.md): live games
are evicted past a count or when idle (`Tables`), uploads are parsed into a bounded shape and
kept under a quota (`storage`), listings read only changed files (`files.FileIndex`), and
each client may start games, open replays and upload at a limited rate (429 with
Retry-After); a client is the socket's peer (`farlight_web.clients`), never a header it
writes, unless `trusted_proxy` names the reverse proxy it comes through. Open replays keep
bounded state and are bounded in number, in all and per client (`farlight_web.replays`).
Connections and read deadlines are uvicorn's side (`farlight_web.server`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from farlight_web.clients import Address, parse_address
from farlight_web.farlight.routes import FarlightRoutes, farlight_tables
from farlight_web.hosts import HostCheck
from farlight_web.limits import THINK_SECONDS, Limits
from farlight_web.routes import STATIC, Server, not_found, server_error
from farlight_web.storage import UPLOAD_FOLDER, remove_stale_temp_files


def make_app(
    data: Path | str = Path("farlight-data"),
    card_set: Any = None,
    allowed_hosts: Iterable[str] = (),
    think_seconds: float = THINK_SECONDS,
    limits: Limits | None = None,
    clock: Callable[[], float] = time.monotonic,
    trusted_proxy: str | None = None,
) -> Starlette:
    """The app serving `data` (created if missing): games, records, tournaments, scorecards.
    New Farlight games use `card_set` (a CardSet; default: the standard set); saved ones
    keep their own.
    `allowed_hosts`: Host names accepted besides localhost and IP literals ("*": any).
    `think_seconds`: the bots' thinking per request before it returns ("thinking": true).
    `limits` bounds what it holds and accepts (default: `Limits()`); `clock` times eviction,
    rate limits and the bots' thinking (tests pass a fake one). `trusted_proxy`: the address
    of the reverse proxy whose X-Forwarded-For names the client (ValueError if it is none).

    At start, temp files a killed server left in `games/` and `uploads/` are removed;
    ValueError when one of those folders is a symbolic link (links are never followed)."""
    data = Path(data)
    limits = limits or Limits()
    proxy: Address | None = None
    if trusted_proxy is not None and (proxy := parse_address(trusted_proxy)) is None:
        raise ValueError(f"trusted proxy {trusted_proxy!r} is not an IP address")
    data.mkdir(parents=True, exist_ok=True)
    for folder in ("games", UPLOAD_FOLDER):
        if (data / folder).is_symlink():
            raise ValueError(f"{data / folder} is a symbolic link; make it a real folder")
        remove_stale_temp_files(data / folder)
    tables = farlight_tables(data, card_set, limits, clock, think_seconds)
    server = Server(data, tables, limits, clock, proxy)
    farlight = FarlightRoutes(server, tables)
    routes = [
        Route("/", server.index),
        Route("/rules", farlight.rules),
        Route("/api/health", server.health),
        Route("/api/options", farlight.options),
        Route("/api/games", farlight.create_game, methods=["POST"]),
        Route("/api/games", farlight.list_games, methods=["GET"]),
        Route("/api/games/{id}", server.get_game),
        Route("/api/games/{id}/actions", server.act, methods=["POST"]),
        Route("/api/games/{id}/claim", server.claim, methods=["POST"]),
        Route("/api/records", farlight.records),
        Route("/api/replays", farlight.open_replay, methods=["POST"]),
        Route("/api/replays/upload", farlight.upload, methods=["POST"]),
        Route("/api/replays/{id}", server.replay_step),
        Route("/api/leaderboard", farlight.leaderboard),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={HTTPException: not_found, Exception: server_error},
    )
    app.add_middleware(HostCheck, allowed=tuple(allowed_hosts))
    app.state.tables = tables  # the live games (tests reach them to check what is sent)
    app.state.replays = server.replays
    app.state.index = server.file_index  # what the listings read (tests count the reads)
    app.state.upload_slots = server.upload_slots
    return app
