"""`farlight-eval-v1`: a fixed benchmark of one policy seat against fixed opponent pools.

The protocol's cells come from the game's declaration (`Game.benchmark`): Farlight's is
farlight-eval-v1, below; another registered game evaluates on its own (`evaluate(agent,
game="duel")`), with the same schedule, counting and scorecard.

The policy plays one seat against N-1 copies of `random`, of `heuristic` and of `ismcts` (at
a fixed number of iterations per decision, so the protocol does not depend on the machine) at
2, 3, 4 and 5 players, on fixed seeds, in duplicate blocks: each deal is played N times with
the policy moved one seat on each time. Games are played by the tournament's `play_game` (the
one game loop, evaluation.arena), so every number can be rerun and compared. See docs/evaluation.md.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from agents.base import Agent
from evaluation.farlight.scorecard import auction_diagnostics, card_set_hash, farlight_options
from evaluation.formats.scorecard import (
    SCORECARD,
    Budgets,
    PolicyRating,
    Rating,
    ScorecardFile,
    ScoreCellFile,
    Seeds,
    check_scorecard,
)
from farlight_env.platform import DEFAULT_GAME, Benchmark, Game, get_game
from farlight_env.seeding import SECURE_SEED_BITS
from farlight_env.untrusted.files import atomic_write

if TYPE_CHECKING:  # the tournament machinery is imported when a protocol runs: `import agents`
    from agents.farlight.sealed import MoveBudget  # stays light
    from evaluation.tournament import GameSpec

#: Farlight's protocol, as its declaration states it (farlight_env/declaration.py).
FARLIGHT_BENCHMARK: Benchmark = get_game(DEFAULT_GAME).benchmark
PROTOCOL = FARLIGHT_BENCHMARK.protocol
#: v1's cells with the policy sealed, plus an exploitability cell (evaluation/eval_v2.py, which
#: needs the train extra); its cells are played here.
PROTOCOL_V2 = "farlight-eval-v2"
PROTOCOLS = (PROTOCOL, PROTOCOL_V2)
#: Cell seeds are BASE_SEED + 10 * players + the opponent's position in OPPONENTS.
BASE_SEED = FARLIGHT_BENCHMARK.base_seed
OPPONENTS: tuple[str, ...] = FARLIGHT_BENCHMARK.opponents
PLAYER_COUNTS: tuple[int, ...] = FARLIGHT_BENCHMARK.player_counts
#: Search iterations per decision of every ismcts opponent (machine-independent).
ISMCTS_ITERATIONS: int = FARLIGHT_BENCHMARK.opponent_kwargs["ismcts"]["iterations"]
#: Games per cell of the full protocol, by opponent (rounded up to whole duplicate blocks).
FULL_GAMES: dict[str, int] = dict(FARLIGHT_BENCHMARK.games)
#: --quick: one duplicate block (N games) per cell, at these player counts only.
QUICK_PLAYER_COUNTS: tuple[int, ...] = FARLIGHT_BENCHMARK.quick_player_counts
#: Registered agents that play a saved policy file (`path=`, by default the shipped one).
POLICY_AGENTS: tuple[str, ...] = ("ppo", "rollout", "bidder")
#: The label of the evaluated policy's seat in game records and ratings.
POLICY_LABEL = "policy"
#: A held-out run's secret as the scorecard writes it.
HEX_SECRET = re.compile("[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class Cell:
    """One (player count, opponent) cell of the protocol and its fixed seed."""

    players: int
    opponent: str
    games: int
    seed: int


def cells(
    quick: bool = False, secret: str | None = None, benchmark: Benchmark = FARLIGHT_BENCHMARK
) -> list[Cell]:
    """The protocol's cells in their fixed order (the order games are rated in); with a
    held-out run's `secret`, each cell's seed is drawn from it instead of published."""
    counts = benchmark.quick_player_counts if quick else benchmark.player_counts
    out = []
    for n in counts:
        for k, opponent in enumerate(benchmark.opponents):
            games = n if quick else n * math.ceil(benchmark.games[opponent] / n)
            if secret is None:
                seed = benchmark.base_seed + 10 * n + k
            else:
                seed = held_out_seed(secret, n, k, benchmark.protocol)
            out.append(Cell(n, opponent, games, seed))
    return out


def benchmark_of(game: str) -> tuple[Game, Benchmark]:
    """A registered game and its evaluation protocol (ValueError if it declares none)."""
    declared = get_game(game)  # GameError (a ValueError) names the known games
    if declared.benchmark is None:
        raise ValueError(f"{declared.name} declares no evaluation protocol (Game.benchmark)")
    return declared, declared.benchmark


def protocols_of(game: str) -> tuple[str, ...]:
    """The protocols a game is evaluated under: its own, and for Farlight also v2."""
    own = benchmark_of(game)[1].protocol
    return PROTOCOLS if own == PROTOCOL else (own,)


def held_out_seed(secret: str, players: int, opponent: int, protocol: str = PROTOCOL) -> int:
    """A held-out cell's seed, drawn from the secret (`_secret_seed`)."""
    return _secret_seed(f"cell {players} {opponent}", secret, protocol)


