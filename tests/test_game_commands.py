"""`farlight random`, `bench` and `dataset` take `--game NAME` (#50): another declared game
(the duel, declared here as an installed package would declare it) is played through the
platform's State protocol and generic env; its mistakes are one line, status 2."""

from __future__ import annotations

import math
import re

import pytest

from farlight_env.measure.game_bench import bench_game
from farlight_env.measure.game_stats import game_random_stats, play_random
from tests.test_platform import _cli_with_duel
from tests.toy_game import DUEL


def _rows(lines: list[str], header: str) -> list[list[str]]:
    """The rows of the text table whose header starts with `header`, split into cells."""
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.strip() or not re.match(r"\s*\S+\s+\d", line):
            break
        rows.append(line.split())
    return rows


#: The registry lists the known games (installed ones first, in this process's order).
UNKNOWN = "unknown game 'nope'; the games are "


def _one_line(stderr: str, command: str, message: str) -> None:
    """`farlight COMMAND: error: MESSAGE`, alone; the unknown game's line names both games."""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith(f"farlight {command}: error: {message}")
    if message == UNKNOWN:
        names = lines[0].rpartition(UNKNOWN)[2].split(", ")
        assert sorted(names) == ["duel", "farlight"]
    else:
        assert lines[0] == f"farlight {command}: error: {message}"


def _number(text: str) -> float:
    return float(text.replace(",", "").rstrip("%"))


# ---- the figures, in process ------------------------------------------------------------------
def test_random_play_of_another_game_is_reproducible_and_adds_up() -> None:
    one = play_random(DUEL, 3, seed=5)
    assert one == play_random(DUEL, 3, seed=5)
    assert one.actions == 3 and len(one.scores) == 3 and one.winners
    report = game_random_stats(DUEL, 3, 30, seed=2, progress=False)
    assert report.games == 30 and [g.seed for g in report.played] == list(range(2, 32))
    assert math.isclose(sum(report.seat_win_share), 1.0)
    assert report.actions_min == report.actions_max == 3 and report.actions_mean == 3.0
    assert report.shared_wins == sum(len(g.winners) > 1 for g in report.played)
    assert all(0.0 <= s <= 1.0 for s in report.seat_score_mean)


def test_bench_of_another_game_counts_whole_games_of_state_and_env() -> None:
    result = bench_game(DUEL, [2, 4], games=3, seed=1)
    assert [(r.num_players, r.games, r.actions) for r in result.state] == [(2, 3, 6), (4, 3, 12)]
    # the env's loop steps once per decision and once more per seat at the end
    assert [(r.env, r.games, r.steps) for r in result.env.farlight] == [
        ("duel_platform", 3, 12),
        ("duel_platform", 3, 24),
    ]
    assert result.env.connect_four is None


# ---- farlight random --game -------------------------------------------------------------------
def test_farlight_random_plays_an_installed_game(tmp_path) -> None:
    args = ["random", "--game", "duel", "--players", "2,3", "--games", "12", "--seed", "4"]
    done = _cli_with_duel(tmp_path, *args, "--no-progress")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "random play: 12 games per player count, seeds 4..15"
    assert lines[1] == "game: duel (its defaults)"
    assert "rounds mean" not in done.stdout and "end:" not in done.stdout
    table = _rows(lines, "players  games  actions/game")
    assert [row[:5] for row in table] == [
        ["2", "12", "2.0", "2", "2"],
        ["3", "12", "3.0", "3", "3"],
    ]
    for row in table:
        players, shared = int(row[0]), int(row[5])
        scores = [_number(x) for x in row[6:]]
        assert len(scores) == players and all(0.0 <= s <= 1.0 for s in scores)
        assert 0 <= shared <= 12 and sum(scores) >= 1.0  # every game has a winner
    shares = _rows(lines, "players  seat 0")
    assert [row[0] for row in shares] == ["2", "3"]
    for row in shares:
        assert len(row) == 1 + int(row[0])
        assert math.isclose(sum(_number(x) for x in row[1:]), 100.0, abs_tol=0.2)


