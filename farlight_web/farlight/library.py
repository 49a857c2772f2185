"""What Farlight's server lists of `--data`: game records, tournaments and evaluation scorecards.

Records and tournament results are read with the loaders `farlight replay` uses
(`farlight_env.records.record.load_record`, which validates them); journals (`tournament.json` plus
`games.jsonl`) are summarised with `evaluation.tournament.summarise`; `farlight evaluate` scorecards
are validated against `evaluation.formats.scorecard` and flagged, not trusted, when they do not fit.
Every file is size-bounded and the folder walk is bounded in depth and count, with no symbolic
link followed (`farlight_web.files`). With a `FileIndex`, listings read a
file again only when it changed, and the replay picker decodes only the few fields it shows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from evaluation.formats.scorecard import SCORECARD, read_scorecard
from farlight_env.platform.records import PLATFORM_RECORD, RecordError
from farlight_env.records.record import load_record, validate_record
from farlight_env.untrusted.files import read_bounded
from farlight_env.untrusted.jsontext import decode, loads
from farlight_web.farlight.replays import Replay
from farlight_web.files import MAX_FILE_BYTES, FileIndex, inside, read_json, summaries, walk

MAX_LISTED_GAMES = 500  # games linked per tournament on the leaderboard
MAX_SEED = 1 << 128  # a results file's seed is shown only below this (the file is not trusted)


# ---------------------------------------------------------------------------------- records
class _GameIndex(msgspec.Struct, gc=False):
    index: int  # a game without one cannot be opened: the file is not listed


class _Head(msgspec.Struct):
    """The fields the replay picker shows; everything else in the file is skipped unbuilt."""

    format: str | None = None
    game: str | None = None  # another game's record (#50): its name
    players: list[str] | None = None
    finished: bool = True
    scores: list[int | float] | None = None
    agents: list[str] | None = None
    games: list[_GameIndex] | None = None


def list_records(data: Path, index: FileIndex | None = None) -> list[dict[str, Any]]:
    """Game records and tournament results under `data`, with what the replay picker shows;
    with an `index`, files unchanged since the last call are not read again."""
    out = []
    for path, entry in summaries(index, "records", data, walk(data), _record_entry):
        if entry is not None:
            out.append({"file": path.relative_to(data).as_posix(), **entry})
    return out


def _record_entry(path: Path) -> dict[str, Any] | None:
    """What the replay picker shows of one file; None when it is not a record or results."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        head = decode(read_bounded(path, MAX_FILE_BYTES), _Head)
    except (OSError, ValueError, msgspec.DecodeError):
        return None
    if head.format in ("farlight-record", PLATFORM_RECORD):
        entry = {
            "kind": "record",
            "players": head.players,
            "finished": head.finished,
            "scores": head.scores,
        }
        return entry if head.game is None else {**entry, "game": head.game}
    if head.format == "farlight-tournament" and head.games is not None:
        return {
            "kind": "tournament",
            "agents": head.agents,
            "games": [g.index for g in head.games[:MAX_LISTED_GAMES]],
        }
    return None


def open_replay(data: Path, relative: str, game: int | None) -> Replay:
    """A replay of `data/relative` (a record, or game `game` of a results.json). Errors name
    the file as the client did, never by its place on the server's disk."""
    try:
        return _open_replay(data, relative, game)
    except (RecordError, ValueError, OSError) as exc:
        message = str(exc)
        for where in {str(data.resolve() / relative), str(data / relative)}:
            message = message.replace(where, relative)
        if str(data.resolve()) in message or str(data) in message:
            message = f"{relative}: cannot be opened"
        raise RecordError(message) from None


def _open_replay(data: Path, relative: str, game: int | None) -> Replay:
    path = inside(data, relative)
    if path.is_file() and path.stat().st_size > MAX_FILE_BYTES:
        raise RecordError(f"{relative}: larger than {MAX_FILE_BYTES} bytes")
    record = _journal_game(path, game) if path.name == "games.jsonl" else load_record(path, game)
    label = relative + (f" game {game}" if game is not None else "")
    if record.get("format") == PLATFORM_RECORD:  # another game's (#50)
        from farlight_web.platform_replays import PlatformReplay

        return PlatformReplay(record, label)  # type: ignore[return-value]
    return Replay(record, label)


# ---------------------------------------------------------------------------------- leaderboard
def scorecards(data: Path, index: FileIndex | None = None) -> list[dict[str, Any]]:
    """Every scorecard.json under `data`: its fields, or the reason it was skipped."""
    found = walk(data, (SCORECARD,))
    return [
        {"file": path.relative_to(data).as_posix(), **entry}
        for path, entry in summaries(index, "scorecards", data, found, _scorecard_entry)
    ]


def _scorecard_entry(path: Path) -> dict[str, Any]:
    try:
        card = read_scorecard(path, MAX_FILE_BYTES)
    except (OSError, ValueError, msgspec.DecodeError) as exc:
        return {"error": str(exc)}
    return msgspec.to_builtins(card)