def held_out_exploit_seed(secret: str, players: int) -> int:
    """The seed of a held-out v2 run's exploitability evaluation set, drawn like a cell's: the
    policy cannot have met those deals either."""
    return _secret_seed(f"exploitability {players}", secret)


def held_out_training_key(secret: str, players: int) -> int:
    """The deal key of a held-out v2 run's best-response training (PPOConfig.deal_key): its
    training games cannot be told from the policy's other games either."""
    return _secret_seed(f"exploitability training {players}", secret)


def _secret_seed(label: str, secret: str, protocol: str = PROTOCOL) -> int:
    """128 bits of SHA-256(protocol, label, secret), wide (bit 128 set), so the blocks, deals
    and agents under it draw wide seeds too (farlight_env.seeding)."""
    digest = hashlib.sha256(f"{protocol} {label} {secret}".encode()).digest()
    return (1 << SECURE_SEED_BITS) | int.from_bytes(digest[:16], "big")


def cell_specs(
    cell: Cell,
    policy: str | Agent,
    first_index: int,
    config: dict[str, Any],
    policy_kwargs: dict[str, Any],
    opponent_kwargs: dict[str, dict[str, Any]],
    sealed: bool = False,
    move_budget: MoveBudget | None = None,
    game: str = DEFAULT_GAME,
) -> list[GameSpec]:
    """The cell's games: the tournament schedule of [policy, opponent x (N-1)], so over each
    block of N rotations the policy sits once in every seat and every game shares the deal.
    With `sealed`, the policy plays sealed (agents.farlight.sealed), each decision within
    `move_budget`;
    the shipped opponents do not."""
    from evaluation.tournament import schedule

    lineup = [POLICY_LABEL] + [cell.opponent] * (cell.players - 1)
    kwargs = {POLICY_LABEL: policy_kwargs, **opponent_kwargs}
    specs = schedule(lineup, cell.players, cell.games, cell.seed, config, kwargs, game=game)
    seal = (POLICY_LABEL,) if sealed else ()
    return [
        replace(
            s,
            index=first_index + s.index,
            aliases={POLICY_LABEL: policy},
            sealed=seal,
            move_budget=move_budget if sealed else None,
        )
        for s in specs
    ]


def policy_seat(record: dict[str, Any]) -> int:
    return record["players"].index(POLICY_LABEL)


def margin(record: dict[str, Any]) -> int:
    """The policy's final score minus the best opponent's final score (negative: behind)."""
    seat = policy_seat(record)
    scores = record["scores"]
    return scores[seat] - max(s for i, s in enumerate(scores) if i != seat)


def cell_result(cell: Cell, records: Sequence[dict[str, Any]]) -> ScoreCellFile:
    """Wins count as the tournament counts them: a shared victory of k seats is 1/k a win."""
    from evaluation.tournament import wilson_interval

    wins = 0.0
    for record in records:
        winners = record["winners"]
        if policy_seat(record) in winners:
            wins += 1.0 / len(winners)
    n = len(records)
    low, high = wilson_interval(wins, n)
    return ScoreCellFile(
        players=cell.players,
        opponent=cell.opponent,
        games=n,
        wins=round(wins, 4),
        win_rate=wins / n if n else 0.0,
        ci_low=low,
        ci_high=high,
        fair_share=1.0 / cell.players,
        mean_margin=sum(margin(r) for r in records) / n if n else 0.0,
        seed=cell.seed,
    )


