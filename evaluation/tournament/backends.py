"""Where the games are played: in this process, on a local pool of spawned die-with-parent
workers, or on Ray (a local instance or a cluster joined by address)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context
from typing import Any

from agents.torch_threads import single_threaded_worker
from evaluation.collector import fewer_collections, fewer_collections_for_good
from evaluation.journal import (
    Journal,
)
from evaluation.tournament.play import GameFailure, play_game
from evaluation.tournament.scheduling import GameSpec
from farlight_env.processes import die_with_parent, start_orphan_reaper, stop_orphan_reaper


def start_worker(parent_pid: int) -> None:
    """Initializer of a pool worker: one math thread, rarer young garbage collections
    (evaluation/collector.py), and exit when the parent dies."""
    die_with_parent(parent_pid)
    single_threaded_worker()
    fewer_collections_for_good()


Record = dict[str, Any]


def run_local(specs: Sequence[GameSpec], workers: int, done: Callable[[Record], None]) -> None:
    if workers <= 1:
        with fewer_collections():  # evaluation/collector.py
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

        run_local(todo, workers, done)
    return sorted(records, key=lambda r: r["index"])


def run_ray(
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


@fewer_collections()  # per game: a Ray worker may run other work between games
def play_game_collected(spec: GameSpec) -> Record:
    """`play_game` with the collector settings of a long run (evaluation/collector.py), as a
    Ray task runs it."""
    return play_game(spec)


def play_game_on_node(spec: GameSpec) -> Record:
    """A Ray task's game: its record's timing names the node that played it (timing stays out
    of results.json, whose bytes are those of a local run)."""
    import ray

    record = play_game_collected(spec)
    record["timing"]["node"] = ray.get_runtime_context().get_node_id()
    return record


def _play_on_ray(ray: Any, specs: Sequence[GameSpec], done: Callable[[Record], None]) -> None:
    remote = ray.remote(play_game_on_node)
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
