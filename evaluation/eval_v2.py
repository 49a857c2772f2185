"""`farlight-eval-v2`: farlight-eval-v1's cells with the policy sealed, plus an exploitability cell.

The cells are v1's, unchanged (same seeds, games and counting, so v1 numbers stay comparable),
but the policy plays every game sealed: from its own process, seeing only its seat's
observation, mask and redacted game (agents.farlight.sealed). The exploitability cell is
`farlight exploit` at fixed settings (EXPLOIT_CELL): a best response warm-started from the
shipped network, trained against the policy (sealed too) at 2 players for 50,000 learner
steps, then evaluated on 200 seat-rotated games of the fixed evaluation set. Its win rate
minus 1/2 is the exploitation gap: a lower bound on the policy's exploitability at that budget.
See docs/evaluation.md and docs/exploitability.md.

Training the best response is training's work, so the protocol takes the trainer as an
argument (`best_response`: `training.farlight.sb3.exploit.exploit`, which the command line passes);
evaluation sits below training and never imports it.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgspec

from agents.farlight.sealed import MoveBudget
from evaluation.eval_v1 import (
    PROTOCOL_V2,
    evaluate,
    held_out_exploit_seed,
    held_out_training_key,
    resume_evaluation,
)
from evaluation.formats.scorecard import ExploitCellFile, WarmStart

#: The exploitability cell's fixed settings (ExploitConfig fields). --quick uses
#: ExploitConfig's quick settings instead (a smoke check, never the protocol).
EXPLOIT_CELL: dict[str, Any] = {
    "players": 2,
    "budget": 50_000,
    "budgets": [0],
    "eval_games": 200,
    "seed": 0,
    "init_from": "ppo",
}
#: Trains and evaluates a best response: `farlight exploit`'s entry point
#: (training.farlight.sb3.exploit).
BestResponse = Callable[..., dict[str, Any]]
#: Where the cell's best-response run lives inside an evaluation's --out folder.
EXPLOIT_DIR = "exploit"


def exploit_options(quick: bool, secret: str | None = None) -> dict[str, Any]:
    """The cell's ExploitConfig fields; the policy always plays sealed. A held-out run's
    `secret` gives the evaluation set its seed, as it gives the cells theirs."""
    settings = {"players": 2, "quick": True} if quick else dict(EXPLOIT_CELL)
    settings |= {"sealed": True, "init_from": "ppo", "seed": 0}
    if secret is not None:
        settings["eval_seed"] = held_out_exploit_seed(secret, settings["players"])
        settings["deal_key"] = held_out_training_key(secret, settings["players"])
    return settings


def exploit_cell(
    agent: str,
    quick: bool,
    workers: int,
    progress: bool,
    run_dir: Path,
    secret: str | None = None,
    *,
    best_response: BestResponse,
) -> dict[str, Any]:
    """Train (or finish training) the cell's best response in `run_dir`, evaluate it, and
    sum it up for the scorecard: the row at the cell's budget, and the warm start's."""
    resume = (run_dir / "run_config.json").is_file()
    if resume:
        result = best_response(
            agent,
            run_dir=str(run_dir),
            workers=workers,
            resume=True,
            progress=progress,
            given=("run_dir", "workers"),
        )
    else:
        result = best_response(
            agent,
            run_dir=str(run_dir),
            workers=workers,
            progress=progress,
            **exploit_options(quick, secret),
        )
    rows = {row["budget"]: row for row in result["budgets"]}
    final, start = rows[result["budget"]], rows[min(rows)]
    keep = (
        "games",
        "wins",
        "win_rate",
        "ci_low",
        "ci_high",
        "fair_share",
        "gap",
        "gap_ci_low",
        "gap_ci_high",
        "mean_margin",
        "learner_steps",
    )
    cell = ExploitCellFile(
        players=result["players"],
        budget=result["budget"],
        init_from=result["init_from"],
        seed=result["seed"],
        eval_seed=result["eval_seed"],
        sealed=result.get("sealed", False),
        **{name: final[name] for name in keep},
        best_response_hash=final["best_response_hash"],
        warm_start=WarmStart(budget=start["budget"], win_rate=start["win_rate"], gap=start["gap"]),
        run=EXPLOIT_DIR,
    )
    return msgspec.to_builtins(cell)


def with_exploitability(card: dict[str, Any], cell: dict[str, Any]) -> dict[str, Any]:
    """The v2 scorecard: the cells' card, the exploitability cell, its budgets recorded."""
    budgets = dict(
        card["budgets"], exploit_steps=cell["budget"], exploit_init_from=cell["init_from"]
    )
    return card | {"protocol": PROTOCOL_V2, "exploitability": cell, "budgets": budgets}