# --------------------------------------------------------------------------- provenance
def _file_hash(name: str, policy_kwargs: dict[str, Any] | None = None) -> str | None:
    """sha256 of the policy file an agent name plays: a saved policy's, or for `ppo`, `rollout`
    and `bidder` the one its `path` keyword names, by default the shipped one (it changes
    between releases while the name stays)."""
    if name in POLICY_AGENTS:
        from agents.farlight.policy import BIDDER_POLICY, SHIPPED_POLICY

        shipped = BIDDER_POLICY if name == "bidder" else SHIPPED_POLICY
        name = str((policy_kwargs or {}).get("path", shipped))
    if name.endswith(".pt") and Path(name).is_file():
        return "sha256:" + hashlib.sha256(Path(name).read_bytes()).hexdigest()
    return None


# --------------------------------------------------------------------------- running
def policy_settings(agent: str | Agent, policy_kwargs: dict[str, Any]) -> dict[str, Any]:
    """The search settings the policy played at, defaults included for `rollout`, so two
    scorecards of one name with different searches can be told apart."""
    settings = {k: v for k, v in policy_kwargs.items() if k in ("iterations", "seconds")}
    if agent == "rollout":
        import inspect

        from agents.farlight.rollout import RolloutAgent

        parameters = inspect.signature(RolloutAgent).parameters.values()
        # where it runs (device) does not change what it plays: not a search setting
        unplayed = ("path", "seed", "device")
        defaults = {p.name: p.default for p in parameters if p.name not in unplayed}
        settings = {**defaults, **{k: v for k, v in policy_kwargs.items() if k in defaults}}
    return settings


def evaluate(
    agent: str | Agent,
    quick: bool = False,
    workers: int = 1,
    progress: bool = False,
    policy_kwargs: dict[str, Any] | None = None,
    config: dict[str, Any] | None = None,
    card_file: Path | None = None,
    out_dir: Path | None = None,
    sealed: bool = False,
    protocol: str | None = None,
    held_out: bool = False,
    held_out_secret: str | None = None,
    move_budget: MoveBudget | None = None,
    game: str = DEFAULT_GAME,
) -> dict[str, Any]:
    """Run the protocol for `agent` (an agents.make name, a saved policy path, or an Agent
    object, copied fresh for every game; with workers > 1 it must pickle) and return its
    scorecard (a JSON-able dict; see docs/evaluation.md for every field).

    With `sealed` (an agent by name or path only) the policy plays from its own process and
    sees only its observation, mask and a view of its seat's redacted game (agents.farlight.sealed);
    the scorecard says `"sealed": true`. `protocol` farlight-eval-v2 plays v1's cells
    sealed (its exploitability cell is added by evaluation.eval_v2). A sealed policy's decision
    over `move_budget` is forfeited (agents.farlight.sealed.MoveBudget); the scorecard counts them.

    `config` changes the game (rule options, grid, round cap, card set; `card_file` names the
    card file for the hash): the scorecard records it and is then marked non-standard. With
    `out_dir`, every game is journalled there as it ends, so `resume_evaluation` finishes a
    killed run with the same scorecard.

    `game` names a registered game (farlight_env.platform): its declared protocol
    (`Game.benchmark`) is played, `protocol` defaulting to it; `config` is then the game's
    options, checked by its declaration.

    With `held_out`, the cells' deals come from a secret drawn now (256 bits from `secrets`),
    kept in memory or in `out_dir`'s run key, and written to the scorecard only after the last
    game: nobody can precompute them, and `held_out_secret` replays the run afterwards.
    """
    from agents.registry import agent_names_help, unknown_agents
    from evaluation.formats.journal import EVAL_GAMES, EVAL_SPEC, EvaluationSpec
    from evaluation.journal import Journal, stored_config
    from evaluation.run_key import new_secret

    if isinstance(agent, str) and unknown_agents([agent]):
        raise ValueError(f"unknown agent {agent!r}: expected one of {agent_names_help()}")
    declared, benchmark = benchmark_of(game)
    protocol = benchmark.protocol if protocol is None else protocol
    if protocol not in protocols_of(game):
        expected = protocols_of(game)
        raise ValueError(f"unknown protocol {protocol!r} for {game}: expected one of {expected}")
    sealed = sealed or protocol == PROTOCOL_V2
    if sealed and not isinstance(agent, str):
        raise ValueError("a sealed evaluation needs the agent by name or path")
    if sealed and declared.sealed_content is None:
        raise ValueError(f"{game} cannot be played sealed")
    if move_budget is not None and not sealed:
        raise ValueError("a move budget needs a sealed evaluation")
    config = dict(config or {})
    if game != DEFAULT_GAME:
        declared.checked_options(config)  # GameError (a ValueError) naming a wrong option
    policy_kwargs = dict(policy_kwargs or {})
    if agent == "ismcts":
        policy_kwargs.setdefault("iterations", ISMCTS_ITERATIONS)
    card_hash = card_set_hash(card_file) if game == DEFAULT_GAME else None
    secret = held_out_secret
    if secret is not None and not HEX_SECRET.fullmatch(secret):
        raise ValueError("a held-out secret is 64 hexadecimal digits, as the scorecard shows it")
    if held_out and secret is None:
        secret = new_secret()
    journal = None
    if out_dir is not None:
        if not isinstance(agent, str):
            raise ValueError("out_dir (a resumable journal) needs the agent by name or path")
        spec = EvaluationSpec(
            "farlight-eval-spec",
            1,
            protocol,
            agent,
            _file_hash(agent, policy_kwargs),
            quick,
            card_hash,
            policy_kwargs,
            stored_config(config),
            sealed,
            *_stored_budget(move_budget),
            "held-out" if secret is not None else "published",
            game,
        )
        journal = Journal.create(out_dir, spec, EVAL_SPEC, EVAL_GAMES, "an evaluation", secret)
    return _scorecard(
        agent,
        quick,
        workers,
        progress,
        policy_kwargs,
        config,
        card_hash,
        journal,
        [],
        sealed,
        protocol,
        secret,
        move_budget,
        game,
    )


