"""Sealed seats (agents.farlight.sealed): the agent under test plays from its own process on a view
of its seat's redacted game; shipped agents decide exactly as unsealed, and a spy finds nothing
hidden and changes nothing."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from agents.farlight.sealed import MoveBudget
from agents.farlight.sealed import agent as sealed_agent
from evaluation.eval_v1 import POLICY_LABEL, Cell, cell_specs, evaluate
from evaluation.tournament import GameFailure, GameSpec, play_game, run_tournament, schedule
from farlight_env.env.aec import raw_env
from farlight_env.game import FarlightGame, action_from_dict
from farlight_env.game.hidden import PlayerView, SealedView, redact
from tests.sealed_agents import Spy, drop_folder, hidden_facts

ROOT = Path(__file__).resolve().parents[1]
SPY = "tests.sealed_agents:Spy"
CRASH = "tests.sealed_agents:Crash"


def _random_positions(players: int, seed: int, every: int = 1):
    game, rng = FarlightGame(players, seed), np.random.default_rng(seed)
    step = 0
    while not game.is_over:
        if step % every == 0:
            yield game
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
        step += 1


@pytest.mark.parametrize("players", [2, 3])
def test_sealed_view_answers_as_the_live_view(players: int) -> None:
    """Across a process boundary (JSON) the view redacts and determinizes exactly as the live
    view: shipped agents see the same copies, draw for draw."""
    for n, game in enumerate(_random_positions(players, 40 + players, every=3)):
        seat = game.current_player
        live = PlayerView(game, seat)
        sent = SealedView.of(game, seat).to_json(with_cards=False)
        view = SealedView.from_json(sent, seat, game.cards)
        assert view.cards is game.cards and view.seat == seat
        assert view.redacted().to_json() == live.redacted().to_json()
        for k in (n, n + 1000):
            a = view.determinize(np.random.default_rng(k)).to_json()
            assert a == live.determinize(np.random.default_rng(k)).to_json()
        draw, live_draw = view.determinizer(), live.determinizer()
        rng, live_rng = np.random.default_rng(n), np.random.default_rng(n)
        assert draw(rng).to_json() == live_draw(live_rng).to_json()


def test_sealed_view_holds_only_the_redacted_copy() -> None:
    game = next(g for g in _random_positions(3, 7) if g.phase.value == "bidding" and g.bids[0])
    view = SealedView.of(game, 0)
    assert view._game is not game
    assert view._game.to_json() == redact(game, 0).to_json()
    assert view._game.deck == sorted(game.deck) and view._game.history == []
    with pytest.raises(ValueError, match="seat"):
        SealedView.from_json(view.to_json(), 5)
    with pytest.raises(ValueError, match="saved game"):
        SealedView.from_json('{"format": "nope"}', 0)


def _actions(records: list[dict]) -> list[list[dict]]:
    return [r["actions"] for r in records]


LINEUPS = [
    (("random", "heuristic"), 2),
    (("heuristic", "random"), 3),
    (("ismcts@20", "heuristic"), 2),
    (("ismcts@20", "heuristic", "random"), 3),
]


@pytest.mark.parametrize(("agents", "players"), LINEUPS)
def test_shipped_agents_decide_identically_sealed(agents: tuple[str, ...], players: int) -> None:
    """Same seeds, same decisions: every game's actions, scores and winners match."""
    open_specs = schedule(agents, players, len(agents), seed=3)
    sealed_specs = schedule(agents, players, len(agents), seed=3, sealed=True)
    opened = [play_game(s) for s in open_specs]
    closed = [play_game(s) for s in sealed_specs]
    assert _actions(closed) == _actions(opened)
    assert [r["scores"] for r in closed] == [r["scores"] for r in opened]
    assert all(r["sealed"] is True and r["sealed_seats"] == list(range(players)) for r in closed)
    assert all("sealed" not in r for r in opened)


def test_ppo_decides_identically_sealed() -> None:
    pytest.importorskip("torch")
    for players in (2, 3):
        specs = schedule(("ppo", "heuristic"), players, 2, seed=5)
        opened = [play_game(s) for s in specs]
        closed = [play_game(replace(s, sealed=("ppo",))) for s in specs]
        assert _actions(closed) == _actions(opened)
        for r in closed:
            assert r["sealed_seats"] == [s for s, name in enumerate(r["players"]) if name == "ppo"]


def _spy_spec(players: int, log: Path | None, seed: int = 11) -> GameSpec:
    lineup = ("spy",) + ("random",) * (players - 1)
    if log is None:  # the reference: the seat played by the random agent it imitates
        return GameSpec(0, seed, lineup, {"num_players": players}, aliases={"spy": "random"})
    kwargs = {"spy": {"log": str(log)}}
    return GameSpec(
        0, seed, lineup, {"num_players": players}, kwargs, {"spy": SPY}, sealed=("spy",)
    )


