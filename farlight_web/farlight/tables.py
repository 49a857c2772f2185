"""Farlight's live games on the server: `Tables` with Farlight as the game a new table plays
when none is named (with the server's card set and --data/policies for its bots), and its
records rebuilt into tables (`resume`); another game's go through `farlight_web.tables`."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from farlight_env.cards.model import CardSet
from farlight_env.game.config import ConfigError
from farlight_env.game.rules_options import RuleOptionError
from farlight_env.platform import Game
from farlight_env.platform.records import PLATFORM_RECORD, RecordError
from farlight_env.records.record import load_record, new_game, record_actions
from farlight_web import tables
from farlight_web.bots import POLICY_FOLDER, BotUnfit, opponent_problem, parse_bot_errors
from farlight_web.farlight.sessions import Table
from farlight_web.files import MAX_FILE_BYTES
from farlight_web.limits import IDLE_SECONDS, MAX_LIVE_GAMES, MAX_MOVES_SHOWN, THINK_SECONDS
from farlight_web.platform_tables import resume_platform
from farlight_web.seats import HUMAN, SeatedTable, parse_seat_keys


class Tables(tables.Tables):
    """The server's games by id (`farlight_web.tables.Tables`), Farlight's among them."""

    def __init__(
        self,
        data: Path,
        card_set: CardSet | None = None,
        max_live: int = MAX_LIVE_GAMES,
        idle_seconds: float = IDLE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        think_seconds: float = THINK_SECONDS,
    ) -> None:
        super().__init__(data, max_live, idle_seconds, clock, think_seconds)
        self.policies = data / POLICY_FOLDER
        self.card_set = card_set
        self.card_set_name = "standard" if card_set is None else card_set.name

    def _build(
        self,
        game_id: str,
        lineup: list[str],
        seed: int,
        config: dict[str, Any],
        keys: list[dict[str, str] | None],
        game: Game | None,
    ) -> SeatedTable:
        """A table of `game`, or of Farlight (None) with the server's card set."""
        if game is not None:
            return super()._build(game_id, lineup, seed, config, keys, game)
        if self.card_set is not None:
            config = {**config, "card_set": self.card_set}
        return Table(
            game_id,
            lineup,
            seed,
            config,
            self.folder,
            self.policies,
            keys,
            self.think_seconds,
            self.clock,
        )

    def _rebuild(self, game_id: str, path: Path) -> SeatedTable:
        return resume(game_id, path, self.policies, self.think_seconds, self.clock)


def resume(
    game_id: str,
    path: Path,
    policies: Path,
    think_seconds: float = THINK_SECONDS,
    clock: Callable[[], float] = time.monotonic,
) -> SeatedTable:
    """Rebuild a table from its saved record: same env seed, the record's actions replayed
    (no bot thinks again: each decision's randomness is reseeded, see `reseed`). Errors name
    the record as `games/<id>.json`, never by its place on the server's disk."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise RecordError(f"{path}: larger than {MAX_FILE_BYTES} bytes")
        return _resume(game_id, path, policies, think_seconds, clock)
    except (RecordError, BotUnfit, ConfigError, RuleOptionError, ValueError, ImportError) as exc:
        message = str(exc).replace(str(path), f"games/{path.name}")
        raise RecordError(message.replace(str(policies.resolve()), POLICY_FOLDER)) from None


def _resume(
    game_id: str,
    path: Path,
    policies: Path,
    think_seconds: float,
    clock: Callable[[], float],
) -> SeatedTable:
    record = load_record(path)
    if record.get("format") == PLATFORM_RECORD:  # another game's (#50)
        return resume_platform(game_id, path, record, think_seconds, clock)
    lineup = [str(p) for p in record["players"]]
    keys = parse_seat_keys(record, path)
    env_seed = record.get("env_seed")
    if not isinstance(env_seed, int) or isinstance(env_seed, bool) or env_seed < 0:
        raise RecordError(f"{path}: no env_seed: cannot rebuild the bots")
    config = {k: v for k, v in record["config"].items() if k != "num_players"}
    if "card_set" in record:
        config["card_set"] = new_game(record).cards
    for name in lineup:
        problem = None if name == HUMAN else opponent_problem(name, policies)
        if problem:
            raise RecordError(f"{path}: {problem}")
    table = Table(
        game_id, lineup, env_seed, config, path.parent, policies, keys, think_seconds, clock
    )
    table.bot_errors = parse_bot_errors(record, lineup, path)
    codec = table.env.codec
    actions = record_actions(record)
    kept_from = len(actions) - MAX_MOVES_SHOWN  # the moves a live table would still hold
    for i, action in enumerate(actions):
        game = table.game
        actor = game.current_player
        if actor is None:
            raise RecordError(f"{path}: action {i} after the end of the game")
        index = codec.encode(action)
        if not table.env.codec.mask(game)[index]:
            raise RecordError(f"{path}: action {i} ({action}) is not legal: record does not replay")
        table._step(index, record_move=i >= kept_from)
    return table