def resume_evaluation(out_dir: Path, workers: int = 1, progress: bool = False) -> dict[str, Any]:
    """Finish the evaluation journalled in `out_dir`: only its missing games are played, and
    the scorecard is the one an uninterrupted run gives (timing fields aside)."""
    from evaluation.formats.journal import EVAL_GAMES
    from evaluation.journal import Journal, JournalError, game_options, read_eval_spec, read_games
    from evaluation.run_key import RunKeyError, read_run_key

    spec = read_eval_spec(out_dir)
    try:
        protocols = protocols_of(spec.game)
    except ValueError as exc:
        raise JournalError(f"{out_dir}: {exc}") from None
    if spec.protocol not in protocols:
        raise JournalError(f"{out_dir}: an evaluation of protocol {spec.protocol}, not {protocols}")
    if _file_hash(spec.agent, dict(spec.policy_kwargs)) != spec.agent_file_hash:
        raise JournalError(f"{out_dir}: {spec.agent} changed since the evaluation began")
    config = game_options(spec)
    secret = None
    if spec.seed_mode == "held-out":
        try:
            key = read_run_key(out_dir)
        except RunKeyError as exc:
            raise JournalError(str(exc)) from None
        if key is None or key.held_out_secret is None:
            raise JournalError(f"{out_dir}: a held-out evaluation whose secret is missing")
        secret = key.held_out_secret
    kwargs = dict(spec.policy_kwargs)
    budget = _budget_of(spec)
    plan = _specs(spec.agent, spec.quick, config, kwargs, spec.sealed, secret, budget, spec.game)
    expected = {s.index: (s.seed, s.lineup) for s in plan}
    finished = read_games(out_dir, expected, EVAL_GAMES)
    return _scorecard(
        spec.agent,
        spec.quick,
        workers,
        progress,
        dict(spec.policy_kwargs),
        config,
        spec.card_set_hash,
        Journal(out_dir, EVAL_GAMES),
        finished,
        spec.sealed,
        spec.protocol,
        secret,
        budget,
        spec.game,
    )


def _specs(
    agent: str | Agent,
    quick: bool,
    config: dict[str, Any],
    policy_kwargs: dict[str, Any],
    sealed: bool = False,
    secret: str | None = None,
    move_budget: MoveBudget | None = None,
    game: str = DEFAULT_GAME,
) -> list[GameSpec]:
    benchmark = benchmark_of(game)[1]
    opponent_kwargs = {name: dict(kw) for name, kw in benchmark.opponent_kwargs.items()}
    specs: list[GameSpec] = []
    for cell in cells(quick, secret, benchmark):
        specs += cell_specs(
            cell,
            agent,
            len(specs),
            config,
            policy_kwargs,
            opponent_kwargs,
            sealed,
            move_budget,
            game,
        )
    return specs


