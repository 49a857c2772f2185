"""The Starlette app: the JSON API (documented in docs/web.md), the page and the rules page.

Routes only: games live in `sessions` (another registered game's in `platform_tables`, #50;
who plays a new one in `lineups`), files in `library`, request shapes in `schemas`. Every
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
kept under a quota (`uploads`), listings read only changed files (`library.FileIndex`), and
each client may start games, open replays and upload at a limited rate (429 with
Retry-After); a client is the socket's peer (`farlight_web.clients`), never a header it
writes, unless `trusted_proxy` names the reverse proxy it comes through. Open replays keep
bounded state and are bounded in number, in all and per client (`farlight_web.replays`).
Connections and read deadlines are uvicorn's side (`farlight_web.server`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from farlight_env.cards.model import CardSet
from farlight_env.game.config import ConfigError
from farlight_env.game.rules_options import RuleOptionError, option_help
from farlight_env.platform.records import PLATFORM_RECORD, RecordError
from farlight_env.records.record import load_record
from farlight_env.tools.rules_page import RULES_RELPATH, rules_path
from farlight_web import files
from farlight_web.bots import (
    POLICY_FOLDER,
    WEB_MAX_ITERATIONS,
    BotUnfit,
    policy_names,
)
from farlight_web.clients import Address, parse_address, request_client
from farlight_web.farlight import library
from farlight_web.farlight.lineups import catalog, chosen_game, farlight_lineup, platform_lineup
from farlight_web.farlight.schemas import NewGame, options_page
from farlight_web.farlight.tables import Tables
from farlight_web.farlight.uploads import open_upload
from farlight_web.hosts import HostCheck
from farlight_web.limits import THINK_SECONDS, Limits, RateLimiter, retry_after
from farlight_web.replays import Replay, Replays
from farlight_web.schemas import (
    MAX_UPLOAD_BYTES,
    BodyError,
    Choice,
    Claim,
    ClientGone,
    OpenReplay,
    decode,
    read_body,
)
from farlight_web.seats import BadAction, Conflict, NotYourSeat, parse_seat_keys, seats_held
from farlight_web.storage import UPLOAD_FOLDER, UploadStore, remove_stale_temp_files
from farlight_web.tables import ID_PATTERN, GameNotFound

STATIC = Path(__file__).parent / "static"
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


def make_app(
    data: Path | str = Path("farlight-data"),
    card_set: CardSet | None = None,
    allowed_hosts: Iterable[str] = (),
    think_seconds: float = THINK_SECONDS,
    limits: Limits | None = None,
    clock: Callable[[], float] = time.monotonic,
    trusted_proxy: str | None = None,
) -> Starlette:
    """The app serving `data` (created if missing): games, records, tournaments, scorecards.
    New games use `card_set` (default: the standard set); saved ones keep their own.
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
    tables = Tables(
        data, card_set, limits.max_live_games, limits.idle_seconds, clock, think_seconds
    )
    replays = Replays(limits.open_replays, limits.replays_per_client)
    file_index = files.FileIndex()  # what listings read, kept while files are unchanged
    uploads = UploadStore(data, limits.upload_files, limits.upload_bytes)
    new_games = RateLimiter(limits.new_games, clock)
    new_uploads = RateLimiter(limits.uploads, clock)
    new_replays = RateLimiter(limits.replays, clock)
    upload_slots = threading.BoundedSemaphore(limits.concurrent_uploads)

    def client(request: Request) -> str:
        """Whom a rate limit and the replays per client count (`farlight_web.clients`)."""
        peer = request.client.host if request.client else None
        return request_client(peer, request.headers.getlist("x-forwarded-for"), proxy)

    def held(table: Any, request: Request) -> set[int]:
        return table.seats_of(request_tokens(request))

    async def find(request: Request) -> Any:
        """The game of the path, or an error response."""
        try:
            return await run_in_threadpool(tables.get, request.path_params["id"])
        except GameNotFound as exc:
            return error(str(exc), 404)
        except RecordError as exc:
            return error(f"saved game cannot be resumed: {exc}", 409)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def rules(request: Request) -> Response:
        # The rules page of this source tree, as text: a fixed file, nothing from the request.
        path = rules_path()
        if not path.is_file():
            return error(
                f"the rules page ({RULES_RELPATH}) is not installed with the package: read it "
                "in the Farlight-Env source repository",
                404,
            )
        return FileResponse(path, media_type="text/plain; charset=utf-8")

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def options(request: Request) -> Response:
        from agents.registry import AGENT_NAMES

        rules = [
            {"name": n, "values": v.split("|"), "rule": r, "doc": d} for n, v, r, d in option_help()
        ]
        return JSONResponse(
            {
                "agents": list(AGENT_NAMES),
                "policies": await run_in_threadpool(policy_names, tables.policies),
                "max_ismcts_iterations": WEB_MAX_ITERATIONS,
                "card_set": tables.card_set_name,
                "rule_options": rules,
                **options_page(),
                "games": await run_in_threadpool(catalog),
            }
        )

    async def create_game(request: Request) -> Response:
        if busy := too_many(new_games, client(request)):
            return busy
        try:
            spec = decode(await read_body(request), NewGame)
            game = chosen_game(spec)
            if game is None:
                lineup, seat, seed, config = farlight_lineup(spec, tables.policies)
            else:
                lineup, seat, seed, config = platform_lineup(spec, game)
        except BodyError as exc:
            return refused(exc, request)
        try:
            table, token, invites = await run_in_threadpool(
                tables.create, lineup, seat, seed, config, game
            )
        except (ConfigError, RuleOptionError, FileNotFoundError, BotUnfit) as exc:
            return error(str(exc), 400)
        except ValueError as exc:  # a saved policy that does not load
            where = str(tables.policies.resolve())
            return error(f"cannot start the game: {exc}".replace(where, POLICY_FOLDER), 400)
        except ImportError as exc:  # ppo and saved policies need torch
            return error(f"that opponent needs the train extra (torch): {exc}", 400)

        def read() -> dict[str, Any]:
            with table.lock:
                return table.state(seat, since=0)

        body = {
            "token": token,
            "invites": [
                {"seat": s, "code": code, "link": f"/#game={table.id}&invite={code}"}
                for s, code in sorted(invites.items())
            ],
            **await run_in_threadpool(read),
        }
        return JSONResponse(body, status_code=201)

    async def list_games(request: Request) -> Response:
        """The games the caller's tokens hold a seat in (nobody else's)."""

        def read() -> list[dict[str, Any]]:
            by_game: dict[str, list[str]] = {}
            for token in request_tokens(request):
                game_id = token.partition(".")[0]
                if ID_PATTERN.match(game_id):
                    by_game.setdefault(game_id, []).append(token)
            rows = []
            for game_id, tokens in by_game.items():
                path = tables.folder / f"{game_id}.json"
                try:
                    record = load_record(path)
                    seats = seats_held(parse_seat_keys(record, path), game_id, tokens)
                except (RecordError, OSError):
                    continue
                if not seats:
                    continue
                finished = bool(record.get("finished", True))
                other = {"game": record["game"]} if record.get("format") == PLATFORM_RECORD else {}
                rows.append(
                    {
                        "id": game_id,
                        "file": f"{game_id}.json",
                        "kind": "record",
                        "seats": sorted(seats),
                        "players": record["players"],
                        "finished": finished,
                        "scores": record["scores"] if finished else None,
                        **other,
                    }
                )
            return rows

        return JSONResponse(await run_in_threadpool(read))

    async def get_game(request: Request) -> Response:
        table = await find(request)
        if isinstance(table, Response):
            return table
        try:
            since = _query_int(request, "since")
            views = _query_int(request, "views") != 0  # views=0: moves without their boards
        except BodyError as exc:
            return error(str(exc), exc.status)
        seats = held(table, request)
        if request_tokens(request) and not seats:
            return error(f"no token sent holds a seat in game {table.id}", 403)

        def read() -> dict[str, Any]:
            with table.lock:  # never half-way through the bots' moves
                if table.bots_to_move:
                    table.advance()  # the bots go on thinking, within the budget
                return table.state(table.viewer(seats), since, views)

        return JSONResponse(await run_in_threadpool(read))

    async def act(request: Request) -> Response:
        table = await find(request)
        if isinstance(table, Response):
            return table
        try:
            choice = decode(await read_body(request), Choice)
        except BodyError as exc:
            return refused(exc, request)
        if not request_tokens(request):
            return error("acting needs your seat's token: Authorization: Bearer <token>", 401)
        seats = held(table, request)
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

    async def claim(request: Request) -> Response:
        """An invite code for a seat: that seat's token (the code is used up)."""
        table = await find(request)
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

    async def records(request: Request) -> Response:
        """Records and results under --data; games still being played in DATA/games are not
        listed (each player finds theirs in GET /api/games), other unfinished records have
        no scores."""
        rows = []
        for row in await run_in_threadpool(library.list_records, data, file_index):
            if row.get("kind") == "record" and row.get("finished") is False:
                if str(row["file"]).startswith("games/"):
                    continue
                row = {**row, "scores": None}
            rows.append(row)
        return JSONResponse(rows)

    async def open_replay(request: Request) -> Response:
        if busy := too_many(new_replays, client(request)):
            return busy
        try:
            spec = decode(await read_body(request), OpenReplay)
            replay = await run_in_threadpool(library.open_replay, data, spec.file, spec.game)
        except BodyError as exc:
            return refused(exc, request)
        except (RecordError, ValueError, OSError) as exc:
            return error(str(exc), 400)
        return _opened(replay, f"{spec.file}#{spec.game}", request)

    def _opened(replay: Replay, key: str, request: Request, **extra: Any) -> Response:
        """The replay's id and summary; an unfinished game's only for the seats the request's
        tokens hold (and spectators), without its scores."""
        summary = replay.summary()
        opener = client(request)
        if replay.record.get("finished", True) is not False:
            return JSONResponse({"id": replays.add(key, replay, opener), **extra, **summary})
        try:
            keys = parse_seat_keys(replay.record, Path(replay.source))
        except RecordError:
            keys = []
        game_id = Path(replay.source.split(" ")[0]).stem
        seats = seats_held(keys, game_id, request_tokens(request))
        summary.update(scores=None, winners=None, viewers=sorted(seats), finished=False)
        rid = replays.add(key, replay, opener, seats)
        return JSONResponse({"id": rid, **extra, **summary})

    async def upload(request: Request) -> Response:
        """A record or results.json sent as the body; kept under --data/uploads, then opened."""
        if busy := too_many(new_uploads, client(request)):
            return busy
        if not upload_slots.acquire(blocking=False):
            return JSONResponse(
                {"error": "the server is busy with other uploads: try again in a few seconds"},
                status_code=503,
                headers={"Retry-After": "5"},
            )
        try:
            body = await read_body(request, MAX_UPLOAD_BYTES)
            game = _query_int(request, "game")
            name, replay = await run_in_threadpool(open_upload, uploads, body, game)
        except BodyError as exc:
            return refused(exc, request)
        except RecordError as exc:
            return error(str(exc), 400)
        except OSError:
            log.exception("upload could not be stored")
            return error("the upload could not be stored on the server: try again later", 503)
        finally:
            upload_slots.release()
        return _opened(replay, f"{name}#{game}", request, file=name)

    async def replay_step(request: Request) -> Response:
        found = replays.get(request.path_params["id"])
        if found is None:
            return error(f"unknown replay {request.path_params['id']!r}: open it again", 404)
        replay, viewers = found.replay, found.viewers
        try:
            step = _query_int(request, "step") or 0
            viewer = _query_int(request, "viewer")
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

    async def leaderboard(request: Request) -> Response:
        def read() -> dict[str, Any]:
            return {
                "tournaments": library.tournaments(data, file_index),
                "scorecards": library.scorecards(data, file_index),
            }

        return JSONResponse(await run_in_threadpool(read))

    async def not_found(request: Request, exc: HTTPException) -> Response:
        response = error(exc.detail or "not found", exc.status_code)
        response.headers.update(exc.headers or {})  # a 405 keeps its Allow
        return response

    async def server_error(request: Request, exc: Exception) -> Response:
        log.exception("%s %s failed", request.method, request.url.path, exc_info=exc)
        return error(f"internal error ({type(exc).__name__}); the server log has details", 500)

    routes = [
        Route("/", index),
        Route("/rules", rules),
        Route("/api/health", health),
        Route("/api/options", options),
        Route("/api/games", create_game, methods=["POST"]),
        Route("/api/games", list_games, methods=["GET"]),
        Route("/api/games/{id}", get_game),
        Route("/api/games/{id}/actions", act, methods=["POST"]),
        Route("/api/games/{id}/claim", claim, methods=["POST"]),
        Route("/api/records", records),
        Route("/api/replays", open_replay, methods=["POST"]),
        Route("/api/replays/upload", upload, methods=["POST"]),
        Route("/api/replays/{id}", replay_step),
        Route("/api/leaderboard", leaderboard),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(
        routes=routes,
        exception_handlers={HTTPException: not_found, Exception: server_error},
    )
    app.add_middleware(HostCheck, allowed=tuple(allowed_hosts))
    app.state.tables = tables  # the live games (tests reach them to check what is sent)
    app.state.replays = replays
    app.state.index = file_index  # what the listings read (tests count the reads)
    app.state.upload_slots = upload_slots
    return app


def _query_int(request: Request, name: str) -> int | None:
    text = request.query_params.get(name)
    if text is None or text == "":
        return None
    if not text.isdigit() or len(text) > 12:
        raise BodyError(f"query parameter {name} must be a non-negative integer, got {text!r}")
    return int(text)
