"""Random-play statistics of any declared game (#50), derived from the platform's State
protocol only: how long games last, what seats score, who wins. Farlight's own figures
(rounds, end reasons) are farlight_env/tools/stats.py's; this module never imports a game."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from tqdm import tqdm

from farlight_env.measure.tables import text_table
from farlight_env.platform import Game

#: Second word of the policy RNG's seed, so the policy's stream differs from the game's own
#: stream although both derive from the same user seed.
_POLICY_STREAM = 0x5EED


def policy_rng(seed: int) -> np.random.Generator:
    """The random policy's own generator, derived from the game seed."""
    return np.random.default_rng([seed, _POLICY_STREAM])


@dataclass(frozen=True)
class PlayedGame:
    """The outcome of one finished game of random legal play."""

    seed: int
    num_players: int
    actions: int
    scores: tuple[float, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True)
class GameStatsReport:
    """Aggregate figures over `games` random games at one player count."""

    num_players: int
    games: int
    seed: int
    actions_mean: float
    actions_min: int
    actions_max: int
    #: Mean final score per seat.
    seat_score_mean: tuple[float, ...]
    shared_wins: int
    #: Share of victories per seat (a shared victory counts 1/k for each of k winners).
    seat_win_share: tuple[float, ...]
    played: tuple[PlayedGame, ...] = field(repr=False, compare=False, default=())


def play_random(
    game: Game, num_players: int, seed: int, options: Mapping[str, Any] | None = None
) -> PlayedGame:
    """One game to its end, every action drawn uniformly among the legal ones from a
    generator of its own seeded from `seed`, so the outcome depends on the arguments only.
    A game longer than its declared bound is an engine bug, said as a RuntimeError."""
    state = game.start(num_players, seed, options)
    bound, rng, actions = (
        game.length_bound(num_players, game.checked_options(options)),
        policy_rng(seed),
        0,
    )
    while not state.is_over:
        legal = state.legal_actions()
        if not legal or actions >= bound:
            why = "no legal action" if not legal else f"more than {bound} actions"
            raise RuntimeError(f"{game.name}: {why} in a game not over (seed {seed})")
        state.apply_action(legal[int(rng.integers(len(legal)))])
        actions += 1
    return PlayedGame(
        seed,
        num_players,
        actions,
        tuple(float(s) for s in state.scores()),
        tuple(int(w) for w in state.winners()),
    )


def summarise_games(played: Sequence[PlayedGame], seed: int = 0) -> GameStatsReport:
    """Aggregate games of one player count into a report."""
    if not played:
        raise ValueError("need at least one game")
    n = played[0].num_players
    wins = [0.0] * n
    for one in played:
        for w in one.winners:
            wins[w] += 1.0 / len(one.winners)
    actions = [one.actions for one in played]
    return GameStatsReport(
        num_players=n,
        games=len(played),
        seed=seed,
        actions_mean=statistics.fmean(actions),
        actions_min=min(actions),
        actions_max=max(actions),
        seat_score_mean=tuple(statistics.fmean(one.scores[s] for one in played) for s in range(n)),
        shared_wins=sum(1 for one in played if len(one.winners) > 1),
        seat_win_share=tuple(w / len(played) for w in wins),
        played=tuple(played),
    )


def game_random_stats(
    game: Game,
    num_players: int,
    games: int,
    seed: int = 0,
    options: Mapping[str, Any] | None = None,
    progress: bool = True,
) -> GameStatsReport:
    """`games` random games (seeds `seed`, `seed + 1`, ...) at `num_players`, summarised."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    seeds: Iterable[int] = tqdm(
        range(seed, seed + games),
        desc=f"{num_players} players",
        unit="game",
        disable=not progress,
        leave=False,
    )
    return summarise_games([play_random(game, num_players, s, options) for s in seeds], seed)


def format_game_table(reports: Sequence[GameStatsReport]) -> str:
    """One row per player count: games, actions per game, shared wins, mean score per seat."""
    seats = max(rep.num_players for rep in reports)
    header = ["players", "games", "actions/game", "min", "max", "shared wins"]
    header += [f"score seat {i}" for i in range(seats)]
    rows = [
        [
            str(rep.num_players),
            str(rep.games),
            f"{rep.actions_mean:.1f}",
            str(rep.actions_min),
            str(rep.actions_max),
            str(rep.shared_wins),
            *(f"{rep.seat_score_mean[i]:.2f}" if i < rep.num_players else "" for i in range(seats)),
        ]
        for rep in reports
    ]
    return text_table(header, rows)
