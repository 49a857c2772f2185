"""The scorecard format: the fields of `scorecard.json` (written by `agents.evaluate`) that
readers rely on, as a msgspec schema; other fields are carried but not checked here. The web
leaderboard shows a scorecard only when it fits (farlight_web.library)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import msgspec

from agents.files import read_bounded
from farlight_env.game.facts import MAX_PLAYERS, MIN_PLAYERS
from farlight_env.untrusted.jsontext import decode

SCORECARD = "scorecard.json"

Players = Annotated[int, msgspec.Meta(ge=MIN_PLAYERS, le=MAX_PLAYERS)]
Count = Annotated[int, msgspec.Meta(ge=0)]
Share = Annotated[float, msgspec.Meta(ge=0, le=1)]


class Rating(msgspec.Struct):
    mu: float
    sigma: float


class ScoreCell(msgspec.Struct):
    """One line of a scorecard: the agent against `opponent` at `players` seats."""

    players: Players
    opponent: str
    games: Count
    wins: Annotated[float, msgspec.Meta(ge=0)]
    win_rate: Share
    ci_low: Share
    ci_high: Share
    fair_share: Share
    mean_margin: float


class ExploitCell(msgspec.Struct):
    """farlight-eval-v2's exploitability cell: a best response's win rate against the agent."""

    players: Players
    budget: Count
    init_from: Annotated[str, msgspec.Meta(max_length=500)]
    games: Count
    win_rate: Share
    ci_low: Share
    ci_high: Share
    gap: Annotated[float, msgspec.Meta(ge=-1, le=1)]
    mean_margin: float


class Scorecard(msgspec.Struct):
    """`farlight evaluate`'s scorecard.json: the fields shown and compared (others ignored)."""

    protocol: Annotated[str, msgspec.Meta(max_length=100)]
    agent: Annotated[str, msgspec.Meta(max_length=500)]
    cells: list[ScoreCell]
    rating: Rating
    quick: bool = False  # `farlight evaluate --quick`: a subset, not the full protocol
    sealed: bool = False  # the agent played from its own process, on redacted views only
    exploitability: ExploitCell | None = None  # farlight-eval-v2


def read_scorecard(path: Path, max_bytes: int) -> Scorecard:
    """A scorecard file, size-bounded and type-checked (OSError, ValueError or
    msgspec.DecodeError say why not)."""
    return decode(read_bounded(path, max_bytes), Scorecard)