def tournaments(data: Path, index: FileIndex | None = None) -> list[dict[str, Any]]:
    """Tournament results.json files and journal folders under `data`, with their ratings."""
    results = walk(data, ("results.json",))
    seen = {path.parent for path in results}
    journals = [path for path in walk(data, ("games.jsonl",)) if path.parent not in seen]
    found = summaries(index, "results", data, results, _results_entry)
    found += summaries(index, "journals", data, journals, _journal_entry)
    return [{"file": path.relative_to(data).as_posix(), **entry} for path, entry in found]


def _results_entry(path: Path) -> dict[str, Any]:
    try:
        return _results_summary(read_json(path))
    except (RecordError, KeyError, TypeError, ValueError) as exc:
        return {"error": str(exc)}


def _journal_entry(path: Path) -> dict[str, Any]:
    try:
        return _journal_summary(path)
    except (RecordError, KeyError, TypeError, ValueError, OSError) as exc:
        return {"error": str(exc)}


def _results_summary(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict) or data.get("format") != "farlight-tournament":
        raise ValueError("not a Farlight tournament results file")
    rows = data.get("summary")
    if not isinstance(rows, list):
        raise ValueError("no 'summary' list")
    games = data.get("games") if isinstance(data.get("games"), list) else []
    seed = data.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < MAX_SEED:
        seed = None
    return {
        "kind": "results",
        "num_players": data.get("num_players"),
        # what the page titles it by; the seed as a decimal string, since one may be wider
        # than a JavaScript number holds exactly (the game API sends its seeds so too)
        "seed": None if seed is None else str(seed),
        "sealed": data.get("sealed") is True,
        "summary": [_summary_row(r) for r in rows],
        "games": [_game_row(g) for g in games[:MAX_LISTED_GAMES] if isinstance(g, dict)],
        "total_games": len(games),
    }


def _journal_records(path: Path) -> list[dict[str, Any]]:
    """The validated records of a tournament journal's games.jsonl (RecordError on a bad line)."""
    records = []
    try:
        lines = read_bounded(path, MAX_FILE_BYTES).splitlines()
    except (OSError, ValueError) as exc:
        raise RecordError(f"{path.name}: cannot read: {exc}") from exc
    for n, line in enumerate(lines):
        if line.strip():
            try:
                data = loads(line)
            except ValueError as exc:
                raise RecordError(f"{path.name} line {n + 1}: not valid JSON ({exc})") from exc
            records.append(validate_record(data, f"{path.name} line {n + 1}"))
    return records


def _journal_game(path: Path, game: int | None) -> dict[str, Any]:
    records = _journal_records(path)
    for record in records:
        if record.get("index") == game:
            return record
    raise RecordError(f"{path.name}: no game with index {game}")


def _journal_summary(path: Path) -> dict[str, Any]:
    """An unfinished tournament: the records its journal holds so far, rated like results."""
    from evaluation.tournament import summarise

    records = _journal_records(path)
    for record in records:
        timing = record.setdefault("timing", {})
        timing.setdefault("seconds", [0.0] * len(record["players"]))
        timing.setdefault("decisions", [0] * len(record["players"]))
    agents = list(dict.fromkeys(p for r in records for p in r["players"]))
    rows = [
        {
            "agent": s.agent,
            "seats_played": s.seats_played,
            "wins": s.wins,
            "win_rate": s.win_rate,
            "win_low": s.win_low,
            "win_high": s.win_high,
            "mean_score": s.mean_score,
            "rating_mu": s.rating_mu,
            "rating_sigma": s.rating_sigma,
            "rating": s.rating,
        }
        for s in summarise(records, agents)
    ]
    return {
        "kind": "journal",
        "num_players": len(records[0]["players"]) if records else None,
        # the run's seed is in tournament.json, not read here: the games still to come are
        # dealt from it, and a finished game's own seeds are in its record
        "seed": None,
        "sealed": bool(records) and all(r.get("sealed") is True for r in records),
        "summary": [_summary_row(r) for r in rows],
        "games": [_game_row(r) for r in records[:MAX_LISTED_GAMES]],
        "total_games": len(records),
    }


def _summary_row(row: Any) -> dict[str, Any]:
    if not isinstance(row, dict):
        raise ValueError("a summary row is not an object")
    keys = ("agent", "seats_played", "wins", "win_rate", "win_low", "win_high", "mean_score")
    out = {k: row.get(k) for k in keys}
    out.update(mu=row.get("rating_mu"), sigma=row.get("rating_sigma"), rating=row.get("rating"))
    return out


def _game_row(game: dict[str, Any]) -> dict[str, Any]:
    return {
        "index": game.get("index"),
        "players": game.get("players"),
        "scores": game.get("scores"),
        "winners": game.get("winners"),
    }
