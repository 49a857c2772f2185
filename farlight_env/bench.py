"""Engine benchmark: random legal play (``legal_actions`` + ``apply`` per action).

Run ``farlight bench --engine`` or ``python -m farlight_env.bench``. Reports actions/s and
games/s per player count, with the machine it ran on. Speed is measured here, never by a
timed unit test.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

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


def positive_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer (>= 1), got {n}")
    return n


def non_negative_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {text!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {n}")
    return n


def positive_float(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}") from None
    if not x > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number (> 0), got {text}")
    return x


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of the benchmark (shared by `farlight bench` and `python -m farlight_env.bench`)."""
    parser.add_argument(
        "--engine",
        action="store_true",
        help="benchmark the rules engine (the default; the env benchmark comes later)",
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
        help="time budget per player count, whole games only (default: 3)",
    )
    budget.add_argument(
        "--games", type=positive_int, default=None, help="play exactly this many games instead"
    )
    parser.add_argument(
        "--seed", type=non_negative_int, default=0, help="first game seed (default: 0)"
    )
    parser.add_argument("--no-progress", action="store_true", help="hide progress bars")


def run(args: argparse.Namespace) -> int:
    """Run the benchmark described by parsed arguments; print the table."""
    print(f"machine: {machine_line()}")
    budget = f"{args.games} games" if args.games is not None else f"{args.seconds:g} s"
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
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m farlight_env.bench", description="Benchmark the Farlight rules engine."
    )
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