def evaluate_v2(
    agent: str,
    quick: bool = False,
    workers: int = 1,
    progress: bool = False,
    policy_kwargs: dict[str, Any] | None = None,
    out_dir: Path | None = None,
    held_out: bool = False,
    held_out_secret: str | None = None,
    move_budget: MoveBudget | None = None,
    *,
    best_response: BestResponse,
) -> dict[str, Any]:
    """Run farlight-eval-v2 for `agent` (a name or a saved policy path; the standard game)
    and return its scorecard. With `out_dir`, games and the best-response run are kept there,
    so `resume_v2(out_dir)` finishes a killed run. `held_out` deals the cells from a secret
    (evaluation.eval_v1), and the exploitability cell's evaluation set too.
    `move_budget` bounds each decision of the policy in the cells' games (not in the best
    response's training)."""
    if policy_kwargs and agent != "ismcts":
        raise ValueError("farlight-eval-v2 takes policy options for ismcts only")
    card = evaluate(
        agent,
        quick=quick,
        workers=workers,
        progress=progress,
        policy_kwargs=policy_kwargs,
        out_dir=out_dir,
        protocol=PROTOCOL_V2,
        held_out=held_out,
        held_out_secret=held_out_secret,
        move_budget=move_budget,
    )
    exploited, secret = _exploited(agent, card), _secret(card)
    if out_dir is not None:
        cell = exploit_cell(
            exploited,
            quick,
            workers,
            progress,
            out_dir / EXPLOIT_DIR,
            secret,
            best_response=best_response,
        )
    else:
        with tempfile.TemporaryDirectory(prefix="farlight-eval-v2-") as tmp:
            run_dir = Path(tmp) / EXPLOIT_DIR
            cell = exploit_cell(
                exploited, quick, workers, progress, run_dir, secret, best_response=best_response
            )
    return with_exploitability(card, cell)


def resume_v2(
    out_dir: Path,
    workers: int = 1,
    progress: bool = False,
    *,
    best_response: BestResponse,
) -> dict[str, Any]:
    """Finish the evaluation journalled in `out_dir` (v1 or v2): its missing games, then, for
    v2, the best-response run from its last checkpoint."""
    card = resume_evaluation(out_dir, workers, progress)
    if card["protocol"] != PROTOCOL_V2:
        return card
    exploited = _exploited(card["agent"], card)
    run_dir = out_dir / EXPLOIT_DIR
    cell = exploit_cell(
        exploited,
        card["quick"],
        workers,
        progress,
        run_dir,
        _secret(card),
        best_response=best_response,
    )
    return with_exploitability(card, cell)


def _secret(card: dict[str, Any]) -> str | None:
    """A held-out run's secret (its scorecard has it once the cells' last game is played)."""
    return card["seeds"].get("secret") if card.get("seed_mode") == "held-out" else None


def _exploited(agent: str, card: dict[str, Any]) -> str:
    """The policy the best response faces: ismcts at the evaluated budget (`ismcts@N`)."""
    if agent == "ismcts":
        return f"ismcts@{card['budgets']['policy'].get('iterations', 20)}"
    return agent
