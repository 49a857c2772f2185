"""Training runs from the command line: a run that cannot start ends in one line with status 2
(checked before any worker starts), --help documents every option, a resumed run's log has
no stale rows, a run draws its learning curve, and environment workers die with their parent."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from processes import alive, terminal_sigint

pytest.importorskip("torch", reason="training needs the train extra (torch, SB3)")
pytest.importorskip("sb3_contrib", reason="training needs the train extra (sb3-contrib)")

from training.checkpoints import CHECKPOINT  # noqa: E402
from training.farlight.config import PPOConfig  # noqa: E402
from training.farlight.sb3 import train_ppo  # noqa: E402
from training.sb3.run_files import RUN_CONFIG, trim_log  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TINY = [
    "--total-steps",
    "128",
    "--n-steps",
    "64",
    "--batch-size",
    "32",
    "--n-epochs",
    "1",
    "--n-envs",
    "2",
    "--vec-env",
    "dummy",
    "--eval-every",
    "0",
    "--checkpoint-every",
    "0",
    "--opponents",
    "random",
    "--embed",
    "8",
    "--ship-features",
    "4",
    "--hidden",
    "16",
    "--vf",
    "8",
    "--no-progress",
]


def farlight(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, "-m", "farlight_cli", *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli")
    done = farlight("train", "ppo", "--run-dir", str(root / "run"), *TINY, cwd=root)
    assert done.returncode == 0, done.stderr
    return root / "run"


def bad_files(root: Path) -> dict[str, Path]:
    corrupt = root / "corrupt.pt"
    corrupt.write_bytes(b"not a policy at all")
    cards = root / "cards.toml"
    cards.write_text("[[parts]]\nname = 3\n")
    return {"corrupt": corrupt, "cards": cards}


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--opponents", "bogus"], "--opponents: unknown agent 'bogus'"),
        (["--opponents", "{corrupt}"], "corrupt.pt: not a loadable policy file"),
        (["--eval-opponents", "nobody", "--eval-every", "64"], "--eval-opponents: unknown"),
        (["--arch", "bogus"], "invalid choice: 'bogus'"),
        (["--ship-encoder", "fast"], "--ship-encoder: invalid choice: 'fast'"),
        (["--init-from", "nope.zip"], "no checkpoint at nope.zip"),
        (["--num-players", "7"], "--num-players must be 2..5, got 7"),
        (["--total-steps", "0"], "--total-steps must be an integer >= 1, got 0"),
        (["--n-envs", "0"], "--n-envs must be an integer >= 1"),
        (["--batch-size", "1000"], "--batch-size 1000 is larger than a rollout"),
        (["--learning-rate", "0"], "--learning-rate must be > 0.0"),
        (["--gamma", "1.5"], "--gamma must be a number in [0.0, 1.0]"),
        (["--opponents", "random,random,random"], "--opponents: give one agent or 1"),
        (["--hidden", "100000"], "--hidden must be at most 4096"),
        (["--card-set", "{cards}"], "cards.toml"),
        (["--grid-size", "43"], "--grid-size: grid_size must be odd"),
        (["--max-rounds", "20000"], "--max-rounds: max_rounds must be 1..10000"),
        (["--card-set", "missing.toml"], "missing.toml"),
        (["--resume"], "no run_config.json"),
    ],
    ids=lambda v: v if isinstance(v, str) else " ".join(v),
)
def test_a_run_that_cannot_start_is_one_or_two_lines_and_status_2(
    tmp_path: Path, argv: list[str], says: str, capsys: pytest.CaptureFixture
) -> None:
    """In-process (the same code path as the command, minus interpreter start-up)."""
    from farlight_cli.main import main

    files = bad_files(tmp_path)
    argv = [a.format(**files) for a in argv]
    # argv last: a flag given twice takes its last value
    try:
        status = main(["train", "ppo", "--run-dir", str(tmp_path / "run"), *TINY, *argv])
    except SystemExit as exc:  # argparse's own refusals
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2, err
    assert 1 <= len(err.strip().splitlines()) <= 2 or "usage:" in err
    assert says in err, err
    assert not (tmp_path / "run" / RUN_CONFIG).exists()


@pytest.mark.parametrize(
    ("kind", "argv", "says"),
    [
        ("ppo", ["--grid-size", "43"], "--grid-size: grid_size must be odd"),
        ("ppo", ["--max-rounds", "20000"], "--max-rounds: max_rounds must be 1..10000"),
        ("ppo", ["--card-set", "{cards}"], "cards.toml"),
        ("ppo", ["--init-from", "nope.zip"], "nope.zip"),
        ("self-play", ["--grid-size", "4"], "--grid-size: grid_size must be odd"),
        ("self-play", ["--baselines", "bogus"], "--baselines: unknown agent 'bogus'"),
        ("self-play", ["--total-steps", "0"], "--total-steps must be an integer >= 1"),
        ("self-play", ["--num-players", "7"], "--num-players must be 2..5"),
        ("self-play", ["--resume"], "no run_config.json"),
    ],
    ids=lambda v: v if isinstance(v, str) else " ".join(v),
)
def test_a_run_that_cannot_start_is_one_line_from_the_command(
    tmp_path: Path, kind: str, argv: list[str], says: str
) -> None:
    """The command as a user runs it (a subprocess, default subproc workers): one line, status
    2, no traceback, nothing written. The game options once failed inside the env workers."""
    argv = [a.format(**bad_files(tmp_path)) for a in argv]
    done = farlight("train", kind, "--run-dir", str(tmp_path / "run"), *argv, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert says in done.stderr, done.stderr
    assert not (tmp_path / "run").exists()


@pytest.mark.parametrize("opponent", ["bogus", "{corrupt}"])
def test_a_bad_opponent_fails_before_workers_start(tmp_path: Path, opponent: str) -> None:
    """Once 71 lines ending in a worker's ConnectionResetError: now one line, no traceback."""
    opponent = opponent.format(**bad_files(tmp_path))
    argv = ["--run-dir", str(tmp_path / "run"), *TINY, "--vec-env", "subproc"]
    done = farlight("train", "ppo", *argv, "--opponents", opponent, cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "--opponents" in done.stderr


@pytest.mark.slow
def test_a_used_run_folder_and_a_resume_without_checkpoint_are_one_line(
    cli_run: Path, tmp_path: Path
) -> None:
    again = farlight("train", "ppo", "--run-dir", str(cli_run), *TINY, cwd=tmp_path)
    assert again.returncode == 2 and "already holds a run" in again.stderr
    assert len(again.stderr.strip().splitlines()) == 1
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / RUN_CONFIG).write_text((cli_run / RUN_CONFIG).read_text())
    resume = farlight("train", "ppo", "--run-dir", str(empty), "--resume", cwd=tmp_path)
    assert resume.returncode == 2 and "before its first checkpoint" in resume.stderr
    assert "Traceback" not in again.stderr + resume.stderr


