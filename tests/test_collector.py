"""Training runs and tournaments collect young garbage less often, and leave Python's
collector as they found it (evaluation/collector.py)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from doc_snippets import run_page  # noqa: E402
from test_training import tiny_ppo  # noqa: E402

from evaluation.collector import CPYTHON_DEFAULT, LONG_RUN_THRESHOLD, fewer_collections  # noqa: E402
from training.farlight.sb3.train_ppo import train  # noqa: E402


@pytest.fixture
def default_collector() -> Iterator[None]:
    """CPython's own settings for the test, whatever ran before; restored after."""
    before, enabled = gc.get_threshold(), gc.isenabled()
    gc.set_threshold(CPYTHON_DEFAULT, *before[1:])
    gc.enable()
    yield
    gc.set_threshold(*before)
    if not enabled:
        gc.disable()


def test_young_collections_are_rarer_inside_and_restored_after(default_collector) -> None:
    before = gc.get_threshold()
    with fewer_collections():
        assert gc.get_threshold() == (LONG_RUN_THRESHOLD, *before[1:])
    assert gc.get_threshold() == before
    with pytest.raises(RuntimeError), fewer_collections():
        raise RuntimeError("a failed run")
    assert gc.get_threshold() == before


def test_a_collector_the_user_tuned_or_disabled_is_left_alone(default_collector) -> None:
    gc.set_threshold(1234, 5, 6)
    with fewer_collections():
        assert gc.get_threshold() == (1234, 5, 6)
    gc.set_threshold(CPYTHON_DEFAULT, 10, 10)
    gc.disable()
    with fewer_collections():
        assert not gc.isenabled() and gc.get_threshold() == (CPYTHON_DEFAULT, 10, 10)


def test_a_training_run_learns_with_rarer_collections(
    default_collector, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A real (tiny) run learns under the training threshold (noted as the learner starts: a
    tiny run may not allocate 20,000 objects net), and ends with CPython's settings back."""
    from sb3_contrib import MaskablePPO

    learn, seen = MaskablePPO.learn, []

    def noted(model, *args, **kwargs):
        seen.append(gc.get_threshold()[0])
        return learn(model, *args, **kwargs)

    monkeypatch.setattr(MaskablePPO, "learn", noted)
    train(tiny_ppo(tmp_path / "run", eval_every=0), progress=False)
    assert seen == [LONG_RUN_THRESHOLD]
    assert gc.get_threshold()[0] == CPYTHON_DEFAULT


def test_training_page_code_runs(default_collector) -> None:
    """docs/training.md's one Python block: a loop of one's own under `fewer_collections`."""
    run_page("docs/training.md", expected_blocks=1)
    assert gc.get_threshold()[0] == CPYTHON_DEFAULT


def test_a_tournament_in_this_process_plays_with_rarer_collections(
    default_collector, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Games played in the caller's process (one worker) see the long-run threshold, noted as
    each game starts; the caller's settings are back after."""
    from evaluation.tournament import backends, run_tournament

    play, seen = backends.play_game, []

    def noted(spec):
        seen.append(gc.get_threshold()[0])
        return play(spec)

    monkeypatch.setattr(backends, "play_game", noted)
    run_tournament(["random", "heuristic"], num_players=2, games=2, workers=1, progress=False)
    assert seen == [LONG_RUN_THRESHOLD] * 2
    assert gc.get_threshold()[0] == CPYTHON_DEFAULT


def test_a_tournament_pool_worker_keeps_rarer_collections() -> None:
    """A spawned pool worker started as `run_local` starts them collects young garbage every
    LONG_RUN_THRESHOLD allocations for its whole life."""
    import os
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    from evaluation.tournament.backends import start_worker

    with ProcessPoolExecutor(
        max_workers=1,
        mp_context=get_context("spawn"),
        initializer=start_worker,
        initargs=(os.getpid(),),
    ) as pool:
        assert pool.submit(gc.get_threshold).result()[0] == LONG_RUN_THRESHOLD


def test_a_ray_task_plays_its_game_with_rarer_collections(
    default_collector, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The function the Ray backend submits plays each game under the long-run threshold and
    leaves the worker's settings as it found them (a Ray worker may run other tasks)."""
    from evaluation.tournament import backends

    play, seen = backends.play_game, []

    def noted(spec):
        seen.append(gc.get_threshold()[0])
        return play(spec)

    monkeypatch.setattr(backends, "play_game", noted)
    specs = backends_specs()
    assert [backends.play_game_collected(spec)["scores"] for spec in specs]
    assert seen == [LONG_RUN_THRESHOLD] * len(specs)
    assert gc.get_threshold()[0] == CPYTHON_DEFAULT


def backends_specs() -> list:
    """Two short games' specs, as a tournament schedules them."""
    from evaluation.tournament.scheduling import schedule

    return schedule(["random", "heuristic"], 2, 2, seed=3, config={"max_rounds": 4})[:2]
