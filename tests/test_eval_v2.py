"""farlight-eval-v2: v1's cells played sealed plus an exploitability cell (docs/evaluation.md).

The quick protocol runs end to end here (the CLI, the scorecard, its picture, the leaderboard's
reading of it, resuming); the sealed best-response opponents are checked against a spy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pytest

pytest.importorskip("torch", reason="farlight-eval-v2 trains a best response (the train extra)")
pytest.importorskip("sb3_contrib", reason="the best response trains with sb3-contrib")

import agents  # noqa: E402 - after the importorskips above
import evaluation  # noqa: E402 - after the importorskips above
from agents.farlight.sealed import SealedAgent  # noqa: E402
from evaluation.eval_v1 import (  # noqa: E402
    PROTOCOL,
    PROTOCOL_V2,
    TIMING_FIELDS,
    format_scorecard,
    write_scorecard,
)
from evaluation.eval_v2 import EXPLOIT_CELL, EXPLOIT_DIR, resume_v2  # noqa: E402
from evaluation.formats.scorecard import ScorecardFile  # noqa: E402
from farlight_cli.main import main as farlight  # noqa: E402
from farlight_env.cards.io import standard_card_set  # noqa: E402
from farlight_env.env.single_agent import FarlightSingleAgentEnv  # noqa: E402
from farlight_web.farlight.library import scorecards  # noqa: E402
from training.farlight.envs import opponent_policies  # noqa: E402
from training.farlight.sb3.exploit import exploit  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def quick_v2(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], str]:
    """`farlight evaluate random --protocol v2 --quick --out DIR`, once for the module."""
    out = tmp_path_factory.mktemp("v2") / "random"
    printed = _run_cli(["evaluate", "random", "--protocol", "v2", "--quick", "--out", str(out)])
    return out, json.loads((out / "scorecard.json").read_text()), printed


def _run_cli(argv: list[str]) -> str:
    import contextlib
    import io

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        status = farlight([*argv, "--no-progress"])
    assert status == 0, buffer.getvalue()
    return buffer.getvalue()


def _untimed(card: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in card.items() if k not in TIMING_FIELDS}


def test_v2_card_is_sealed_and_carries_the_exploitability_cell(quick_v2) -> None:
    out, card, printed = quick_v2
    assert card["protocol"] == PROTOCOL_V2 and card["sealed"] is True
    cell = card["exploitability"]
    assert cell["players"] == 2 and cell["sealed"] is True and cell["init_from"] == "ppo"
    assert cell["budget"] == 2_048 and cell["games"] == 4  # the quick cell, not the protocol's
    assert cell["gap"] == pytest.approx(cell["win_rate"] - 0.5)
    assert cell["ci_low"] <= cell["win_rate"] <= cell["ci_high"]
    stored = json.loads((out / EXPLOIT_DIR / "exploit.json").read_text())
    assert stored["sealed"] is True and stored["budgets"][-1]["win_rate"] == cell["win_rate"]
    assert "exploitability (2 players" in printed and "sealed" in printed
    assert (out / "scorecard.png").stat().st_size > 10_000
    read = msgspec.convert(card, ScorecardFile, strict=True)  # every field declared
    assert msgspec.to_builtins(read) == card


def test_v2_cells_are_the_v1_cells(quick_v2) -> None:
    """Same seeds, games and counting: a deterministic agent scores the same cells sealed
    under v2 as in-process under v1, so v1 numbers stay comparable."""
    _out, card, _printed = quick_v2
    v1 = evaluation.evaluate("random", quick=True)
    assert v1["protocol"] == PROTOCOL and "exploitability" not in v1
    assert card["cells"] == v1["cells"]


def test_resume_of_a_finished_v2_run_plays_nothing_new(quick_v2) -> None:
    out, card, _printed = quick_v2
    again = resume_v2(out, best_response=exploit)
    assert _untimed(again) == _untimed(card)


def test_v1_and_v2_scorecards_both_show_on_the_leaderboard(quick_v2, tmp_path: Path) -> None:
    _out, card, _printed = quick_v2
    v1 = json.loads((ROOT / "docs/scorecards/heuristic/scorecard.json").read_text())
    for name, data in (("v1", v1), ("v2", card)):
        write_scorecard(data, tmp_path / name)
    listed = {entry["file"]: entry for entry in scorecards(tmp_path)}
    assert listed["v1/scorecard.json"]["exploitability"] is None
    shown = listed["v2/scorecard.json"]
    assert shown["protocol"] == PROTOCOL_V2 and shown["sealed"] is True
    assert shown["exploitability"]["gap"] == pytest.approx(card["exploitability"]["gap"])
    assert "exploitability" not in format_scorecard(v1)


def test_v2_refuses_game_options_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    status = farlight(["evaluate", "random", "--protocol", "v2", "--max-rounds", "3"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1
    assert "farlight-eval-v2 is defined on the standard game" in err[0]


def test_protocol_budget_is_the_documented_one() -> None:
    """docs/evaluation.md states the cell's budget, games and warm start."""
    page = (ROOT / "docs/evaluation.md").read_text()
    assert EXPLOIT_CELL["budget"] == 50_000 and EXPLOIT_CELL["eval_games"] == 200
    assert "farlight-eval-v2" in page and "50,000" in page


