"""Farlight's routes, and the live games they need (`farlight_tables`, Farlight the default game):
its rules page, what a new game may choose (/api/options), new games (another registered
game's too, `lineups`), the caller's games, the records, replays and uploads of its formats,
and the leaderboard of its tournaments and scorecards (`library`)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response

from farlight_env.cards.model import CardSet
from farlight_env.game.config import ConfigError
from farlight_env.game.rules_options import RuleOptionError, option_help
from farlight_env.platform.records import PLATFORM_RECORD, RecordError
from farlight_env.records.record import load_record
from farlight_env.tools.rules_page import RULES_RELPATH, rules_path
from farlight_web.answers import error, log, query_int, refused, request_tokens, too_many
from farlight_web.bots import POLICY_FOLDER, WEB_MAX_ITERATIONS, BotUnfit, policy_names
from farlight_web.farlight import library
from farlight_web.farlight.lineups import catalog, chosen_game, farlight_lineup, platform_lineup
from farlight_web.farlight.schemas import NewGame, options_page
from farlight_web.farlight.tables import Tables
from farlight_web.farlight.uploads import open_upload
from farlight_web.limits import THINK_SECONDS, Limits
from farlight_web.routes import Server
from farlight_web.schemas import MAX_UPLOAD_BYTES, BodyError, OpenReplay, decode, read_body
from farlight_web.seats import parse_seat_keys, seats_held
from farlight_web.tables import ID_PATTERN


def farlight_tables(
    data: Path,
    card_set: CardSet | None,
    limits: Limits,
    clock: Callable[[], float] = time.monotonic,
    think_seconds: float = THINK_SECONDS,
) -> Tables:
    """The live games of a server whose new games are Farlight's unless another is named, with
    `card_set` (None: the standard set)."""
    return Tables(data, card_set, limits.max_live_games, limits.idle_seconds, clock, think_seconds)


class FarlightRoutes:
    """Farlight's routes on `server`, whose live games are `tables` (`farlight_tables`)."""

    def __init__(self, server: Server, tables: Tables) -> None:
        self.server = server
        self.tables = tables
        self.data = server.data

    async def rules(self, request: Request) -> Response:
        # The rules page of this source tree, as text: a fixed file, nothing from the request.
        path = rules_path()
        if not path.is_file():
            return error(
                f"the rules page ({RULES_RELPATH}) is not installed with the package: read it "
                "in the Farlight-Env source repository",
                404,
            )
        return FileResponse(path, media_type="text/plain; charset=utf-8")

    async def options(self, request: Request) -> Response:
        from agents.registry import AGENT_NAMES

        rules = [
            {"name": n, "values": v.split("|"), "rule": r, "doc": d} for n, v, r, d in option_help()
        ]
        return JSONResponse(
            {
                "agents": list(AGENT_NAMES),
                "policies": await run_in_threadpool(policy_names, self.tables.policies),
                "max_ismcts_iterations": WEB_MAX_ITERATIONS,
                "card_set": self.tables.card_set_name,
                "rule_options": rules,
                **options_page(),
                "games": await run_in_threadpool(catalog),
            }
        )

    async def create_game(self, request: Request) -> Response:
        tables = self.tables
        if busy := too_many(self.server.new_games, self.server.client(request)):
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

    async def list_games(self, request: Request) -> Response:
        """The games the caller's tokens hold a seat in (nobody else's)."""

        def read() -> list[dict[str, Any]]:
            by_game: dict[str, list[str]] = {}
            for token in request_tokens(request):
                game_id = token.partition(".")[0]
                if ID_PATTERN.match(game_id):
                    by_game.setdefault(game_id, []).append(token)
            rows = []
            for game_id, tokens in by_game.items():
                path = self.tables.folder / f"{game_id}.json"
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

    async def records(self, request: Request) -> Response:
        """Records and results under --data; games still being played in DATA/games are not
        listed (each player finds theirs in GET /api/games), other unfinished records have
        no scores."""
        rows = []
        index = self.server.file_index
        for row in await run_in_threadpool(library.list_records, self.data, index):
            if row.get("kind") == "record" and row.get("finished") is False:
                if str(row["file"]).startswith("games/"):
                    continue
                row = {**row, "scores": None}
            rows.append(row)
        return JSONResponse(rows)

    async def open_replay(self, request: Request) -> Response:
        if busy := too_many(self.server.new_replays, self.server.client(request)):
            return busy
        try:
            spec = decode(await read_body(request), OpenReplay)
            replay = await run_in_threadpool(library.open_replay, self.data, spec.file, spec.game)
        except BodyError as exc:
            return refused(exc, request)
        except (RecordError, ValueError, OSError) as exc:
            return error(str(exc), 400)
        return self.server.opened(replay, f"{spec.file}#{spec.game}", request)

    async def upload(self, request: Request) -> Response:
        """A record or results.json sent as the body; kept under --data/uploads, then opened."""
        server = self.server
        if busy := too_many(server.new_uploads, server.client(request)):
            return busy
        if not server.upload_slots.acquire(blocking=False):
            return JSONResponse(
                {"error": "the server is busy with other uploads: try again in a few seconds"},
                status_code=503,
                headers={"Retry-After": "5"},
            )
        try:
            body = await read_body(request, MAX_UPLOAD_BYTES)
            game = query_int(request, "game")
            name, replay = await run_in_threadpool(open_upload, server.uploads, body, game)
        except BodyError as exc:
            return refused(exc, request)
        except RecordError as exc:
            return error(str(exc), 400)
        except OSError:
            log.exception("upload could not be stored")
            return error("the upload could not be stored on the server: try again later", 503)
        finally:
            server.upload_slots.release()
        return server.opened(replay, f"{name}#{game}", request, file=name)

    async def leaderboard(self, request: Request) -> Response:
        def read() -> dict[str, Any]:
            index = self.server.file_index
            return {
                "tournaments": library.tournaments(self.data, index),
                "scorecards": library.scorecards(self.data, index),
            }

        return JSONResponse(await run_in_threadpool(read))
