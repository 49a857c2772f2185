"""Tournaments: seat-rotated games between agents, win rates with intervals, skill ratings.

Every game is played through the PettingZoo env exactly as users would, from a seed derived
from the tournament seed and the game's index, so any game can be replayed from its record and
the results file is identical for the same seed whatever the number of workers.
"""

from __future__ import annotations

import copy
import csv
import io
import json
import math
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Any

import numpy as np

from agents.arena import play_episode
from agents.files import atomic_write
from agents.journal import (
    Journal,
    TournamentSpec,
    game_options,
    new_spec,
    read_games,
    read_spec,
)
from agents.registry import agent_names_help, make, unknown_agents
from agents.workers import die_with_parent, start_orphan_reaper, stop_orphan_reaper
from farlight_env.env.aec import raw_env
from farlight_env.record import build_record


@dataclass(frozen=True, slots=True)
class GameSpec:
    """One scheduled game: who sits where and the seed it is played from."""

    index: int
    seed: int
    lineup: tuple[str, ...]
    config: dict[str, Any] = field(default_factory=dict)
    agent_kwargs: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Lineup label -> agent name for `make` (or an Agent object, copied fresh for the game),
    #: so one agent can sit under two labels (an evaluated ismcts and its ismcts opponents at
    #: another budget); labels key agent_kwargs.
    aliases: dict[str, Any] = field(default_factory=dict)


def game_seed(tournament_seed: int, block: int) -> int:
    """A seed per block of rotated games, independent of scheduling and workers."""
    return int(np.random.SeedSequence([tournament_seed, block]).generate_state(1, np.uint32)[0])


def schedule(
    agents: Sequence[str],
    num_players: int,
    games: int,
    seed: int,
    config: dict[str, Any] | None = None,
    agent_kwargs: dict[str, dict[str, Any]] | None = None,
) -> list[GameSpec]:
    """Games in blocks of len(agents) rotations sharing one seed (duplicate format).

    In block b, game r seats agents[(seat + r) % A]; over a block every agent sits in every
    seat equally often and meets the same deal. `games` is rounded up to whole blocks.
    """
    if not agents:
        raise ValueError("a tournament needs at least one agent")
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    count = len(agents)
    blocks = math.ceil(games / count)
    specs = []
    for block in range(blocks):
        seed_b = game_seed(seed, block)
        for rotation in range(count):
            lineup = tuple(agents[(s + rotation) % count] for s in range(num_players))
            specs.append(
                GameSpec(
                    index=block * count + rotation,
                    seed=seed_b,
                    lineup=lineup,
                    config=dict(config or {}, num_players=num_players),
                    agent_kwargs=dict(agent_kwargs or {}),
                )
            )
    return specs


def agent_seed(spec: GameSpec, seat: int) -> int:
    return int(np.random.SeedSequence([spec.seed, spec.index, seat]).generate_state(1)[0])


class GameFailure(RuntimeError):
    """A game that could not be played to its end: names the game, the seat and the agent."""


def _failure(spec: GameSpec, seat: int | None, exc: BaseException) -> GameFailure:
    first = str(exc).splitlines()[0] if str(exc) else ""
    who = f"seat {seat} ({spec.lineup[seat]})" if seat is not None else "setting up"
    return GameFailure(f"game {spec.index}, {who}: {type(exc).__name__}: {first}")


def play_game(spec: GameSpec) -> dict[str, Any]:
    """Play one scheduled game through the AEC env; returns its record (JSON-able). An agent
    that raises (or plays an illegal move) ends the game with a GameFailure naming it."""
    building: int | None = None  # the seat whose agent is being made, if any
    env = raw_env(**spec.config)
    env.reset(seed=spec.seed)
    think = [0.0] * len(spec.lineup)
    cpu = [0.0] * len(spec.lineup)
    decisions = [0] * len(spec.lineup)

    def count(seat: int, _action: int, seconds: float, cpu_seconds: float) -> None:
        think[seat] += seconds
        cpu[seat] += cpu_seconds
        decisions[seat] += 1

    try:
        seats = []
        for building, name in enumerate(spec.lineup):  # noqa: B007 - named in a failure
            target = spec.aliases.get(name, name)
            if isinstance(target, str):
                kwargs = spec.agent_kwargs.get(name, {})
                seats.append(make(target, seed=agent_seed(spec, building), **kwargs))
            else:
                seats.append(copy.deepcopy(target))
            seats[-1].reset()
        building = None
        play_episode(env, seats, count)
    except Exception as exc:  # noqa: BLE001 - any agent error ends the tournament by name
        seat = building if building is not None else env.agent_name_mapping.get(env.agent_selection)
        raise _failure(spec, seat, exc) from exc
    game = env.game
    assert game is not None and game.is_over
    # the one record format (record.py), card set included when it is not the standard one
    return build_record(
        game,
        spec.lineup,
        spec.seed,
        spec.config,
        index=spec.index,
        timing={"seconds": think, "cpu_seconds": cpu, "decisions": decisions},
    )


