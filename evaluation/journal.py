"""A tournament's journal on disk: what was asked, and each game's record as soon as it ends.

`tournament.json` holds the tournament's options; `games.jsonl` one record per line, appended,
flushed and fsynced when the game ends. A killed tournament therefore loses at most the games
in flight, and `farlight tournament --resume DIR` plays only the missing ones. Both files are
read back as data: size-bounded, every field type-checked against its schema
(`evaluation.formats.journal`), every record matched to the schedule it claims to come from.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import msgspec

from evaluation.formats.journal import (
    EVAL_SPEC,
    GAMES,
    MAX_GAMES_BYTES,
    MAX_LINE_BYTES,
    SPEC,
    SPEC_FORMAT,
    EvaluationSpec,
    GameRecord,
    TournamentSpec,
)
from evaluation.run_key import (
    RUN_KEY,
    RunKeyError,
    create_run_key,
    read_run_key,
    run_key,
    sign,
    verified,
)
from farlight_env.platform import DEFAULT_GAME, GameError, get_game
from farlight_env.platform.records import RecordError, verify_record
from farlight_env.untrusted.files import atomic_write, read_bounded
from farlight_env.untrusted.jsontext import decode, loads
from farlight_env.untrusted.messages import clip_message

__all__ = [
    "Journal",
    "JournalError",
    "game_options",
    "new_spec",
    "read_eval_spec",
    "read_games",
    "read_spec",
    "stored_config",
]


def read_eval_spec(out_dir: Path) -> EvaluationSpec:
    return _read_spec(out_dir, EVAL_SPEC, EvaluationSpec, "an evaluation")


class JournalError(ValueError):
    """A journal that cannot be resumed: missing, foreign, or not this tournament's (the
    message is one line of bounded length: farlight_env.untrusted.messages)."""

    def __init__(self, message: object = "") -> None:
        super().__init__(clip_message(str(message)))


def stored_config(config: dict[str, Any], game: str = DEFAULT_GAME) -> dict[str, Any]:
    """Game options as plain data for tournament.json, as the game declares them (Farlight:
    a card set is stored as its table)."""
    return get_game(game).stored_options(config)


def game_options(spec: TournamentSpec | EvaluationSpec) -> dict[str, Any]:
    """The stored game options back as env keyword arguments: a stored option whose value is
    content (a table such as a card set) is checked again by its game."""
    game = get_game(spec.game)
    config = dict(spec.config)
    names = {o.name for o in game.options if o.store is not None}
    for name in names & config.keys():
        try:
            config[name] = game.option(name).check(config[name])
        except GameError as exc:
            raise JournalError(f"{SPEC}: {exc}") from exc
    return config


def new_spec(
    agents: list[str],
    num_players: int,
    games: int,
    seed: int,
    config: dict[str, Any],
    agent_kwargs: dict[str, dict[str, Any]],
    sealed: bool = False,
    move_seconds: float | None = None,
    move_cpu_seconds: float | None = None,
    game: str = "farlight",
) -> TournamentSpec:
    return TournamentSpec(
        SPEC_FORMAT,
        1,
        list(agents),
        num_players,
        games,
        seed,
        stored_config(config, game),
        dict(agent_kwargs),
        sealed,
        move_seconds,
        move_cpu_seconds,
        game,
    )


class Journal:
    """Appends finished games to `games.jsonl` (or `games`) in `out_dir`, durably, each line
    signed with the run's key (evaluation.run_key) so a resume reads back only its own games."""

    def __init__(self, out_dir: Path, games: str = GAMES) -> None:
        self.out_dir = Path(out_dir)
        self.path = self.out_dir / games
        self.key = run_key(self.out_dir)

    @classmethod
    def create(
        cls,
        out_dir: Path,
        spec: msgspec.Struct,
        spec_name: str = SPEC,
        games: str = GAMES,
        what: str = "a tournament",
        held_out_secret: str | None = None,
    ) -> Journal:
        """Start a journal and its run key (with a held-out run's secret); a folder that
        already holds one (spec, games or key) is refused."""
        out_dir = Path(out_dir)
        for name in (spec_name, games, RUN_KEY):
            if (out_dir / name).exists():
                raise JournalError(
                    f"{out_dir} already holds {what} ({name}); finish it with --resume "
                    f"{out_dir} or choose another --out"
                )
        out_dir.mkdir(parents=True, exist_ok=True)
        create_run_key(out_dir, held_out_secret)
        atomic_write(out_dir / spec_name, msgspec.json.format(msgspec.json.encode(spec)))
        (out_dir / games).touch()
        return cls(out_dir, games)

    def append(self, record: dict[str, Any]) -> dict[str, Any]:
        """Write one finished game and return it as it will be read back (unsigned)."""
        line = json.dumps(sign(self.key, record), sort_keys=True) + "\n"
        with self.path.open("a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())
        return verified(self.key, json.loads(line)) or {}


def read_spec(out_dir: Path) -> TournamentSpec:
    return _read_spec(out_dir, SPEC, TournamentSpec, "a tournament")


def _read_spec(out_dir: Path, name: str, kind: type[Any], what: str) -> Any:
    """The spec file `name` of a journal folder as `kind`, size-bounded and type-checked."""
    path = Path(out_dir) / name
    if not path.is_file():
        raise JournalError(f"{out_dir}: no {name}; not {what} started with --out")
    try:
        return decode(read_bounded(path), kind)
    except (msgspec.DecodeError, ValueError) as exc:
        raise JournalError(f"{path}: not {what} spec ({exc})") from exc


def read_games(
    out_dir: Path, expected: dict[int, tuple[int, tuple[str, ...]]], games: str = GAMES
) -> list[dict]:
    """The finished games, each checked against the schedule (`index -> (seed, lineup)`), its
    run key's code and a replay of its moves from its seed to its recorded scores. A torn last
    line (the kill came mid-write) is cut off; any other bad line is refused."""
    path = Path(out_dir) / games
    if not path.is_file():
        return []
    try:
        key = read_run_key(out_dir)
    except RunKeyError as exc:
        raise JournalError(str(exc)) from None
    data = read_bounded(path, MAX_GAMES_BYTES)
    complete = data[: data.rfind(b"\n") + 1]
    if len(complete) != len(data):
        with path.open("r+b") as fh:  # drop the torn tail so appends start on a new line
            fh.truncate(len(complete))
    records: dict[int, dict[str, Any]] = {}
    for number, line in enumerate(complete.splitlines(), 1):
        where = f"{path}:{number}"
        if len(line) > MAX_LINE_BYTES:
            raise JournalError(f"{where}: a line of more than {MAX_LINE_BYTES} bytes")
        try:
            line_object = loads(line)
            checked = msgspec.convert(line_object, GameRecord)
        except (json.JSONDecodeError, UnicodeDecodeError, msgspec.ValidationError) as exc:
            raise JournalError(f"{where}: not a game record ({exc})") from exc
        if expected.get(checked.index) != (checked.env_seed, tuple(checked.players)):
            raise JournalError(f"{where}: game {checked.index} is not in this tournament")
        record = verified(key, line_object)
        if record is None:
            raise JournalError(
                f"{where}: not written by this run (its code does not match {RUN_KEY}); "
                "a journal cannot be resumed once edited"
            )
        try:
            verify_record(record)  # through the record's game (farlight_env.platform)
        except (RecordError, GameError) as exc:
            raise JournalError(f"{where}: game {checked.index} does not replay ({exc})") from None
        records[checked.index] = record
    return [records[i] for i in sorted(records)]
