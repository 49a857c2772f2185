"""The Starlette app: the JSON API (documented in README, "In the browser") and the page.

Routes only: games live in `sessions`, files in `library`, request shapes in `schemas`. Every
error is a JSON object {"error": "..."} with a 4xx status, and nothing changes on an error.
Bot thinking and replays run in worker threads, never on the event loop.

Resources are bounded (`farlight_web.limits`, README "Safety and robustness"): live games
are evicted past a count or when idle (`Tables`), uploads are parsed into a bounded shape and
kept under a quota (`uploads`), listings read only changed files (`library.FileIndex`), and
each client address may start games and upload at a limited rate (429 with Retry-After).
"""

from __future__ import annotations

import hashlib
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
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
from farlight_env.game.config import ConfigError, GameConfig
from farlight_env.game.rules_options import RuleOptionError, option_help
from farlight_env.record import RecordError
from farlight_web import library
from farlight_web.limits import Limits, RateLimiter, retry_after
from farlight_web.schemas import (
    MAX_UPLOAD_BYTES,
    BodyError,
    Choice,
    NewGame,
    OpenReplay,
    decode,
    read_body,
)
from farlight_web.sessions import (
    HUMAN,
    POLICY_FOLDER,
    WEB_MAX_ITERATIONS,
    BadAction,
    GameNotFound,
    Tables,
    opponent_problem,
    policy_names,
)
from farlight_web.uploads import UPLOAD_FOLDER, UploadStore, open_upload, remove_stale_temp_files

STATIC = Path(__file__).parent / "static"
MAX_REPLAYS = 16  # replays kept open in memory (each holds every state of one game)


