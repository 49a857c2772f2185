"""Tournaments: fair seat rotation, counts that add up, reproducible files, Ray, the CLI.

A tournament's results file must be the same bytes for the same seed whatever the number of
workers or the backend, and every game in it must replay from its record.
"""

from __future__ import annotations

import csv
import json
import math
import os
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

from evaluation.tournament import (
    TournamentResult,
    game_seed,
    placements,
    run_tournament,
    schedule,
    wilson_interval,
    write_results,
)
from farlight_cli.main import main
from farlight_env.game import FarlightGame, RuleOptions, action_from_dict

AGENTS = ["random", "heuristic"]
GAMES = 6
PLAYERS = 2
CONFIG = {"max_rounds": 3}
#: A seed at which random wins a game: with a perfect 6/6 record write_results crashes (see
#: test_write_results_after_a_perfect_record), which would hide what these tests check.
SEED = 9
TABLE_COLUMNS = ("agent", "seats", "wins", "win rate", "95% CI", "mean score", "rating")
#: Hard limit on the Ray test, Ray's start-up included.
RAY_TIMEOUT_SECONDS = 60


def tournament(seed: int = SEED, workers: int = 1) -> TournamentResult:
    return run_tournament(
        AGENTS,
        num_players=PLAYERS,
        games=GAMES,
        seed=seed,
        workers=workers,
        config=CONFIG,
        progress=False,
    )


@pytest.fixture(scope="module")
def serial() -> TournamentResult:
    return tournament(workers=1)


@pytest.fixture(scope="module")
def parallel() -> TournamentResult:
    return tournament(workers=2)


def results_bytes(result: TournamentResult, out: Path) -> bytes:
    return write_results(result, out)["results"].read_bytes()


# ------------------------------------------------------------------------------ schedule
@pytest.mark.parametrize(
    ("agents", "num_players"),
    [
        (["a", "b"], 2),
        (["a", "b", "c"], 2),
        (["a", "b", "c"], 4),
        (["a", "b"], 5),
    ],
)
def test_schedule_rotates_every_agent_through_every_seat(agents: list[str], num_players: int):
    blocks = 3
    specs = schedule(agents, num_players, games=blocks * len(agents), seed=1)
    assert [s.index for s in specs] == list(range(blocks * len(agents)))
    seats = Counter((seat, name) for s in specs for seat, name in enumerate(s.lineup))
    assert seats == {(seat, name): blocks for seat in range(num_players) for name in agents}
    per_agent = Counter(name for s in specs for name in s.lineup)
    assert len(set(per_agent.values())) == 1, f"unequal seat counts {per_agent}"
    for spec in specs:
        assert len(spec.lineup) == num_players
        assert spec.config["num_players"] == num_players


def test_schedule_blocks_share_a_seed() -> None:
    specs = schedule(["a", "b", "c"], 3, games=9, seed=4)
    for block in range(3):
        members = specs[block * 3 : block * 3 + 3]
        assert {s.seed for s in members} == {game_seed(4, block)}
    assert len({s.seed for s in specs}) == 3
    assert schedule(["a", "b", "c"], 3, games=9, seed=4) == specs


@pytest.mark.parametrize(("games", "expected"), [(1, 3), (3, 3), (4, 6), (7, 9)])
def test_schedule_rounds_games_up_to_whole_blocks(games: int, expected: int) -> None:
    specs = schedule(["a", "b", "c"], 2, games=games, seed=0)
    assert [s.index for s in specs] == list(range(expected))


def test_schedule_rejects_no_agents_and_no_games() -> None:
    with pytest.raises(ValueError, match="at least one agent"):
        schedule([], 2, games=2, seed=0)
    with pytest.raises(ValueError, match="games must be >= 1"):
        schedule(["a"], 2, games=0, seed=0)