@pytest.mark.slow
def test_resume_refuses_options_it_would_ignore(cli_run: Path, tmp_path: Path) -> None:
    done = farlight(
        "train",
        "ppo",
        "--run-dir",
        str(cli_run),
        "--resume",
        "--learning-rate",
        "0.1",
        cwd=tmp_path,
    )
    assert done.returncode == 2
    assert "drop --learning-rate (stored: 0.0003)" in done.stderr


@pytest.mark.slow
def test_a_run_draws_its_learning_curve(cli_run: Path) -> None:
    from PIL import Image

    with Image.open(cli_run / "learning_curve.png") as image:
        assert image.size[0] > 400


def test_learning_curve_legend_is_short_and_off_the_curves(tmp_path: Path, monkeypatch) -> None:
    """An evaluation opponent given as a policy path once took the legend to 90 characters
    and squeezed the win-rate axes to a sliver; labels are short, the legend below the axes."""
    from training import curves

    long_path = "runs/a_long_experiment_name/checkpoints_of_the_best/policy_step_000128000.pt"
    (tmp_path / "logs").mkdir()
    write_csv(
        tmp_path / "logs" / "progress.csv",
        [
            [curves.STEP, "eval/win_rate_vs_heuristic", f"eval/win_rate_vs_{long_path}"],
            ["1000", "0.1", "0.5"],
            ["2000", "0.2", "0.4"],
        ],
    )
    drawn = []
    monkeypatch.setattr(curves, "_save", lambda fig, path: drawn.append(fig))
    curves.plot_ppo_curve(tmp_path)
    fig = drawn[0]
    fig.canvas.draw()
    rates, returns = fig.axes
    legend = rates.get_legend()
    texts = [t.get_text() for t in legend.get_texts()]
    assert texts == ["vs heuristic", "vs policy_step_0001280…"]
    box = legend.get_window_extent()
    for axes in (rates, returns):
        assert not box.overlaps(axes.get_window_extent()), "the legend covers a plot"
    assert rates.get_window_extent().width > 0.35 * fig.bbox.width
    assert curves.opponent_labels(["heuristic_3p", f"{long_path}_4p"]) == {
        "heuristic_3p": "heuristic, 3p",
        f"{long_path}_4p": "policy_step_0001280…, 4p",
    }


