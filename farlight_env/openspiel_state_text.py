"""The python_farlight state string: the engine's checked JSON and the history that replays to
it, never a pickle (docs/interop/openspiel.md, docs/safety.md).

OpenSpiel's own format for a Python game's state is `history=…\\nmove_number=…\\n__dict__=<a
base64 pickle>`, and its loaders unpickle the last line, so a crafted string runs code. Here
a state is one line of JSON, `{"format":"farlight-openspiel-state","version":1,"history":
[[player, action], …],"game":<FarlightGame JSON without its card set, or null before the
deal>}`: read back by replaying the history through the rules from the game's first state
(each action legal, by the seat to act) and accepted only if the replay gives the stored game,
which `FarlightGame.from_json` checks field by field. Anything else is a `StateStringError`,
a `pyspiel.SpielError` and a `ValueError`, of one bounded line.

`pyspiel.deserialize_game_and_state` is C++ and calls no Python hook before it unpickles, so
`install` wraps it (and `serialize_game_and_state`) in the pyspiel module: strings of this game
go through the format above, those of every other game to OpenSpiel unchanged.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

from farlight_env.game.game import FarlightGame
from farlight_env.game.serialize import game_to_json
from farlight_env.platform.spiel_strings import (
    GUARDED,
    MAX_STATE_CHARS,
    PICKLED_PREFIX,
    StateStringError,
    replay_history,
)
from farlight_env.untrusted.jsontext import decode
from farlight_env.untrusted.messages import clip_message

STATE_FORMAT = "farlight-openspiel-state"
STATE_VERSION = 1
GAME_NAME = "python_farlight"
GUARDED.add(GAME_NAME)


class SavedSpielState(msgspec.Struct, forbid_unknown_fields=True):
    """The state string's fields; `game` is kept raw for `FarlightGame.from_json`."""

    format: str
    version: int
    history: list[tuple[int, int]]
    game: msgspec.Raw


def state_to_text(state: Any) -> str:
    """The state string of a python_farlight state (one line of JSON)."""
    history = [[item.player, item.action] for item in state.full_history()]
    game = "null" if state.engine is None else game_to_json(state.engine.game, with_cards=False)
    head = json.dumps(
        {"format": STATE_FORMAT, "version": STATE_VERSION, "history": history},
        separators=(",", ":"),
    )
    return f'{head[:-1]},"game":{game}}}'


def state_from_text(game: Any, text: str | bytes) -> Any:
    """The state a string describes, after every check (StateStringError says which failed)."""
    saved = _decode(text)
    state = replay_history(game, saved.history, _refuse)
    _check_stored_game(game, state, saved.game)
    return state


def _refuse(message: str) -> StateStringError:
    return StateStringError(clip_message(f"python_farlight state string: {message}"))


def _decode(text: Any) -> SavedSpielState:
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if not isinstance(text, str):
        raise _refuse(f"expected text, got {type(text).__name__}")
    if len(text) > MAX_STATE_CHARS:
        raise _refuse(f"{len(text):,} characters, more than {MAX_STATE_CHARS:,}")
    if text.startswith(PICKLED_PREFIX):
        raise _refuse("OpenSpiel's pickled Python-state format is refused, never unpickled")
    try:
        saved = decode(text, SavedSpielState)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise _refuse(f"not this game's JSON state ({exc})") from None
    if saved.format != STATE_FORMAT or saved.version != STATE_VERSION:
        raise _refuse(
            f"format {saved.format!r} version {saved.version!r}; expected {STATE_FORMAT!r} "
            f"version {STATE_VERSION}"
        )
    return saved


def _check_stored_game(game: Any, state: Any, stored: msgspec.Raw) -> None:
    """The stored game passes the engine's own checks and is the one the history gave."""
    raw = bytes(stored)
    if state.engine is None:
        if raw != b"null":
            raise _refuse("a game is stored, but the history does not deal one")
        return
    if raw == b"null":
        raise _refuse("the history deals a game, but none is stored")
    try:
        saved = FarlightGame.from_json(raw, cards=game.cards)
    except ValueError as exc:
        raise _refuse(f"game: {exc}") from None
    if game_to_json(saved, with_cards=False) != game_to_json(state.engine.game, with_cards=False):
        raise _refuse("the history does not replay to the stored game")