def _stored_budget(budget: MoveBudget | None) -> tuple[float | None, float | None]:
    """The move budget as the evaluation spec stores it: (move_seconds, move_cpu_seconds)."""
    return (None, None) if budget is None else (budget.seconds, budget.cpu_seconds)


def _budget_of(spec: Any) -> MoveBudget | None:
    """The move budget an evaluation spec stored (None if it had none)."""
    from agents.farlight.sealed import MoveBudget

    return MoveBudget.given(spec.move_seconds, spec.move_cpu_seconds)


def _scorecard(
    agent: str | Agent,
    quick: bool,
    workers: int,
    progress: bool,
    policy_kwargs: dict[str, Any],
    config: dict[str, Any],
    card_hash: str | None,
    journal: Any,
    finished: list[dict[str, Any]],
    sealed: bool = False,
    protocol: str = PROTOCOL,
    secret: str | None = None,
    move_budget: MoveBudget | None = None,
    game: str = DEFAULT_GAME,
) -> dict[str, Any]:
    """Play the protocol's games not yet `finished` and sum everything up as the scorecard
    (a held-out run's `secret` enters it only here, after the last game)."""
    from evaluation.tournament import play_games, rate
    from farlight_env import __version__

    declared, benchmark = benchmark_of(game)
    plan = cells(quick, secret, benchmark)
    specs = _specs(agent, quick, config, policy_kwargs, sealed, secret, move_budget, game)
    if sealed:  # the games and their journal stay out of the sealed children's reach
        from agents.farlight.sealed import guard_process, protect_folder

        guard_process()
        if journal is not None:
            protect_folder(journal.out_dir)
    started = time.perf_counter()
    records = play_games(specs, workers, progress, journal, finished)
    wall = time.perf_counter() - started
    results, first = [], 0
    for cell in plan:
        results.append(cell_result(cell, records[first : first + cell.games]))
        first += cell.games
    ratings = rate(records, [POLICY_LABEL, *benchmark.opponents])
    cpu = decisions = forfeits = 0
    for record in records:
        seat = policy_seat(record)
        cpu += record["timing"]["cpu_seconds"][seat]
        decisions += record["timing"]["decisions"][seat]
        forfeits += record.get("forfeits", [0] * len(record["players"]))[seat]
    if game == DEFAULT_GAME:
        rule_options, options, standard = farlight_options(config, card_hash)
        diagnostics = auction_diagnostics(records, POLICY_LABEL)
    else:  # another game's options are its declaration's, checked; no auction to count
        options = declared.checked_options(config)
        rule_options, standard = {}, options == declared.checked_options()
        diagnostics = {}
    policy = ratings[POLICY_LABEL]
    card = ScorecardFile(
        protocol=protocol,
        quick=quick,
        standard_game=standard,
        sealed=sealed,
        agent=agent if isinstance(agent, str) else getattr(agent, "name", type(agent).__name__),
        agent_file_hash=_file_hash(agent, policy_kwargs) if isinstance(agent, str) else None,
        package_version=__version__,
        card_set_hash=card_hash,
        rule_options=rule_options,
        game=options,
        seed_mode="held-out" if secret is not None else "published",
        seeds=Seeds(
            base=benchmark.base_seed if secret is None else None,
            cells=[c.seed for c in plan],
            secret=secret,
        ),
        budgets=Budgets(
            ismcts_opponent_iterations=_ismcts_iterations(benchmark),
            policy=policy_settings(agent, policy_kwargs),
            **_budget_fields(move_budget),
        ),
        counting="ties: a victory shared by k seats counts 1/k of a win; margin: policy "
        "score minus best opponent score",
        cells=results,
        rating=PolicyRating(mu=policy.mu, sigma=policy.sigma, ordinal=policy.ordinal()),
        reference_ratings={
            name: Rating(mu=ratings[name].mu, sigma=ratings[name].sigma)
            for name in benchmark.opponents
        },
        **diagnostics,
        games=len(records),
        decisions=decisions,
        seconds_per_decision=cpu / decisions if decisions else 0.0,
        wall_seconds=round(wall, 3),
        **({"forfeits": forfeits} if sealed else {}),
        **({"game_name": game} if game != DEFAULT_GAME else {}),
    )
    return msgspec.to_builtins(card)


def _ismcts_iterations(benchmark: Benchmark) -> int:
    """The ismcts opponents' fixed iterations per decision (0: the protocol has none)."""
    return int(benchmark.opponent_kwargs.get("ismcts", {}).get("iterations", 0))


