"""`farlight evaluate` / `evaluation.eval_v1`: the fixed benchmark farlight-eval-v1.

The quick protocol runs twice (once through the CLI, once in Python); every other test checks
the protocol's schedule and arithmetic without playing, or a failure that stops before any game.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import subprocess
from collections import Counter
from pathlib import Path

import msgspec
import pytest
from evaluation_runs import farlight, without_timing
from PIL import Image

import evaluation
from agents.registry import make
from evaluation.eval_v1 import (
    BASE_SEED,
    FULL_GAMES,
    ISMCTS_ITERATIONS,
    OPPONENTS,
    POLICY_LABEL,
    PROTOCOL,
    Cell,
    cell_result,
    cell_specs,
    cells,
    margin,
)
from evaluation.formats.scorecard import ScorecardFile

TOP_KEYS = (
    "protocol",
    "agent",
    "package_version",
    "card_set_hash",
    "rule_options",
    "seeds",
    "budgets",
    "cells",
    "rating",
    "seconds_per_decision",
)
CELL_KEYS = (
    "players",
    "opponent",
    "games",
    "wins",
    "win_rate",
    "ci_low",
    "ci_high",
    "fair_share",
    "mean_margin",
)


# ------------------------------------------------------------------------------ the protocol
def test_full_protocol_cells_are_fixed() -> None:
    plan = cells()
    assert [(c.players, c.opponent) for c in plan] == [
        (n, o) for n in (2, 3, 4, 5) for o in OPPONENTS
    ]
    assert all(c.games % c.players == 0 and c.games >= FULL_GAMES[c.opponent] for c in plan)
    assert sum(c.games for c in plan) == 483
    assert len({c.seed for c in plan}) == len(plan)
    assert plan[0].seed == BASE_SEED + 20


def test_quick_protocol_is_one_block_per_cell_at_two_and_three_players() -> None:
    plan = cells(quick=True)
    assert [(c.players, c.opponent, c.games) for c in plan] == [
        (n, o, n) for n in (2, 3) for o in OPPONENTS
    ]
    full = {(c.players, c.opponent): c.seed for c in cells()}
    assert all(full[c.players, c.opponent] == c.seed for c in plan)  # the same deals


@pytest.mark.parametrize("cell", cells(), ids=lambda c: f"{c.players}p-{c.opponent}")
def test_duplicate_rotation_puts_the_policy_in_every_seat_equally(cell: Cell) -> None:
    specs = cell_specs(cell, "heuristic", 100, {}, {}, {"ismcts": {"iterations": 7}})
    assert len(specs) == cell.games
    seats = Counter(s.lineup.index(POLICY_LABEL) for s in specs)
    assert sorted(seats) == list(range(cell.players))
    assert set(seats.values()) == {cell.games // cell.players}
    for spec in specs:
        assert Counter(spec.lineup) == {POLICY_LABEL: 1, cell.opponent: cell.players - 1}
        assert spec.aliases == {POLICY_LABEL: "heuristic"}
        assert spec.config["num_players"] == cell.players
    for start in range(0, len(specs), cell.players):  # a block: one deal, the policy moves on
        block = specs[start : start + cell.players]
        assert len({s.seed for s in block}) == 1
        assert len({s.lineup.index(POLICY_LABEL) for s in block}) == cell.players
    assert [s.index for s in specs] == list(range(100, 100 + cell.games))


def test_ismcts_policy_and_ismcts_opponents_keep_their_own_budgets() -> None:
    cell = Cell(3, "ismcts", 3, 1)
    spec = cell_specs(cell, "ismcts", 0, {}, {"iterations": 90}, {"ismcts": {"iterations": 20}})[0]
    seat = spec.lineup.index(POLICY_LABEL)
    assert spec.agent_kwargs[POLICY_LABEL] == {"iterations": 90}
    assert spec.agent_kwargs["ismcts"] == {"iterations": 20}
    assert spec.aliases[spec.lineup[seat]] == "ismcts"


def test_scorecard_records_the_search_settings_the_policy_played_at() -> None:
    """Two rollout scorecards with different searches must not look alike: every setting is
    recorded, defaults included; ismcts records its budget, a network nothing."""
    pytest.importorskip("torch", reason="rollout plays a policy (train extra)")
    from evaluation.eval_v1 import policy_settings

    assert policy_settings("rollout", {}) == {
        "candidates": 3, "worlds": 4, "confidence": 0.9, "opponents": "self"
    }  # fmt: skip
    assert (
        policy_settings("rollout", {"opponents": "heuristic", "path": "x.pt"})["opponents"]
        == "heuristic"
    )
    assert policy_settings("ismcts", {"iterations": 90}) == {"iterations": 90}
    assert policy_settings("ppo", {"path": "x.pt"}) == {}


# ------------------------------------------------------------------------------ arithmetic
def record(players: list[str], scores: list[int], winners: list[int]) -> dict:
    return {"players": players, "scores": scores, "winners": winners}


def test_wins_ties_margin_and_exact_wilson_interval() -> None:
    p, o = POLICY_LABEL, "heuristic"
    records = [record([p, o], [30, 20], [0])] * 4  # 4 wins, margin +10
    records += [record([o, p], [25, 25], [0, 1])] * 2  # 2 shared victories: 1 win, margin 0
    records += [record([p, o], [10, 22], [1])] * 4  # 4 losses, margin -12
    result = cell_result(Cell(2, o, 10, 5), records)
    assert result.wins == 5.0
    assert result.win_rate == 0.5
    # Wilson 95% at 5/10, z = 1.96, computed to 40 digits with decimal.Decimal
    assert result.ci_low == pytest.approx(0.2365895936154873, abs=1e-12)
    assert result.ci_high == pytest.approx(0.7634104063845127, abs=1e-12)
    assert result.fair_share == 0.5
    assert result.mean_margin == pytest.approx((4 * 10 + 2 * 0 - 4 * 12) / 10)


def test_wilson_interval_of_a_perfect_and_an_empty_record() -> None:
    p, o = POLICY_LABEL, "random"
    perfect = cell_result(Cell(2, o, 10, 5), [record([p, o], [9, 1], [0])] * 10)
    assert (perfect.ci_low, perfect.ci_high) == (pytest.approx(0.7224598312333834, abs=1e-12), 1.0)
    zero = cell_result(Cell(2, o, 10, 5), [record([p, o], [1, 9], [1])] * 10)
    assert (zero.ci_low, zero.ci_high) == (0.0, pytest.approx(0.2775401687666166, abs=1e-12))


def test_margin_is_against_the_best_opponent() -> None:
    assert margin(record(["heuristic", POLICY_LABEL, "heuristic"], [40, 31, 12], [0])) == -9
    assert margin(record([POLICY_LABEL, "random", "random"], [50, 12, 31], [0])) == 19


# ------------------------------------------------------------------------------ running it
@pytest.fixture(scope="module")
def quick_cli(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess]:
    pytest.importorskip("torch")
    out = tmp_path_factory.mktemp("eval") / "ppo"
    proc = farlight("evaluate", "ppo", "--quick", "--out", str(out), "--no-progress")
    return out, proc


@pytest.mark.slow
def test_quick_ppo_scorecard_from_the_cli(quick_cli) -> None:
    out, proc = quick_cli
    assert proc.returncode == 0, proc.stderr
    assert "QUICK" in proc.stdout
    card = json.loads((out / "scorecard.json").read_text())
    assert all(key in card for key in TOP_KEYS)
    assert card["protocol"] == PROTOCOL and card["quick"] is True and card["standard_game"]
    assert card["agent"] == "ppo"
    # The name stays while the shipped file changes between releases: the card says which.
    from agents.farlight.policy import SHIPPED_POLICY

    shipped = hashlib.sha256(SHIPPED_POLICY.read_bytes()).hexdigest()
    assert card["agent_file_hash"] == f"sha256:{shipped}"
    assert card["card_set_hash"].startswith("sha256:")
    assert card["budgets"]["ismcts_opponent_iterations"] == ISMCTS_ITERATIONS
    assert [(c["players"], c["opponent"]) for c in card["cells"]] == [
        (n, o) for n in (2, 3) for o in OPPONENTS
    ]
    for c in card["cells"]:
        assert all(key in c for key in CELL_KEYS)
        assert c["ci_low"] <= c["win_rate"] <= c["ci_high"]
        assert c["fair_share"] == pytest.approx(1 / c["players"])
    assert set(card["rating"]) >= {"mu", "sigma"}
    assert card["seconds_per_decision"] > 0
    with Image.open(out / "scorecard.png") as image:
        assert image.format == "PNG" and image.size[0] > 400
    assert sorted(p.name for p in out.iterdir()) == [
        "auction_diagnostics.png",
        "evaluation.json",  # the journal that --resume reads
        "evaluation_games.jsonl",
        "run.key",  # the key every journalled game is signed with (0600)
        "scorecard.json",
        "scorecard.png",
    ]


@pytest.mark.slow
def test_quick_scorecard_is_deterministic(quick_cli) -> None:
    """The Python API on one process gives the CLI's two-process scorecard, timing aside."""
    out, proc = quick_cli
    assert proc.returncode == 0, proc.stderr
    cli = json.loads((out / "scorecard.json").read_text())
    again = evaluation.evaluate("ppo", quick=True, workers=1)
    assert without_timing(again) == without_timing(cli)


