"""Timing that stays fair on a shared machine: whole games timed in slices the measurements take
in turn, thread CPU time beside wall time, PettingZoo's Connect Four as the yardstick, and the
tables that report them."""

from __future__ import annotations

import contextlib
import importlib
import io
import math
import os
import platform
import random
import statistics
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from tqdm import tqdm

from farlight_env.measure.tables import text_table


class Runner(Protocol):
    """What takes turns on the machine: anything that plays a budget of whole games."""

    def play(self, *, seconds: float | None = None, games: int | None = None) -> None: ...


@dataclass(frozen=True)
class BenchResult:
    """Totals of one benchmark run for one player count."""

    num_players: int
    games: int
    actions: int
    seconds: float
    cpu_seconds: float = 0.0  # this thread's CPU time: what other load on the machine can't take

    @property
    def actions_per_s(self) -> float:
        return self.actions / self.seconds if self.seconds > 0 else float("inf")

    @property
    def actions_per_cpu_s(self) -> float:
        return self.actions / self.cpu_seconds if self.cpu_seconds > 0 else float("inf")

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


def slices_note(games: int | None) -> str:
    """', in 0.5 s slices taken in turn' under a time budget (no game count); nothing for a
    game count: how the measurements of one run share the machine."""
    return "" if games is not None else f", in {SLICE_SECONDS:g} s slices taken in turn"


def machine_line() -> str:
    """One line naming the machine: platform, CPU, cores, Python."""
    cores = os.cpu_count() or 0
    py = f"{platform.python_implementation()} {platform.python_version()}"
    return f"{platform.platform()} | {cpu_model()} | {cores} cores | {py}"


def timed_games(
    play_one: Callable[[], None], *, seconds: float | None = None, games: int | None = None
) -> tuple[float, float]:
    """Call ``play_one`` ``games`` times, or until ``seconds`` have passed (at least once; the
    clock is read between games); returns (wall seconds, thread CPU seconds)."""
    if games is None and seconds is None:
        raise ValueError("give a number of games or a time budget in seconds")
    start, cpu = time.perf_counter(), time.thread_time()
    deadline = None if games is not None else start + float(seconds or 0.0)
    played = 0
    while games is None or played < games:
        if deadline is not None and played > 0 and time.perf_counter() >= deadline:
            break
        play_one()
        played += 1
    return time.perf_counter() - start, time.thread_time() - cpu


def format_results(results: Sequence[BenchResult]) -> str:
    """An aligned text table of benchmark results."""
    header = ["players", "games", "actions", "seconds", "CPU s", "actions/s", "actions/CPU-s"]
    header += ["games/s", "actions/game"]
    rows = [
        [
            str(r.num_players),
            str(r.games),
            str(r.actions),
            f"{r.seconds:.2f}",
            f"{r.cpu_seconds:.2f}",
            f"{r.actions_per_s:,.0f}",
            f"{r.actions_per_cpu_s:,.0f}",
            f"{r.games_per_s:,.1f}",
            f"{r.actions / r.games:.1f}" if r.games else "-",
        ]
        for r in results
    ]
    return text_table(header, rows)


CONNECT_FOUR = "connect_four_v3"


#: Length of one measurement slice; the env measurements take turns slice by slice.
SLICE_SECONDS = 0.5


#: With a game budget, each measurement is split into this many turns (fewer for few games).
GAME_TURNS = 5


