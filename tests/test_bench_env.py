"""The env benchmark (`farlight bench`, farlight_env.tools.bench) on tiny budgets.

Only counts and output shape are checked here, never timings: speed is measured by running the
benchmark, not by a timed unit test.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest

from farlight_cli.main import main
from farlight_env import farlight_v0
from farlight_env.measure import timing
from farlight_env.tools import bench

ENV_COLUMNS = ("env", "players", "games", "steps", "seconds", "steps/s", "games/s", "steps/game")
RATIO_COLUMN = "vs Connect Four"
HAVE_PYGAME = importlib.util.find_spec("pygame") is not None
needs_pygame = pytest.mark.skipif(not HAVE_PYGAME, reason="Connect Four needs pygame")


def _env_rows(out: str) -> list[list[str]]:
    """Cells of the env table's data rows (the table whose header starts with "env")."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:2] == ["env", "players"])
    rows = []
    for line in lines[start + 2 :]:
        cells = line.split()
        if not cells or not cells[0].endswith(("_v0", "_v3")):
            break
        rows.append(cells)
    return rows


# ---- bench_env ----------------------------------------------------------------------------


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_bench_env_plays_whole_games_for_every_player_count(num_players):
    r = bench.bench_env(num_players, games=1, seed=0)
    assert r.env == bench.FARLIGHT and r.num_players == num_players
    assert r.games == 1 and r.steps > 100 and r.steps_per_game > 100
    assert r.seconds > 0 and r.steps_per_s > 0 and r.games_per_s > 0


@pytest.mark.parametrize("num_players", [2, 5])
def test_bench_env_time_budget_plays_at_least_one_game(num_players):
    r = bench.bench_env(num_players, seconds=0.01, seed=1)
    assert r.games >= 1 and r.steps > 100 * r.games


def test_bench_env_needs_a_budget():
    with pytest.raises(ValueError, match="number of games or a time budget"):
        bench.bench_env(2, seconds=None, games=None)


def test_bench_env_is_reproducible_from_its_seed():
    a = bench.bench_env(3, games=2, seed=5)
    b = bench.bench_env(3, games=2, seed=5)
    assert (a.games, a.steps) == (b.games, b.steps)


def test_slicing_a_run_does_not_change_its_games():
    whole = bench.farlight_runner(2, seed=3)
    whole.play(games=3)
    sliced = bench.farlight_runner(2, seed=3)
    for _ in range(3):
        sliced.play(games=1)
    assert (sliced.games, sliced.steps) == (whole.games, whole.steps) == (3, whole.steps)


@pytest.mark.parametrize("num_players", [2, 4])
def test_steps_count_every_env_step_including_the_final_none_steps(num_players):
    env = farlight_v0.env(num_players=num_players)
    steps = timing.play_env_game(env, game_seed=11)
    game = env.unwrapped.game
    assert game.is_over
    # one step per engine action, then one None step per agent to retire it
    assert steps == len(game.history) + num_players
    assert env.agents == []


def test_env_bench_result_rates():
    r = timing.EnvBenchResult("farlight_v0", 4, games=2, steps=500, seconds=0.5)
    assert r.steps_per_s == 1000 and r.games_per_s == 4 and r.steps_per_game == 250
    assert timing.EnvBenchResult("x", 2, 0, 0, 0.0).steps_per_game == 0.0


# ---- turns and suites -----------------------------------------------------------------------


def test_time_budget_is_split_into_equal_slices():
    budgets = timing._turn_budgets(seconds=3.0, games=None)
    assert len(budgets) == round(3.0 / timing.SLICE_SECONDS)
    assert sum(b["seconds"] for b in budgets) == pytest.approx(3.0)
    assert timing._turn_budgets(seconds=0.1, games=None) == [{"seconds": 0.1}]


@pytest.mark.parametrize("games", [1, 2, 7, 23])
def test_game_budget_is_split_into_chunks_that_add_up(games):
    budgets = timing._turn_budgets(seconds=None, games=games)
    assert len(budgets) == min(games, timing.GAME_TURNS)
    assert sum(b["games"] for b in budgets) == games
    assert all(b["games"] >= 1 for b in budgets)


def test_suite_without_connect_four_has_no_ratio():
    suite = bench.bench_env_suite([2, 3], games=2, connect_four=False)
    assert [(r.num_players, r.games) for r in suite.farlight] == [(2, 2), (3, 2)]
    assert suite.connect_four is None and suite.note is None
    assert suite.ratio(suite.farlight[0]) is None
    table = timing.format_env_results(suite)
    assert RATIO_COLUMN not in table


@needs_pygame
def test_suite_with_connect_four_gives_every_row_a_ratio():
    suite = bench.bench_env_suite([4], games=2, seed=0)
    c4 = suite.connect_four
    assert c4 is not None and c4.env == timing.CONNECT_FOUR and c4.games == 2
    # Connect Four ends after 7..42 moves, plus one None step per player
    assert 7 + 2 <= c4.steps_per_game <= 42 + 2
    assert suite.ratio(suite.farlight[0]) is not None
    assert suite.ratio(c4) == pytest.approx(1.0)


@needs_pygame
def test_turn_ratios_pair_each_turn_with_connect_fours_same_turn():
    suite = bench.bench_env_suite([4], games=3, seed=0)
    farlight, c4 = suite.farlight[0], suite.connect_four
    assert len(farlight.turn_rates) == len(c4.turn_rates) == 3  # 3 games: 3 turns of 1
    ratios = suite.turn_ratios(farlight)
    assert ratios == [a / b for a, b in zip(farlight.turn_rates, c4.turn_rates, strict=True)]
    assert suite.turn_ratios(c4) == pytest.approx([1.0, 1.0, 1.0])


