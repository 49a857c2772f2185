"""Game records: load, build, replay and save the JSON a tournament or a play session writes.

A record (``"format": "farlight-record"``, version 1) holds the config (every rule option in
force under ``rule_options``; a record written before options existed replays with
``LEGACY_RULE_OPTIONS``, the rules it was played by), the engine seed
(``game_seed``) and the recorded actions (``action_to_dict`` form), plus the outcome it ended
with. A game played with another card set than the shipped standard one carries that set in
``"card_set"`` (the card-file format, validated like a card file when read back). Replaying
rebuilds ``FarlightGame(num_players, seed=game_seed, card_set=..., **config)`` and applies the
actions; a record whose replay does not reproduce its scores is rejected. A tournament's
``results.json`` (``"format": "farlight-tournament"``) holds many records; pick one by index.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from farlight_env.cards.io import card_set_from_dict, card_set_to_dict, standard_card_set
from farlight_env.cards.model import CardSet
from farlight_env.cards.schema import CardFileError
from farlight_env.game import Action, FarlightGame, action_from_dict, action_to_dict
from farlight_env.game.config import GAME_OPTIONS
from farlight_env.game.rules_options import LEGACY_RULE_OPTIONS
from farlight_env.platform.records import PLATFORM_RECORD, RecordError, save_record
from farlight_env.records.format import kind as _kind
from farlight_env.records.format import shape_problem
from farlight_env.untrusted.jsontext import loads

__all__ = [
    "RECORD_FORMAT",
    "RECORD_VERSION",
    "TOURNAMENT_FORMAT",
    "RecordError",
    "build_record",
    "iter_replay",
    "load_record",
    "record_config",
    "record_actions",
    "record_card_set",
    "replay_record",
    "save_record",
    "validate_record",
    "verify_record",
]

RECORD_FORMAT = "farlight-record"
RECORD_VERSION = 1
TOURNAMENT_FORMAT = "farlight-tournament"
TOURNAMENT_VERSION = 1
#: Largest record or results file read: a results.json of 50,000 games (about 18 KB each as
#: written) fits; anything larger is not a file this project wrote.
MAX_RECORD_BYTES = 1 << 30

#: GameConfig fields a record's config may hold (a card set is stored beside it, "card_set").
CONFIG_KEYS = GAME_OPTIONS


# ------------------------------------------------------------------------------ building
def build_record(
    game: FarlightGame,
    players: Sequence[str],
    env_seed: int | None,
    config: Mapping[str, Any],
    *,
    index: int = 0,
    **extra: Any,
) -> dict[str, Any]:
    """The record of `game` so far, in the same form as a tournament's `play_game` records.

    `config` is what the game was built with besides the seed (num_players included); the
    card set is taken from the game itself and stored only when it is not the standard one.
    Extra keyword arguments are stored as additional keys (``timing=...``, ``finished=...``).
    """
    record: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "index": index,
        "env_seed": env_seed,
        "game_seed": game.seed,
        "config": record_config(game, config),
        "players": list(players),
        "scores": game.scores(),
        "breakdown": game.final_breakdown,
        "winners": game.winners(),
        "rounds": game.round,
        "end_reason": game.end_reason.value if game.end_reason else None,
        "actions": [action_to_dict(a) for a in game.history],
    }
    if game.cards != standard_card_set():
        record["card_set"] = card_set_to_dict(game.cards)
    record.update(extra)
    return record


def record_config(game: FarlightGame, config: Mapping[str, Any]) -> dict[str, Any]:
    """`config` without the card set, with every rule option the game was played by."""
    out = {k: v for k, v in config.items() if k != "card_set"}
    out["rule_options"] = game.config.rule_options.to_dict()
    return out


# ------------------------------------------------------------------------------ loading
def validate_record(record: Any, source: str = "record") -> dict[str, Any]:
    """Check the shape of one game record; returns it or raises RecordError naming the fault."""
    if not isinstance(record, dict):
        raise RecordError(f"{source}: a game record must be a JSON object, got {_kind(record)}")
    fmt = record.get("format")
    if fmt != RECORD_FORMAT:
        raise RecordError(
            f"{source}: not a Farlight game record ('format' is {fmt!r}; "
            f"expected {RECORD_FORMAT!r})"
        )
    if record.get("version") != RECORD_VERSION:
        raise RecordError(
            f"{source}: unsupported record version {record.get('version')!r}; "
            f"expected {RECORD_VERSION}"
        )
    problem = shape_problem(record)
    if problem is not None:
        raise RecordError(f"{source}: {problem}")
    unknown = sorted(set(record["config"]) - set(CONFIG_KEYS))
    if unknown:
        raise RecordError(
            f"{source}: unknown config key(s) {', '.join(unknown)}; "
            f"expected {', '.join(CONFIG_KEYS)}"
        )
    players = record["config"].get("num_players", len(record["players"]))
    if players != len(record["players"]):
        raise RecordError(
            f"{source}: config says {players!r} players but 'players' lists "
            f"{len(record['players'])}"
        )
    if len(record["scores"]) != len(record["players"]):
        raise RecordError(
            f"{source}: 'scores' has {len(record['scores'])} entries for "
            f"{len(record['players'])} players"
        )
    return record


def load_record(path: str | os.PathLike, game: int | None = None) -> dict[str, Any]:
    """One game record from `path`: a record file, or game `game` of a tournament results.json.

    Raises RecordError with a message naming the problem (missing or oversized file, bad JSON,
    foreign format, wrong version, missing or unknown game index).
    """
    path = Path(path)
    try:
        with path.open("rb") as fh:
            raw = fh.read(MAX_RECORD_BYTES + 1)
        if len(raw) > MAX_RECORD_BYTES:
            raise RecordError(f"{path}: larger than {MAX_RECORD_BYTES} bytes; not a record file")
        text = raw.decode("utf-8")
    except FileNotFoundError as exc:
        raise RecordError(f"{path}: no such file") from exc
    except IsADirectoryError as exc:
        raise RecordError(f"{path}: is a directory, not a record file") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"{path}: cannot read: {exc}") from exc
    try:
        data = loads(text)
    except json.JSONDecodeError as exc:
        raise RecordError(f"{path}: not valid JSON ({exc})") from exc
    if not isinstance(data, dict):
        raise RecordError(f"{path}: expected a JSON object, got {_kind(data)}")
    fmt = data.get("format")
    if fmt == TOURNAMENT_FORMAT:
        return _pick_game(data, path, game)
    if fmt == PLATFORM_RECORD:  # another game's: checked by replaying it through its game
        return data
    if fmt != RECORD_FORMAT:
        raise RecordError(
            f"{path}: not a Farlight record ('format' is {fmt!r}; expected {RECORD_FORMAT!r} "
            f"or {TOURNAMENT_FORMAT!r})"
        )
    record = validate_record(data, str(path))
    if game is not None and record.get("index") != game:
        raise RecordError(
            f"{path}: a single game record (index {record.get('index')!r}); "
            f"--game/game={game} applies to tournament results files"
        )
    return record


def _pick_game(data: dict[str, Any], path: Path, game: int | None) -> dict[str, Any]:
    if data.get("version") != TOURNAMENT_VERSION:
        raise RecordError(
            f"{path}: unsupported tournament results version {data.get('version')!r}; "
            f"expected {TOURNAMENT_VERSION}"
        )
    games = data.get("games")
    if not isinstance(games, list) or not games:
        raise RecordError(f"{path}: tournament results hold no games ('games' is missing or empty)")
    indices = [g.get("index") if isinstance(g, dict) else None for g in games]
    available = _ranges([i for i in indices if isinstance(i, int)])
    if game is None:
        raise RecordError(
            f"{path}: tournament results with {len(games)} games; choose one with --game N "
            f"(available indices: {available})"
        )
    if game not in indices:
        raise RecordError(f"{path}: no game with index {game}; available indices: {available}")
    chosen = games[indices.index(game)]
    if chosen.get("format") == PLATFORM_RECORD:  # another game's (farlight_env.platform)
        return chosen
    return validate_record(chosen, f"{path} game {game}")


def _ranges(values: Sequence[int]) -> str:
    """'0-3, 7, 9-10' for sorted unique ints."""
    values = sorted(set(values))
    out: list[str] = []
    start = prev = None
    for v in [*values, None]:
        if start is not None and (v is None or v != prev + 1):
            out.append(str(start) if start == prev else f"{start}-{prev}")
            start = None
        if v is not None and start is None:
            start = v
        prev = v
    return ", ".join(out) or "none"


# ------------------------------------------------------------------------------ replay
def record_actions(record: Mapping[str, Any]) -> list[Action]:
    """The record's actions as engine values; RecordError names the first malformed one."""
    actions = []
    for i, data in enumerate(record["actions"]):
        try:
            actions.append(action_from_dict(data))
        except ValueError as exc:
            raise RecordError(f"record does not replay: action {i}: {exc}") from exc
    return actions


