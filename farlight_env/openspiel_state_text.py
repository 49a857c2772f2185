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
from collections.abc import Callable
from typing import Any

import msgspec
import pyspiel

from farlight_env.game.game import FarlightGame
from farlight_env.game.serialize import game_to_json
from farlight_env.untrusted.jsontext import decode
from farlight_env.untrusted.messages import clip_message

STATE_FORMAT = "farlight-openspiel-state"
STATE_VERSION = 1
#: The longest state string read: a whole 5-player game's is about 40 kB.
MAX_STATE_CHARS = 1 << 22
#: What OpenSpiel's default (pickled) Python-state string starts with.
PICKLED_PREFIX = "history="
#: The section headers of OpenSpiel's game-and-state strings (open_spiel/spiel.cc).
META, GAME, STATE = "[Meta]", "[Game]", "[State]"
GAME_NAME = "python_farlight"


class StateStringError(pyspiel.SpielError, ValueError):
    """A python_farlight state string that is malformed, foreign or does not replay."""


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
    state = _replay(game, saved.history)
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


def _replay(game: Any, history: list[tuple[int, int]]) -> Any:
    """The game's first state with `history` applied, each action checked before it is."""
    if len(history) > game.max_game_length() + 1:
        raise _refuse(f"history of {len(history):,} actions, longer than any game")
    state = game.new_initial_state()
    for index, (player, action) in enumerate(history):
        if state.is_terminal():
            raise _refuse(f"history[{index}]: the game is over, yet the history goes on")
        if player != state.current_player():
            raise _refuse(
                f"history[{index}]: player {player} acts, but {state.current_player()} is to act"
            )
        if action not in state.legal_actions():
            raise _refuse(f"history[{index}]: action {action} is not legal there")
        state.apply_action(action)
    return state


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


# ------------------------------------------------------------------ pyspiel's module functions
def _sections(data: str) -> tuple[str, str] | None:
    """The game and state sections of a game-and-state string, split as OpenSpiel's C++
    `DeserializeGameAndState` splits them (open_spiel/spiel.cc), so both see the same game;
    None where that loader refuses the string before it loads a game."""
    sections, current = {META: "", GAME: "", STATE: ""}, None
    before = {META: None, GAME: META, STATE: GAME}
    for line in data.split("\n"):
        if not line or line.startswith("#"):
            continue
        if line in before:
            if current != before[line]:
                return None
            current = line
        elif current is None:
            return None
        else:
            sections[current] += line + "\n"
    return sections[GAME].removesuffix("\n"), sections[STATE].removesuffix("\n")


def _guarded_deserialize(original: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def deserialize_game_and_state(data: Any) -> Any:
        """OpenSpiel's `deserialize_game_and_state`; python_farlight states are read by their
        own checked format (farlight_env/openspiel_state_text.py), never unpickled."""
        if isinstance(data, bytes):
            try:
                data = data.decode("utf-8")
            except UnicodeDecodeError:
                raise StateStringError("a game-and-state string must be UTF-8 text") from None
        sections = _sections(data) if isinstance(data, str) else None
        if sections is None:
            return original(data)  # refused by OpenSpiel before any state is read
        game_text, state_text = sections
        game = pyspiel.deserialize_game(game_text)  # what the C++ loader would load
        if game.get_type().short_name != GAME_NAME:
            return original(data)
        return game, game.deserialize_state(state_text)

    deserialize_game_and_state.wrapped = original  # type: ignore[attr-defined]
    return deserialize_game_and_state


def _guarded_serialize(original: Callable[[Any, Any], str]) -> Callable[[Any, Any], str]:
    def serialize_game_and_state(game: Any, state: Any) -> str:
        """OpenSpiel's `serialize_game_and_state`; a python_farlight state in its own format."""
        if game.get_type().short_name != GAME_NAME:
            return original(game, state)
        return (
            "# Automatically generated by OpenSpiel SerializeGameAndState\n"
            f"{META}\nVersion: 1\n\n{GAME}\n{game.serialize()}\n{STATE}\n{state.serialize()}\n"
        )

    serialize_game_and_state.wrapped = original  # type: ignore[attr-defined]
    return serialize_game_and_state


def install() -> None:
    """Wrap pyspiel's game-and-state (de)serializers once, for this game's strings only."""
    if not hasattr(pyspiel.deserialize_game_and_state, "wrapped"):
        pyspiel.deserialize_game_and_state = _guarded_deserialize(
            pyspiel.deserialize_game_and_state
        )
    if not hasattr(pyspiel.serialize_game_and_state, "wrapped"):
        pyspiel.serialize_game_and_state = _guarded_serialize(pyspiel.serialize_game_and_state)