def test_turn_rates_are_each_turns_steps_over_its_seconds():
    runner = bench.farlight_runner(2, seed=3)
    runner.play(games=1)
    first_steps, first_seconds = runner.steps, runner.seconds
    runner.play(games=1)
    rates = runner.result().turn_rates
    assert rates[0] == pytest.approx(first_steps / first_seconds)
    assert rates[1] == pytest.approx(
        (runner.steps - first_steps) / (runner.seconds - first_seconds)
    )


def test_without_connect_four_there_are_no_turn_ratios():
    suite = bench.bench_env_suite([2], games=1, connect_four=False)
    assert suite.turn_ratios(suite.farlight[0]) == []


@pytest.mark.parametrize(
    ("turns", "says"),
    [
        (
            [1.6, 1.5, 1.7],
            "per turn 1.50x-1.70x, median 1.60x; meets the 1.5x target in every turn",
        ),
        (
            [1.2, 1.4, 1.3],
            "per turn 1.20x-1.40x, median 1.30x; misses the 1.5x target in every turn",
        ),
        ([1.4, 1.55, 1.45, 1.6], "median 1.50x; reaches the 1.5x target in 2 of 4 turns"),
        ([], "meets the 1.5x target"),
    ],
)
def test_the_target_verdict_names_the_turns_spread(turns, says):
    assert timing.target_verdict(1.52, turns, 1.5).endswith(says)


def test_without_turns_a_low_ratio_misses():
    assert timing.target_verdict(1.49, [], 1.5) == "misses the 1.5x target"


@needs_pygame
def test_bench_connect_four_plays_whole_games():
    r = bench.bench_connect_four(games=3, seed=2)
    assert r.env == timing.CONNECT_FOUR and r.games == 3 and r.steps >= 3 * 9


@pytest.fixture
def no_pygame(monkeypatch):
    """Make `import pygame` fail and forget any Connect Four modules already imported."""
    monkeypatch.setitem(sys.modules, "pygame", None)
    for name in list(sys.modules):
        if name.startswith("pettingzoo.classic.connect_four"):
            monkeypatch.delitem(sys.modules, name)


def test_connect_four_without_pygame_says_how_to_get_it(no_pygame):
    with pytest.raises(timing.ConnectFourUnavailable, match="pip install pygame"):
        bench.bench_connect_four(games=1)


# ---- the command line -----------------------------------------------------------------------


def test_cli_env_only_prints_the_env_table(capsys):
    args = ["bench", "--env-only", "--players", "2", "--seconds", "0.5", "--no-connect-four"]
    assert main([*args, "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("machine: ") and "cores" in out
    assert out.splitlines()[1].startswith("game: ")
    assert "env benchmark" in out and "engine benchmark" not in out
    for col in ENV_COLUMNS:
        assert col in out
    assert RATIO_COLUMN not in out
    rows = _env_rows(out)
    assert len(rows) == 1 and rows[0][:2] == ["farlight_v0", "2"]
    games, steps = int(rows[0][2]), int(rows[0][3])
    assert games >= 1 and steps / games > 100


def test_cli_through_the_top_level_farlight_command(capsys):
    from farlight_cli.main import main as farlight_main

    args = ["bench", "--env-only", "--players", "3", "--games", "1", "--no-connect-four"]
    assert farlight_main([*args, "--no-progress"]) == 0
    rows = _env_rows(capsys.readouterr().out)
    assert [r[:3] for r in rows] == [["farlight_v0", "3", "1"]]


@needs_pygame
def test_cli_with_connect_four_prints_the_ratio(capsys):
    args = ["bench", "--env-only", "--players", "2,4", "--games", "1", "--no-progress"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert RATIO_COLUMN in out
    rows = _env_rows(out)
    assert [r[:2] for r in rows] == [["farlight_v0", "2"], ["farlight_v0", "4"]] + [
        ["connect_four_v3", "2"]
    ]
    assert all(r[-1].endswith("x") for r in rows)
    assert "Farlight at 4 players runs at" in out and "Connect Four's steps/s" in out
    assert "per turn " in out and "target" in out  # one game each: a turn per game
    assert "Hello from the pygame community" not in out


def test_cli_without_pygame_still_reports_farlight(capsys, no_pygame):
    args = ["bench", "--env-only", "--players", "4", "--games", "1", "--no-progress"]
    assert main(args) == 0
    out = capsys.readouterr().out
    skipped = "Connect Four skipped: needs the dev extra (pygame is not installed): "
    assert skipped + "pip install -e '.[dev]'" in out
    # said before the benchmark's description, which then leaves Connect Four out (it named
    # connect_four_v3.env() as measured, then said it was unavailable)
    assert out.index(skipped) < out.index("env benchmark") and "connect_four" not in out
    assert RATIO_COLUMN not in out
    assert [r[:3] for r in _env_rows(out)] == [["farlight_v0", "4", "1"]]


def test_cli_runs_engine_and_env_by_default(capsys):
    args = ["bench", "--players", "2", "--games", "1", "--no-connect-four", "--no-progress"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "engine benchmark" in out and "actions/s" in out
    assert "env benchmark" in out and "steps/s" in out
    assert out.index("engine benchmark") < out.index("env benchmark")


@pytest.mark.parametrize("flag", ["--engine-only", "--engine"])
def test_cli_engine_only(capsys, flag):
    assert main(["bench", flag, "--players", "2", "--games", "1", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "engine benchmark" in out and "env benchmark" not in out


def test_cli_engine_only_and_env_only_exclude_each_other(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["bench", "--engine-only", "--env-only"])
    assert exc.value.code == 2
    assert "not allowed with" in capsys.readouterr().err