def _spy_positions(record: dict, seat: int) -> list[FarlightGame]:
    """Copies of the real game at each decision the spy's seat took, in order."""
    env = raw_env(**record["config"])
    env.reset(seed=record["env_seed"])
    game, positions = env.game, []
    for data in record["actions"]:
        if game.current_player == seat:
            positions.append(game.clone())
        game.apply(action_from_dict(data))
    return positions


@pytest.fixture
def drop() -> Iterator[Path]:
    """A folder the sealed children may write to (under root they run as other uids)."""
    folder = Path(drop_folder())
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("players", [2, 3])
def test_a_sealed_spy_learns_nothing_hidden_and_changes_nothing(players: int, drop: Path) -> None:
    """The spy reads view._game, vars(view), everything gc.get_referents reaches from its
    info, and every game object in its process, then vandalises them all: it only ever finds
    its seat's redacted copy, never the deck order, hands or chance of the real game, and the
    game is exactly the one its moves alone make."""
    log = drop / "spy.jsonl"
    record = play_game(_spy_spec(players, log))
    reference = play_game(_spy_spec(players, None))
    assert record["actions"] == reference["actions"]
    assert record["scores"] == reference["scores"] and record["winners"] == reference["winners"]
    reports = [json.loads(line) for line in log.read_text().splitlines()]
    positions = _spy_positions(record, 0)
    assert len(reports) == len(positions) > 5
    shown = [redact(game, 0).to_json() for game in positions]
    leaked_anywhere = hidden_any = 0
    for report, game, seen in zip(reports, positions, shown, strict=True):
        assert report["view"] == "SealedView" and report["seat"] == 0
        assert report["direct"] and set(report["direct"]) == {seen}
        assert report["reachable"] and set(report["reachable"]) == {seen}
        secret, public = hidden_facts(game), hidden_facts(redact(game, 0))
        for facts in report["anywhere"]:
            assert facts["rng"] != secret["rng"]
            if secret["deck"] != public["deck"]:
                hidden_any += 1
                leaked_anywhere += facts["deck"] == secret["deck"]
            for q in range(1, players):
                if secret["hands"][q] != public["hands"][q]:
                    leaked_anywhere += facts["hands"][q] == secret["hands"][q]
    assert hidden_any > 0 and leaked_anywhere == 0


def test_an_unsealed_spy_does_see_the_truth(tmp_path: Path) -> None:
    """The control: in-process, the same spy reads the real deck order (what sealing stops)."""
    log = tmp_path / "spy.jsonl"
    spec = GameSpec(0, 11, ("spy", "random"), {"num_players": 2})
    record = play_game(
        replace(spec, aliases={"spy": Spy(seed=1, log=str(log), vandal=False, every=0)})
    )
    reports = [json.loads(line) for line in log.read_text().splitlines()]
    positions = _spy_positions(record, 0)
    truth = [FarlightGame.from_json(r["direct"][0]).deck for r in reports]
    assert truth == [game.deck for game in positions]
    assert any(deck != sorted(deck) for deck in truth)


def _crash_spec(how: str) -> GameSpec:
    return GameSpec(
        4, 2, ("crash", "random"), {"num_players": 2}, {"crash": {"how": how}}, {"crash": CRASH},
        sealed=("crash",),
    )  # fmt: skip


@pytest.mark.parametrize(
    ("how", "message"),
    [
        ("raise", "ValueError: the crash agent crashed"),
        ("exit", "process ended (exit code 3)"),
        ("illegal", "illegal action"),
        ("sleep", "no answer within 0.5 s"),
    ],
)
def test_a_failing_sealed_agent_is_a_one_line_game_failure(
    how: str, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sealed_agent, "DECISION_SECONDS", 0.5)
    with pytest.raises(GameFailure) as failure:
        play_game(_crash_spec(how))
    text = str(failure.value)
    assert "\n" not in text and text.startswith("game 4, seat 0 (crash): SealedAgentError: ")
    assert message in text
    # the pool goes on: the next sealed game plays
    assert play_game(schedule(["random"], 2, 1, seed=1, sealed=True)[0])["sealed"] is True


def test_an_unknown_sealed_agent_fails_while_seating() -> None:
    spec = GameSpec(0, 1, ("x", "random"), {"num_players": 2}, aliases={"x": "no.such:Agent"})
    with pytest.raises(GameFailure, match=r"seat 0 \(x\): SealedAgentError: ModuleNotFound"):
        play_game(replace(spec, sealed=("x",)))