def test_farlight_random_keeps_the_counts_an_installed_game_allows(tmp_path) -> None:
    """The default (4 players) is within the duel's 2-4, so it stays."""
    done = _cli_with_duel(tmp_path, "random", "--game", "duel", "--games", "3", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert [row[0] for row in _rows(done.stdout.splitlines(), "players  games")] == ["4"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "nope"], UNKNOWN),
        (["--game", "duel", "--players", "2,5"], "duel is for 2-4 players, not 5"),
        (
            ["--game", "duel", "--max-rounds", "9"],
            "--max-rounds: Farlight's options, not duel's (use --game-option)",
        ),
        (
            ["--game", "duel", "--game-option", "colour=1"],
            "duel has no option 'colour'; its options are stakes",
        ),
        (
            ["--game-option", "stakes=2"],
            "--game-option is for another --game; Farlight's options have flags",
        ),
    ],
)
def test_farlight_random_refuses_in_one_line(tmp_path, args, message) -> None:
    done = _cli_with_duel(tmp_path, "random", "--games", "2", *args)
    assert done.returncode == 2
    _one_line(done.stderr, "random", message)


def test_farlights_player_range_is_refused_as_before(capsys) -> None:
    from farlight_cli.main import main

    with pytest.raises(SystemExit) as stopped:
        main(["random", "--players", "3,6", "--games", "1"])
    assert stopped.value.code == 2
    assert "argument --players: players must be in 2..5, got 6" in capsys.readouterr().err


# ---- farlight bench --game --------------------------------------------------------------------
def test_farlight_bench_measures_an_installed_games_state_and_env(tmp_path) -> None:
    args = ["bench", "--game", "duel", "--players", "2,3", "--seconds", "0.2", "--no-progress"]
    done = _cli_with_duel(tmp_path, *args)
    assert done.returncode == 0, done.stderr
    out, lines = done.stdout, done.stdout.splitlines()
    assert lines[0].startswith("machine: ") and lines[1] == "game: duel (its defaults)"
    assert "state benchmark: random legal play on duel's platform state" in out
    assert "env benchmark: random masked play through the platform's env('duel')" in out
    assert "Connect Four" not in out and "ismcts" not in out and "MaskablePPO" not in out
    state = _rows(lines, "players  games  actions")
    assert [row[0] for row in state] == ["2", "3"]
    for row in state:
        games, actions = int(row[1]), int(row[2])
        assert games > 0 and actions == games * int(row[0])  # one decision per seat
        assert all(_number(x) > 0 for x in row[5:8])
    env = _rows(lines, "          env  players")
    assert [row[:2] for row in env] == [["duel_platform", "2"], ["duel_platform", "3"]]
    assert all(_number(x) > 0 for row in env for x in row[5:8])
    for kind, unit in (("state", "actions"), ("env", "steps")):
        for n in (2, 3):
            said = re.search(rf"^{kind} at {n} players: ([\d,]+) {unit} per CPU-second", out, re.M)
            assert said and _number(said.group(1)) > 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "nope"], UNKNOWN),
        (["--game", "duel", "--players", "5"], "duel is for 2-4 players, not 5"),
        (
            ["--game", "duel", "--engine-only"],
            "--engine-only: Farlight's bench only; duel's bench measures its state and env "
            "side by side",
        ),
        (
            ["--game", "duel", "--grid-size", "7"],
            "--grid-size: Farlight's options, not duel's (use --game-option)",
        ),
    ],
)
def test_farlight_bench_refuses_in_one_line(tmp_path, args, message) -> None:
    done = _cli_with_duel(tmp_path, "bench", "--games", "1", *args)
    assert done.returncode == 2
    _one_line(done.stderr, "bench", message)


# ---- farlight dataset --game ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--game", "duel", "--agents", "random,ismcts"],
            "datasets are Farlight's for now; duel has no dataset format (its episodes would "
            "need their own observation space and env_spec)",
        ),
        (["--game", "nope"], UNKNOWN),
        (
            ["--game-option", "stakes=2"],
            "--game-option is for another --game; Farlight's options have flags",
        ),
    ],
)
def test_farlight_dataset_refuses_another_game_in_one_line(tmp_path, args, message) -> None:
    done = _cli_with_duel(
        tmp_path, "dataset", "--out", "test/duel-v0", "--root", str(tmp_path), *args
    )
    assert done.returncode == 2
    _one_line(done.stderr, "dataset", message)
    assert not (tmp_path / "test").exists()