def _first_legal_game(opponent: Any, seed: int) -> tuple[list[np.ndarray], float]:
    env = FarlightSingleAgentEnv(num_players=2, learner_seat=0, opponents=[opponent])
    obs, _info = env.reset(seed=seed)
    seen, reward, done = [obs.copy()], 0.0, False
    while not done:
        action = int(np.flatnonzero(env.action_masks())[0])
        obs, reward, terminated, truncated, _info = env.step(action)
        seen.append(obs.copy())
        done = terminated or truncated
    return seen, float(reward)


def test_sealed_training_opponents_change_nothing_and_see_nothing() -> None:
    """A best response's opponent under v2 plays sealed: a spy that plays as random(seed)
    and vandalises every game it finds leaves the learner's game exactly as random(seed)
    in-process would."""
    [spy] = opponent_policies(["tests.sealed_agents:Spy"], 7, sealed_cards=standard_card_set())
    assert isinstance(spy, SealedAgent)
    try:
        sealed, sealed_reward = _first_legal_game(spy, seed=11)
    finally:
        spy.close()
    plain, plain_reward = _first_legal_game(agents.make("random", seed=7), seed=11)
    assert len(sealed) == len(plain) > 10 and sealed_reward == plain_reward
    assert all(np.array_equal(a, b) for a, b in zip(sealed, plain, strict=True))


def test_a_held_out_v2_run_holds_out_the_exploitability_deals_too(tmp_path: Path) -> None:
    """Issue #47: under --held-out the exploitability cell's evaluation games are dealt from
    the run's secret, not the published seed 29002 a policy could have memorised."""
    from evaluation.eval_v1 import held_out_exploit_seed, held_out_training_key
    from evaluation.exploit import eval_seed, eval_specs

    out = tmp_path / "held"
    _run_cli(["evaluate", "random", "--protocol", "v2", "--quick", "--held-out", "--out", str(out)])
    card = json.loads((out / "scorecard.json").read_text())
    secret = card["seeds"]["secret"]
    cell = card["exploitability"]
    assert card["seed_mode"] == "held-out"
    assert cell["eval_seed"] == held_out_exploit_seed(secret, 2) != eval_seed(2)
    assert cell["eval_seed"].bit_length() == 129  # wide: its games draw 128-bit seeds too
    stored = json.loads((out / EXPLOIT_DIR / "exploit.json").read_text())
    assert stored["eval_set"]["held_out"] is True
    # ... and its training games from a key drawn from the secret, not from seed 0 alone
    assert stored["training_deals"] == "held out"
    trained = json.loads((out / EXPLOIT_DIR / "train" / "run_config.json").read_text())
    assert trained["deal_key"] == held_out_training_key(secret, 2)
    published = {spec.seed for spec in eval_specs("br", "random", 2, 4)}
    journal = (out / EXPLOIT_DIR / "evaluation" / "budget_2048.jsonl").read_text()
    held = {int(json.loads(line)["env_seed"]) for line in journal.splitlines()}
    assert held and not held & published
    assert _untimed(resume_v2(out, best_response=exploit)) == _untimed(
        card
    )  # the secret replays the same run
