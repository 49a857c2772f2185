"""Random-play statistics: play games with uniformly random legal actions and summarise them.

Useful as a sanity check of the engine and the card set (how long games last, how they end,
what scores look like) and as the floor every agent must beat.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tqdm import tqdm

from farlight_env.measure.game_stats import policy_rng
from farlight_env.measure.tables import text_table

#: End reasons in the order tables show them (R-RESET-1, R-RESET-3, R-RESET-6).
END_REASONS: tuple[str, ...] = ("climactic", "deck", "round_cap")


#: A game that needs more actions than this is taken to be stuck (an engine bug).
MAX_ACTIONS_PER_GAME = 100_000


@dataclass(frozen=True)
class GameSummary:
    """The outcome of one finished game."""

    seed: int
    num_players: int
    rounds: int
    end_reason: str | None
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    actions: int


@dataclass(frozen=True)
class StatsReport:
    """Aggregate figures over `games` random games with `num_players` players."""

    num_players: int
    games: int
    seed: int
    rounds_mean: float
    rounds_median: float
    rounds_min: int
    rounds_max: int
    end_reasons: dict[str, int]
    score_mean: float
    score_min: int
    score_max: int
    winner_score_mean: float
    actions_mean: float
    shared_wins: int
    #: Fraction of victories per seat (a shared victory counts 1/k for each of k winners).
    seat_win_share: tuple[float, ...]
    summaries: tuple[GameSummary, ...] = field(repr=False, compare=False, default=())


def play_random_game(num_players: int, seed: int, **config: Any) -> GameSummary:
    """Play one game to the end, each action drawn uniformly among the legal ones.

    The game is created with ``seed`` and ``config`` (``max_rounds``, ``card_set``, ...); the
    policy draws from its own generator seeded from ``seed``, so the summary depends on
    (num_players, seed, config) only.
    """
    from farlight_env.game import FarlightGame  # lazy: tables and summaries work without it

    if seed < 0:
        raise ValueError(f"seed must be >= 0, got {seed}")
    game = FarlightGame(num_players=num_players, seed=seed, **config)
    rng = policy_rng(seed)
    actions = 0
    while not game.is_over:
        legal = game.legal_actions()
        if not legal:
            raise RuntimeError(
                f"engine offered no legal action in a game that is not over "
                f"(seed={seed}, players={num_players}, round={game.round}, phase={game.phase})"
            )
        game.apply(legal[int(rng.integers(len(legal)))])
        actions += 1
        if actions > MAX_ACTIONS_PER_GAME:
            raise RuntimeError(
                f"game did not end within {MAX_ACTIONS_PER_GAME} actions "
                f"(seed={seed}, players={num_players}, round={game.round}, phase={game.phase})"
            )
    reason = game.end_reason
    return GameSummary(
        seed=seed,
        num_players=num_players,
        rounds=int(game.round),
        end_reason=None if reason is None else str(getattr(reason, "value", reason)),
        scores=tuple(int(s) for s in game.scores()),
        winners=tuple(int(w) for w in game.winners()),
        actions=actions,
    )


def summarise(
    summaries: Sequence[GameSummary], *, num_players: int | None = None, seed: int = 0
) -> StatsReport:
    """Aggregate game summaries (all with the same player count) into a report."""
    if not summaries:
        raise ValueError("need at least one game summary")
    n = num_players if num_players is not None else summaries[0].num_players
    if any(s.num_players != n for s in summaries):
        raise ValueError("all summaries must have the same number of players")
    rounds = [s.rounds for s in summaries]
    scores = [x for s in summaries for x in s.scores]
    winner_scores = [s.scores[w] for s in summaries for w in s.winners]
    reasons = Counter(str(s.end_reason) for s in summaries)
    end_reasons = {r: reasons.pop(r, 0) for r in END_REASONS}
    end_reasons.update(sorted(reasons.items()))  # anything unexpected, shown as it came
    seat_wins = [0.0] * n
    for s in summaries:
        for w in s.winners:
            seat_wins[w] += 1.0 / len(s.winners)
    return StatsReport(
        num_players=n,
        games=len(summaries),
        seed=seed,
        rounds_mean=statistics.fmean(rounds),
        rounds_median=float(statistics.median(rounds)),
        rounds_min=min(rounds),
        rounds_max=max(rounds),
        end_reasons=end_reasons,
        score_mean=statistics.fmean(scores),
        score_min=min(scores),
        score_max=max(scores),
        winner_score_mean=statistics.fmean(winner_scores) if winner_scores else float("nan"),
        actions_mean=statistics.fmean(s.actions for s in summaries),
        shared_wins=sum(1 for s in summaries if len(s.winners) > 1),
        seat_win_share=tuple(w / len(summaries) for w in seat_wins),
        summaries=tuple(summaries),
    )


def random_play_stats(
    num_players: int, games: int, seed: int = 0, progress: bool = True, **config: Any
) -> StatsReport:
    """Play ``games`` random games (seeds ``seed``, ``seed + 1``, ...) and summarise them."""
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    seeds = range(seed, seed + games)
    it: Iterable[int] = tqdm(
        seeds, desc=f"{num_players} players", unit="game", disable=not progress, leave=False
    )
    summaries = [play_random_game(num_players, s, **config) for s in it]
    return summarise(summaries, num_players=num_players, seed=seed)


def format_table(reports: Sequence[StatsReport]) -> str:
    """One aligned text row per report: rounds, end reasons, scores, actions per game."""
    if not reports:
        raise ValueError("need at least one report")
    reasons: list[str] = []
    for rep in reports:
        reasons += [r for r in rep.end_reasons if r not in reasons]
    header = [
        "players",
        "games",
        "rounds mean",
        "median",
        "min",
        "max",
        *(f"end:{r}" for r in reasons),
        "score mean",
        "min",
        "max",
        "winner score",
        "shared wins",
        "actions/game",
    ]
    rows = [
        [
            str(rep.num_players),
            str(rep.games),
            f"{rep.rounds_mean:.2f}",
            f"{rep.rounds_median:g}",
            str(rep.rounds_min),
            str(rep.rounds_max),
            *(str(rep.end_reasons.get(r, 0)) for r in reasons),
            f"{rep.score_mean:.2f}",
            str(rep.score_min),
            str(rep.score_max),
            f"{rep.winner_score_mean:.2f}",
            str(rep.shared_wins),
            f"{rep.actions_mean:.1f}",
        ]
        for rep in reports
    ]
    return text_table(header, rows)