def record_card_set(record: Mapping[str, Any]) -> CardSet:
    """The card set the record was played with: its own "card_set", else the standard set."""
    data = record.get("card_set")
    if data is None:
        return standard_card_set()
    try:
        return card_set_from_dict(data, "record card_set")
    except CardFileError as exc:
        raise RecordError(f"record does not replay: {exc}") from exc


def new_game(record: Mapping[str, Any]) -> FarlightGame:
    """The record's game before any action: FarlightGame(num_players, game_seed, **config)."""
    config = dict(record["config"])
    num_players = config.pop("num_players", len(record["players"]))
    cards = record_card_set(record)
    # a record written before rule options existed was played by the legacy reading
    config.setdefault("rule_options", LEGACY_RULE_OPTIONS)
    try:
        return FarlightGame(num_players, seed=record["game_seed"], card_set=cards, **config)
    except (TypeError, ValueError) as exc:
        raise RecordError(
            f"record does not replay: bad config {record['config']!r}: {exc}"
        ) from exc


def iter_replay(record: Mapping[str, Any]) -> Iterator[tuple[Action | None, FarlightGame]]:
    """Yield (None, start) then (action, game just after it) for each recorded action.

    The same live game is yielded each time (clone it to keep a state); the game is yielded
    *after* the action is applied, so describe an action from the previous state if needed.
    Raises RecordError on an illegal action, and at the end if the outcome differs.
    """
    actions = record_actions(record)
    game = new_game(record)
    yield None, game
    for i, action in enumerate(actions):
        try:
            game.apply(action)
        except ValueError as exc:
            raise RecordError(f"record does not replay: action {i} ({action}): {exc}") from exc
        yield action, game
    _check_outcome(record, game)


def replay_record(record: Mapping[str, Any]) -> list[FarlightGame]:
    """Every state of the recorded game: [start, after action 0, ..., final] (independent clones).

    Raises RecordError (a ValueError) "record does not replay: ..." if an action is illegal or
    the final scores differ from the record's.
    """
    return [game.clone() for _, game in iter_replay(record)]


def verify_record(record: Mapping[str, Any]) -> FarlightGame:
    """Replay the record without keeping states; returns the final game or raises RecordError."""
    final = None
    for _, game in iter_replay(record):
        final = game
    assert final is not None
    return final


def _check_outcome(record: Mapping[str, Any], game: FarlightGame) -> None:
    if game.scores() != list(record["scores"]):
        raise RecordError(
            f"record does not replay: final scores {game.scores()} differ from the recorded "
            f"{list(record['scores'])}"
        )
    if "winners" in record and game.winners() != list(record["winners"] or []):
        raise RecordError(
            f"record does not replay: winners {game.winners()} differ from the recorded "
            f"{record['winners']}"
        )


# ------------------------------------------------------------------------------ saving
