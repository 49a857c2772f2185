"""Running a tournament: schedule, play (locally or on Ray), journal and summarise; resuming
one from its journal."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from agents.farlight.sealed import MoveBudget
from agents.registry import agent_names_help, unknown_agents
from evaluation.formats.journal import TournamentSpec
from evaluation.journal import (
    Journal,
    JournalError,
    game_options,
    new_spec,
    read_games,
    read_spec,
)
from evaluation.tournament.backends import Record, run_local, run_ray
from evaluation.tournament.ratings import summarise
from evaluation.tournament.results import TournamentResult
from evaluation.tournament.scheduling import schedule
from farlight_env.platform import DEFAULT_GAME, GameError, get_game


def run_tournament(
    agents: Sequence[str],
    num_players: int = 4,
    games: int = 200,
    seed: int = 0,
    workers: int = 1,
    backend: str = "local",
    ray_address: str | None = None,
    config: dict[str, Any] | None = None,
    agent_kwargs: dict[str, dict[str, Any]] | None = None,
    progress: bool = True,
    out_dir: Path | None = None,
    sealed: bool = False,
    move_budget: MoveBudget | None = None,
    game: str = DEFAULT_GAME,
) -> TournamentResult:
    """Schedule, play (locally or on Ray) and summarise a tournament. `games` is rounded up to
    whole duplicate blocks of len(agents) games (3 games with 2 agents play 4). With
    `out_dir`, each game's record is appended to its journal as it ends. With `sealed`, every
    agent plays from its own process and sees only its seat's redacted game
    (agents.farlight.sealed); a decision over `move_budget` is forfeited to the lowest-numbered
    legal action, and each
    record counts its seats' forfeits. `game` names the game (the platform's registry)."""
    if move_budget is not None and not sealed:
        raise ValueError("a move budget bounds sealed agents only: give sealed=True")
    budget = (None, None) if move_budget is None else (move_budget.seconds, move_budget.cpu_seconds)
    get_game(game).check_players(num_players)  # a wrong name or seat count, before anything
    spec = new_spec(
        list(agents),
        num_players,
        games,
        seed,
        config or {},
        agent_kwargs or {},
        sealed,
        *budget,
        game=game,
    )
    return _play_spec(spec, workers, backend, ray_address, progress, out_dir, resume=False)


def resume_tournament(
    out_dir: Path,
    workers: int = 1,
    backend: str = "local",
    ray_address: str | None = None,
    progress: bool = True,
) -> TournamentResult:
    """Finish the tournament journalled in `out_dir` with its stored options: only the games
    missing from its journal are played; the result is that of an uninterrupted run."""
    spec = read_spec(out_dir)
    return _play_spec(spec, workers, backend, ray_address, progress, out_dir, resume=True)


def _play_spec(
    spec: TournamentSpec,
    workers: int,
    backend: str,
    ray_address: str | None,
    progress: bool,
    out_dir: Path | None,
    resume: bool,
) -> TournamentResult:
    if backend not in ("local", "ray"):
        raise ValueError(f"backend must be 'local' or 'ray', got {backend!r}")
    try:  # a stored spec's seat count is bounded by every game's; its own game checks it here
        get_game(spec.game).check_players(spec.num_players)
    except GameError as exc:
        raise JournalError(str(exc)) from None
    unknown = unknown_agents(list(spec.agents))
    if unknown:  # fail early, before any worker starts (and without loading torch here)
        raise ValueError(
            f"unknown agent {', '.join(repr(n) for n in unknown)}: "
            f"expected one of {agent_names_help()}"
        )
    specs = schedule(
        spec.agents,
        spec.num_players,
        spec.games,
        spec.seed,
        game_options(spec),
        spec.agent_kwargs,
        spec.sealed,
        MoveBudget.given(spec.move_seconds, spec.move_cpu_seconds),
        spec.game,
    )
    records: list[Record] = []
    journal = None
    if out_dir is not None:
        if resume:
            expected = {s.index: (s.seed, s.lineup) for s in specs}
            records = read_games(out_dir, expected)
            journal = Journal(out_dir)
        else:
            journal = Journal.create(out_dir, spec)
        if spec.sealed:  # out of the sealed children's reach (agents.farlight.sealed.box)
            from agents.farlight.sealed import guard_process, protect_folder

            guard_process()
            protect_folder(out_dir)
    finished = {r["index"] for r in records}
    todo = [s for s in specs if s.index not in finished]
    from tqdm.auto import tqdm

    bar = tqdm(
        total=len(specs), initial=len(finished), desc="games", unit="game", disable=not progress
    )

    def done(record: Record) -> None:
        records.append(journal.append(record) if journal is not None else record)
        bar.update(1)

    try:
        if backend == "ray":
            run_ray(todo, workers, done, ray_address)
        else:
            run_local(todo, workers, done)
    finally:
        bar.close()
    records.sort(key=lambda r: r["index"])
    names = list(spec.agents)
    return TournamentResult(
        names, spec.num_players, spec.seed, records, summarise(records, list(dict.fromkeys(names)))
    )
