"""What a browser game (of any game) adds to its record, as msgspec schemas: the
seats' key hashes (`seat_keys`) and the bots' failures (`bot_errors`). Their shape is declared
here; what ties them to the record's lineup is checked where they are read (`seats`, `bots`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
from msgspec import Meta

from farlight_env.platform import MAX_SEATS
from farlight_env.platform.records import RecordError

#: A sha256 in hex: the record keeps hashes of tokens and invite codes, never the secrets.
Hash = Annotated[str, Meta(pattern=r"^[0-9a-f]{64}\Z")]
#: A human seat's key: its token's hash, its invite's hash, or {} (unclaimed); None is a bot.
SeatKey = Annotated[dict[Literal["token", "invite"], Hash], Meta(max_length=1)]
SeatKeys = Annotated[list[SeatKey | None], Meta(max_length=MAX_SEATS)]


class BotError(msgspec.Struct, forbid_unknown_fields=True):
    """A bot's first failure in a game: a stand-in played its moves when it failed."""

    seat: Annotated[int, Meta(ge=0, le=MAX_SEATS - 1)]
    agent: Annotated[str, Meta(max_length=4096)]
    error: Annotated[str, Meta(max_length=200)]
    version: Annotated[int, Meta(ge=0)]  # the decision it failed at


BotErrors = Annotated[list[BotError], Meta(max_length=MAX_SEATS)]


def read_field(record: dict[str, Any], field: str, kind: Any, default: Any, path: Path) -> Any:
    """`record[field]` (or `default`) as `kind`; RecordError naming the field otherwise."""
    try:
        return msgspec.convert(record.get(field, default), kind, strict=True)
    except msgspec.ValidationError as exc:
        where = str(exc).replace("`$", f"`{field}")  # msgspec's path, from the record's top
        raise RecordError(f"{path}: {field} does not fit a browser game: {where}") from None
