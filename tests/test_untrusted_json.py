"""Every reader of JSON that others may have written (records, results, tournament journals,
run configs, league states, checkpoints, card files, saved games) refuses text nested 100,000
levels deep with its own error, never a RecursionError (which Python's json and msgspec raise
past about a thousand levels, and which no handler of bad input catches)."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import msgspec
import pytest

from evaluation.formats.journal import GAMES, SPEC
from evaluation.journal import JournalError, read_games, read_spec
from farlight_env.cards.io import load_card_set
from farlight_env.cards.schema import CardFileError
from farlight_env.game import FarlightGame
from farlight_env.platform.records import RecordError
from farlight_env.records.record import load_record
from farlight_env.untrusted.jsontext import decode, loads

DEEP = "[" * 100_000 + "]" * 100_000
DEEP_OBJECT = '{"a": ' * 100_000 + "1" + "}" * 100_000


@pytest.mark.parametrize("text", [DEEP, DEEP_OBJECT, DEEP.encode()], ids=["list", "dict", "bytes"])
def test_loads_turns_deep_nesting_into_a_json_decode_error(text) -> None:
    with pytest.raises(json.JSONDecodeError) as info:
        loads(text)
    assert str(info.value) == "nested too deeply"
    assert loads('{"a": [1, 2]}') == {"a": [1, 2]}


def test_decode_turns_deep_nesting_into_a_msgspec_decode_error() -> None:
    """Even a typed decode recurses when it skips an unknown field or fills an Any."""

    class Small(msgspec.Struct):
        name: str

    with pytest.raises(msgspec.DecodeError, match="nested too deeply"):
        decode(f'{{"extra": {DEEP}, "name": "x"}}', Small)
    assert decode('{"name": "x"}', Small) == Small("x")


def _record(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text(f'{{"format": "farlight-record", "version": 1, "actions": {DEEP}}}')
    with pytest.raises(RecordError, match="deep.json: not valid JSON .nested too deeply"):
        load_record(path)


def _results(tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text(DEEP)
    with pytest.raises(RecordError, match="nested too deeply"):
        load_record(path, game=0)


SPEC_HEAD = (
    '{"format": "farlight-tournament-spec", "version": 1, "agents": ["random"], '
    '"num_players": 2, "games": 2, "seed": 0'
)


def _tournament_spec(tmp_path: Path) -> None:
    (tmp_path / SPEC).write_text(f'{SPEC_HEAD}, "config": {{"x": {{"y": {DEEP}}}}}}}')
    with pytest.raises(JournalError, match="not a tournament spec .JSON is nested too deeply"):
        read_spec(tmp_path)


def _tournament_games(tmp_path: Path) -> None:
    (tmp_path / GAMES).write_text(DEEP + "\n")
    with pytest.raises(JournalError, match=f"{GAMES}:1: not a game record .nested too deeply"):
        read_games(tmp_path, {})


def _saved_game(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="nested too deeply"):
        FarlightGame.from_json(DEEP_OBJECT)


def _card_file(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text(DEEP_OBJECT)
    with pytest.raises(CardFileError, match="nested too deeply"):
        load_card_set(path)


def _run_config(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib", reason="training needs the train extra")
    from training.sb3.run_files import RUN_CONFIG, read_run_config

    (tmp_path / RUN_CONFIG).write_text(DEEP)
    with pytest.raises(ValueError, match="corrupt run config"):
        read_run_config(tmp_path)


def _league_state(tmp_path: Path) -> None:
    pytest.importorskip("sb3_contrib", reason="training needs the train extra")
    from training.farlight.sb3.self_play import LEAGUE_STATE, load_league_state

    (tmp_path / LEAGUE_STATE).write_text(f'{{"extra": {DEEP}}}')
    with pytest.raises(ValueError, match="corrupt league state"):
        load_league_state(tmp_path)


def _checkpoint(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="training needs the train extra")
    from training.checkpoints import CheckpointError, read_checkpoint

    path = tmp_path / "checkpoint.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("checkpoint.json", f'{{"extra": {DEEP}}}')
        archive.writestr("weights.pt", b"")
    with pytest.raises(CheckpointError, match="checkpoint.json"):
        read_checkpoint(path)


READERS: dict[str, Callable[[Path], None]] = {
    "record": _record,
    "results": _results,
    "tournament-spec": _tournament_spec,
    "tournament-games": _tournament_games,
    "saved-game": _saved_game,
    "card-file": _card_file,
    "run-config": _run_config,
    "league-state": _league_state,
    "checkpoint": _checkpoint,
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_deeply_nested_json_is_refused_by_every_reader(reader: str, tmp_path: Path) -> None:
    READERS[reader](tmp_path)
