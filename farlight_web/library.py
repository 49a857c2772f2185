"""What `--data` holds, read as data: game records, tournaments and evaluation scorecards.

Records and tournament results are read with the loaders `farlight replay` uses
(`farlight_env.record.load_record`, which validates them); journals (`tournament.json` plus
`games.jsonl`) are summarised with `agents.tournament.summarise`; `farlight evaluate`
scorecards are validated against `Scorecard` and flagged, not trusted, when they do not fit.
Every file is size-bounded and the folder walk is bounded in depth and count.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import msgspec

from agents.files import read_bounded
from farlight_env.jsontext import decode, loads
from farlight_env.record import (
    RecordError,
    load_record,
    replay_record,
    validate_record,
    verify_record,
)
from farlight_env.view_model import board_view, to_builtins
from farlight_web.moves import events_for, move_events, move_label

MAX_FILE_BYTES = 32 << 20  # a results.json of a few thousand games fits easily
MAX_FILES = 2000  # files looked at per walk of --data
MAX_DEPTH = 4
MAX_LISTED_GAMES = 500  # games linked per tournament on the leaderboard


# ---------------------------------------------------------------------------------- walking
def walk(data: Path, names: tuple[str, ...] = (), suffix: str = ".json") -> list[Path]:
    """Files under `data` (depth <= MAX_DEPTH, at most MAX_FILES, hidden folders skipped) named
    one of `names`, or ending in `suffix` when no names are given; sorted."""
    found: list[Path] = []
    root_depth = len(data.parts)
    for folder, dirs, files in os.walk(data):
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        if len(here.parts) - root_depth >= MAX_DEPTH:
            dirs[:] = []
        for name in sorted(files):
            if name.startswith("."):
                continue
            if (name in names) if names else name.endswith(suffix):
                found.append(here / name)
                if len(found) >= MAX_FILES:
                    return sorted(found)
    return sorted(found)


def inside(data: Path, relative: str) -> Path:
    """`data/relative`, refusing (ValueError) anything that leaves `data`."""
    path = (data / relative).resolve()
    root = data.resolve()
    if path != root and root not in path.parents:
        raise ValueError(f"{relative!r} is outside the data folder")
    return path


def _read_json(path: Path) -> Any:
    try:
        return loads(read_bounded(path, MAX_FILE_BYTES))
    except (OSError, ValueError) as exc:
        raise RecordError(f"{path.name}: cannot read: {exc}") from exc


# ---------------------------------------------------------------------------------- records
def list_records(data: Path) -> list[dict[str, Any]]:
    """Game records and tournament results under `data`, with what the replay picker shows."""
    out = []
    for path in walk(data):
        rel = path.relative_to(data).as_posix()
        try:
            if path.stat().st_size > MAX_FILE_BYTES:
                continue
            head = _read_json(path)
        except (OSError, RecordError):
            continue
        if not isinstance(head, dict):
            continue
        fmt = head.get("format")
        if fmt == "farlight-record":
            out.append(
                {
                    "file": rel,
                    "kind": "record",
                    "players": head.get("players"),
                    "finished": head.get("finished", True),
                    "scores": head.get("scores"),
                }
            )
        elif fmt == "farlight-tournament" and isinstance(head.get("games"), list):
            indices = [g.get("index") for g in head["games"] if isinstance(g, dict)]
            out.append(
                {
                    "file": rel,
                    "kind": "tournament",
                    "agents": head.get("agents"),
                    "games": [i for i in indices if isinstance(i, int)][:MAX_LISTED_GAMES],
                }
            )
    return out


class Replay:
    """Every state of one recorded game, for stepping forward and back as any seat."""

    def __init__(self, record: dict[str, Any], source: str) -> None:
        self.record = record
        self.source = source
        self.states = replay_record(record)  # raises RecordError if it does not replay
        actions = self.states[-1].history
        self.actions = list(actions)
        self.actors = [s.current_player for s in self.states[:-1]]
        self.rounds: dict[int, int] = {}
        for step, state in enumerate(self.states):
            self.rounds.setdefault(state.round, step)
        #: what each step set off (public once it is done), worked out once on opening
        self.events = [
            move_events(before, action)
            for before, action in zip(self.states[:-1], self.actions, strict=True)
        ]

    def summary(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "players": [str(p) for p in self.record["players"]],
            "steps": len(self.states) - 1,
            "rounds": [{"round": r, "step": s} for r, s in sorted(self.rounds.items())],
            "scores": self.record["scores"],
            "winners": self.record.get("winners"),
        }

    def at(self, step: int, viewer: int | None) -> dict[str, Any]:
        """The board after `step` actions, as `viewer` saw it, the move that led there and
        what that move set off (bid results, automatic discards, the tiebreak...)."""
        state = self.states[step]
        move = None
        events: list[dict[str, Any]] = []
        if step > 0:
            before = self.states[step - 1]
            actor = self.actors[step - 1]
            assert actor is not None
            move = move_label(before, actor, self.actions[step - 1], viewer)
            events = events_for(self.events[step - 1], viewer)
        return {
            "step": step,
            "viewer": viewer,
            "move": move,
            "events": events,
            "view": to_builtins(board_view(state, viewer)),
        }


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
    verify_record(record)
    label = relative + (f" game {game}" if game is not None else "")
    return Replay(record, label)


# ---------------------------------------------------------------------------------- leaderboard
class Rating(msgspec.Struct):
    mu: float
    sigma: float


class ScoreCell(msgspec.Struct):
    """One line of a scorecard: the agent against `opponent` at `players` seats."""

    players: Annotated[int, msgspec.Meta(ge=2, le=5)]
    opponent: str
    games: Annotated[int, msgspec.Meta(ge=0)]
    wins: Annotated[float, msgspec.Meta(ge=0)]
    win_rate: Annotated[float, msgspec.Meta(ge=0, le=1)]
    ci_low: Annotated[float, msgspec.Meta(ge=0, le=1)]
    ci_high: Annotated[float, msgspec.Meta(ge=0, le=1)]
    fair_share: Annotated[float, msgspec.Meta(ge=0, le=1)]
    mean_margin: float


class Scorecard(msgspec.Struct):
    """`farlight evaluate`'s scorecard.json: the fields shown here (others are ignored)."""

    protocol: Annotated[str, msgspec.Meta(max_length=100)]
    agent: Annotated[str, msgspec.Meta(max_length=500)]
    cells: list[ScoreCell]
    rating: Rating
    quick: bool = False  # `farlight evaluate --quick`: a subset, not the full protocol


