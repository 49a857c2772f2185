"""The judger: award values and holders, final scoring and winners, end-of-game rewards (R-END).

Static functions of a game's public state, so the engine, the env and agents score alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from farlight_env.cards.model import AWARDS
from farlight_env.game.changes import add_tokens
from farlight_env.game.config import ConfigError, EndReason, Phase
from farlight_env.game.facts import AWARD_POINTS

if TYPE_CHECKING:
    from farlight_env.game.game import FarlightGame

#: End-of-game reward modes and the range each pays in.
REWARD_MODES = ("win", "margin", "rank")


def award_value(game: FarlightGame, seat: int, award: str) -> int:
    """The quantity an award compares (R-END-1)."""
    if award == "Colonist":
        return game.biotech(seat)
    if award == "Commander":
        return game.crew[seat]
    if award == "Efficiency":
        open_, _, blocked = game.connectors(seat)
        return open_ + blocked
    if award == "Juggernaut":
        return len(game.ship_parts[seat])
    if award == "Potential":
        return game.connectors(seat)[0]
    if award == "Researcher":
        return game.science[seat]
    if award == "Rocketeer":
        return sum(v for _, v in game.engines(seat))
    raise ValueError(f"unknown award {award!r}; expected one of {AWARDS}")


def award_holders(game: FarlightGame, award: str, seats: Sequence[int] | None = None) -> list[int]:
    """Seats tied for the best value of an award; fewest wins Efficiency (R-END-1)."""
    seats = list(range(game.num_players)) if seats is None else list(seats)
    sign = -1 if award == "Efficiency" else 1
    values = {s: sign * award_value(game, s, award) for s in seats}
    best = max(values.values())
    return [s for s in seats if values[s] == best]


def final_scores(game: FarlightGame) -> tuple[list[dict[str, int]], list[int]]:
    """Each seat's (missions, awards, tokens) breakdown and the winners after tiebreaks
    (R-END-1..4); does not change the game."""
    n = game.num_players
    award_winners = {award: set(award_holders(game, award)) for award in game.awards_up}
    breakdown = []
    for p in range(n):
        awards = AWARD_POINTS * sum(p in award_winners[a] for a in game.awards_up)
        breakdown.append(
            {
                "missions": game.points[p],
                "awards": awards,
                "tokens": game.token_points(p),
            }
        )
    totals = [sum(b.values()) for b in breakdown]
    top = max(totals)
    tied = [p for p in range(n) if totals[p] == top]
    for award in game.awards_down:  # R-END-4: face-down awards break ties in order
        if len(tied) == 1:
            break
        tied = award_holders(game, award, tied)
    return breakdown, tied


def end(game: FarlightGame, reason: EndReason) -> None:
    """End the game and score it (R-END-1..4): awards and tokens join the mission points."""
    game.end_reason = reason
    game.phase = Phase.OVER
    game.current = None
    breakdown, winners = final_scores(game)
    for p, parts in enumerate(breakdown):
        add_tokens(game, p, points=parts["awards"] + parts["tokens"])
    game.final_breakdown = breakdown
    game.final_winners = winners


def tiebreak_draws(game: FarlightGame) -> tuple[list[int], list[tuple[str, list[int]]]]:
    """How a finished game's tie for the top total was broken (R-END-4): the seats tied at the
    top, then each face-down award drawn, in its hidden order, with the seats still tied
    after it. No draws when one seat leads; the draws stop once one seat remains, so the
    awards never drawn stay hidden. The last draw's seats are `game.winners()`."""
    scores = game.scores()
    top = max(scores)
    tied = [p for p in range(game.num_players) if scores[p] == top]
    draws: list[tuple[str, list[int]]] = []
    kept = tied
    for award in game.awards_down:
        if len(kept) == 1:
            break
        kept = award_holders(game, award, kept)
        draws.append((award, kept))
    return tied, draws


def final_rewards(game: FarlightGame, mode: str) -> list[float]:
    """End-of-game reward per seat.

    win: +1 sole winner, 0 for each of several sharing the victory, -1 otherwise.
    margin: own final score minus the best opponent's. rank: +1 first .. -1 last, ties averaged.
    """
    n = game.num_players
    scores = game.scores()
    if mode == "win":
        winners = game.winners()
        sole = len(winners) == 1
        return [(1.0 if sole else 0.0) if p in winners else -1.0 for p in range(n)]
    if mode == "margin":
        return [float(scores[p] - max(scores[q] for q in range(n) if q != p)) for p in range(n)]
    if mode == "rank":
        rewards = []
        for p in range(n):
            above = sum(scores[q] > scores[p] for q in range(n))
            tied = sum(scores[q] == scores[p] for q in range(n))
            mean_rank = above + (tied - 1) / 2.0  # 0 = best
            rewards.append(1.0 - 2.0 * mean_rank / (n - 1))
        return rewards
    raise ConfigError(f"reward_mode must be one of {REWARD_MODES}, got {mode!r}")