def test_evaluate_seals_only_the_policy() -> None:
    specs = cell_specs(Cell(3, "random", 3, 5), "heuristic", 0, {}, {}, {}, sealed=True)
    assert all(s.sealed == (POLICY_LABEL,) for s in specs)
    record = play_game(specs[1])
    assert record["sealed"] is True
    assert record["sealed_seats"] == [record["players"].index(POLICY_LABEL)]
    unsealed = play_game(cell_specs(Cell(3, "random", 3, 5), "heuristic", 0, {}, {}, {})[1])
    assert unsealed["actions"] == record["actions"]
    with pytest.raises(ValueError, match="by name or path"):
        evaluate(Spy(), quick=True, sealed=True)


def test_cli_tournament_sealed_writes_sealed_records(tmp_path: Path) -> None:
    out = tmp_path / "t"
    args = ["--agents", "heuristic,random", "--games", "2", "--sealed", "--no-progress"]
    done = subprocess.run(
        [sys.executable, "-m", "farlight_cli", "tournament", *args, "--out", str(out)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "sealed" in done.stdout.splitlines()[0]
    results = json.loads((out / "results.json").read_text())
    assert results["sealed"] is True and len(results["games"]) == 2
    assert all(g["sealed"] is True and g["sealed_seats"] == [0, 1] for g in results["games"])
    assert json.loads((out / "tournament.json").read_text())["sealed"] is True
    games = [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]
    assert all(g["sealed"] is True for g in games)


def _tournament(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "farlight_cli", "tournament", *args, "--no-progress"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )


def test_cli_tournament_move_budget_forfeits_and_is_kept_for_resume(tmp_path: Path) -> None:
    """#53: `farlight evaluate --sealed` had --move-seconds, `farlight tournament --sealed` had
    none. A budget no decision can meet forfeits every one (counted per agent and per record),
    and --resume plays on with the stored budget, refusing a new one."""
    out = tmp_path / "t"
    args = ["--agents", "random,heuristic", "--games", "2", "--max-rounds", "1", "--sealed"]
    done = _tournament(*args, "--move-seconds", "0.000001", "--out", str(out))
    assert done.returncode == 0, done.stderr
    results = json.loads((out / "results.json").read_text())
    per_game = [sum(g["forfeits"]) for g in results["games"]]
    decisions = [
        sum(g["timing"]["decisions"]) for g in map(json.loads, (out / "games.jsonl").open())
    ]
    assert per_game == decisions and all(per_game)  # every decision over 1 microsecond
    assert f"forfeited over the move budget: {sum(per_game)} decisions (" in done.stdout
    spec = json.loads((out / "tournament.json").read_text())
    assert (spec["move_seconds"], spec["move_cpu_seconds"]) == (0.000001, None)
    again = _tournament("--resume", str(out))
    assert again.returncode == 0, again.stderr
    assert f"forfeited over the move budget: {sum(per_game)} decisions (" in again.stdout
    refused = _tournament("--resume", str(out), "--move-seconds", "5")
    assert refused.returncode == 2 and "drop --move-seconds" in refused.stderr


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--move-seconds", "1"], "--move-seconds and --move-cpu-seconds need --sealed"),
        (["--move-cpu-seconds", "1"], "need --sealed"),
        (
            ["--sealed", "--move-seconds", "0"],
            "--move-seconds: must be a positive number (> 0), got 0",
        ),
        (
            ["--sealed", "--move-cpu-seconds", "abc"],
            "--move-cpu-seconds: must be a positive number, got 'abc'",
        ),
        (["--sealed", "--move-seconds", "inf"], "positive number (> 0), got inf"),
    ],
)
def test_cli_tournament_move_budget_flags_are_checked_before_any_game(
    argv: list[str], words: str
) -> None:
    """#53: one or two lines and status 2, before a game or a sealed child starts."""
    from test_cli_errors import assert_one_clear_error

    assert_one_clear_error(_tournament("--games", "2", *argv), words)


def test_the_tournament_budget_reaches_every_sealed_game() -> None:
    budget = MoveBudget(seconds=2.0, cpu_seconds=1.0)
    specs = schedule(["random", "heuristic"], 2, 4, seed=1, sealed=True, move_budget=budget)
    assert all(s.move_budget == budget for s in specs)
    assert all(s.move_budget is None for s in schedule(["random"], 2, 2, 1, move_budget=budget))
    with pytest.raises(ValueError, match="sealed agents only"):
        run_tournament(["random", "heuristic"], 2, 2, move_budget=budget, progress=False)
    assert MoveBudget.given(None, None) is None and MoveBudget.given(None, 1.0).cpu_seconds == 1.0


def test_tournament_help_names_the_budget_and_its_default() -> None:
    out = _tournament("--help").stdout
    for flag in ("--move-seconds S", "--move-cpu-seconds S"):
        assert flag in out
    assert out.count("(default: no budget)") >= 2