class RandomPlayRunner:
    """Uniform random legal play on the games `start(seed)` makes, kept in totals so a run can
    be taken in slices: a game's engine or platform state, whichever `apply` names its move."""

    def __init__(
        self, num_players: int, seed: int, start: Callable[[int], Any], apply: str = "apply"
    ) -> None:
        self.num_players, self.seed, self.start, self.apply = num_players, seed, start, apply
        self.rng = random.Random(seed)  # cheaper per draw than numpy: the game is measured
        self.games = self.actions = 0
        self.seconds = self.cpu_seconds = 0.0

    def play(self, *, seconds: float | None = None, games: int | None = None) -> None:
        """``games`` more games, or whole games until ``seconds`` have passed (at least one)."""
        rng = self.rng

        def one_game() -> None:
            game = self.start(self.seed + self.games)
            step = getattr(game, self.apply)  # bound once a game: no cost per action
            while not game.is_over:
                legal = game.legal_actions()
                step(legal[rng.randrange(len(legal))])
                self.actions += 1
            self.games += 1

        wall, cpu = timed_games(one_game, seconds=seconds, games=games)
        self.seconds += wall
        self.cpu_seconds += cpu

    def result(self) -> BenchResult:
        return BenchResult(
            self.num_players, self.games, self.actions, self.seconds, self.cpu_seconds
        )


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
    cpu_seconds: float = 0.0  # this thread's CPU time
    #: Steps per wall second of each turn the run was taken in (one per `EnvRunner.play`).
    turn_rates: tuple[float, ...] = ()

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.seconds if self.seconds > 0 else float("inf")

    @property
    def steps_per_cpu_s(self) -> float:
        return self.steps / self.cpu_seconds if self.cpu_seconds > 0 else float("inf")

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
        self.seconds = self.cpu_seconds = 0.0
        self.turn_rates: list[float] = []

    def play(self, *, seconds: float | None = None, games: int | None = None) -> None:
        """Play ``games`` more games, or else whole games until ``seconds`` have passed.

        At least one game either way; the clock is checked between games and resets are timed.
        """
        steps_before = self.steps

        def one_game() -> None:
            self.steps += play_env_game(self.env, self.seed + self.games)
            self.games += 1

        wall, cpu = timed_games(one_game, seconds=seconds, games=games)
        self.seconds += wall
        self.cpu_seconds += cpu
        self.turn_rates.append((self.steps - steps_before) / wall if wall > 0 else float("inf"))

    def result(self) -> EnvBenchResult:
        return EnvBenchResult(
            self.name,
            self.num_players,
            self.games,
            self.steps,
            self.seconds,
            self.cpu_seconds,
            tuple(self.turn_rates),
        )


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

    def turn_ratios(self, result: EnvBenchResult) -> list[float]:
        """``result``'s steps/s over Connect Four's turn by turn (the two took each turn back
        to back, so each ratio saw the same load): the spread one run's total hides."""
        if self.connect_four is None:
            return []
        pairs = zip(result.turn_rates, self.connect_four.turn_rates, strict=False)
        return [mine / theirs for mine, theirs in pairs if theirs > 0]


def target_verdict(ratio: float, turn_ratios: Sequence[float], target: float) -> str:
    """How a run's ratio stands against `target`, with its turns' spread: "meets" or
    "misses" only when every turn agrees, else how many turns reached it."""
    if not turn_ratios:
        return f"{'meets' if ratio >= target else 'misses'} the {target:g}x target"
    low, high = min(turn_ratios), max(turn_ratios)
    spread = f"per turn {low:.2f}x-{high:.2f}x, median {statistics.median(turn_ratios):.2f}x"
    reached = sum(r >= target for r in turn_ratios)
    if reached == len(turn_ratios):
        return f"{spread}; meets the {target:g}x target in every turn"
    if reached == 0:
        return f"{spread}; misses the {target:g}x target in every turn"
    return f"{spread}; reaches the {target:g}x target in {reached} of {len(turn_ratios)} turns"


def _turn_budgets(seconds: float | None, games: int | None) -> list[dict[str, Any]]:
    """How one measurement is split into turns: equal time slices, or game chunks."""
    if games is not None:
        turns = max(1, min(games, GAME_TURNS))
        return [{"games": games // turns + (i < games % turns)} for i in range(turns)]
    total = float(seconds if seconds is not None else 3.0)
    turns = max(1, math.ceil(total / SLICE_SECONDS - 1e-9))
    return [{"seconds": total / turns}] * turns


def take_turns(
    runners: Sequence[Runner],
    seconds: float | None,
    games: int | None,
    desc: str,
    progress: bool,
) -> None:
    """Play every runner's budget slice by slice, the runners taking turns, so load from other
    jobs falls on all of them alike."""
    budgets = _turn_budgets(seconds, games)
    total = len(budgets) * len(runners)
    bar = tqdm(total=total, desc=desc, unit="slice", disable=not progress, leave=False)
    for budget in budgets:
        for runner in runners:
            runner.play(**budget)
            bar.update(1)
    bar.close()


def format_env_results(suite: EnvSuite) -> str:
    """An aligned text table of an env suite; the ratio column only with Connect Four."""
    header = ["env", "players", "games", "steps", "seconds", "steps/s", "steps/CPU-s"]
    header += ["games/s", "steps/game"]
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
            f"{r.steps_per_cpu_s:,.0f}",
            f"{r.games_per_s:,.1f}",
            f"{r.steps_per_game:.1f}" if r.games else "-",
        ]
        if with_ratio:
            ratio = suite.ratio(r)
            row.append(f"{ratio:.2f}x" if ratio is not None else "-")
        rows.append(row)
    return text_table(header, rows)