def test_stage_curves_chain_runs_on_one_step_axis(tmp_path: Path, monkeypatch) -> None:
    """A chain of runs: each stage cut where the next started, offset by the steps before it;
    PPO (eval/…) and league (league/…) columns both read, other columns ignored."""
    from training import curves

    first, second = tmp_path / "a", tmp_path / "b"
    for run in (first, second):
        (run / "logs").mkdir(parents=True)
    write_csv(
        first / "logs" / "progress.csv",
        [
            [curves.STEP, "eval/win_rate_vs_heuristic_2p", "eval/win_rate_vs_heuristic_5p"],
            ["100", "0.5", "0.2"],
            ["200", "0.6", "0.3"],
            ["300", "0.9", "0.9"],  # after the checkpoint the next stage started from
        ],
    )
    write_csv(
        second / "logs" / "progress.csv",
        [
            [curves.STEP, "league/win_rate_vs_heuristic_2p", "league/win_rate_vs_heuristic"],
            ["50", "0.8", "0.1"],
        ],
    )
    stages = [curves.Stage("one", first, until=200), curves.Stage("two", second)]
    assert curves.stage_rates(stages[0]) == {
        2: [(100, 0.5), (200, 0.6)],
        5: [(100, 0.2), (200, 0.3)],
    }
    assert curves.stage_rates(stages[1]) == {2: [(50, 0.8)]}
    drawn = []
    monkeypatch.setattr(curves, "_save", lambda fig, path: drawn.append(fig))
    curves.plot_stage_curves(stages, tmp_path / "chain.png")
    (axes,) = drawn[0].axes
    points = {
        line.get_label(): list(zip(*line.get_data(), strict=True)) for line in axes.get_lines()
    }
    assert points["2 players"] == [(100, 0.5), (200, 0.55), (250, (0.5 + 0.6 + 0.8) / 3)]
    assert points["5 players"] == [(100, 0.2), (200, 0.25)]
    assert [t.get_text() for t in axes.texts] == ["one", "two"]
    assert curves.rolling_mean([1.0, 2.0, 3.0, 4.0], 2) == [1.0, 1.5, 2.5, 3.5]


def test_help_documents_every_option_with_choices_and_defaults() -> None:
    from farlight_cli.main import build_parser

    commands = next(a for a in build_parser()._actions if a.dest == "command").choices
    parser = next(a for a in commands["train"]._actions if a.dest == "kind").choices["ppo"]
    text = " ".join(parser.format_help().split())
    assert "--arch {structured,flat}" in text
    assert "--vec-env {subproc,dummy}" in text
    assert "--reward-mode {win,margin,rank}" in text
    assert "(default: heuristic)" in text and "['heuristic']" not in text
    assert "%%" not in text
    for action in parser._actions:
        if action.option_strings[0].startswith("--") and action.dest not in ("help",):
            assert action.help and len(action.help) > 10, action.dest


def test_card_set_is_trained_on_and_recorded(tmp_path: Path) -> None:
    from farlight_env.cards.io import card_set_to_dict, standard_card_set

    cards = tmp_path / "mine.json"
    cards.write_text(json.dumps(card_set_to_dict(standard_card_set())))
    run_dir = tmp_path / "run"
    config = PPOConfig(
        run_dir=str(run_dir),
        total_steps=64,
        n_steps=32,
        batch_size=32,
        n_epochs=1,
        n_envs=2,
        vec_env="dummy",
        eval_every=64,
        eval_games=1,
        eval_opponents=["random"],
        opponents=["random"],
        card_set=str(cards),
        max_rounds=5,
        embed=8,
        ship_features=4,
        hidden=16,
        vf=[8],
    )
    train_ppo.train(config, progress=False)
    stored = json.loads((run_dir / RUN_CONFIG).read_text())
    assert stored["card_set"] == str(cards) and stored["max_rounds"] == 5
    from agents.farlight.policy import load_policy

    assert load_policy(run_dir / "policy.pt")[1]["card_set"] == str(cards)


# ------------------------------------------------------------------------------ logs
def write_csv(path: Path, rows: list[list[str]], torn: str = "") -> None:
    with path.open("w", newline="") as fh:
        csv.writer(fh).writerows(rows)
        fh.write(torn)


