"""Speed of any declared game (#50): its platform state under random legal play
(``legal_actions`` + ``apply_action`` per action) and the platform's generic AEC env under
random masked play (observation and mask every step, ``platform.aec.env``), measured side by
side, taking turns slice by slice as Farlight's bench does (farlight_env/tools/bench.py). Written
against the State protocol only; it never imports a game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from farlight_env.measure.timing import (
    BenchResult,
    EnvBenchResult,
    EnvRunner,
    EnvSuite,
    RandomPlayRunner,
    take_turns,
)
from farlight_env.platform import Game


def state_runner(
    game: Game, num_players: int, seed: int = 0, options: Mapping[str, Any] | None = None
) -> RandomPlayRunner:
    """Random legal play on `game`'s platform state (``legal_actions`` + ``apply_action``)."""
    seats, checked = game.check_players(num_players), game.checked_options(options)

    def start(game_seed: int) -> Any:
        return game.new_state(seats, game_seed, checked)

    return RandomPlayRunner(seats, seed, start, apply="apply_action")


def env_name(game: Game) -> str:
    """The env's name in the table: the generic env's PettingZoo name, '<game>_platform'."""
    return f"{game.name}_platform"


def env_runner(
    game: Game, num_players: int, seed: int = 0, options: Mapping[str, Any] | None = None
) -> EnvRunner:
    """The generic AEC env of `game`, wrapped as `platform.aec.env` builds it."""
    from farlight_env.platform import aec  # lazy: the CLI parses options without PettingZoo

    built = aec.env(game, num_players=num_players, **dict(options or {}))
    return EnvRunner(env_name(game), built, num_players, seed)


@dataclass(frozen=True)
class GameBench:
    """One run's figures: the state's at each player count, and the env's."""

    state: list[BenchResult]
    env: EnvSuite


def bench_game(
    game: Game,
    players: Sequence[int],
    *,
    seconds: float | None = 3.0,
    games: int | None = None,
    seed: int = 0,
    progress: bool = False,
    options: Mapping[str, Any] | None = None,
) -> GameBench:
    """The state and the env at each player count, all of them taking turns slice by slice in
    one run, so other load on the machine falls on every figure alike."""
    states = [state_runner(game, n, seed, options) for n in players]
    envs = [env_runner(game, n, seed, options) for n in players]
    take_turns([*states, *envs], seconds, games, f"bench {game.name}", progress)
    results: list[EnvBenchResult] = [r.result() for r in envs]
    return GameBench([r.result() for r in states], EnvSuite(results, None))