def _budget_fields(budget: MoveBudget | None) -> dict[str, float]:
    """The scorecard's budgets.move_seconds and move_cpu_seconds, where set."""
    if budget is None:
        return {}
    fields = {"move_seconds": budget.seconds, "move_cpu_seconds": budget.cpu_seconds}
    return {name: value for name, value in fields.items() if value is not None}


#: Fields that measure the machine, not the policy: they differ between identical runs.
TIMING_FIELDS = ("seconds_per_decision", "wall_seconds")


# --------------------------------------------------------------------------- output
def format_scorecard(card: dict[str, Any]) -> str:
    """The printed table: one row per cell, then the rating and time per decision."""
    kind = "QUICK subset (not the full protocol)" if card["quick"] else "full protocol"
    lines = [f"{card['protocol']} scorecard of {card['agent']}: {kind}"]
    if not card["standard_game"]:
        lines.append("NON-STANDARD game options: not comparable with standard scorecards")
    if card.get("sealed"):  # absent from scorecards written before sealed play existed
        lines.append("sealed: the policy played from its own process, on redacted views only")
        if card.get("forfeits"):
            lines.append(f"forfeited: {card['forfeits']} policy decisions over the move budget")
    if card.get("seed_mode") == "held-out":  # absent from scorecards written before it
        lines.append(
            "held-out deals: drawn from a secret nobody held before the run; replay with "
            f"--held-out-secret {card['seeds']['secret']}"
        )
    header = (
        f"{'players':>7} {'opponent':<10} {'games':>5} {'wins':>6} {'win rate':>8} "
        f"{'95% CI':>15} {'fair':>5} {'margin':>7}"
    )
    lines += [header, "-" * len(header)]
    for c in card["cells"]:
        interval = f"[{c['ci_low']:.1%}, {c['ci_high']:.1%}]"
        lines.append(
            f"{c['players']:>7} {c['opponent']:<10} {c['games']:>5} {c['wins']:>6.1f} "
            f"{c['win_rate']:>8.1%} {interval:>15} "
            f"{c['fair_share']:>5.0%} {c['mean_margin']:>+7.2f}"
        )
    r = card["rating"]
    lines.append(
        f"rating (OpenSkill vs {', '.join(card['reference_ratings'])}): "
        f"mu {r['mu']:.2f} sigma {r['sigma']:.2f}; CPU s/decision "
        f"{card['seconds_per_decision']:.4f}; {card['games']} games in {card['wall_seconds']:.0f} s"
    )
    if "diagnostics" in card:  # scorecards written before the diagnostics have none
        from evaluation.farlight.diagnostics import diagnostics_line

        lines.append(diagnostics_line(card["diagnostics"]))
    if "exploitability" in card:  # farlight-eval-v2
        lines.append(exploitability_line(card["exploitability"]))
    return "\n".join(lines)


def exploitability_line(cell: dict[str, Any]) -> str:
    """farlight-eval-v2's exploitability cell in one line."""
    return (
        f"exploitability ({cell['players']} players, best response trained "
        f"{cell['budget']:,} steps from {cell['init_from']}): wins {cell['win_rate']:.1%} "
        f"[{cell['ci_low']:.1%}, {cell['ci_high']:.1%}] of {cell['games']} games; "
        f"exploitation gap {cell['gap']:+.1%} [{cell['gap_ci_low']:+.1%}, "
        f"{cell['gap_ci_high']:+.1%}], margin {cell['mean_margin']:+.2f} (a lower bound)"
    )