def test_resume_drops_log_rows_written_after_its_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "progress.csv"
    header = ["time/total_timesteps", "rollout/ep_rew_mean"]
    write_csv(
        path,
        [header, ["128", "0.1"], ["256", "0.2"], ["384", "0.3"]],
        torn="512,0.",
    )
    trim_log(path, 256)
    with path.open(newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows == [header, ["128", "0.1"], ["256", "0.2"]]


def _tensorboard_steps(folder: Path, tag: str) -> list[int]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = EventAccumulator(str(folder))
    events.Reload()
    return [event.step for event in events.Scalars(tag)]


def test_resume_hides_tensorboard_events_logged_after_its_checkpoint(tmp_path: Path) -> None:
    """A killed run logged 128..384 after its checkpoint at 256; the resumed run's log shows
    each step once, the new 384 in place of the stale one."""
    from training.sb3.run_files import run_logger

    def log(logger, steps: list[int], value: float) -> None:
        for step in steps:
            logger.record("rollout/ep_rew_mean", value)
            logger.dump(step)

    first = run_logger(tmp_path)
    log(first, [128, 256, 384], 0.0)
    first.close()
    # a resume comes later: event files load in name order, which starts with the second they
    # were made in; two writers made in one second loaded out of order once (under -n 2)
    time.sleep(1.1)
    resumed = run_logger(tmp_path, resumed_at=256)
    log(resumed, [384, 512], 1.0)
    resumed.close()
    assert _tensorboard_steps(tmp_path / "logs", "rollout/ep_rew_mean") == [128, 256, 384, 512]


def test_resumed_run_log_has_each_step_once(tmp_path: Path) -> None:
    """A run checkpointed at 128, then 'killed' after logging 256: the resume from 128 logs
    256 again, and the CSV holds each step once."""
    run_dir = tmp_path / "run"
    base = dict(
        run_dir=str(run_dir),
        n_steps=32,
        batch_size=32,
        n_epochs=1,
        n_envs=2,
        vec_env="dummy",
        eval_every=0,
        opponents=["random"],
        embed=8,
        ship_features=4,
        hidden=16,
        vf=[8],
        checkpoint_every=0,
    )
    train_ppo.train(PPOConfig(**base, total_steps=128), progress=False)
    saved = (run_dir / CHECKPOINT).read_bytes()
    train_ppo.train(PPOConfig(**base, total_steps=256), resume=True, progress=False)
    (run_dir / CHECKPOINT).write_bytes(saved)  # as if killed before the next checkpoint
    train_ppo.train(PPOConfig(**base, total_steps=256), resume=True, progress=False)
    with (run_dir / "logs" / "progress.csv").open(newline="") as fh:
        steps = [row["time/total_timesteps"] for row in csv.DictReader(fh)]
    assert len(steps) == len(set(steps)), steps
    assert [int(float(s)) for s in steps] == sorted(int(float(s)) for s in steps)


# ------------------------------------------------------------------------------ orphans
SUBPROC_SCRIPT = textwrap.dedent(
    """
    import sys, time
    from training.farlight.config import PPOConfig
    from training.farlight.sb3.train_ppo import build_env

    env = build_env(PPOConfig(n_envs=2, vec_env="subproc", opponents=["random"]))
    print(" ".join(str(p.pid) for p in env.venv.processes), flush=True)
    time.sleep(600)
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_subproc_env_workers_die_with_a_killed_trainer() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-c", SUBPROC_SCRIPT],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        workers = [int(p) for p in proc.stdout.readline().split()]
        assert len(workers) == 2 and all(alive(w) for w in workers)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        deadline = time.monotonic() + 10
        while any(alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(alive(w) for w in workers), "an env worker outlived its parent"
    finally:
        if proc.poll() is None:
            proc.kill()


def test_ctrl_c_names_the_training_command_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    from farlight_cli.main import main

    def interrupted(*_args: object, **_kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(train_ppo, "train", interrupted)
    assert main(["train", "ppo", "--run-dir", str(tmp_path / "run")]) == 130
    assert capsys.readouterr().err.strip() == (
        "farlight train ppo: interrupted; before its first checkpoint: start it again in an "
        "empty --run-dir"
    )


@pytest.mark.parametrize("kind", ["ppo", "self-play"])
def test_ctrl_c_with_subprocess_envs_is_one_line(tmp_path: Path, kind: str) -> None:
    """A terminal's Ctrl-C reaches the env workers too; closing the envs they left must not
    turn the interrupt into a broken-pipe traceback."""
    run = tmp_path / "run"
    argv = [a for a in TINY if a not in ("--opponents", "random")]
    argv[argv.index("dummy")] = "subproc"
    argv[argv.index("--total-steps") + 1] = "100000"
    argv[argv.index("--checkpoint-every") + 1] = "128"
    argv += ["--baselines", "random"] if kind == "self-play" else ["--opponents", "random"]
    if kind == "self-play":
        argv += ["--snapshot-every", "0"]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "farlight_cli", "train", kind, "--run-dir", str(run), *argv],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=terminal_sigint,
    )
    deadline = time.monotonic() + 240
    while not (run / CHECKPOINT).exists() and proc.poll() is None:
        assert time.monotonic() < deadline, "no checkpoint"
        time.sleep(0.1)
    time.sleep(1.0)  # mid-rollout
    os.killpg(proc.pid, signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err
    assert err.strip() == (
        f"farlight train {kind}: interrupted; the last checkpoint is kept in {run}: continue "
        f"with farlight train {kind} --resume --run-dir {run}"
    )
