"""Records of games played on the platform (#50): a game that has its own format (Farlight's
"farlight-record") writes and checks it through its declaration; any other game gets the
generic one, which holds what replays it (game, players, options, seed, action indices) and
the outcome it must reproduce."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import msgspec

from farlight_env.platform.protocol import Game, GameError, State
from farlight_env.platform.registry import get_game
from farlight_env.untrusted.files import write_atomic
from farlight_env.untrusted.messages import clip_message

PLATFORM_RECORD = "platform-record"
PLATFORM_RECORD_VERSION = 1
#: The built-in games' own record formats: format -> game name.
OWN_FORMATS = {"farlight-record": "farlight"}
#: Longest game a generic record may hold (a bound on what replaying one costs).
MAX_ACTIONS = 1_000_000

Scalar = str | int | float | bool | None


class RecordError(GameError):
    """A record file of any game that cannot be read, is not a record, or does not replay (the
    message is one line of bounded length: farlight_env.untrusted.messages)."""

    def __init__(self, message: object = "") -> None:
        super().__init__(clip_message(str(message)))


def save_record(record: Mapping[str, Any], path: str | os.PathLike) -> Path:
    """Write any game's `record` as JSON atomically (`write_atomic`)."""
    path = Path(path)
    text = json.dumps(record, indent=1, sort_keys=True) + "\n"
    write_atomic(path, text.encode("utf-8"))
    return path


class PlatformRecord(msgspec.Struct):
    """The fields of a generic record that replay it and the outcome, type-checked (other
    fields, such as a tournament's timing, travel along unread)."""

    format: str
    version: int
    game: Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
    game_version: int
    num_players: Annotated[int, msgspec.Meta(ge=1, le=100)]
    players: list[Annotated[str, msgspec.Meta(max_length=4096)]]
    config: dict[str, Scalar]
    game_seed: Annotated[int, msgspec.Meta(ge=0)]
    actions: Annotated[
        list[Annotated[int, msgspec.Meta(ge=0)]], msgspec.Meta(max_length=MAX_ACTIONS)
    ]
    scores: list[float]
    winners: list[int]


def build_record(
    game: Game,
    env: Any,
    players: Sequence[str],
    env_seed: int,
    config: Mapping[str, Any],
    **extra: Any,
) -> dict[str, Any]:
    """The record of the game `env` (built by `aec.play_env`) has just played: the game's own
    format where it declares one, else the generic one."""
    if game.build_record is not None:
        return game.build_record(env, list(players), env_seed, dict(config), **extra)
    state: State = env.state
    options = {k: v for k, v in config.items() if k != "num_players"}
    return {
        "format": PLATFORM_RECORD,
        "version": PLATFORM_RECORD_VERSION,
        "game": game.name,
        "game_version": game.version,
        "num_players": state.num_players,
        "players": list(players),
        "config": game.checked_options(options),
        "env_seed": env_seed,
        "game_seed": env.game_seed,
        "actions": list(state.history),
        "scores": state.scores(),
        "winners": state.winners(),
        **extra,
    }


def game_of_record(record: Mapping[str, Any]) -> Game:
    """The declaration of the game a record is of (GameError for a record of no known game)."""
    fmt = record.get("format") if isinstance(record, Mapping) else None
    if fmt in OWN_FORMATS:
        return get_game(OWN_FORMATS[fmt])
    if fmt != PLATFORM_RECORD:
        raise GameError(f"not a game record ('format' is {fmt!r})")
    return get_game(str(record.get("game")))


def verify_record(record: Mapping[str, Any]) -> Any:
    """Replay a record and check it reproduces its outcome; the final game, or GameError (or
    the game's own record error) saying why not."""
    game = game_of_record(record)
    if game.verify_record is not None:
        return game.verify_record(record)
    try:
        checked = msgspec.convert(record, PlatformRecord)
    except msgspec.ValidationError as exc:
        raise GameError(f"not a {PLATFORM_RECORD}: {exc}") from None
    if len(checked.players) != checked.num_players:
        raise GameError(f"{len(checked.players)} players named for {checked.num_players} seats")
    if checked.version != PLATFORM_RECORD_VERSION or checked.game_version != game.version:
        raise GameError(
            f"a record of {game.name} version {checked.game_version} (format "
            f"{checked.version}); this is version {game.version} (format {PLATFORM_RECORD_VERSION})"
        )
    state = game.replay(checked.num_players, checked.game_seed, checked.actions, checked.config)
    if not state.is_over:
        raise GameError("the record's actions do not finish the game")
    if state.scores() != checked.scores or state.winners() != checked.winners:
        raise GameError(
            f"the record does not replay: scores {state.scores()} and winners "
            f"{state.winners()}, recorded {checked.scores} and {checked.winners}"
        )
    return state