@pytest.fixture(scope="module")
def short_card() -> dict:
    """A quick scorecard of `random` on one-round games (seconds, not minutes)."""
    return evaluation.evaluate("random", quick=True, config={"max_rounds": 1})


def test_a_scorecard_is_exactly_what_its_format_declares(short_card: dict) -> None:
    """Every field `evaluate` returns is declared in `ScorecardFile` with its type, and none
    it declares is missing: the card reads back to itself."""
    read = msgspec.convert(short_card, ScorecardFile, strict=True)
    assert msgspec.to_builtins(read) == short_card
    # v2's cell; a sealed policy's forfeited decisions; another game's name (Farlight's is implied)
    absent = {"exploitability", "forfeits", "game_name"}
    assert set(short_card) == set(ScorecardFile.__struct_fields__) - absent


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda c: c["cells"][0].update(win_rate=1.5), "win_rate"),
        (lambda c: c.update(games=-1), "games"),
        (lambda c: c.pop("seeds"), "seeds"),
        (lambda c: c.update(hidden_hands=[[1, 2]]), "hidden_hands"),
        (lambda c: c["rating"].pop("ordinal"), "ordinal"),
    ],
)
def test_writing_a_card_outside_the_format_writes_nothing(
    short_card: dict, tmp_path: Path, change, field: str
) -> None:
    from evaluation.eval_v1 import write_scorecard

    card = json.loads(json.dumps(short_card))
    change(card)
    with pytest.raises(ValueError, match=field):
        write_scorecard(card, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_an_agent_object_is_evaluated_like_its_name(short_card: dict) -> None:
    """A quick run on short games (a round cap of 1, recorded as a non-standard game)."""
    by_name = short_card
    by_object = evaluation.evaluate(make("random", seed=3), quick=True, config={"max_rounds": 1})
    assert by_name["standard_game"] is False and by_name["game"]["max_rounds"] == 1
    assert by_object["agent"] == "random"
    assert [c["games"] for c in by_object["cells"]] == [c["games"] for c in by_name["cells"]]


# ------------------------------------------------------------------------------ user mistakes
def assert_one_clear_error(proc: subprocess.CompletedProcess, *fragments: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert 1 <= len(lines) <= 2, proc.stderr
    for fragment in fragments:
        assert fragment in proc.stderr, proc.stderr


class Payload:
    """Unpickling this runs code (touches a marker file): the policy loader must refuse it."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


@pytest.mark.parametrize(
    ("case", "argv", "fragments"),
    [
        ("unknown agent", ["nosuchagent"], ["unknown policy", "nosuchagent"]),
        ("missing policy file", ["{tmp}/missing.pt"], ["no such policy file", "missing.pt"]),
        ("not a policy path", ["{tmp}/notes.txt"], ["unknown policy"]),
        ("corrupt policy", ["{tmp}/corrupt.pt"], ["corrupt.pt"]),
        ("hostile policy", ["{tmp}/evil.pt"], ["evil.pt"]),
        ("out is a file", ["random", "--out", "{tmp}/notes.txt/x"], ["--out"]),
        ("out is a file itself", ["random", "--out", "{tmp}/notes.txt"], ["not a directory"]),
        ("budget for another agent", ["heuristic", "--ismcts-iterations", "9"], ["ismcts"]),
        ("bad budget", ["ismcts", "--ismcts-iterations", "0"], ["positive integer"]),
        ("move budget unsealed", ["random", "--move-seconds", "1"], ["--sealed"]),
        ("bad move budget", ["random", "--sealed", "--move-cpu-seconds", "0"], ["positive"]),
    ],
)
def test_user_mistakes_are_one_or_two_lines_and_write_nothing(
    tmp_path: Path, case: str, argv: list[str], fragments: list[str]
) -> None:
    (tmp_path / "notes.txt").write_text("not a policy\n")
    (tmp_path / "corrupt.pt").write_bytes(b"this is not a policy\n" * 10)
    marker = tmp_path / "pwned"
    with (tmp_path / "evil.pt").open("wb") as fh:
        pickle.dump({"format": "farlight-policy", "config": Payload(marker)}, fh, protocol=2)
    before = sorted(p.name for p in tmp_path.iterdir())
    args = [a.format(tmp=tmp_path) for a in argv]
    if "--out" not in args:
        args += ["--out", str(tmp_path / "cards")]
    proc = farlight("evaluate", *args, "--quick", "--no-progress", timeout=120)
    assert_one_clear_error(proc, *fragments)
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing (half-)written
    assert not marker.exists()


def test_scorecard_picture_names_a_policy_path_briefly(tmp_path: Path, monkeypatch) -> None:
    """A policy path once ran the title off both edges of scorecard.png; the picture names
    the file, scorecard.json keeps the path."""
    import matplotlib.pyplot as plt

    from evaluation.eval_v1 import plot_scorecard

    long_path = "runs/a_long_experiment_name/checkpoints_of_the_best/policy_step_000128000.pt"
    rate = {"win_rate": 0.5, "ci_low": 0.2, "ci_high": 0.8}
    card = {
        "agent": long_path,
        "protocol": PROTOCOL,
        "quick": True,
        "standard_game": False,
        "rating": {"mu": 20.0, "sigma": 5.0},
        "cells": [{"players": n, "opponent": o, **rate} for n in (2, 3) for o in OPPONENTS],
    }
    drawn = []
    close = plt.close
    monkeypatch.setattr(plt, "close", lambda fig: (drawn.append(fig), close(fig)))
    plot_scorecard(card, tmp_path / "scorecard.png")
    fig = drawn[0]
    fig.canvas.draw()
    title = fig.axes[0].title
    assert title.get_text().splitlines()[0] == f"policy_step_0001280… — {PROTOCOL}"
    assert "QUICK" in title.get_text() and "non-standard" in title.get_text()
    box = title.get_window_extent()
    assert box.x0 >= 0 and box.x1 <= fig.bbox.width, "the title fits the picture"
