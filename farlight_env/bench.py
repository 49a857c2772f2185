"""Speed benchmarks: the rules engine alone, and the PettingZoo env as a trainer drives it.

Engine: random legal play (``legal_actions`` + ``apply`` per action); actions/s and games/s.
Env: random masked play through the wrapped AEC env, ``farlight_v0.env()``, with the standard
PettingZoo loop (``env.last()`` builds the observation and mask every step); steps/s and games/s,
next to PettingZoo's Connect Four measured in the same run, in alternating slices so that other
load on the machine slows both alike, and the ratio between them.

Run ``farlight bench`` or ``python -m farlight_env.bench``; ``--engine-only``, ``--env-only``
and ``--no-connect-four`` narrow it down. Speed is measured here, never by a timed unit test.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import math
import os
import platform
import random
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from tqdm import tqdm

from farlight_env.stats import text_table

MIN_PLAYERS, MAX_PLAYERS = 2, 5


@dataclass(frozen=True)
class BenchResult:
    """Totals of one benchmark run for one player count."""

    num_players: int
    games: int
    actions: int
    seconds: float

    @property
    def actions_per_s(self) -> float:
        return self.actions / self.seconds if self.seconds > 0 else float("inf")

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo, or what `platform` knows elsewhere."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def machine_line() -> str:
    """One line naming the machine: platform, CPU, cores, Python."""
    cores = os.cpu_count() or 0
    py = f"{platform.python_implementation()} {platform.python_version()}"
    return f"{platform.platform()} | {cpu_model()} | {cores} cores | {py}"


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
    from farlight_env.game import FarlightGame  # lazy: the CLI parses options without it

    if games is None and seconds is None:
        raise ValueError("give a number of games or a time budget in seconds")
    rng = random.Random(seed)  # cheaper per draw than numpy: the engine is what's measured
    done = actions = 0
    bar = tqdm(
        total=games,
        desc=f"bench {num_players}p",
        unit="game",
        disable=not progress,
        leave=False,
    )
    start = time.perf_counter()
    deadline = None if games is not None else start + float(seconds or 0.0)
    while True:
        if games is not None and done >= games:
            break
        if deadline is not None and done > 0 and time.perf_counter() >= deadline:
            break
        game = FarlightGame(num_players=num_players, seed=seed + done, **config)
        while not game.is_over:
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
            actions += 1
        done += 1
        bar.update(1)
    elapsed = time.perf_counter() - start
    bar.close()
    return BenchResult(num_players=num_players, games=done, actions=actions, seconds=elapsed)


def format_results(results: Sequence[BenchResult]) -> str:
    """An aligned text table of benchmark results."""
    header = ["players", "games", "actions", "seconds", "actions/s", "games/s", "actions/game"]
    rows = [
        [
            str(r.num_players),
            str(r.games),
            str(r.actions),
            f"{r.seconds:.2f}",
            f"{r.actions_per_s:,.0f}",
            f"{r.games_per_s:,.1f}",
            f"{r.actions / r.games:.1f}" if r.games else "-",
        ]
        for r in results
    ]
    return text_table(header, rows)


# ---- env benchmark -------------------------------------------------------------------------

FARLIGHT = "farlight_v0"
CONNECT_FOUR = "connect_four_v3"
#: Player count whose steps/s is held against Connect Four's (issue 3: at least 0.5x).
REFERENCE_PLAYERS = 4
TARGET_RATIO = 0.5
#: Length of one measurement slice; the env measurements take turns slice by slice.
SLICE_SECONDS = 0.5
#: With a game budget, each measurement is split into this many turns (fewer for few games).
GAME_TURNS = 5


@dataclass(frozen=True)
class EnvBenchResult:
    """Totals of random masked play through one PettingZoo env.

    ``steps`` counts ``env.step`` calls, including the final ``None`` step of each agent
    once the game is over (the standard loop makes them, for every env alike).
    """

    env: str
    num_players: int
    games: int
    steps: int
    seconds: float

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds if self.seconds > 0 else float("inf")

    @property
    def games_per_s(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    @property
    def steps_per_game(self) -> float:
        return self.steps / self.games if self.games else 0.0


class ConnectFourUnavailable(ImportError):
    """PettingZoo's Connect Four cannot be imported here (it needs pygame)."""


def connect_four_env() -> Any:
    """``pettingzoo.classic.connect_four_v3.env()``, or ConnectFourUnavailable saying why not."""
    try:
        # pygame greets on stdout and the old creation API warns; neither belongs in a report
        with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            module = importlib.import_module("pettingzoo.classic.connect_four_v3")
    except ImportError as exc:
        if getattr(exc, "name", None) == "pygame":
            raise ConnectFourUnavailable("Connect Four unavailable: pip install pygame") from exc
        raise ConnectFourUnavailable(f"Connect Four unavailable: {exc}") from exc
    return module.env()


