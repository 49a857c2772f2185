"""What the games say about the agents: win rates with Wilson intervals, placements, OpenSkill
ratings, and the table printed of them."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np


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
