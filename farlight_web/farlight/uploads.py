"""Uploaded Farlight records and results files (and other games' records): parsed with bounded
memory, replayed, then stored once under a quota (`farlight_web.storage`).

An upload (at most `MAX_UPLOAD_BYTES`) is decoded by msgspec straight into the typed shape of
a record or a tournament's results (`UploadRecord`, `UploadResults`): every list and string
has a bound, and the first value of a wrong kind stops decoding, so memory stays a small
multiple of the upload (`[{}, {}, ...]` used to take 26 times its size as Python objects).
Fields a replay does not use (timings, summaries) are skipped without being built.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

import msgspec

from farlight_env.cards.schema import CardSetFile
from farlight_env.game.actions import RECORD_FIELDS  # the recorded fields of each action
from farlight_env.platform.records import PLATFORM_RECORD, RecordError
from farlight_env.records.record import RECORD_FORMAT, TOURNAMENT_FORMAT, validate_record
from farlight_env.untrusted.jsontext import decode
from farlight_web.farlight.replays import Replay
from farlight_web.replays import MAX_REPLAY_STEPS
from farlight_web.storage import UploadStore

MAX_RECORD_ACTIONS = MAX_REPLAY_STEPS  # decisions in one game (a 5-player game has ~250)
MAX_UPLOAD_GAMES = 10_000  # games in one uploaded results file
MAX_SEATS = 5

Name = Annotated[str, msgspec.Meta(max_length=500)]  # agent names, as NewGame allows
Word = Annotated[str, msgspec.Meta(max_length=100)]  # card names, enum values, option names
Seats = Annotated[list[int], msgspec.Meta(max_length=MAX_SEATS)]
UNSET: Any = msgspec.UNSET  # an absent field stays absent in the stored file


def _action_struct(cls: type, fields: dict[str, type]) -> type:
    """The msgspec shape of one recorded action kind, tagged by "type" as action_to_dict is."""
    kinds = {int: int, bool: bool, str: Word, list: tuple[Word, int]}
    return msgspec.defstruct(
        cls.__name__,
        [(name, kinds[kind]) for name, kind in fields.items()],
        tag_field="type",
        tag=cls.__name__,
        forbid_unknown_fields=True,
        gc=False,
    )


ActionShape = Union[tuple(_action_struct(c, f) for c, f in RECORD_FIELDS.items())]  # noqa: UP007


Option = bool | int | str | Annotated[dict[Word, bool | str], msgspec.Meta(max_length=32)]


class UploadRecord(msgspec.Struct, omit_defaults=True):
    """One game record: what `validate_record` and a replay read, each field bounded."""

    format: Literal["farlight-record"]
    version: int
    game_seed: int
    config: Annotated[dict[Word, Option], msgspec.Meta(max_length=16)]
    players: Annotated[list[Name], msgspec.Meta(max_length=MAX_SEATS)]
    scores: Seats
    actions: Annotated[list[ActionShape], msgspec.Meta(max_length=MAX_RECORD_ACTIONS)]
    index: int = UNSET
    env_seed: int | None = UNSET
    winners: Seats | None = UNSET
    breakdown: (
        Annotated[
            list[Annotated[dict[Word, int], msgspec.Meta(max_length=32)]],
            msgspec.Meta(max_length=MAX_SEATS),
        ]
        | None
    ) = UNSET
    rounds: int = UNSET
    end_reason: Word | None = UNSET
    human_seat: int = UNSET
    finished: bool = UNSET
    card_set: CardSetFile = UNSET  # the card-file schema itself: one declaration of it


class UploadResults(msgspec.Struct, omit_defaults=True):
    """A tournament's results.json: its games (the summary and timings are not kept)."""

    format: Literal["farlight-tournament"]
    version: int
    games: Annotated[list[UploadRecord], msgspec.Meta(max_length=MAX_UPLOAD_GAMES)]
    agents: Annotated[list[Name], msgspec.Meta(max_length=64)] = UNSET
    num_players: int = UNSET
    seed: int | None = UNSET


