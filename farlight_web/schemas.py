"""The request bodies the API accepts, validated with msgspec before anything acts on them.

Each failure becomes one message naming the field (`$.seat`: "Expected `int`, got `str`"), sent
back as a 400. Bodies are read with a size bound first (`read_body`). The new-game body's game
options are derived from GameConfig: one field per option it offers, typed here and checked
(ranges, values) by GameConfig itself.
"""

from __future__ import annotations

from typing import Annotated, Any, Union

import msgspec
from starlette.requests import ClientDisconnect, Request

from farlight_env.game.config import (
    OFFERED_OPTIONS,
    OPTION_DEFAULTS,
    OPTION_SPECS,
    describe_options,
)
from farlight_env.game.facts import MAX_PLAYERS, MIN_PLAYERS
from farlight_env.game.options import members

MAX_BODY_BYTES = 64 << 10  # every JSON request the page sends is a few hundred bytes
MAX_UPLOAD_BYTES = 32 << 20  # an uploaded record or results.json

Seat = Annotated[int, msgspec.Meta(ge=0, le=MAX_PLAYERS - 1)]
AgentName = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
GameName = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
OptionName = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
Scalar = Union[bool, int, float, Annotated[str, msgspec.Meta(max_length=1000)], None]  # noqa: UP007


class BodyError(ValueError):
    """A request body that is too large, not JSON, or not the expected shape (HTTP status)."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


class ClientGone(BodyError):
    """The client closed the connection (or the server's read deadline did) before its body
    arrived: nobody reads the answer, the log gets one line."""


class Lineup(msgspec.Struct, forbid_unknown_fields=True):
    """The part of POST /api/games that is not a game option: who plays, which seats are
    human (the creator sits at `seat`), the bots of the other seats and the seed."""

    players: Annotated[int, msgspec.Meta(ge=MIN_PLAYERS, le=MAX_PLAYERS)] = 2
    seat: Seat | None = None
    humans: Annotated[list[Seat], msgspec.Meta(min_length=1, max_length=MAX_PLAYERS)] | None = None
    #: The bots' names (absent: the game's default bot, Farlight's heuristic).
    opponents: Annotated[list[AgentName], msgspec.Meta(max_length=MAX_PLAYERS - 1)] | None = None
    seed: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)] | None = None
    #: A registered game's name (absent: Farlight), and that game's options (not Farlight's,
    #: which are fields of their own), checked by its declaration (#50).
    game: GameName | None = None
    options: Annotated[dict[OptionName, Scalar], msgspec.Meta(max_length=64)] | None = None


def _member_value(group: type) -> Any:
    """The type of a group member's value: any type one of its members' defaults has."""
    kinds = {type(default) for _, default in members(group).values()}
    return Union[tuple(sorted(kinds, key=lambda k: k.__name__))]  # noqa: UP007


def _option_field(name: str) -> tuple[str, Any, Any]:
    """(name, type, default) of the body field of a game option: absent means its default (a
    group: a NAME -> value object of the members given)."""
    spec, default = OPTION_SPECS[name], OPTION_DEFAULTS[name]
    if spec.group is not None:
        return name, dict[str, _member_value(spec.group)], msgspec.field(default_factory=dict)
    return name, type(default) | None, None


#: POST /api/games: a Lineup plus one optional field per game option GameConfig offers
#: (grid_size, max_rounds, the rule options' group, ...).
NewGame = msgspec.defstruct(
    "NewGame",
    [_option_field(name) for name in OFFERED_OPTIONS],
    bases=(Lineup,),
    module=__name__,
    forbid_unknown_fields=True,
)


def new_game_options(spec: Any) -> dict[str, Any]:
    """The game options a NewGame body gives, as keyword arguments of FarlightGame and the
    envs (options left out keep their defaults; a group with no member given is left out)."""
    return {
        name: dict(value) if isinstance(value, dict) else value
        for name in OFFERED_OPTIONS
        if (value := getattr(spec, name)) is not None and value != {}
    }


def options_page() -> dict[str, Any]:
    """What /api/options says of the game: player bounds, each option's default (by name) and
    declaration (`game_options`)."""
    defaults = {
        name: OPTION_DEFAULTS[name] for name in OFFERED_OPTIONS if OPTION_SPECS[name].group is None
    }
    return {"players": [MIN_PLAYERS, MAX_PLAYERS], **defaults, "game_options": describe_options()}


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
