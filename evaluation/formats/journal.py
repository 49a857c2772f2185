"""The journal format: `tournament.json` / `evaluation.json` (the options a run was started
with) and one game record per line of `games.jsonl` / `evaluation_games.jsonl`, as msgspec
schemas. Reading and writing them is `evaluation.journal`."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from farlight_env.platform import MAX_SEATS

SPEC = "tournament.json"
GAMES = "games.jsonl"
SPEC_FORMAT = "farlight-tournament-spec"
EVAL_SPEC = "evaluation.json"
EVAL_GAMES = "evaluation_games.jsonl"
#: Size bounds: a journal is read back as data, so neither file nor line may be unbounded.
MAX_GAMES_BYTES = 1 << 30
MAX_LINE_BYTES = 16 << 20

Scalar = int | float | str | bool | None


class TournamentSpec(msgspec.Struct, forbid_unknown_fields=True):
    """The options a tournament was started with; --resume plays on with exactly these."""

    format: Literal["farlight-tournament-spec"]
    version: Literal[1]
    agents: Annotated[list[Annotated[str, msgspec.Meta(min_length=1)]], msgspec.Meta(min_length=1)]
    num_players: Annotated[int, msgspec.Meta(ge=1, le=MAX_SEATS)]
    games: Annotated[int, msgspec.Meta(ge=1, le=10_000_000)]
    seed: Annotated[int, msgspec.Meta(ge=0)]
    config: dict[str, Scalar | dict[str, Any]] = {}
    agent_kwargs: dict[str, dict[str, Scalar]] = {}
    #: Every agent plays sealed (agents.farlight.sealed); absent from specs written before it
    #: existed.
    sealed: bool = False
    #: Each sealed decision's budget (agents.farlight.sealed.MoveBudget): wall and CPU seconds.
    move_seconds: Annotated[float, msgspec.Meta(gt=0, le=1e6)] | None = None
    move_cpu_seconds: Annotated[float, msgspec.Meta(gt=0, le=1e6)] | None = None
    #: The game played (the platform's registry); absent from specs written before #50.
    game: Annotated[str, msgspec.Meta(min_length=1, max_length=100)] = "farlight"


class EvaluationSpec(msgspec.Struct, forbid_unknown_fields=True):
    """What `farlight evaluate --out DIR` was started with; `--resume DIR` plays on with it."""

    format: Literal["farlight-eval-spec"]
    version: Literal[1]
    protocol: Annotated[str, msgspec.Meta(max_length=100)]
    agent: Annotated[str, msgspec.Meta(min_length=1, max_length=4096)]
    agent_file_hash: Annotated[str, msgspec.Meta(max_length=100)] | None
    quick: bool
    card_set_hash: Annotated[str, msgspec.Meta(max_length=100)] | None
    policy_kwargs: dict[str, Scalar] = {}
    config: dict[str, Scalar | dict[str, Any]] = {}
    #: The policy plays sealed (agents.farlight.sealed); absent from specs written before it
    #: existed.
    sealed: bool = False
    #: A sealed policy's budget per decision (agents.farlight.sealed.MoveBudget): wall and CPU
    #: seconds.
    move_seconds: Annotated[float, msgspec.Meta(gt=0, le=1e6)] | None = None
    move_cpu_seconds: Annotated[float, msgspec.Meta(gt=0, le=1e6)] | None = None
    #: "held-out": the cells' deals come from the run's secret (RUN_KEY), not the protocol's
    #: published seeds; absent from specs written before held-out runs existed.
    seed_mode: Literal["published", "held-out"] = "published"
    #: The game evaluated (the platform's registry); absent from specs written before #50.
    game: Annotated[str, msgspec.Meta(min_length=1, max_length=100)] = "farlight"


class Timing(msgspec.Struct):
    seconds: list[float]
    decisions: list[int]


class GameRecord(msgspec.Struct):
    """The fields of a journal line the summary is computed from, type-checked (the line is
    kept whole; its other fields are the game record's)."""

    format: Literal["farlight-record", "platform-record"]
    version: int
    index: Annotated[int, msgspec.Meta(ge=0)]
    env_seed: int
    players: list[str]
    scores: list[int | float]
    winners: list[int]
    timing: Timing
    rounds: int = 0  # Farlight's records hold it (the schema of farlight-record requires it)