class UploadPlatformRecord(msgspec.Struct, omit_defaults=True):
    """Another game's record (#50, `farlight_env.platform.records`): what its replay reads,
    each field bounded; the game itself checks the rest by replaying it."""

    format: Literal["platform-record"]
    version: int
    game: Word
    game_version: int
    num_players: Annotated[int, msgspec.Meta(ge=1, le=MAX_SEATS)]
    players: Annotated[list[Name], msgspec.Meta(max_length=MAX_SEATS)]
    config: Annotated[dict[Word, bool | int | float | Name | None], msgspec.Meta(max_length=64)]
    game_seed: Annotated[int, msgspec.Meta(ge=0)]
    actions: Annotated[
        list[Annotated[int, msgspec.Meta(ge=0)]], msgspec.Meta(max_length=MAX_RECORD_ACTIONS)
    ]
    scores: Annotated[list[float], msgspec.Meta(max_length=MAX_SEATS)]
    winners: Seats
    index: int = UNSET
    env_seed: int | None = UNSET
    human_seat: int = UNSET
    finished: bool = UNSET


class _Format(msgspec.Struct):
    format: msgspec.Raw = msgspec.Raw(b"null")  # only this field is looked at; the rest skipped


Upload = UploadRecord | UploadResults | UploadPlatformRecord


def parse_upload(body: bytes) -> Upload:
    """The upload as typed data; RecordError naming the problem (nothing else is raised)."""
    try:
        raw = decode(body, _Format).format
    except msgspec.ValidationError:
        raise RecordError("upload: expected a JSON object (a record or results.json)") from None
    except msgspec.DecodeError as exc:
        raise RecordError(f"upload: not valid JSON ({exc})") from None
    kind = msgspec.json.decode(raw) if len(raw) <= 200 else "(a long value)"
    shapes = {
        RECORD_FORMAT: UploadRecord,
        TOURNAMENT_FORMAT: UploadResults,
        PLATFORM_RECORD: UploadPlatformRecord,
    }
    shape = shapes.get(kind) if isinstance(kind, str) else None
    if shape is None:
        raise RecordError(
            f"upload: not a Farlight record ('format' is {kind!r}; expected {RECORD_FORMAT!r} "
            f"or {TOURNAMENT_FORMAT!r}, or another game's {PLATFORM_RECORD!r})"
        )
    try:
        return decode(body, shape)
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        raise RecordError(f"upload: not a valid {kind} file: {exc}") from None


def open_upload(store: UploadStore, body: bytes, game: int | None) -> tuple[str, Replay]:
    """Check, replay and keep an upload: its name under --data and its replay. Nothing is
    stored when it does not replay (RecordError)."""
    upload = parse_upload(body)
    replay = upload_replay(upload, game)
    name = store.store(upload)
    replay.source = name + (f" game {game}" if game is not None else "")
    return name, replay


def upload_replay(upload: Upload, game: int | None) -> Replay:
    """The replay of the uploaded record, or of game `game` of uploaded results."""
    if isinstance(upload, UploadPlatformRecord):
        from farlight_web.platform_replays import PlatformReplay

        if game is not None:
            raise RecordError(f"upload: a single game record; game={game} applies to results files")
        return PlatformReplay(msgspec.to_builtins(upload), "upload")  # type: ignore[return-value]
    if isinstance(upload, UploadResults):
        indices = [g.index for g in upload.games if g.index is not UNSET]
        if game is None or game not in indices:
            shown = ", ".join(str(i) for i in indices[:20]) + (", ..." if len(indices) > 20 else "")
            problem = "choose one with ?game=N" if game is None else f"no game with index {game}"
            raise RecordError(
                f"upload: tournament results with {len(upload.games)} games; {problem} "
                f"(available indices: {shown or 'none'})"
            )
        chosen = next(g for g in upload.games if g.index == game)
    else:
        if game is not None and upload.index != game:
            raise RecordError(f"upload: a single game record; game={game} applies to results files")
        chosen = upload
    label = "upload" + (f" game {game}" if game is not None else "")
    # through JSON, so the record is exactly what the stored file will hold (lists, not tuples)
    record = validate_record(msgspec.json.decode(msgspec.json.encode(chosen)), label)
    return Replay(record, label)  # replays it: RecordError if it does not