def play_env_game(env: Any, game_seed: int) -> int:
    """One game of uniform random masked play through the standard PettingZoo loop.

    Resets with ``game_seed`` and draws actions from ``random.Random(game_seed)``, so a game's
    length does not depend on how the run is sliced. Returns the number of ``env.step`` calls.
    """
    rng = random.Random(game_seed)
    env.reset(seed=game_seed)
    steps = 0
    for _agent in env.agent_iter():
        obs, _reward, termination, truncation, _info = env.last()
        if termination or truncation:
            action = None
        else:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.randrange(len(legal))])
        env.step(action)
        steps += 1
    return steps


class EnvRunner:
    """Plays whole games on one env and keeps the totals, so a run can be taken in slices."""

    def __init__(self, name: str, env: Any, num_players: int, seed: int = 0) -> None:
        self.name = name
        self.env = env
        self.num_players = num_players
        self.seed = seed
        self.games = self.steps = 0
        self.seconds = 0.0

    def play(self, *, seconds: float | None = None, games: int | None = None) -> None:
        """Play ``games`` more games, or else whole games until ``seconds`` have passed.

        At least one game either way; the clock is checked between games and resets are timed.
        """
        if games is None and seconds is None:
            raise ValueError("give a number of games or a time budget in seconds")
        start = time.perf_counter()
        deadline = None if games is not None else start + float(seconds or 0.0)
        played = 0
        while True:
            if games is not None and played >= games:
                break
            if deadline is not None and played > 0 and time.perf_counter() >= deadline:
                break
            self.steps += play_env_game(self.env, self.seed + self.games)
            self.games += 1
            played += 1
        self.seconds += time.perf_counter() - start

    def result(self) -> EnvBenchResult:
        return EnvBenchResult(self.name, self.num_players, self.games, self.steps, self.seconds)


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


@dataclass(frozen=True)
class EnvSuite:
    """Farlight per player count, Connect Four (None if skipped) and why it was skipped."""

    farlight: list[EnvBenchResult]
    connect_four: EnvBenchResult | None
    note: str | None = None

    def ratio(self, result: EnvBenchResult) -> float | None:
        """``result``'s steps/s over Connect Four's, or None without Connect Four."""
        if self.connect_four is None or self.connect_four.steps == 0:
            return None
        return result.steps_per_s / self.connect_four.steps_per_s


