"""Speed benchmarks: the rules engine alone, and the PettingZoo env as a trainer drives it.

Engine: random legal play (``legal_actions`` + ``apply`` per action); actions/s and games/s.
Env: random masked play through the wrapped AEC env, ``farlight_v0.env()``, with the standard
PettingZoo loop (``env.last()`` builds the observation and mask every step); steps/s and games/s,
next to PettingZoo's Connect Four measured in the same run, in alternating slices so that other
load on the machine slows both alike, and the ratio between them.

Run ``farlight bench`` (its options live in farlight_cli/bench_cmd.py); ``--engine-only``,
``--env-only`` and ``--no-connect-four`` narrow it down. Speed is measured here, never by a
timed unit test.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from farlight_env.measure.timing import (
    CONNECT_FOUR,
    BenchResult,
    ConnectFourUnavailable,
    EnvBenchResult,
    EnvRunner,
    EnvSuite,
    RandomPlayRunner,
    connect_four_env,
    take_turns,
)


def engine_runner(num_players: int, seed: int = 0, **config: Any) -> RandomPlayRunner:
    """Random legal play on the engine itself (``legal_actions`` + ``apply`` per action)."""
    from farlight_env.game import FarlightGame  # lazy: the CLI parses options without it

    def start(game_seed: int) -> FarlightGame:
        return FarlightGame(num_players=num_players, seed=game_seed, **config)

    return RandomPlayRunner(num_players, seed, start)


def bench_engine(
    num_players: int,
    *,
    seconds: float | None = 3.0,
    games: int | None = None,
    seed: int = 0,
    progress: bool = False,
    **config: Any,
) -> BenchResult:
    """Play random games until ``games`` are done, or else until ``seconds`` have passed.

    Whole games only: the clock is checked between games, and game setup is timed too.
    """
    runner = engine_runner(num_players, seed, **config)
    runner.play(seconds=seconds, games=games)
    return runner.result()


def bench_engine_suite(
    players: Sequence[int],
    *,
    seconds: float | None = 3.0,
    games: int | None = None,
    seed: int = 0,
    progress: bool = False,
    config: Mapping[str, Any] | None = None,
) -> list[BenchResult]:
    """The engine at each player count, measured in turns slice by slice, as the env is.

    ``config`` goes to the engine (card_set, grid_size, max_rounds, ...)."""
    runners = [engine_runner(n, seed, **(config or {})) for n in players]
    take_turns(runners, seconds, games, "bench engine", progress)
    return [r.result() for r in runners]


# ---- env benchmark -------------------------------------------------------------------------

FARLIGHT = "farlight_v0"
#: Player count whose steps/s is held against Connect Four's (issue 12: at least 1.5x).
REFERENCE_PLAYERS = 4
TARGET_RATIO = 1.5


def farlight_runner(num_players: int, seed: int = 0, **config: Any) -> EnvRunner:
    from farlight_env import farlight_v0  # lazy: the CLI parses options without PettingZoo

    return EnvRunner(
        FARLIGHT, farlight_v0.env(num_players=num_players, **config), num_players, seed
    )


def bench_env(
    num_players: int,
    *,
    seconds: float | None = 3.0,
    games: int | None = None,
    seed: int = 0,
    **config: Any,
) -> EnvBenchResult:
    """Random masked play through ``farlight_v0.env(num_players=...)``, the wrapped AEC env.

    Plays ``games`` games, or else whole games until ``seconds`` have passed; game ``i`` is
    seeded ``seed + i``. ``config`` goes to the env (card_set, max_rounds, ...).
    """
    runner = farlight_runner(num_players, seed, **config)
    runner.play(seconds=seconds, games=games)
    return runner.result()


def bench_connect_four(
    *, seconds: float | None = 3.0, games: int | None = None, seed: int = 0
) -> EnvBenchResult:
    """The same loop on PettingZoo's Connect Four; raises ConnectFourUnavailable without pygame."""
    runner = EnvRunner(CONNECT_FOUR, connect_four_env(), 2, seed)
    runner.play(seconds=seconds, games=games)
    return runner.result()


def bench_env_suite(
    players: Sequence[int],
    *,
    seconds: float | None = 3.0,
    games: int | None = None,
    seed: int = 0,
    connect_four: bool = True,
    progress: bool = False,
    config: Mapping[str, Any] | None = None,
) -> EnvSuite:
    """Farlight for each player count and Connect Four, measured in turns.

    Every measurement gets the same budget, split into slices of about SLICE_SECONDS (or into
    GAME_TURNS chunks of games); the measurements take turns slice by slice, so load from other
    jobs on the machine falls on all of them alike and the ratios stay meaningful. ``config``
    goes to every Farlight env (card_set, grid_size, max_rounds).
    """
    runners = [farlight_runner(n, seed, **(config or {})) for n in players]
    note = None
    c4 = None
    if connect_four:
        try:
            c4 = EnvRunner(CONNECT_FOUR, connect_four_env(), 2, seed)
        except ConnectFourUnavailable as exc:
            note = str(exc)
        else:
            runners.insert(0, c4)
    take_turns(runners, seconds, games, "bench env", progress)
    return EnvSuite(
        farlight=[r.result() for r in runners if r is not c4],
        connect_four=c4.result() if c4 is not None else None,
        note=note,
    )
