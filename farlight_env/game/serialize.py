"""Saving and loading games: the JSON file format around the declared state (state.py).

`game_to_json` and `game_from_json` add the config, card set and RNG to `state.dump_state`'s
data, and refuse a file that is not a game this engine could have produced; `game_from_state`
checks a `GameState` the same way.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import numpy as np

from farlight_env.cards.io import card_set_from_dict, card_set_to_dict
from farlight_env.cards.model import CardSet
from farlight_env.game import schema, validate
from farlight_env.game.actions import Action, action_from_dict
from farlight_env.game.config import ConfigError, GameConfig
from farlight_env.game.rules_options import LEGACY_RULE_OPTIONS
from farlight_env.game.state import dump_game_state, dump_state, load_state
from farlight_env.untrusted.messages import MAX_MESSAGE_CHARS, clip_message

if TYPE_CHECKING:
    from farlight_env.game.game import FarlightGame

SAVE_FORMAT = "farlight-game"
SAVE_VERSION = 1


def game_to_json(game: FarlightGame, with_cards: bool = True) -> str:
    """The full state, config, card set and RNG; `game_from_json` restores it exactly.
    `with_cards=False` leaves the card set out (empty), for a reader that holds it already."""
    data = {
        "format": SAVE_FORMAT,
        "version": SAVE_VERSION,
        "seed": game.seed,
        "config": game.config.as_dict(),
        "card_set": card_set_to_dict(game.cards) if with_cards else {},
        "rng": game.rng.bit_generator.state,
        "state": dump_state(game),
    }
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def game_from_json(
    cls: type[FarlightGame], text: str, cards: CardSet | None = None
) -> FarlightGame:
    """Rebuild a game saved by `game_to_json`; a corrupt or foreign text raises ValueError
    naming the field, and a state no legal play could produce is refused (game/validate.py).
    The message is one line of bounded length, whatever the text holds. `cards`, if given,
    is the card set to play with (checked against the state as a saved one is); the text's
    own card set is then not read (it may be empty)."""
    return _bounded(_game_from_json, cls, text, cards)


def game_from_state(
    cls: type[FarlightGame],
    config: GameConfig,
    cards: CardSet,
    state: Any,
    seed: int,
    rng: np.random.Generator | None,
    dealt: bool = True,
) -> FarlightGame:
    """A game at a declared `GameState`, checked exactly as `game_from_json` checks a saved
    file (the same schema, cross-field checks, history and decision checks); errors name the
    field as ``game state: state.crew[1]: ...``."""
    try:
        return _bounded(_game_from_state, cls, config, cards, state, seed, rng, dealt)
    except ValueError as exc:
        message = str(exc)
        if message.startswith("saved game: "):
            message = "game state: " + message[len("saved game: ") :]
        raise ValueError(message) from None


def _bounded(build: Any, *args: Any) -> FarlightGame:
    try:
        return build(*args)
    except ValueError as exc:
        message = str(exc)
        if len(message) <= MAX_MESSAGE_CHARS and "\n" not in message:
            raise
        raise ValueError(clip_message(message)) from None


def _game_from_json(
    cls: type[FarlightGame], text: str, cards: CardSet | None = None
) -> FarlightGame:
    if not isinstance(text, (str, bytes, bytearray)):
        raise ValueError(f"saved game is not valid JSON: expected text, got {type(text).__name__}")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"saved game is not valid JSON: {exc}") from None
    except RecursionError:
        raise ValueError("saved game is not valid JSON: nested too deeply") from None
    if not isinstance(data, dict) or data.get("format") != SAVE_FORMAT:
        raise ValueError(
            "saved game: not a Farlight game record (missing 'format': 'farlight-game')"
        )
    if data.get("version") != SAVE_VERSION:
        raise ValueError(f"saved game: unsupported version {data.get('version')!r}; expected 1")
    if cards is not None:
        data["card_set"] = {}  # not read: `cards` is used
    return _build(cls, data, cards)


def _game_from_state(
    cls: type[FarlightGame],
    config: GameConfig,
    cards: CardSet,
    state: Any,
    seed: int,
    rng: np.random.Generator | None,
    dealt: bool,
) -> FarlightGame:
    if rng is None:
        rng = np.random.Generator(np.random.PCG64(seed))
    data = {
        "format": SAVE_FORMAT,
        "version": SAVE_VERSION,
        "seed": seed,
        "config": config.as_dict(),
        "card_set": {},  # given as a CardSet, checked when it was built
        "rng": rng.bit_generator.state,
        "state": _dump_given_state(state),
    }
    return _build(cls, data, cards, dealt)


def _dump_given_state(state: Any) -> dict[str, Any]:
    try:
        return dump_game_state(state)
    except (AttributeError, TypeError, ValueError) as exc:
        raise ValueError(f"saved game: state: not a GameState of plain values ({exc})") from None


def _build(
    cls: type[FarlightGame], data: dict[str, Any], cards: CardSet | None = None, dealt: bool = True
) -> FarlightGame:
    """The game `data` (a saved file's parsed JSON) describes, after every check."""
    saved = schema.convert(data)
    try:
        game = object.__new__(cls)
        game.config = _config(saved.config)
        if cards is None:
            cards = card_set_from_dict(saved.card_set, source="saved game: card_set")
        game.cards = cards
        validate.check_state(saved.state, game.config, game.cards, dealt)
        game.seed = saved.seed
        game._init_tables()
        game.rng = np.random.Generator(np.random.PCG64(0))  # seeded: no OS entropy to gather
        game.rng.bit_generator.state = data["rng"]
        state = data["state"]
        load_state(game, {**state, "history": []})
        game.history = [_action(i, a) for i, a in enumerate(state["history"])]
        validate.check_history(game)
        validate.check_decision(game)
    except validate.StateError as exc:
        raise ValueError(f"saved game: {exc}") from None
    except ValueError as exc:  # ConfigError, CardFileError, a malformed history action
        message = str(exc)
        raise ValueError(message if "saved game" in message else f"saved game: {message}") from None
    return game


def _action(index: int, data: Any) -> Action:
    try:
        return action_from_dict(data)
    except ValueError as exc:
        raise validate.StateError(f"history[{index}]", str(exc)) from None


def _config(options: dict[str, Any]) -> GameConfig:
    if "rule_options" not in options:  # saved before rule options existed: the old reading
        options = {**options, "rule_options": LEGACY_RULE_OPTIONS}
    try:
        return GameConfig.from_options(**options)
    except ConfigError as exc:
        raise ValueError(f"saved game: config: {exc}") from None