# --------------------------------------------------------------------------- statistics
def wilson_interval(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a win rate (fractional wins for shared victories)."""
    if trials == 0:
        return (0.0, 1.0)
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    # Rounding can push a bound past the observed rate at 0 or 1: the interval always holds p.
    return (min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half)))


def placements(record: dict[str, Any]) -> list[int]:
    """Rank per seat (1 = best): winners first, then by final score; equal scores share."""
    scores = record["scores"]
    winners = set(record["winners"])
    keys = [(seat in winners, scores[seat]) for seat in range(len(scores))]
    return [1 + sum(other > key for other in keys) for key in keys]


@dataclass(frozen=True, slots=True)
class AgentSummary:
    agent: str
    seats_played: int
    wins: float
    win_rate: float
    win_low: float
    win_high: float
    mean_score: float
    rating_mu: float
    rating_sigma: float
    rating: float  # ordinal: mu - 3 sigma
    seconds_per_decision: float


def rate(records: Sequence[dict[str, Any]], agents: Sequence[str]) -> dict[str, Any]:
    """OpenSkill Plackett-Luce ratings over the games in index order (deterministic)."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in agents}
    for record in sorted(records, key=lambda r: r["index"]):
        lineup = record["players"]
        teams = [[ratings[name]] for name in lineup]
        updated = model.rate(teams, ranks=placements(record))
        fresh: dict[str, list[Any]] = {}
        for name, team in zip(lineup, updated, strict=True):
            fresh.setdefault(name, []).append(team[0])
        for name, values in fresh.items():  # an agent in several seats: average its updates
            mu = sum(v.mu for v in values) / len(values)
            sigma = sum(v.sigma for v in values) / len(values)
            ratings[name] = model.rating(mu=mu, sigma=sigma, name=name)
    return ratings


def summarise(records: Sequence[dict[str, Any]], agents: Sequence[str]) -> list[AgentSummary]:
    ratings = rate(records, agents)
    rows = []
    for name in agents:
        seats = wins = 0.0
        scores: list[int] = []
        seconds = decisions = 0.0
        for record in records:
            winners = record["winners"]
            for seat, player in enumerate(record["players"]):
                if player != name:
                    continue
                seats += 1
                scores.append(record["scores"][seat])
                if seat in winners:
                    wins += 1.0 / len(winners)
                seconds += record["timing"]["seconds"][seat]
                decisions += record["timing"]["decisions"][seat]
        n = int(seats)
        low, high = wilson_interval(wins, n)
        r = ratings[name]
        rows.append(
            AgentSummary(
                agent=name,
                seats_played=n,
                wins=round(wins, 4),
                win_rate=wins / n if n else 0.0,
                win_low=low,
                win_high=high,
                mean_score=float(np.mean(scores)) if scores else 0.0,
                rating_mu=r.mu,
                rating_sigma=r.sigma,
                rating=r.ordinal(),
                seconds_per_decision=seconds / decisions if decisions else 0.0,
            )
        )
    return rows


MAX_LABEL = 20


def short_labels(names: Sequence[str]) -> dict[str, str]:
    """A short, distinct label per agent for tables and plots: policy paths by file stem (with
    their folder if stems clash), anything long cut to MAX_LABEL characters."""

    def cut(text: str) -> str:
        return text if len(text) <= MAX_LABEL else text[: MAX_LABEL - 1] + "…"

    def is_path(name: str) -> bool:
        return name.endswith(".pt") or "/" in name or os.sep in name

    labels = {n: cut(Path(n).stem if is_path(n) else n) for n in names}
    clashing = [n for n in names if list(labels.values()).count(labels[n]) > 1 and is_path(n)]
    for name in clashing:
        labels[name] = cut(f"{Path(name).parent.name}/{Path(name).stem}")
    for i, name in enumerate(names):  # still clashing: number them
        if list(labels.values()).count(labels[name]) > 1:
            labels[name] = cut(f"{labels[name][: MAX_LABEL - 4]}#{i + 1}")
    return labels


def format_table(rows: Sequence[AgentSummary]) -> str:
    """The summary table; agents whose label is shortened are listed in full below it."""
    labels = short_labels([r.agent for r in rows])
    width = max([5, *map(len, labels.values())])
    header = (
        f"{'agent':<{width}} {'seats':>5} {'wins':>7} {'win rate':>8} {'95% CI':>15} "
        f"{'mean score':>10} {'rating':>7} {'mu±sigma':>13} {'s/decision':>10}"
    )
    lines = [header, "-" * len(header)]
    for r in sorted(rows, key=lambda row: -row.rating):
        lines.append(
            f"{labels[r.agent]:<{width}} {r.seats_played:>5} {r.wins:>7.1f} {r.win_rate:>8.1%} "
            f"{f'[{r.win_low:.1%}, {r.win_high:.1%}]':>15} {r.mean_score:>10.2f} "
            f"{r.rating:>7.2f} {f'{r.rating_mu:.1f}±{r.rating_sigma:.1f}':>13} "
            f"{r.seconds_per_decision:>10.4f}"
        )
    lines += [f"  {label} = {name}" for name, label in labels.items() if label != name]
    return "\n".join(lines)


# --------------------------------------------------------------------------- running
@dataclass
class TournamentResult:
    agents: list[str]
    num_players: int
    seed: int
    records: list[dict[str, Any]]
    summary: list[AgentSummary]

    def table(self) -> str:
        return format_table(self.summary)


def single_threaded_worker() -> None:
    """One math thread per worker process: with N workers on N cores, torch's default of one
    thread per core oversubscribes them (30x slower policy decisions, as measured)."""
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = "1"
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def start_worker(parent_pid: int) -> None:
    """Initializer of a pool worker: one math thread, and exit when the parent dies."""
    die_with_parent(parent_pid)
    single_threaded_worker()


Record = dict[str, Any]


def _run_local(specs: Sequence[GameSpec], workers: int, done: Callable[[Record], None]) -> None:
    if workers <= 1:
        for spec in specs:
            done(play_game(spec))
        return
    # spawn, not fork: a forked worker can deadlock on locks torch or other threads held
    pool = ProcessPoolExecutor(
        max_workers=workers,
        mp_context=get_context("spawn"),
        initializer=start_worker,
        initargs=(os.getpid(),),
    )
    try:
        futures = [pool.submit(play_game, spec) for spec in specs]
        for future in as_completed(futures):
            done(future.result())
    except BaseException:
        # A failed game (or Ctrl-C) stops everything now: games in flight are abandoned.
        processes = list(getattr(pool, "_processes", {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            process.terminate()
        raise
    pool.shutdown()


def play_games(
    specs: Sequence[GameSpec],
    workers: int,
    progress: bool,
    journal: Journal | None = None,
    finished: Sequence[Record] = (),
) -> list[Record]:
    """Play the `specs` not already `finished` on a local process pool (die-with-parent
    workers) with a progress bar, appending each to `journal` as it ends; all the records come
    back in index order whatever the number of workers."""
    from tqdm.auto import tqdm

    records: list[Record] = list(finished)
    played = {r["index"] for r in records}
    todo = [s for s in specs if s.index not in played]
    with tqdm(
        total=len(specs), initial=len(records), desc="games", unit="game", disable=not progress
    ) as bar:

        def done(record: Record) -> None:
            records.append(journal.append(record) if journal is not None else record)
            bar.update(1)

        _run_local(todo, workers, done)
    return sorted(records, key=lambda r: r["index"])


def _run_ray(
    specs: Sequence[GameSpec], workers: int, done: Callable[[Record], None], address: str | None
) -> None:
    try:
        import ray
    except ImportError as exc:
        raise RuntimeError("the ray backend needs Ray: pip install 'farlight-env[ray]'") from exc
    started_here = not ray.is_initialized()
    # A local instance is ours: if this process is killed, its reaper ends all of it at once
    # (Ray's own agents would linger for a minute). A cluster joined by address is not ours.
    reaper = start_orphan_reaper() if started_here and address is None else None
    try:
        if started_here:
            try:
                ray.init(
                    address=address, num_cpus=None if address else workers, include_dashboard=False
                )
            except ConnectionError as exc:  # no cluster at the address, or none running (auto)
                first = str(exc).split(". ")[0].splitlines()[0]
                raise ValueError(f"cannot join the Ray cluster at {address}: {first}") from None
        _play_on_ray(ray, specs, done)
    finally:
        if started_here:
            ray.shutdown()
        stop_orphan_reaper(reaper)


def _play_on_ray(ray: Any, specs: Sequence[GameSpec], done: Callable[[Record], None]) -> None:
    remote = ray.remote(play_game)
    pending = [remote.remote(spec) for spec in specs]
    while pending:
        finished, pending = ray.wait(pending, num_returns=1)
        try:
            records = ray.get(finished)
        except Exception as exc:
            cause = getattr(exc, "cause", None)
            if isinstance(cause, GameFailure):
                for ref in pending:
                    ray.cancel(ref, force=True)
                raise cause from None
            raise
        for record in records:
            done(record)


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
) -> TournamentResult:
    """Schedule, play (locally or on Ray) and summarise a tournament. `games` is rounded up to
    whole duplicate blocks of len(agents) games (3 games with 2 agents play 4). With
    `out_dir`, each game's record is appended to its journal as it ends."""
    spec = new_spec(list(agents), num_players, games, seed, config or {}, agent_kwargs or {})
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
    unknown = unknown_agents(list(spec.agents))
    if unknown:  # fail early, before any worker starts (and without loading torch here)
        raise ValueError(
            f"unknown agent {', '.join(repr(n) for n in unknown)}: "
            f"expected one of {agent_names_help()}"
        )
    specs = schedule(
        spec.agents, spec.num_players, spec.games, spec.seed, game_options(spec), spec.agent_kwargs
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
            _run_ray(todo, workers, done, ray_address)
        else:
            _run_local(todo, workers, done)
    finally:
        bar.close()
    records.sort(key=lambda r: r["index"])
    names = list(spec.agents)
    return TournamentResult(
        names, spec.num_players, spec.seed, records, summarise(records, list(dict.fromkeys(names)))
    )


# --------------------------------------------------------------------------- output
def write_results(result: TournamentResult, out_dir: Path) -> dict[str, Path]:
    """results.json (reproducible: no timings), games.csv, summary.csv, timing.json, ratings.png."""
    out_dir.mkdir(parents=True, exist_ok=True)
    records = [{k: v for k, v in r.items() if k != "timing"} for r in result.records]
    summary = [
        {k: v for k, v in asdict(row).items() if k != "seconds_per_decision"}
        for row in result.summary
    ]
    payload = {
        "format": "farlight-tournament",
        "version": 1,
        "rule_options": records[0]["config"]["rule_options"] if records else None,
        "agents": result.agents,
        "num_players": result.num_players,
        "seed": result.seed,
        "summary": summary,
        "games": records,
    }
    paths = {
        "results": out_dir / "results.json",
        "games": out_dir / "games.csv",
        "summary": out_dir / "summary.csv",
        "timing": out_dir / "timing.json",
        "plot": out_dir / "ratings.png",
    }
    atomic_write(paths["results"], json.dumps(payload, indent=1, sort_keys=True))
    with io.StringIO(newline="") as fh:
        writer = csv.writer(fh)
        n = result.num_players
        writer.writerow(
            ["index", "env_seed", "game_seed", "rounds", "end_reason", "winners"]
            + [f"seat{s}_agent" for s in range(n)]
            + [f"seat{s}_score" for s in range(n)]
        )
        for r in records:
            writer.writerow(
                [
                    r["index"],
                    r["env_seed"],
                    r["game_seed"],
                    r["rounds"],
                    r["end_reason"],
                    " ".join(map(str, r["winners"])),
                ]
                + r["players"]
                + r["scores"]
            )
        atomic_write(paths["games"], fh.getvalue())
    with io.StringIO(newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(asdict(result.summary[0])))
        writer.writeheader()
        for row in result.summary:
            writer.writerow(asdict(row))
        atomic_write(paths["summary"], fh.getvalue())
    timing = {row.agent: row.seconds_per_decision for row in result.summary}
    atomic_write(paths["timing"], json.dumps(timing, indent=1, sort_keys=True))
    plot_summary(result.summary, paths["plot"], title=_title(result))
    return paths


def _title(result: TournamentResult) -> str:
    games = len(result.records)
    return f"{result.num_players}-player tournament, {games} games, seed {result.seed}"


def plot_summary(rows: Iterable[AgentSummary], path: Path, title: str) -> None:
    """Win rate with its 95% interval and rating (mu ± sigma) per agent, side by side.

    Drawn on a Figure outside pyplot, so saving a file never changes a notebook's backend.
    """
    from matplotlib.figure import Figure

    rows = sorted(rows, key=lambda r: -r.rating)
    labels = short_labels([r.agent for r in rows])
    names = [labels[r.agent] for r in rows]
    x = np.arange(len(rows))
    fig = Figure(figsize=(10, 4))
    ax1, ax2 = fig.subplots(1, 2)
    rates = np.array([r.win_rate for r in rows])
    err = np.array(
        [[r.win_rate - r.win_low for r in rows], [r.win_high - r.win_rate for r in rows]]
    )
    ax1.bar(x, rates, yerr=err, capsize=6, color="#4C72B0")
    ax1.set_xticks(x, names, rotation=30, ha="right")
    ax1.set_ylim(0, 1)
    ax1.set_ylabel("win rate (95% Wilson CI)")
    ax2.errorbar(
        x,
        [r.rating_mu for r in rows],
        yerr=[r.rating_sigma for r in rows],
        fmt="o",
        capsize=6,
        color="#DD8452",
    )
    ax2.set_xticks(x, names, rotation=30, ha="right")
    ax2.set_ylabel("OpenSkill rating (mu ± sigma)")
    fig.suptitle(title)
    fig.tight_layout()
    tmp = path.with_name(path.name + ".tmp.png")
    fig.savefig(tmp, dpi=100, bbox_inches="tight")
    os.replace(tmp, path)