# ------------------------------------------------------------------------------ fairness
@pytest.mark.parametrize("which", ["serial", "parallel"])
def test_results_add_up(which: str, request: pytest.FixtureRequest) -> None:
    result: TournamentResult = request.getfixturevalue(which)
    records = result.records
    assert [r["index"] for r in records] == list(range(GAMES))
    seats = Counter((seat, name) for r in records for seat, name in enumerate(r["players"]))
    assert seats == {(s, a): GAMES // len(AGENTS) for s in range(PLAYERS) for a in AGENTS}
    rows = {row.agent: row for row in result.summary}
    assert set(rows) == set(AGENTS)
    assert sum(row.seats_played for row in rows.values()) == GAMES * PLAYERS
    assert math.isclose(sum(row.wins for row in rows.values()), GAMES, abs_tol=1e-3)
    for row in rows.values():
        assert row.seats_played == GAMES * PLAYERS // len(AGENTS)
        assert row.win_rate == pytest.approx(row.wins / row.seats_played, abs=1e-3)
        assert row.win_low <= row.win_rate <= row.win_high
        low, high = wilson_interval(row.wins, row.seats_played)
        assert (row.win_low, row.win_high) == pytest.approx((low, high), abs=1e-3)
        assert row.rating == pytest.approx(row.rating_mu - 3 * row.rating_sigma)
    for r in records:
        assert r["winners"] and all(r["scores"][w] == max(r["scores"]) for w in r["winners"])
        # every rule option in force is recorded, so the record replays by them
        rules = RuleOptions().to_dict()
        assert r["config"] == {**CONFIG, "num_players": PLAYERS, "rule_options": rules}


def test_shared_victories_count_as_fractional_wins(serial: TournamentResult) -> None:
    """A victory shared by k seats gives each 1/k: wins still add up to the number of games."""
    fake = [dict(r) for r in serial.records]
    fake[0] = {**fake[0], "scores": [9, 9], "winners": [0, 1]}
    from evaluation.tournament import summarise

    rows = {row.agent: row for row in summarise(fake, AGENTS)}
    assert math.isclose(sum(row.wins for row in rows.values()), GAMES, abs_tol=1e-3)
    assert any(row.wins != int(row.wins) for row in rows.values())


# ------------------------------------------------------------------------------ reproducibility
def test_same_seed_same_results_file(serial: TournamentResult, tmp_path: Path) -> None:
    again = tournament(workers=1)
    assert results_bytes(serial, tmp_path / "a") == results_bytes(again, tmp_path / "b")


def test_workers_do_not_change_the_results_file(
    serial: TournamentResult, parallel: TournamentResult, tmp_path: Path
) -> None:
    assert results_bytes(serial, tmp_path / "one") == results_bytes(parallel, tmp_path / "two")


def test_policy_seats_give_the_same_results_with_any_number_of_workers(tmp_path: Path) -> None:
    """Policies (the shipped ones, a sub-game policy among them) decide from the position
    alone, so the results file does not depend on how the games are split."""
    pytest.importorskip("torch", reason="policies need the train extra (torch)")

    def run(workers: int) -> TournamentResult:
        return run_tournament(
            ["ppo", "bidder", "heuristic"],
            num_players=3,
            games=6,
            seed=3,
            workers=workers,
            config={"max_rounds": 4},
            progress=False,
        )

    assert results_bytes(run(1), tmp_path / "one") == results_bytes(run(2), tmp_path / "two")


def test_another_seed_gives_other_games(serial: TournamentResult) -> None:
    other = tournament(seed=SEED + 1)
    assert [r["game_seed"] for r in other.records] != [r["game_seed"] for r in serial.records]


def test_results_file_leaves_out_timing(serial: TournamentResult, tmp_path: Path) -> None:
    data = json.loads(write_results(serial, tmp_path)["results"].read_text())
    assert data["format"] == "farlight-tournament"
    assert data["agents"] == AGENTS and data["num_players"] == PLAYERS and data["seed"] == SEED
    assert len(data["games"]) == GAMES
    assert all("timing" not in game for game in data["games"])
    assert all("seconds_per_decision" not in row for row in data["summary"])


def test_every_record_replays(serial: TournamentResult) -> None:
    for record in serial.records:
        game = FarlightGame(
            record["config"]["num_players"],
            seed=record["game_seed"],
            max_rounds=record["config"]["max_rounds"],
        )
        for action in record["actions"]:
            game.apply(action_from_dict(action))
        assert game.is_over
        assert game.scores() == record["scores"]
        assert game.winners() == record["winners"]
        assert game.round == record["rounds"]
        assert game.final_breakdown == record["breakdown"]


# ------------------------------------------------------------------------------ statistics
def wilson(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval written out from its textbook formula."""
    p = successes / trials
    centre = (p + z**2 / (2 * trials)) / (1 + z**2 / trials)
    half = z / (1 + z**2 / trials) * math.sqrt(p * (1 - p) / trials + z**2 / (4 * trials**2))
    return max(0.0, centre - half), min(1.0, centre + half)


@pytest.mark.parametrize(
    ("wins", "trials", "expected"),
    [
        (0, 10, (0.0, 0.2775)),
        (10, 10, (0.7225, 1.0)),
        (5, 10, (0.2366, 0.7634)),
        (2.5, 5, wilson(2.5, 5)),
        (37, 100, wilson(37, 100)),
    ],
)
def test_wilson_interval(wins: float, trials: int, expected: tuple[float, float]) -> None:
    assert wilson_interval(wins, trials) == pytest.approx(expected, abs=1e-4)
    assert wilson_interval(wins, trials) == pytest.approx(wilson(wins, trials), abs=1e-12)


def test_wilson_interval_without_games_is_uninformative() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_interval_contains_a_perfect_or_a_zero_record() -> None:
    """At p = 1 the upper bound is exactly 1 and at p = 0 the lower bound exactly 0."""
    bad = [
        (wins, trials, wilson_interval(wins, trials))
        for trials in range(1, 61)
        for wins in (0, trials)
        if not wilson_interval(wins, trials)[0] <= wins / trials <= wilson_interval(wins, trials)[1]
    ]
    assert not bad, f"intervals that exclude the observed win rate: {bad[:4]} ..."


@pytest.mark.parametrize(
    ("scores", "winners", "expected"),
    [
        ([10, 10, 5], [0, 1], [1, 1, 3]),  # shared victory
        ([10, 10, 5], [1], [2, 1, 3]),  # tie broken by the face-down awards (R-END-4)
        ([3, 7, 7, 1], [1, 2], [3, 1, 1, 4]),
        ([4, 8, 4, 8, 2], [1, 3], [3, 1, 3, 1, 5]),  # equal losing scores share a place
        ([5, 5], [0, 1], [1, 1]),
    ],
)
def test_placements(scores: list[int], winners: list[int], expected: list[int]) -> None:
    assert placements({"scores": scores, "winners": winners}) == expected


# ------------------------------------------------------------------------------ output files
def test_write_results_files(serial: TournamentResult, tmp_path: Path) -> None:
    paths = write_results(serial, tmp_path / "out")
    for key in ("results", "games", "summary", "timing", "plot"):
        assert paths[key].is_file(), key
    assert paths["results"].name == "results.json" and paths["plot"].name == "ratings.png"
    with paths["games"].open(newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == GAMES
    assert [int(r["index"]) for r in rows] == list(range(GAMES))
    assert {r["seat0_agent"] for r in rows} == set(AGENTS)
    with paths["summary"].open(newline="") as fh:
        summary = list(csv.DictReader(fh))
    assert [r["agent"] for r in summary] == AGENTS
    assert sum(int(r["seats_played"]) for r in summary) == GAMES * PLAYERS
    with Image.open(paths["plot"]) as image:
        image.verify()
        assert image.format == "PNG"
    with Image.open(paths["plot"]) as image:
        assert image.size[0] > 100 and image.size[1] > 100
    assert set(json.loads(paths["timing"].read_text())) == set(AGENTS)


def test_write_results_after_a_perfect_record(tmp_path: Path) -> None:
    """The usual outcome of heuristic vs random: 6 wins in 6 seats. The Wilson bound then comes
    out a hair below 1.0 and the plot's error bar negative; the files must still be written."""
    result = run_tournament(
        AGENTS, num_players=2, games=6, seed=7, config={"max_rounds": 6}, progress=False
    )
    rows = {row.agent: row for row in result.summary}
    assert rows["heuristic"].wins == rows["heuristic"].seats_played == 6  # the perfect record
    paths = write_results(result, tmp_path)
    assert paths["plot"].is_file()
    assert rows["heuristic"].win_high == 1.0


def test_table_has_every_column(serial: TournamentResult) -> None:
    header = serial.table().splitlines()[0]
    for column in TABLE_COLUMNS:
        assert column in header


def test_unknown_agent_fails_before_any_game() -> None:
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        run_tournament(["random", "nobody"], num_players=2, games=2, progress=False)
    with pytest.raises(ValueError, match="backend"):
        run_tournament(AGENTS, num_players=2, games=2, backend="dask", progress=False)


# ------------------------------------------------------------------------------ Ray
RAY_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import ray

    real_init = ray.init
    calls = []

    def init(*args, **kwargs):
        calls.append(kwargs)
        try:
            return real_init(*args, **kwargs)
        except Exception as exc:  # the sandbox cannot start Ray: the test skips
            print(f"RAY-CANNOT-START {type(exc).__name__}: {exc}", file=sys.stderr)
            sys.exit(3)

    ray.init = init
    from evaluation.tournament import run_tournament

    result = run_tournament(
        ["random", "heuristic"], num_players=2, games=2, seed=5, workers=2,
        backend="ray", config={"max_rounds": 4}, progress=False,
    )
    assert len(calls) == 1 and calls[0].get("num_cpus") == 2, calls
    assert not ray.is_initialized(), "run_tournament left its Ray instance running"
    records = [{k: v for k, v in r.items() if k != "timing"} for r in result.records]
    with open(sys.argv[1], "w") as fh:
        json.dump(records, fh)
    """
)


@pytest.mark.slow
def test_ray_backend_on_a_local_cluster_matches_local(tmp_path: Path) -> None:
    """run_tournament(backend="ray") starts a local Ray instance and plays the same games.

    Runs in a child process so that a hung Ray start-up fails after RAY_TIMEOUT_SECONDS
    instead of stalling the suite, and so no Ray state leaks into the test worker.
    """
    pytest.importorskip("ray")
    out = tmp_path / "ray_records.json"
    try:
        proc = subprocess.run(
            [sys.executable, "-c", RAY_SCRIPT, str(out)],
            capture_output=True,
            text=True,
            timeout=RAY_TIMEOUT_SECONDS,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the Ray tournament did not finish within {RAY_TIMEOUT_SECONDS} s")
    if proc.returncode == 3 and "RAY-CANNOT-START" in proc.stderr:
        reason = proc.stderr.split("RAY-CANNOT-START", 1)[1].strip().splitlines()[0]
        pytest.skip(f"Ray cannot start a local instance in this sandbox: {reason}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    ray_records = json.loads(out.read_text())
    local = run_tournament(
        AGENTS,
        num_players=2,
        games=2,
        seed=5,
        workers=1,
        config={"max_rounds": 4},
        progress=False,
    )
    expected = [{k: v for k, v in r.items() if k != "timing"} for r in local.records]
    assert ray_records == json.loads(json.dumps(expected))


# ------------------------------------------------------------------------------ CLI
def test_cli_tournament_prints_the_table_and_writes_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cli"
    status = main(
        [
            "tournament",
            "--agents",
            "random,heuristic",
            "--players",
            "2",
            "--games",
            "2",
            "--max-rounds",
            "3",
            "--seed",
            "3",
            "--no-progress",
            "--out",
            str(out),
        ]
    )
    assert status == 0
    text = capsys.readouterr().out
    header = next(line for line in text.splitlines() if line.startswith("agent"))
    for column in TABLE_COLUMNS:
        assert column in header, f"table header lacks {column!r}: {header}"
    assert "random" in text and "heuristic" in text
    for name in ("results.json", "games.csv", "summary.csv", "ratings.png"):
        assert (out / name).is_file(), name
    data = json.loads((out / "results.json").read_text())
    assert len(data["games"]) == 2 and data["seed"] == 3


def test_cli_tournament_passes_search_options_to_ismcts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["tournament", "--agents", "ismcts,random", "--games", "2", "--max-rounds", "1"]
    assert main([*argv, "--ismcts-iterations", "2", "--no-progress"]) == 0
    assert "ismcts" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("flag", "value", "says"),
    [
        ("--agents", "random,bogus", "bogus"),
        ("--agents", ",", "at least one agent"),
        ("--players", "6", "2..5"),
        ("--players", "1", "2..5"),
        ("--players", "two", "two"),
        ("--games", "0", "positive"),
    ],
)
def test_cli_tournament_bad_values_exit_2_naming_the_flag(
    flag: str, value: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as info:
        main(["tournament", flag, value, "--no-progress"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert flag in err and says in err, err


def test_worker_processes_use_one_math_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """N spawn workers on N cores must not each start one torch thread per core."""
    from agents.torch_threads import single_threaded_worker

    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        monkeypatch.delenv(name, raising=False)
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    try:
        single_threaded_worker()
        assert os.environ["OMP_NUM_THREADS"] == "1"
        assert os.environ["MKL_NUM_THREADS"] == "1"
        assert torch.get_num_threads() == 1
    finally:
        torch.set_num_threads(before)


def test_tournament_plays_the_configured_game_and_replay_uses_the_record(tmp_path, capsys):
    """--card-set, --grid-size and --max-rounds reach every game, its record and the replay."""
    from farlight_env.records.record import load_record, new_game, verify_record

    standard = Path(__file__).parent.parent / "farlight_env" / "cards" / "data" / "standard.toml"
    cards = tmp_path / "mine.toml"
    cards.write_text(standard.read_text().replace('name = "standard"', 'name = "mine"', 1))
    out = tmp_path / "out"
    args = ["tournament", "--agents", "random,heuristic", "--games", "2", "--no-progress"]
    args += ["--card-set", str(cards), "--grid-size", "9", "--max-rounds", "2", "--out", str(out)]
    assert main(args) == 0
    assert "cards " + str(cards) + " (mine), grid 9, round cap 2" in capsys.readouterr().out
    record = load_record(out / "results.json", 0)
    assert record["config"] == {
        "num_players": 2,
        "grid_size": 9,
        "max_rounds": 2,
        "rule_options": RuleOptions().to_dict(),
    }
    assert record["card_set"]["name"] == "mine"
    game = new_game(record)
    assert game.cards.name == "mine" and game.config.grid_size == 9
    assert verify_record(record).scores() == record["scores"]
    assert main(["replay", str(out / "results.json"), "--game", "0"]) == 0
    assert "grid_size=9, max_rounds=2, num_players=2, cards mine" in capsys.readouterr().out


def test_the_cli_says_when_games_are_rounded_up(tmp_path) -> None:
    """`--games 4` with 3 agents plays 6 games (whole duplicate blocks): the output says so,
    not only `--help` (issue #26)."""
    import subprocess
    import sys

    base = [sys.executable, "-m", "farlight_cli", "tournament", "--players", "3"]
    base += ["--agents", "random,heuristic,random", "--no-progress", "--max-rounds", "2"]
    done = subprocess.run([*base, "--games", "4"], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == (
        "playing 6 games: --games 4 rounded up to whole blocks of 3 (each deal is played once "
        "per rotation of the 3 agents)"
    )
    assert "3-player tournament, 6 games" in done.stdout
    exact = subprocess.run([*base, "--games", "3"], capture_output=True, text=True, timeout=300)
    assert "rounded up" not in exact.stdout and "3 games" in exact.stdout
