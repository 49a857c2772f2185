"""Saving and loading games: every mutable fact as JSON-able data, and the JSON file format.

`dump_state`/`load_state` copy a game's mutable state (also for `clone`); `game_to_json` and
`game_from_json` add the config, card set and RNG, and refuse a file that is not a game this
engine could have produced.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import numpy as np

from farlight_env.cards.io import card_set_from_dict, card_set_to_dict
from farlight_env.game import schema, validate
from farlight_env.game.actions import Action, action_from_dict, action_to_dict
from farlight_env.game.config import ConfigError, EndReason, GameConfig, Phase, Resume
from farlight_env.game.rules_options import LEGACY_RULE_OPTIONS
from farlight_env.game.ship import new_stamp
from farlight_env.untrusted.messages import MAX_MESSAGE_CHARS, clip_message

if TYPE_CHECKING:
    from farlight_env.game.game import FarlightGame

SAVE_FORMAT = "farlight-game"
SAVE_VERSION = 1


def dump_state(game: FarlightGame, with_history: bool = True) -> dict[str, Any]:
    """Every mutable fact as JSON-able data (lists, ints, strings)."""
    return {
        "round": game.round,
        "phase": game._phase.value,
        "current": game._current,
        "first_player": game.first_player,
        "crew": list(game.crew),
        "science": list(game.science),
        "points": list(game.points),
        "hands": [list(h) for h in game.hands],
        "ships": [[[r, c, piece] for (r, c), piece in ship.items()] for ship in game.ships],
        "ship_parts": [list(x) for x in game.ship_parts],
        "pending": [list(x) for x in game.pending],
        "installed_this_round": [list(x) for x in game.installed_this_round],
        "temp_biotech": list(game.temp_biotech),
        "awards_up": list(game.awards_up),
        "awards_down": list(game.awards_down),
        "stacks": [list(s) for s in game.stacks],
        "missions_out": list(game.missions_out),
        "deck": list(game.deck),
        "out_of_game": list(game.out_of_game),
        "spaces": list(game.spaces),
        "bonus": list(game.bonus),
        "engine_values": [[rank, value] for rank, value in sorted(game.engine_values.items())],
        "bids": [[[p, t, c] for p, t, c in slot] for slot in game.bids],
        "end_reason": None if game.end_reason is None else game.end_reason.value,
        "final_breakdown": game.final_breakdown,
        "winners": list(game._winners),
        "bid_pass": game._bid_pass,
        "bid_turn": game._bid_turn,
        "tiles_left": game._tiles_left,
        "selected": game._selected,
        "resume": None if game._resume is None else game._resume.value,
        "resolve_cursor": game._resolve_cursor,
        "mission": game._mission,
        "mission_stack": game._mission_stack,
        "mission_queue": list(game._mission_queue),
        "mission_order": list(game._mission_order),
        "mission_cursor": game._mission_cursor,
        "completers": game._completers,
        "climactic_done": game._climactic_done,
        "benefit_left": [list(x) for x in game._benefit_left],
        "history": [action_to_dict(a) for a in game.history] if with_history else [],
    }


def load_state(game: FarlightGame, s: dict[str, Any]) -> None:
    """Set every mutable fact from `dump_state` data, trusted as it is (see `game_from_json`)."""
    game.round = s["round"]
    game._phase = Phase(s["phase"])
    game._current = s["current"]
    game.first_player = s["first_player"]
    game.crew = list(s["crew"])
    game.science = list(s["science"])
    game.points = list(s["points"])
    game.hands = [list(h) for h in s["hands"]]
    game.ships = [{(r, c): piece for r, c, piece in ship} for ship in s["ships"]]
    game.ship_stamps = [new_stamp() for _ in game.ships]
    game.ship_parts = [list(x) for x in s["ship_parts"]]
    game.pending = [list(x) for x in s["pending"]]
    game.installed_this_round = [list(x) for x in s["installed_this_round"]]
    game.temp_biotech = list(s["temp_biotech"])
    game.awards_up = list(s["awards_up"])
    game.awards_down = list(s["awards_down"])
    game.stacks = [list(x) for x in s["stacks"]]
    game.missions_out = list(s["missions_out"])
    game.deck = list(s["deck"])
    game.out_of_game = list(s["out_of_game"])
    game.spaces = list(s["spaces"])
    game.bonus = list(s["bonus"])
    game.engine_values = {rank: value for rank, value in s["engine_values"]}
    game.bids = [[(p, t, bool(c)) for p, t, c in slot] for slot in s["bids"]]
    game.end_reason = None if s["end_reason"] is None else EndReason(s["end_reason"])
    game.final_breakdown = (
        None if s["final_breakdown"] is None else [dict(b) for b in s["final_breakdown"]]
    )
    game._winners = list(s["winners"])
    game._bid_pass = s["bid_pass"]
    game._bid_turn = s["bid_turn"]
    game._tiles_left = s["tiles_left"]
    game._selected = s["selected"]
    game._resume = None if s["resume"] is None else Resume(s["resume"])
    game._resolve_cursor = s["resolve_cursor"]
    game._mission = s["mission"]
    game._mission_stack = s["mission_stack"]
    game._mission_queue = list(s["mission_queue"])
    game._mission_order = list(s["mission_order"])
    game._mission_cursor = s["mission_cursor"]
    game._completers = s["completers"]
    game._climactic_done = s["climactic_done"]
    game._benefit_left = [list(x) for x in s["benefit_left"]]
    game.history = [action_from_dict(a) for a in s["history"]]
    game.invalidate_cache()  # also new change stamps


def game_to_json(game: FarlightGame) -> str:
    """The full state, config, card set and RNG; `game_from_json` restores it exactly."""
    data = {
        "format": SAVE_FORMAT,
        "version": SAVE_VERSION,
        "seed": game.seed,
        "config": game.config.as_dict(),
        "card_set": card_set_to_dict(game.cards),
        "rng": game.rng.bit_generator.state,
        "state": dump_state(game),
    }
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def game_from_json(cls: type[FarlightGame], text: str) -> FarlightGame:
    """Rebuild a game saved by `game_to_json`; a corrupt or foreign text raises ValueError
    naming the field, and a state no legal play could produce is refused (game/validate.py).
    The message is one line of bounded length, whatever the text holds."""
    try:
        return _game_from_json(cls, text)
    except ValueError as exc:
        message = str(exc)
        if len(message) <= MAX_MESSAGE_CHARS and "\n" not in message:
            raise
        raise ValueError(clip_message(message)) from None


def _game_from_json(cls: type[FarlightGame], text: str) -> FarlightGame:
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
    saved = schema.convert(data)
    try:
        game = object.__new__(cls)
        game.config = _config(saved.config)
        game.cards = card_set_from_dict(saved.card_set, source="saved game: card_set")
        validate.check_state(saved.state, game.config, game.cards)
        game.seed = saved.seed
        game._init_tables()
        game.rng = np.random.Generator(np.random.PCG64())
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