def plot_scorecard(card: dict[str, Any], path: Path) -> None:
    """Win rate with its 95% interval per player count and opponent; fair share marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    counts = sorted({c["players"] for c in card["cells"]})
    opponents = list(dict.fromkeys(c["opponent"] for c in card["cells"]))
    palette = {"random": "#8C8C8C", "heuristic": "#4C72B0", "ismcts": "#C44E52"}
    others = iter(["#55A868", "#8172B3", "#CCB974", "#64B5CD", "#937860"] * 4)
    colours = {name: palette.get(name) or next(others) for name in opponents}
    width = 0.8 / len(opponents)
    cell = card.get("exploitability")
    if cell is None:
        fig, ax = plt.subplots(figsize=(8, 4.2))
    else:
        fig, (ax, side) = plt.subplots(
            1, 2, figsize=(9.5, 4.2), gridspec_kw={"width_ratios": [len(counts), 1]}
        )
        _plot_exploitability(side, cell)
    for k, opponent in enumerate(opponents):
        row = [c for c in card["cells"] if c["opponent"] == opponent]
        x = (
            np.array([counts.index(c["players"]) for c in row])
            + (k - (len(opponents) - 1) / 2) * width
        )
        rates = np.array([c["win_rate"] for c in row])
        below = [c["win_rate"] - c["ci_low"] for c in row]
        err = np.array([below, [c["ci_high"] - c["win_rate"] for c in row]])
        ax.bar(x, rates, width * 0.95, yerr=err, capsize=4, color=colours[opponent],
               label=f"vs {opponent}")  # fmt: skip
        for xi, c in zip(x, row, strict=True):
            ax.text(xi, c["ci_high"] + 0.015, f"{c['win_rate']:.0%}", ha="center", fontsize=7)
    for i, n in enumerate(counts):
        ax.hlines(1 / n, i - 0.45, i + 0.45, colors="black", linestyles="--", linewidth=1.2,
                  label="fair share 1/N" if i == 0 else None)  # fmt: skip
    ax.set_xticks(range(len(counts)), [f"{n} players" for n in counts])
    ax.set_ylim(0, 1.08)
    ax.set_ylabel("policy win rate (95% Wilson CI)")
    if cell is None:
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    else:  # the exploitability panel sits where the legend would: one row under the axes
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=4, fontsize=8)
    from evaluation.tournament import short_labels

    name = short_labels([card["agent"]])[card["agent"]]  # a policy path: its file name
    budget = card.get("budgets", {}).get("policy", {}).get("iterations")
    if budget is not None:
        name += f", {budget} iterations"
    notes = [f"rating mu {card['rating']['mu']:.1f} ± {card['rating']['sigma']:.1f}"]
    if card["quick"]:
        notes.append("QUICK subset, not the full protocol")
    if not card["standard_game"]:
        notes.append("non-standard game")
    ax.set_title(f"{name} — {card['protocol']}\n{' · '.join(notes)}", fontsize=10)
    fig.tight_layout()
    tmp = path.with_name(path.name + ".tmp.png")
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    tmp.replace(path)


def _plot_exploitability(ax: Any, cell: dict[str, Any]) -> None:
    """The best response's win rate with its interval against the fair share: the gap."""
    rate = cell["win_rate"]
    err = [[rate - cell["ci_low"]], [cell["ci_high"] - rate]]
    ax.bar([0], [rate], 0.6, yerr=err, capsize=4, color="#DD8452")
    ax.hlines(cell["fair_share"], -0.45, 0.45, colors="black", linestyles="--", linewidth=1.2)
    ax.text(0, cell["ci_high"] + 0.015, f"gap {cell['gap']:+.0%}", ha="center", fontsize=8)
    ax.set_xticks([0], [f"best response\n{cell['budget'] // 1000}k steps"])
    ax.set_ylim(0, 1.08)
    ax.set_ylabel("best response win rate (95% Wilson CI)")
    ax.set_title(f"exploitability, {cell['players']} players", fontsize=9)


def write_scorecard(card: dict[str, Any], out_dir: Path) -> dict[str, Path]:
    """scorecard.png, auction_diagnostics.png (a scorecard with diagnostics), then
    scorecard.json, each written whole (temp file + rename), once the card fits the format."""
    check_scorecard(card)  # before any file: a card the format refuses writes nothing
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"json": out_dir / SCORECARD, "plot": out_dir / "scorecard.png"}
    plot_scorecard(card, paths["plot"])
    if "diagnostics" in card:
        from evaluation.farlight.diagnostics import plot_diagnostics
        from evaluation.tournament import short_labels

        paths["diagnostics_plot"] = out_dir / "auction_diagnostics.png"
        name = short_labels([card["agent"]])[card["agent"]]
        kind = "quick subset" if card["quick"] else "full protocol"
        plot_diagnostics(
            {card["agent"]: card["diagnostics"]},
            paths["diagnostics_plot"],
            title=f"auction diagnostics of {name}: {card['protocol']}, {kind}, "
            f"{card['games']} games",
            labels=[name],
        )
    atomic_write(paths["json"], json.dumps(card, indent=1, sort_keys=True) + "\n")
    return paths
