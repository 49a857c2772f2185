"""The routes every game's server has, and what all routes share (`Server`): the page, health,
a live game's state, its actions and invites, and the steps of an open replay. They reach a
game only through its table (`seats.SeatedTable`) and its replay (`replays.Replay`); the
routes that know a game (new games, listings, uploads) are its own (`farlight_web.farlight`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response

from farlight_env.platform.records import RecordError
from farlight_web.answers import error, log, query_int, refused, request_tokens
from farlight_web.clients import Address, request_client
from farlight_web.files import FileIndex
from farlight_web.limits import Limits, RateLimiter
from farlight_web.replays import Replay, Replays
from farlight_web.schemas import BodyError, Choice, Claim, decode, read_body
from farlight_web.seats import BadAction, Conflict, NotYourSeat, parse_seat_keys, seats_held
from farlight_web.storage import UploadStore
from farlight_web.tables import GameNotFound, Tables

STATIC = Path(__file__).parent / "static"


class Server:
    """What the routes share: `--data`, the live games, the open replays, the listings' index,
    the uploads and the rate limits, with who a request's client is (`farlight_web.clients`)."""

    def __init__(
        self,
        data: Path,
        tables: Tables,
        limits: Limits,
        clock: Callable[[], float] = time.monotonic,
        proxy: Address | None = None,
    ) -> None:
        self.data = data
        self.tables = tables
        self.proxy = proxy
        self.replays = Replays(limits.open_replays, limits.replays_per_client)
        self.file_index = FileIndex()  # what listings read, kept while files are unchanged
        self.uploads = UploadStore(data, limits.upload_files, limits.upload_bytes)
        self.new_games = RateLimiter(limits.new_games, clock)
        self.new_uploads = RateLimiter(limits.uploads, clock)
        self.new_replays = RateLimiter(limits.replays, clock)
        self.upload_slots = threading.BoundedSemaphore(limits.concurrent_uploads)

    def client(self, request: Request) -> str:
        """Whom a rate limit and the replays per client count (`farlight_web.clients`)."""
        peer = request.client.host if request.client else None
        return request_client(peer, request.headers.getlist("x-forwarded-for"), self.proxy)

    def held(self, table: Any, request: Request) -> set[int]:
        return table.seats_of(request_tokens(request))

    async def find(self, request: Request) -> Any:
        """The game of the path, or an error response."""
        try:
            return await run_in_threadpool(self.tables.get, request.path_params["id"])
        except GameNotFound as exc:
            return error(str(exc), 404)
        except RecordError as exc:
            return error(f"saved game cannot be resumed: {exc}", 409)

    def opened(self, replay: Replay, key: str, request: Request, **extra: Any) -> Response:
        """The replay's id and summary; an unfinished game's only for the seats the request's
        tokens hold (and spectators), without its scores."""
        summary = replay.summary()
        opener = self.client(request)
        if replay.record.get("finished", True) is not False:
            return JSONResponse({"id": self.replays.add(key, replay, opener), **extra, **summary})
        try:
            keys = parse_seat_keys(replay.record, Path(replay.source))
        except RecordError:
            keys = []
        game_id = Path(replay.source.split(" ")[0]).stem
        seats = seats_held(keys, game_id, request_tokens(request))
        summary.update(scores=None, winners=None, viewers=sorted(seats), finished=False)
        rid = self.replays.add(key, replay, opener, seats)
        return JSONResponse({"id": rid, **extra, **summary})

    # ------------------------------------------------------------------ routes
    async def index(self, request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def health(self, request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def get_game(self, request: Request) -> Response:
        table = await self.find(request)
        if isinstance(table, Response):
            return table
        try:
            since = query_int(request, "since")
            views = query_int(request, "views") != 0  # views=0: moves without their boards
        except BodyError as exc:
            return error(str(exc), exc.status)
        seats = self.held(table, request)
        if request_tokens(request) and not seats:
            return error(f"no token sent holds a seat in game {table.id}", 403)

        def read() -> dict[str, Any]:
            with table.lock:  # never half-way through the bots' moves
                if table.bots_to_move:
                    table.advance()  # the bots go on thinking, within the budget
                return table.state(table.viewer(seats), since, views)

        return JSONResponse(await run_in_threadpool(read))

    async def act(self, request: Request) -> Response:
        table = await self.find(request)
        if isinstance(table, Response):
            return table
        try:
            choice = decode(await read_body(request), Choice)
        except BodyError as exc:
            return refused(exc, request)
        if not request_tokens(request):
            return error("acting needs your seat's token: Authorization: Bearer <token>", 401)
        seats = self.held(table, request)
        if not seats:
            return error(f"no token sent holds a seat in game {table.id}", 403)

        def play() -> dict[str, Any]:
            with table.lock:
                seat = table.game.current_player
                table.play(seats, choice.index, choice.version)
                return table.state(seat, since=choice.version)

        try:
            return JSONResponse(await run_in_threadpool(play))
        except Conflict as exc:
            return error(str(exc), 409)
        except BadAction as exc:
            return error(str(exc), 422)

    async def claim(self, request: Request) -> Response:
        """An invite code for a seat: that seat's token (the code is used up)."""
        table = await self.find(request)
        if isinstance(table, Response):
            return table
        try:
            spec = decode(await read_body(request), Claim)
        except BodyError as exc:
            return refused(exc, request)

        def take() -> dict[str, Any]:
            with table.lock:
                seat, token = table.claim(spec.invite)
                return {"token": token, **table.state(seat, since=None)}

        try:
            return JSONResponse(await run_in_threadpool(take))
        except NotYourSeat as exc:
            return error(str(exc), 403)

    async def replay_step(self, request: Request) -> Response:
        found = self.replays.get(request.path_params["id"])
        if found is None:
            return error(f"unknown replay {request.path_params['id']!r}: open it again", 404)
        replay, viewers = found.replay, found.viewers
        try:
            step = query_int(request, "step") or 0
            viewer = query_int(request, "viewer")
        except BodyError as exc:
            return error(str(exc), exc.status)
        steps = replay.steps
        if not 0 <= step <= steps:
            return error(f"step must be 0..{steps}, got {step}", 400)
        seats = len(replay.record["players"])
        if viewer is not None and not 0 <= viewer < seats:
            return error(f"viewer must be a seat 0..{seats - 1} (or absent), got {viewer}", 400)
        if viewers is not None and viewer is not None and viewer not in viewers:
            return error(
                f"the game is still being played: seat {viewer}'s view needs its token", 403
            )
        return JSONResponse(await run_in_threadpool(replay.at, step, viewer))


async def not_found(request: Request, exc: HTTPException) -> Response:
    response = error(exc.detail or "not found", exc.status_code)
    response.headers.update(exc.headers or {})  # a 405 keeps its Allow
    return response


async def server_error(request: Request, exc: Exception) -> Response:
    log.exception("%s %s failed", request.method, request.url.path, exc_info=exc)
    return error(f"internal error ({type(exc).__name__}); the server log has details", 500)