def _turn_budgets(seconds: float | None, games: int | None) -> list[dict[str, Any]]:
    """How one measurement is split into turns: equal time slices, or game chunks."""
    if games is not None:
        turns = max(1, min(games, GAME_TURNS))
        return [{"games": games // turns + (i < games % turns)} for i in range(turns)]
    total = float(seconds if seconds is not None else 3.0)
    turns = max(1, math.ceil(total / SLICE_SECONDS - 1e-9))
    return [{"seconds": total / turns}] * turns


def bench_env_suite(
    players: Sequence[int],
    *,
    seconds: float | None = 3.0,
    games: int | None = None,
    seed: int = 0,
    connect_four: bool = True,
    progress: bool = False,
) -> EnvSuite:
    """Farlight for each player count and Connect Four, measured in turns.

    Every measurement gets the same budget, split into slices of about SLICE_SECONDS (or into
    GAME_TURNS chunks of games); the measurements take turns slice by slice, so load from other
    jobs on the machine falls on all of them alike and the ratios stay meaningful.
    """
    runners = [farlight_runner(n, seed) for n in players]
    note = None
    c4 = None
    if connect_four:
        try:
            c4 = EnvRunner(CONNECT_FOUR, connect_four_env(), 2, seed)
        except ConnectFourUnavailable as exc:
            note = str(exc)
        else:
            runners.insert(0, c4)
    budgets = _turn_budgets(seconds, games)
    bar = tqdm(
        total=len(budgets) * len(runners),
        desc="bench env",
        unit="slice",
        disable=not progress,
        leave=False,
    )
    for budget in budgets:
        for runner in runners:
            runner.play(**budget)
            bar.update(1)
    bar.close()
    return EnvSuite(
        farlight=[r.result() for r in runners if r is not c4],
        connect_four=c4.result() if c4 is not None else None,
        note=note,
    )


def format_env_results(suite: EnvSuite) -> str:
    """An aligned text table of an env suite; the ratio column only with Connect Four."""
    header = ["env", "players", "games", "steps", "seconds", "steps/s", "games/s", "steps/game"]
    with_ratio = suite.connect_four is not None
    if with_ratio:
        header.append("vs Connect Four")
    rows = []
    results = suite.farlight + ([suite.connect_four] if suite.connect_four else [])
    for r in results:
        row = [
            r.env,
            str(r.num_players),
            str(r.games),
            str(r.steps),
            f"{r.seconds:.2f}",
            f"{r.steps_per_s:,.0f}",
            f"{r.games_per_s:,.1f}",
            f"{r.steps_per_game:.1f}" if r.games else "-",
        ]
        if with_ratio:
            ratio = suite.ratio(r)
            row.append(f"{ratio:.2f}x" if ratio is not None else "-")
        rows.append(row)
    return text_table(header, rows)


# ---- argument types shared with the CLI -------------------------------------------------


def player_list(text: str) -> list[int]:
    """Parse "4" or "2,3,4,5" into player counts, each in 2..5."""
    out: list[int] = []
    for part in text.split(","):
        part = part.strip()
        try:
            n = int(part)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"players must be integers in {MIN_PLAYERS}..{MAX_PLAYERS} "
                f"(e.g. 4 or 2,3,4,5), got {text!r}"
            ) from None
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise argparse.ArgumentTypeError(
                f"players must be in {MIN_PLAYERS}..{MAX_PLAYERS}, got {n}"
            )
        if n not in out:
            out.append(n)
    return out


def _number_parser(
    cast: Callable[[str], Any], accept: Callable[[Any], bool], loose: str, strict: str
) -> Callable[[str], Any]:
    """An argparse type: `cast` the text, then refuse values `accept` rejects, saying why."""

    def parse(text: str) -> Any:
        try:
            value = cast(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {loose}, got {text!r}") from None
        if not accept(value):
            raise argparse.ArgumentTypeError(f"must be {strict}, got {text}")
        return value

    return parse


positive_int = _number_parser(
    int, lambda n: n >= 1, "a positive integer", "a positive integer (>= 1)"
)
non_negative_int = _number_parser(int, lambda n: n >= 0, "an integer >= 0", "an integer >= 0")
positive_float = _number_parser(
    float, lambda x: x > 0, "a positive number", "a positive number (> 0)"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of the benchmark (shared by `farlight bench` and `python -m farlight_env.bench`)."""
    which = parser.add_mutually_exclusive_group()
    which.add_argument(
        "--engine-only",
        "--engine",
        dest="engine_only",
        action="store_true",
        help="only the rules engine (legal_actions + apply); default: engine and env",
    )
    which.add_argument(
        "--env-only",
        action="store_true",
        help="only the PettingZoo env (observation and mask every step) and Connect Four",
    )
    parser.add_argument(
        "--no-connect-four",
        action="store_true",
        help="skip PettingZoo's Connect Four reference (it needs pygame)",
    )
    parser.add_argument(
        "--players",
        type=player_list,
        default=[2, 3, 4, 5],
        metavar="N[,N...]",
        help="player counts to measure, each in 2..5 (default: 2,3,4,5)",
    )
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument(
        "--seconds",
        type=positive_float,
        default=3.0,
        help="time budget per measurement (player count, or Connect Four), whole games only "
        f"(default: 3; the env measurements take turns in {SLICE_SECONDS:g} s slices)",
    )
    budget.add_argument(
        "--games",
        type=positive_int,
        default=None,
        help="play exactly this many games per measurement instead",
    )
    parser.add_argument(
        "--seed", type=non_negative_int, default=0, help="first game seed (default: 0)"
    )
    parser.add_argument("--no-progress", action="store_true", help="hide progress bars")


def _run_engine(args: argparse.Namespace, budget: str) -> None:
    print(f"engine benchmark: random legal play, {budget} per player count, seed {args.seed}")
    results = [
        bench_engine(
            n,
            seconds=None if args.games is not None else args.seconds,
            games=args.games,
            seed=args.seed,
            progress=not args.no_progress,
        )
        for n in args.players
    ]
    print(format_results(results))


def _run_env(args: argparse.Namespace, budget: str) -> None:
    with_c4 = not args.no_connect_four
    turns = "" if args.games is not None else f", in {SLICE_SECONDS:g} s slices taken in turn"
    versus = f" and {CONNECT_FOUR}.env()" if with_c4 else ""
    print(
        f"env benchmark: random masked play through {FARLIGHT}.env(){versus}, observation and "
        f"action mask every step\n{budget} per measurement{turns}, seed {args.seed}"
    )
    suite = bench_env_suite(
        args.players,
        seconds=None if args.games is not None else args.seconds,
        games=args.games,
        seed=args.seed,
        connect_four=with_c4,
        progress=not args.no_progress,
    )
    if suite.note:
        print(suite.note)
    print(format_env_results(suite))
    for r in suite.farlight:
        ratio = suite.ratio(r)
        if r.num_players == REFERENCE_PLAYERS and ratio is not None:
            verdict = "meets" if ratio >= TARGET_RATIO else "misses"
            print(
                f"Farlight at {r.num_players} players runs at {ratio:.2f}x Connect Four's "
                f"steps/s ({verdict} the {TARGET_RATIO:g}x target)"
            )


def run(args: argparse.Namespace) -> int:
    """Run the benchmarks described by parsed arguments; print the tables."""
    print(f"machine: {machine_line()}")
    budget = f"{args.games} games" if args.games is not None else f"{args.seconds:g} s"
    if not args.env_only:
        _run_engine(args, budget)
    if not args.engine_only:
        if not args.env_only:
            print()
        _run_env(args, budget)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m farlight_env.bench",
        description="Benchmark the Farlight rules engine and the PettingZoo environment.",
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