def error(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


class Replays:
    """Open replays by id, the least recently used dropped first."""

    def __init__(self) -> None:
        self.open: OrderedDict[str, library.Replay] = OrderedDict()
        self.lock = threading.Lock()

    def add(self, key: str, replay: library.Replay) -> str:
        rid = hashlib.sha256(key.encode()).hexdigest()[:16]
        with self.lock:
            self.open[rid] = replay
            self.open.move_to_end(rid)
            while len(self.open) > MAX_REPLAYS:
                self.open.popitem(last=False)
        return rid

    def get(self, rid: str) -> library.Replay | None:
        with self.lock:
            replay = self.open.get(rid)
            if replay is not None:
                self.open.move_to_end(rid)
            return replay


def client_address(request: Request) -> str:
    """Whom a rate limit counts: the peer's address (a proxy's, behind one)."""
    return request.client.host if request.client else "unknown"


def too_many(limiter: RateLimiter, request: Request) -> Response | None:
    """A 429 answer when the client has used its rate, else None (and a token is spent)."""
    wait = limiter.take(client_address(request))
    if wait is None:
        return None
    after = retry_after(wait)
    return JSONResponse(
        {"error": f"too many requests from {client_address(request)}: try again in {after} s"},
        status_code=429,
        headers={"Retry-After": after},
    )


def make_app(
    data: Path | str = Path("farlight-data"),
    card_set: CardSet | None = None,
    limits: Limits | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Starlette:
    """The app serving `data` (created if missing): games, records, tournaments, scorecards.
    New games use `card_set` (default: the standard set); saved ones keep their own.
    `limits` bounds what it holds and accepts (default: `Limits()`); `clock` times eviction
    and rate limits (tests pass a fake one).

    At start, temp files a killed server left in `games/` and `uploads/` are removed;
    ValueError when one of those folders is a symbolic link (links are never followed)."""
    data = Path(data)
    limits = limits or Limits()
    data.mkdir(parents=True, exist_ok=True)
    for folder in ("games", UPLOAD_FOLDER):
        if (data / folder).is_symlink():
            raise ValueError(f"{data / folder} is a symbolic link; make it a real folder")
        remove_stale_temp_files(data / folder)
    tables = Tables(data, card_set, limits.max_live_games, limits.idle_seconds, clock)
    replays = Replays()
    file_index = library.FileIndex()  # what listings read, kept while files are unchanged
    uploads = UploadStore(data, limits.upload_files, limits.upload_bytes)
    new_games = RateLimiter(limits.new_games, clock)
    new_uploads = RateLimiter(limits.uploads, clock)
    upload_slots = threading.BoundedSemaphore(limits.concurrent_uploads)

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def health(request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def options(request: Request) -> Response:
        from agents.registry import AGENT_NAMES

        rules = [
            {"name": n, "values": v.split("|"), "rule": r, "doc": d} for n, v, r, d in option_help()
        ]
        defaults = GameConfig()
        return JSONResponse(
            {
                "agents": list(AGENT_NAMES),
                "policies": await run_in_threadpool(policy_names, tables.policies),
                "max_ismcts_iterations": WEB_MAX_ITERATIONS,
                "players": [2, 5],
                "card_set": tables.card_set_name,
                "rule_options": rules,
                "grid_size": defaults.grid_size,
                "max_rounds": defaults.max_rounds,
            }
        )

    async def create_game(request: Request) -> Response:
        if refused := too_many(new_games, request):
            return refused
        try:
            spec = decode(await read_body(request), NewGame)
            lineup, seed, config = _lineup(spec, tables.policies)
        except BodyError as exc:
            return error(str(exc), exc.status)
        try:
            table = await run_in_threadpool(tables.create, lineup, spec.seat, seed, config)
        except (ConfigError, RuleOptionError, FileNotFoundError) as exc:
            return error(str(exc), 400)
        except ValueError as exc:  # a saved policy that does not load
            where = str(tables.policies.resolve())
            return error(f"cannot start the game: {exc}".replace(where, POLICY_FOLDER), 400)
        except ImportError as exc:  # ppo and saved policies need torch
            return error(f"that opponent needs the train extra (torch): {exc}", 400)
        return JSONResponse({"id": table.id, **table.state(with_moves=True)}, status_code=201)

    async def list_games(request: Request) -> Response:
        games = await run_in_threadpool(library.list_records, data / "games", file_index)
        return JSONResponse(games)

    async def get_game(request: Request) -> Response:
        try:
            table = await run_in_threadpool(tables.get, request.path_params["id"])
        except GameNotFound as exc:
            return error(str(exc), 404)
        except RecordError as exc:
            return error(f"saved game cannot be resumed: {exc}", 409)

        def read() -> dict[str, Any]:
            with table.lock:  # never half-way through the bots' moves
                return table.state()

        return JSONResponse(await run_in_threadpool(read))

    async def act(request: Request) -> Response:
        try:
            table = await run_in_threadpool(tables.get, request.path_params["id"])
        except GameNotFound as exc:
            return error(str(exc), 404)
        except RecordError as exc:
            return error(f"saved game cannot be resumed: {exc}", 409)
        try:
            choice = decode(await read_body(request), Choice)
        except BodyError as exc:
            return error(str(exc), exc.status)

        def play() -> dict[str, Any]:
            with table.lock:
                table.play(choice.index)
                return table.state(with_moves=True)

        try:
            return JSONResponse(await run_in_threadpool(play))
        except BadAction as exc:
            return error(str(exc), 409 if "turn" in str(exc) or "over" in str(exc) else 422)

    async def records(request: Request) -> Response:
        return JSONResponse(await run_in_threadpool(library.list_records, data, file_index))

    async def open_replay(request: Request) -> Response:
        try:
            spec = decode(await read_body(request), OpenReplay)
            replay = await run_in_threadpool(library.open_replay, data, spec.file, spec.game)
        except BodyError as exc:
            return error(str(exc), exc.status)
        except (RecordError, ValueError, OSError) as exc:
            return error(str(exc), 400)
        rid = replays.add(f"{spec.file}#{spec.game}", replay)
        return JSONResponse({"id": rid, **replay.summary()})

    async def upload(request: Request) -> Response:
        """A record or results.json sent as the body; kept under --data/uploads, then opened."""
        if refused := too_many(new_uploads, request):
            return refused
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
            return error(str(exc), exc.status)
        except RecordError as exc:
            return error(str(exc), 400)
        finally:
            upload_slots.release()
        rid = replays.add(f"{name}#{game}", replay)
        return JSONResponse({"id": rid, "file": name, **replay.summary()})

    async def replay_step(request: Request) -> Response:
        replay = replays.get(request.path_params["id"])
        if replay is None:
            return error(f"unknown replay {request.path_params['id']!r}: open it again", 404)
        try:
            step = _query_int(request, "step") or 0
            viewer = _query_int(request, "viewer")
        except BodyError as exc:
            return error(str(exc), exc.status)
        steps = len(replay.states) - 1
        if not 0 <= step <= steps:
            return error(f"step must be 0..{steps}, got {step}", 400)
        seats = len(replay.record["players"])
        if viewer is not None and not 0 <= viewer < seats:
            return error(f"viewer must be a seat 0..{seats - 1} (or absent), got {viewer}", 400)
        return JSONResponse(await run_in_threadpool(replay.at, step, viewer))

    async def leaderboard(request: Request) -> Response:
        def read() -> dict[str, Any]:
            return {
                "tournaments": library.tournaments(data, file_index),
                "scorecards": library.scorecards(data, file_index),
            }

        return JSONResponse(await run_in_threadpool(read))

    async def not_found(request: Request, exc: HTTPException) -> Response:
        return error(exc.detail or "not found", exc.status_code)

    routes = [
        Route("/", index),
        Route("/api/health", health),
        Route("/api/options", options),
        Route("/api/games", create_game, methods=["POST"]),
        Route("/api/games", list_games, methods=["GET"]),
        Route("/api/games/{id}", get_game),
        Route("/api/games/{id}/actions", act, methods=["POST"]),
        Route("/api/records", records),
        Route("/api/replays", open_replay, methods=["POST"]),
        Route("/api/replays/upload", upload, methods=["POST"]),
        Route("/api/replays/{id}", replay_step),
        Route("/api/leaderboard", leaderboard),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={HTTPException: not_found})
    app.state.tables = tables  # the live games (tests reach them to check what is sent)
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


def _lineup(spec: NewGame, policies: Path) -> tuple[list[str], int, dict[str, Any]]:
    """The seat lineup (the human at spec.seat), the seed and the game options, checked.
    A saved policy is named relative to --data/policies; no other file can be named."""
    from agents.registry import AGENT_NAMES

    opponents = list(spec.opponents)
    if len(opponents) == 1:
        opponents = opponents * (spec.players - 1)
    if len(opponents) != spec.players - 1:
        raise BodyError(
            f"opponents: {len(opponents)} agents for {spec.players - 1} opponent seats; give "
            f"{spec.players - 1} names, or one name to fill every seat"
        )
    if spec.seat >= spec.players:
        raise BodyError(f"seat must be 0..{spec.players - 1}, got {spec.seat}")
    problems = [opponent_problem(name, policies) for name in dict.fromkeys(opponents)]
    problems = [p for p in problems if p]
    if problems:
        mine = policy_names(policies)
        shown = ", ".join(mine[:10]) + (", ..." if len(mine) > 10 else "") or "none yet"
        raise BodyError(
            f"{problems[0]}; choose from {', '.join(AGENT_NAMES)}, ismcts@N (N <= "
            f"{WEB_MAX_ITERATIONS}) or a policy in --data/{POLICY_FOLDER} ({shown})"
        )
    config: dict[str, Any] = {}
    if spec.rule_options:
        config["rule_options"] = dict(spec.rule_options)
    if spec.grid_size is not None:
        config["grid_size"] = spec.grid_size
    if spec.max_rounds is not None:
        config["max_rounds"] = spec.max_rounds
    try:
        GameConfig.from_options(num_players=spec.players, **config)
    except ConfigError as exc:
        raise BodyError(str(exc)) from None
    seed = spec.seed if spec.seed is not None else random.SystemRandom().randrange(2**31)
    lineup = list(opponents)
    lineup.insert(spec.seat, HUMAN)
    return lineup, seed, config