def scorecards(data: Path) -> list[dict[str, Any]]:
    """Every scorecard.json under `data`: its fields, or the reason it was skipped."""
    out = []
    for path in walk(data, ("scorecard.json",)):
        rel = path.relative_to(data).as_posix()
        try:
            card = decode(read_bounded(path, MAX_FILE_BYTES), Scorecard)
        except (OSError, ValueError, msgspec.DecodeError) as exc:
            out.append({"file": rel, "error": str(exc)})
            continue
        out.append({"file": rel, **msgspec.to_builtins(card)})
    return out


def tournaments(data: Path) -> list[dict[str, Any]]:
    """Tournament results.json files and journal folders under `data`, with their ratings."""
    out = []
    seen: set[Path] = set()
    for path in walk(data, ("results.json",)):
        rel = path.relative_to(data).as_posix()
        seen.add(path.parent)
        try:
            out.append({"file": rel, **_results_summary(_read_json(path))})
        except (RecordError, KeyError, TypeError, ValueError) as exc:
            out.append({"file": rel, "error": str(exc)})
    for path in walk(data, ("games.jsonl",)):
        if path.parent in seen:
            continue
        rel = path.relative_to(data).as_posix()
        try:
            out.append({"file": rel, **_journal_summary(path)})
        except (RecordError, KeyError, TypeError, ValueError, OSError) as exc:
            out.append({"file": rel, "error": str(exc)})
    return out


def _results_summary(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict) or data.get("format") != "farlight-tournament":
        raise ValueError("not a Farlight tournament results file")
    rows = data.get("summary")
    if not isinstance(rows, list):
        raise ValueError("no 'summary' list")
    games = data.get("games") if isinstance(data.get("games"), list) else []
    return {
        "kind": "results",
        "num_players": data.get("num_players"),
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
    from agents.tournament import summarise

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
