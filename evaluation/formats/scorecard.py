"""The scorecard format of `scorecard.json`, as msgspec schemas: `Scorecard`, the fields the web
leaderboard shows (it lists a file only when they fit, other fields ignored:
farlight_web.farlight.library), and `ScorecardFile`, every field `evaluation.eval_v1` writes,
which it builds and checks before writing. Files from before a field existed still read (`sealed`,
`diagnostics`); farlight-eval-v2 adds `exploitability` and two budgets."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
from msgspec import UNSET, UnsetType

from farlight_env.platform import MAX_SEATS
from farlight_env.untrusted.files import read_bounded
from farlight_env.untrusted.jsontext import decode

SCORECARD = "scorecard.json"

Players = Annotated[int, msgspec.Meta(ge=1, le=MAX_SEATS)]
Count = Annotated[int, msgspec.Meta(ge=0)]
Share = Annotated[float, msgspec.Meta(ge=0, le=1)]
Text = Annotated[str, msgspec.Meta(max_length=500)]


class Rating(msgspec.Struct):
    mu: float
    sigma: float


class ScoreCell(msgspec.Struct, frozen=True):
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
    #: "held-out": deals drawn from a secret nobody held before the run (evaluation.eval_v1);
    #: only held-out sealed scorecards compare submitted agents. Older cards: published.
    seed_mode: Literal["published", "held-out"] = "published"


class ScoreCellFile(ScoreCell, kw_only=True, frozen=True):
    """A cell as `evaluation.eval_v1` writes it: with the seed its deals came from."""

    seed: int


class PolicyRating(Rating):
    """The evaluated policy's rating; `ordinal` is OpenSkill's conservative mu - 3 sigma."""

    ordinal: float


class Seeds(msgspec.Struct):
    """The protocol's base seed and each cell's seed; a held-out run has no base but the
    secret its cells were drawn from, written once its last game was played."""

    base: int | None
    cells: list[int]
    secret: Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")] | None = None


class Budgets(msgspec.Struct, kw_only=True):
    """What the agents could spend: the ismcts opponent's iterations, the policy's settings
    (`evaluation.eval_v1.policy_settings`), and v2's best-response training."""

    ismcts_opponent_iterations: Count
    policy: dict[str, Any]
    exploit_steps: Count | UnsetType = UNSET
    exploit_init_from: Text | UnsetType = UNSET
    #: A sealed policy's budget per decision, as `farlight evaluate --move-seconds` and
    #: `--move-cpu-seconds` set it; absent when unset.
    move_seconds: Annotated[float, msgspec.Meta(gt=0)] | UnsetType = UNSET
    move_cpu_seconds: Annotated[float, msgspec.Meta(gt=0)] | UnsetType = UNSET


class AuctionDiagnostics(msgspec.Struct):
    """The policy's auction counters summed over its seats, and the rates drawn from them
    (evaluation.farlight.diagnostics)."""

    seats: Count
    counters: dict[str, float]
    rates: dict[str, float | None]


class WarmStart(msgspec.Struct):
    """The best response before training: its win rate and gap on the same games."""

    budget: Count
    win_rate: Share
    gap: Annotated[float, msgspec.Meta(ge=-1, le=1)]


class ExploitCellFile(ExploitCell, kw_only=True):
    """The exploitability cell as `evaluation.eval_v2` writes it."""

    seed: int
    eval_seed: int
    sealed: bool
    wins: Annotated[float, msgspec.Meta(ge=0)]
    fair_share: Share
    gap_ci_low: float
    gap_ci_high: float
    learner_steps: Count
    best_response_hash: Text
    warm_start: WarmStart
    run: Text


class ScorecardFile(Scorecard, kw_only=True, forbid_unknown_fields=True):
    """Every field of a scorecard.json that `evaluation.eval_v1` (and `evaluation.eval_v2`) writes;
    docs/evaluation.md says what each means."""

    cells: list[ScoreCellFile]
    rating: PolicyRating
    exploitability: ExploitCellFile | UnsetType = UNSET  # farlight-eval-v2
    standard_game: bool
    agent_file_hash: Text | None
    package_version: Text
    card_set_hash: Text | None  # None: a game without a card set (not Farlight)
    rule_options: dict[str, Any]
    game: dict[str, Any]
    seeds: Seeds
    budgets: Budgets
    counting: Text
    reference_ratings: dict[str, Rating]
    diagnostics: AuctionDiagnostics | UnsetType = UNSET  # absent from cards written before it
    games: Count
    decisions: Count
    seconds_per_decision: Annotated[float, msgspec.Meta(ge=0)]
    wall_seconds: Annotated[float, msgspec.Meta(ge=0)]
    #: Sealed play: the policy's decisions forfeited for going over the move budget.
    forfeits: Count | UnsetType = UNSET
    #: The game evaluated, when not Farlight (a game of the platform's registry, #50).
    game_name: Text | UnsetType = UNSET


def check_scorecard(card: dict[str, Any]) -> None:
    """Raise ValueError, naming the first bad or unknown field, unless `card` is a scorecard
    `ScorecardFile` describes: what is written is always one."""
    try:
        msgspec.convert(card, ScorecardFile, strict=True)
    except msgspec.ValidationError as exc:
        raise ValueError(f"not a scorecard: {exc}") from None


def read_scorecard(path: Path, max_bytes: int) -> Scorecard:
    """A scorecard file, size-bounded and type-checked (OSError, ValueError or
    msgspec.DecodeError say why not)."""
    return decode(read_bounded(path, max_bytes), Scorecard)
