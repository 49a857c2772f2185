"""Training scripts end to end on tiny budgets: MaskablePPO runs, checkpoints, kill-and-resume
and the `farlight train` command (league self-play: tests/test_self_play.py).

Issue 5: a run killed with SIGKILL loses at most one checkpoint interval; --resume continues
with the step count and optimiser state intact and the stored configuration; corrupt or
foreign checkpoints are refused with a clear error; the exported policy acts legally.
Budgets are a few hundred steps so the whole module stays well under two minutes.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="training needs the train extra (torch, SB3)")
pytest.importorskip("sb3_contrib", reason="training needs the train extra (sb3-contrib)")

from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3.common.vec_env import SubprocVecEnv  # noqa: E402
from training_runs import (  # noqa: E402
    ADAM_STEPS_PER_UPDATE,
    BATCH,
    N_ENVS,
    N_STEPS,
    PLAYER_COUNTS,
    ROLLOUT,
    adam_steps,
    assert_acts_legally,
    csv_rows,
    random_states,
    tiny_league,
    tiny_ppo,
)

from agents.farlight.policy import PolicyAgent, load_policy  # noqa: E402
from farlight_cli.main import main as farlight  # noqa: E402
from training.checkpoints import (  # noqa: E402
    CHECKPOINT,
    check_checkpoint,
    checkpoint_steps,
)
from training.farlight.config import PPOConfig, SelfPlayConfig  # noqa: E402
from training.farlight.sb3 import self_play, train_ppo  # noqa: E402
from training.farlight.sb3.live_eval import LivePolicy  # noqa: E402
from training.farlight.sb3.ppo_model import load_checkpoint  # noqa: E402
from training.run_config import stream_seed  # noqa: E402
from training.sb3 import runs  # noqa: E402
from training.sb3.run_files import RUN_CONFIG  # noqa: E402

torch.set_num_threads(1)

ROOT = Path(__file__).resolve().parents[1]


def logged_steps(run_dir: Path) -> set[int]:
    steps = set()
    for row in csv_rows(run_dir):
        try:
            steps.add(int(float(row.get("time/total_timesteps") or "")))
        except ValueError:  # an empty cell, or a line being written by a live run
            continue
    return steps


# ------------------------------------------------------------------------------ a tiny run
@pytest.fixture(scope="module")
def ppo_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, PPOConfig, MaskablePPO]:
    run_dir = tmp_path_factory.mktemp("ppo") / "run"
    config = tiny_ppo(run_dir)
    model = train_ppo.train(config, progress=False)
    return run_dir, config, model


def test_tiny_run_writes_checkpoint_policy_config_and_logs(ppo_run) -> None:
    run_dir, config, model = ppo_run
    assert model.num_timesteps == config.total_steps
    for name in (CHECKPOINT, "policy.pt", RUN_CONFIG, "logs/progress.csv"):
        assert (run_dir / name).is_file(), name
    assert list((run_dir / "logs").glob("events.out.tfevents.*")), "no TensorBoard events"
    assert not list(run_dir.glob("*.tmp*")), "a temporary file was left behind"
    assert json.loads((run_dir / RUN_CONFIG).read_text()) == asdict(config)
    assert checkpoint_steps(run_dir / CHECKPOINT) == config.total_steps


def test_tiny_run_logs_evaluation_win_rates(ppo_run) -> None:
    run_dir, config, _model = ppo_run
    rows = csv_rows(run_dir)
    for opponent in config.eval_opponents:
        column = f"eval/win_rate_vs_{opponent}"
        assert column in rows[0], column
        values = [float(row[column]) for row in rows if row[column]]
        assert values and all(0.0 <= v <= 1.0 for v in values)
    assert max(logged_steps(run_dir)) == config.total_steps


def test_csv_evaluation_rows_say_at_which_step(ppo_run) -> None:
    """Every CSV row holding an evaluation must hold its step too, so the CSV alone can plot
    win rate against training steps (TensorBoard gets the step from dump(step); the CSV
    writer ignores it, and the evaluation rows leave time/total_timesteps empty)."""
    run_dir, _config, _model = ppo_run
    rows = [row for row in csv_rows(run_dir) if row.get("eval/win_rate_vs_random")]
    assert rows
    assert all(row.get("time/total_timesteps") for row in rows), rows


def test_the_last_step_is_evaluated_when_it_is_a_multiple_of_eval_every(ppo_run) -> None:
    """--total-steps 512 --eval-every 256 evaluates at 256 and 512 (the curve used to end at
    256: evaluations ran when a rollout started, and none starts after the last update)."""
    run_dir, config, _model = ppo_run
    assert config.total_steps % config.eval_every == 0
    rows = [row for row in csv_rows(run_dir) if row.get("eval/win_rate_vs_random")]
    evaluated = [int(float(row["time/total_timesteps"])) for row in rows]
    assert evaluated == list(range(config.eval_every, config.total_steps + 1, config.eval_every))


def test_logs_record_episode_returns_and_lengths(ppo_run) -> None:
    """The learning curve every SB3 user looks for: rollout/ep_rew_mean and ep_len_mean.
    SB3 only logs them for envs wrapped in Monitor, which a hand-built VecEnv is not."""
    run_dir, _config, _model = ppo_run
    columns = csv_rows(run_dir)[0].keys()
    assert "rollout/ep_rew_mean" in columns and "rollout/ep_len_mean" in columns


def load_run(run_dir: Path, config: PPOConfig) -> MaskablePPO:
    """A run's checkpoint loaded into the model its config builds (one-process envs)."""
    env = train_ppo.build_env(dataclasses.replace(config, vec_env="dummy"))
    return load_checkpoint(run_dir / CHECKPOINT, env, config)


def test_tiny_run_checkpoint_passes_the_check_and_loads(ppo_run) -> None:
    run_dir, config, _model = ppo_run
    check_checkpoint(run_dir / CHECKPOINT)
    loaded = load_run(run_dir, config)
    assert loaded.num_timesteps == config.total_steps
    updates = config.total_steps // ROLLOUT
    assert adam_steps(loaded) == {updates * ADAM_STEPS_PER_UPDATE}


def test_exported_policy_describes_its_training(ppo_run) -> None:
    run_dir, config, _model = ppo_run
    _net, saved = load_policy(run_dir / "policy.pt")
    assert saved["name"] == "ppo"
    assert saved["trained_steps"] == config.total_steps
    assert saved["num_players"] == config.num_players
    assert saved["opponents"] == config.opponents
    assert saved["pi"] == config.pi and saved["embed"] == config.embed


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_exported_policy_acts_legally(ppo_run, num_players: int) -> None:
    run_dir, _config, _model = ppo_run
    agent = PolicyAgent(run_dir / "policy.pt", seed=num_players)
    assert_acts_legally(agent, num_players, seed=300 + num_players)


def test_exported_policy_plays_as_the_trained_model(ppo_run) -> None:
    """The actor rebuilt without SB3 picks what MaskablePPO's masked deterministic predict
    picks: the export drops nothing the actor needs."""
    run_dir, _config, model = ppo_run
    exported = PolicyAgent(run_dir / "policy.pt")
    live = LivePolicy(model)
    for num_players in (2, 4):
        for obs, mask, info in random_states(num_players, seed=7, every=13):
            assert exported.act(obs, mask, info) == live.act(obs, mask, info)


@pytest.fixture(scope="module")
def structured_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, MaskablePPO]:
    run_dir = tmp_path_factory.mktemp("structured") / "run"
    config = tiny_ppo(
        run_dir,
        arch="structured",
        embed=8,
        ship_features=4,
        hidden=16,
        vf=[8],
        total_steps=ROLLOUT,
        eval_every=0,
        bc_games=1,
        bc_epochs=1,
    )
    train_ppo.train(config, progress=False)
    resumed = train_ppo.train(
        PPOConfig(run_dir=str(run_dir), total_steps=2 * ROLLOUT), resume=True, progress=False
    )
    return run_dir, resumed


def test_structured_run_exports_the_actor_it_trained(structured_run) -> None:
    """The structured network (per-target bids, per-cell installs) trains, resumes and exports
    an actor that picks what MaskablePPO's masked deterministic predict picks."""
    run_dir, model = structured_run
    assert model.num_timesteps == 2 * ROLLOUT
    assert adam_steps(model) == {2 * ADAM_STEPS_PER_UPDATE}
    exported = PolicyAgent(run_dir / "policy.pt")
    assert exported.config["arch"] == "structured"
    assert exported.config["trained_steps"] == 2 * ROLLOUT
    live = LivePolicy(model)
    for num_players in (2, 5):
        for obs, mask, info in random_states(num_players, seed=11, every=13):
            action = exported.act(obs, mask, info)
            assert mask[action] == 1
            assert action == live.act(obs, mask, info)


def test_unknown_architecture_is_refused_before_training(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="--arch must be one of structured, flat, got 'resnet'"):
        train_ppo.train(tiny_ppo(tmp_path / "run", arch="resnet"), progress=False)
    assert not (tmp_path / "run").exists()


def test_new_run_in_a_used_directory_is_refused_naming_resume(ppo_run) -> None:
    run_dir, config, _model = ppo_run
    before = {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file()}
    with pytest.raises(runs.RunError, match="--resume"):
        train_ppo.train(tiny_ppo(run_dir, seed=1), progress=False)
    after = {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file()}
    assert after == before


def test_subproc_vector_env_run(tmp_path: Path) -> None:
    config = tiny_ppo(tmp_path / "run", vec_env="subproc", eval_every=0)
    model = train_ppo.train(config, progress=False)
    assert isinstance(model.get_env().unwrapped, SubprocVecEnv)
    assert model.num_timesteps == config.total_steps
    check_checkpoint(tmp_path / "run" / CHECKPOINT)
    assert_acts_legally(PolicyAgent(tmp_path / "run" / "policy.pt"), 3, seed=1)


def test_training_against_a_saved_policy(ppo_run, tmp_path: Path) -> None:
    """Opponents may be saved policy files as well as registered names."""
    opponent = str(ppo_run[0] / "policy.pt")
    config = tiny_ppo(
        tmp_path / "run", num_players=3, opponents=[opponent, "random"], total_steps=ROLLOUT
    )
    config.eval_every = 0
    model = train_ppo.train(config, progress=False)
    assert model.num_timesteps == ROLLOUT


def test_progress_bar_reaches_the_total(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    config = tiny_ppo(tmp_path / "run", total_steps=ROLLOUT, eval_every=0)
    train_ppo.train(config, progress=True)
    err = capsys.readouterr().err
    assert "training" in err and f"{ROLLOUT}/{ROLLOUT}" in err


def test_progress_bar_redraws_at_a_human_rate(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """tqdm throttles redraws (mininterval 0.1 s) unless forced: a redraw per env step floods
    notebooks (one output message each) and slows long runs."""
    config = tiny_ppo(tmp_path / "run", total_steps=ROLLOUT, eval_every=0)
    train_ppo.train(config, progress=True)
    redraws = capsys.readouterr().err.count("\r")
    assert redraws < ROLLOUT // 4, f"{redraws} redraws for {ROLLOUT} steps"


# ------------------------------------------------------------------------------ resume
@pytest.fixture(scope="module")
def resumed_run(tmp_path_factory: pytest.TempPathFactory):
    """One rollout, then --resume to two with a command line that differs from the stored
    config in everything but total_steps (resume must keep the stored configuration)."""
    run_dir = tmp_path_factory.mktemp("resume") / "run"
    config = tiny_ppo(run_dir, total_steps=ROLLOUT, eval_every=0)
    first = train_ppo.train(config, progress=False)
    stored = (run_dir / RUN_CONFIG).read_text()
    steps_before = logged_steps(run_dir)
    other = PPOConfig(run_dir=str(run_dir), total_steps=2 * ROLLOUT, eval_every=ROLLOUT)
    model = train_ppo.train(other, resume=True, progress=False)
    return run_dir, config, first, model, stored, steps_before


def test_resume_continues_to_the_requested_total(resumed_run) -> None:
    run_dir, _config, first, model, _stored, _before = resumed_run
    assert first.num_timesteps == ROLLOUT
    assert model.num_timesteps == 2 * ROLLOUT
    assert checkpoint_steps(run_dir / CHECKPOINT) == 2 * ROLLOUT
    assert load_policy(run_dir / "policy.pt")[1]["trained_steps"] == 2 * ROLLOUT


def test_resume_keeps_the_stored_configuration_and_records_the_new_budget(resumed_run) -> None:
    """run_config.json after a resume says what the run now is: the new total and the
    changed evaluation interval, everything else as stored."""
    run_dir, config, _first, model, stored, _before = resumed_run
    after = json.loads((run_dir / RUN_CONFIG).read_text())
    assert after == {**json.loads(stored), "total_steps": 2 * ROLLOUT, "eval_every": ROLLOUT}
    assert model.n_steps == config.n_steps
    assert model.batch_size == config.batch_size
    assert model.learning_rate == config.learning_rate
    assert model.n_envs == config.n_envs


def test_resume_restores_the_optimiser_state(resumed_run) -> None:
    _run_dir, _config, first, model, _stored, _before = resumed_run
    assert adam_steps(first) == {ADAM_STEPS_PER_UPDATE}
    # A fresh optimiser would count only the updates made after resuming.
    assert adam_steps(model) == {2 * ADAM_STEPS_PER_UPDATE}


def test_resume_keeps_the_earlier_csv_log(resumed_run) -> None:
    """The CSV log of the steps before --resume must survive it (SB3's CSV logger opens
    progress.csv with mode 'w+', so configure() on resume truncates it)."""
    run_dir, _config, _first, _model, _stored, before = resumed_run
    assert before == {ROLLOUT}
    assert logged_steps(run_dir) >= {ROLLOUT, 2 * ROLLOUT}


def test_resume_to_a_reached_total_changes_nothing_but_rewrites_the_checkpoint(
    resumed_run,
) -> None:
    run_dir, _config, _first, _model, _stored, _before = resumed_run
    model = train_ppo.train(
        PPOConfig(run_dir=str(run_dir), total_steps=2 * ROLLOUT), resume=True, progress=False
    )
    assert model.num_timesteps == 2 * ROLLOUT
    check_checkpoint(run_dir / CHECKPOINT)


def _train_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "farlight_cli", "train", "ppo", *args, "--no-progress"],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_resume_to_fewer_steps_than_reached_is_refused_and_changes_nothing(
    ppo_run, tmp_path: Path
) -> None:
    """It exited 0, trained nothing, printed "trained 512 steps" and wrote the smaller budget
    into run_config.json."""
    run_dir = tmp_path / "run"
    shutil.copytree(ppo_run[0], run_dir)
    before = {name: (run_dir / name).read_bytes() for name in (RUN_CONFIG, CHECKPOINT)}
    done = _train_cli("--resume", "--run-dir", str(run_dir), "--total-steps", "128")
    assert done.returncode == 2, done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        f"farlight train ppo: error: the run in {run_dir} is already at 512 steps, more than "
        "--total-steps 128: give a --total-steps above 512 to train on"
    ]
    assert {name: (run_dir / name).read_bytes() for name in before} == before


def test_a_resume_to_the_steps_reached_says_there_was_nothing_to_train(
    ppo_run, tmp_path: Path
) -> None:
    run_dir = tmp_path / "run"
    shutil.copytree(ppo_run[0], run_dir)
    done = _train_cli("--resume", "--run-dir", str(run_dir))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("nothing to train: the run is already at 512 steps"), done.stdout
    assert "trained 512" not in done.stdout
    assert checkpoint_steps(run_dir / CHECKPOINT) == 512


@pytest.fixture
def dealt(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The game seeds of every learner step taken in this process, in order."""
    from farlight_env.env.single_agent import FarlightSingleAgentEnv

    seen: list[int] = []
    step = FarlightSingleAgentEnv.step

    def recording(self: FarlightSingleAgentEnv, action: int) -> tuple:
        seen.append(self.aec.game.seed)
        return step(self, action)

    monkeypatch.setattr(FarlightSingleAgentEnv, "step", recording)
    return seen


def _games_of(dealt: list[int]) -> list[int]:
    return list(dict.fromkeys(dealt))  # each game once, in the order first played


@pytest.mark.parametrize("trainer", ["ppo", "self-play"])
def test_a_resume_deals_new_games_not_the_runs_first_ones_again(
    trainer: str, tmp_path: Path, dealt: list[int]
) -> None:
    """A resumed run used to rebuild its envs from the run's seed and replay the deals the run
    began with; it continues from a seed of its own per step count (`stream_seed`), the same
    each time the same checkpoint is resumed."""
    module, make = (train_ppo, tiny_ppo) if trainer == "ppo" else (self_play, tiny_league)
    run_dir = tmp_path / "run"
    config = make(run_dir, total_steps=ROLLOUT, eval_every=0, checkpoint_every=ROLLOUT)
    module.train(config, progress=False)
    first = _games_of(dealt)
    copy = tmp_path / "copy"
    shutil.copytree(run_dir, copy)
    resumed = []
    for folder in (run_dir, copy):
        dealt.clear()
        again = dataclasses.replace(config, run_dir=str(folder), total_steps=2 * ROLLOUT)
        module.train(again, resume=True, progress=False, given=["total_steps"])
        resumed.append(_games_of(dealt))
    assert len(first) >= 2 and len(resumed[0]) >= 2
    assert not set(resumed[0]) & set(first)
    assert resumed[0] == resumed[1]


def test_stream_seed_is_the_runs_own_at_the_start_and_one_per_step_count_after() -> None:
    assert stream_seed(7, 0) == 7
    later = [stream_seed(7, steps) for steps in (256, 512, 1024)]
    assert later == [stream_seed(7, steps) for steps in (256, 512, 1024)]
    assert len({7, *later, stream_seed(8, 256)}) == 5
    assert all(0 <= s < 2**31 for s in later)


def test_kill_then_resume_loses_at_most_one_checkpoint_interval(tmp_path: Path) -> None:
    run_dir = tmp_path / "killed"
    cmd = [
        sys.executable,
        "-m",
        "farlight_cli",
        "train",
        "ppo",
        "--run-dir",
        str(run_dir),
        "--total-steps",
        "1000000",
        "--n-steps",
        str(N_STEPS),
        "--batch-size",
        str(BATCH),
        "--n-epochs",
        "1",
        "--n-envs",
        str(N_ENVS),
        "--vec-env",
        "dummy",
        "--checkpoint-every",
        str(ROLLOUT),
        "--eval-every",
        "0",
        "--opponents",
        "random",
        "--torch-threads",
        "1",
        "--no-progress",
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    log = (tmp_path / "stderr.txt").open("wb")  # a file, not a pipe nobody drains
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log)
    try:
        deadline = time.monotonic() + 240
        # Kill once at least two checkpoints were written (the second replaced the first).
        while not (
            (run_dir / CHECKPOINT).exists()
            and (run_dir / "logs" / "progress.csv").exists()
            and max(logged_steps(run_dir), default=0) >= 2 * ROLLOUT
            and checkpoint_steps(run_dir / CHECKPOINT) >= 2 * ROLLOUT
        ):
            if proc.poll() is not None:
                err = (tmp_path / "stderr.txt").read_text(errors="replace")
                pytest.fail(f"training exited early ({proc.returncode}):\n{err[-3000:]}")
            if time.monotonic() > deadline:
                pytest.fail("no second checkpoint within 240 s")
            time.sleep(0.2)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()
    assert proc.returncode == -signal.SIGKILL

    check_checkpoint(run_dir / CHECKPOINT)  # atomic writes: never a torn checkpoint
    saved = checkpoint_steps(run_dir / CHECKPOINT)
    reached = max(logged_steps(run_dir))
    assert saved % ROLLOUT == 0 and saved >= 2 * ROLLOUT
    assert reached - saved <= ROLLOUT, "more than one checkpoint interval lost"
    stored = json.loads((run_dir / RUN_CONFIG).read_text())
    checkpointed = load_run(run_dir, PPOConfig(**stored))
    assert adam_steps(checkpointed) == {saved // ROLLOUT * ADAM_STEPS_PER_UPDATE}

    total = saved + ROLLOUT
    model = train_ppo.train(
        PPOConfig(run_dir=str(run_dir), total_steps=total), resume=True, progress=False
    )
    assert model.num_timesteps == total
    assert adam_steps(model) == {total // ROLLOUT * ADAM_STEPS_PER_UPDATE}
    after = json.loads((run_dir / RUN_CONFIG).read_text())
    assert {k: v for k, v in after.items() if k != "total_steps"} == {
        k: v for k, v in stored.items() if k != "total_steps"
    }
    assert model.n_steps == N_STEPS and model.n_envs == N_ENVS
    assert_acts_legally(PolicyAgent(run_dir / "policy.pt"), 2, seed=11)


# ------------------------------------------------------------------------------ bad checkpoints
def write_zip(path: Path, members: dict[str, bytes | str]) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


META = '{"format": "farlight-checkpoint", "version": 1, "num_timesteps": 256}'


@pytest.mark.parametrize(
    ("members", "message"),
    [
        ({"readme.txt": "hello", "model.bin": b"\x00\x01"}, "not a Farlight checkpoint"),
        ({"data": "{}", "policy.pth": b"", "pytorch_variables.pth": b""}, "refused unread"),
        ({"checkpoint.json": "{not json", "weights.pt": b""}, "corrupt checkpoint"),
        ({"checkpoint.json": "[]", "weights.pt": b""}, "not a Farlight checkpoint"),
        ({"checkpoint.json": '{"format": "x", "version": 1}', "weights.pt": b""}, "format"),
        (
            {"checkpoint.json": META.replace("256", '"256"'), "weights.pt": b""},
            "Expected `int`, got `str` - at `\\$.num_timesteps`",
        ),
        ({"checkpoint.json": META.replace("256", "-1"), "weights.pt": b""}, "timesteps must be in"),
        ({"checkpoint.json": META.replace("1,", "9,"), "weights.pt": b""}, "version 9"),
        ({"checkpoint.json": META, "weights.pt": b"garbage"}, "corrupt checkpoint"),
    ],
    ids=[
        "unrelated-files",
        "old-sb3-zip",
        "meta-not-json",
        "meta-not-an-object",
        "meta-foreign-format",
        "meta-wrong-type",
        "meta-negative-steps",
        "meta-future-version",
        "weights-garbage",
    ],
)
def test_foreign_zip_is_refused(tmp_path: Path, members: dict, message: str) -> None:
    path = write_zip(tmp_path / CHECKPOINT, members)
    with pytest.raises(ValueError, match=message):
        check_checkpoint(path)


@pytest.mark.parametrize(
    "content",
    [b"", b"PK\x03\x04broken", np.random.default_rng(0).bytes(4096)],
    ids=["empty", "zip-magic-then-garbage", "random-bytes"],
)
def test_corrupt_checkpoint_bytes_are_refused(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / CHECKPOINT
    path.write_bytes(content)
    with pytest.raises(ValueError, match="corrupt checkpoint"):
        check_checkpoint(path)


def test_truncated_checkpoint_is_refused(ppo_run, tmp_path: Path) -> None:
    run_dir, _config, _model = ppo_run
    data = (run_dir / CHECKPOINT).read_bytes()
    path = tmp_path / CHECKPOINT
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="corrupt checkpoint"):
        check_checkpoint(path)


def test_missing_checkpoint_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no checkpoint"):
        check_checkpoint(tmp_path / CHECKPOINT)


def test_resume_without_a_run_is_refused(tmp_path: Path) -> None:
    with pytest.raises(runs.RunError, match=RUN_CONFIG):
        train_ppo.train(tiny_ppo(tmp_path / "nothing"), resume=True, progress=False)


def copy_run(run_dir: Path, to: Path) -> Path:
    to.mkdir()
    (to / RUN_CONFIG).write_text((run_dir / RUN_CONFIG).read_text())
    return to


def test_resume_without_a_checkpoint_is_refused(ppo_run, tmp_path: Path) -> None:
    run_dir = copy_run(ppo_run[0], tmp_path / "run")
    with pytest.raises(runs.RunError, match="no checkpoint.*first checkpoint"):
        train_ppo.train(tiny_ppo(run_dir), resume=True, progress=False)


@pytest.mark.parametrize("kind", ["random-bytes", "foreign-zip"])
def test_resume_from_a_corrupt_checkpoint_is_refused_and_leaves_it(
    ppo_run, tmp_path: Path, kind: str
) -> None:
    run_dir = copy_run(ppo_run[0], tmp_path / "run")
    path = run_dir / CHECKPOINT
    if kind == "random-bytes":
        path.write_bytes(np.random.default_rng(1).bytes(2048))
    else:
        write_zip(path, {"notes.txt": "not a model"})
    before = path.read_bytes()
    with pytest.raises(ValueError, match="checkpoint"):
        train_ppo.train(tiny_ppo(run_dir), resume=True, progress=False)
    assert path.read_bytes() == before


def test_resume_from_a_checkpoint_with_corrupt_weights_is_refused(ppo_run, tmp_path: Path) -> None:
    """The zip is intact but its weights.pt is garbage: a clear ValueError about the
    checkpoint, not torch's UnpicklingError advising weights_only=False."""
    source = ppo_run[0] / CHECKPOINT
    run_dir = copy_run(ppo_run[0], tmp_path / "run")
    with zipfile.ZipFile(source) as archive:
        members = {n: archive.read(n) for n in archive.namelist()}
    members["weights.pt"] = b"garbage"
    write_zip(run_dir / CHECKPOINT, members)
    with pytest.raises(ValueError, match="checkpoint"):
        train_ppo.train(tiny_ppo(run_dir), resume=True, progress=False)


def test_resume_from_another_games_sb3_checkpoint_is_refused(ppo_run, tmp_path: Path) -> None:
    from stable_baselines3 import PPO

    run_dir = copy_run(ppo_run[0], tmp_path / "run")
    PPO("MlpPolicy", "CartPole-v1", n_steps=32, batch_size=32, device="cpu").save(
        run_dir / CHECKPOINT
    )
    with pytest.raises(ValueError):
        train_ppo.train(tiny_ppo(run_dir), resume=True, progress=False)


def test_resume_with_a_corrupt_run_config_names_the_file(ppo_run, tmp_path: Path) -> None:
    run_dir = copy_run(ppo_run[0], tmp_path / "run")
    (run_dir / CHECKPOINT).write_bytes((ppo_run[0] / CHECKPOINT).read_bytes())
    (run_dir / RUN_CONFIG).write_text("{half a config")
    with pytest.raises(ValueError, match=RUN_CONFIG):
        train_ppo.train(tiny_ppo(run_dir), resume=True, progress=False)


@pytest.mark.parametrize(
    ("field", "value"), [("n_envs", 100_000), ("n_steps", 10**9), ("n_epochs", 10**6)]
)
def test_resume_of_a_run_config_asking_for_too_much_is_refused(
    ppo_run, tmp_path: Path, field: str, value: int
) -> None:
    """A run folder from someone else cannot start 100,000 processes or a huge rollout."""
    run_dir = copy_run(ppo_run[0], tmp_path / "run")
    stored = json.loads((run_dir / RUN_CONFIG).read_text())
    stored[field] = value
    (run_dir / RUN_CONFIG).write_text(json.dumps(stored))
    with pytest.raises(ValueError, match=f"--{field.replace('_', '-')} must be at most"):
        train_ppo.train(tiny_ppo(run_dir), resume=True, progress=False)


# ------------------------------------------------------------------------------ the command
def test_farlight_train_help_lists_both_kinds(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        farlight(["train", "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    assert "ppo" in out and "self-play" in out


@pytest.mark.parametrize("kind", ["ppo", "self-play"])
def test_farlight_train_kind_help_lists_config_flags(
    capsys: pytest.CaptureFixture, kind: str
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        farlight(["train", kind, "--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for flag in ("--total-steps", "--checkpoint-every", "--resume", "--run-dir", "--opponents"):
        assert flag in out, flag
    if kind == "self-play":
        assert "--snapshot-every" in out and "--pfsp-power" in out


def test_farlight_train_bad_value_exits_2_naming_the_flag(capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as exit_info:
        farlight(["train", "ppo", "--total-steps", "lots"])
    assert exit_info.value.code == 2
    assert "--total-steps" in capsys.readouterr().err


def test_farlight_train_ppo_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    run_dir = tmp_path / "cli"
    argv = [
        "train",
        "ppo",
        "--run-dir",
        str(run_dir),
        "--total-steps",
        "256",
        "--n-steps",
        "128",
        "--batch-size",
        "64",
        "--n-epochs",
        "1",
        "--n-envs",
        "2",
        "--vec-env",
        "dummy",
        "--checkpoint-every",
        "256",
        "--eval-every",
        "0",
        "--opponents",
        "random",
        "--pi",
        "32,16",
        "--no-progress",
    ]
    assert farlight(argv) == 0
    assert "trained 256 steps" in capsys.readouterr().out
    stored = json.loads((run_dir / RUN_CONFIG).read_text())
    assert stored["opponents"] == ["random"] and stored["pi"] == [32, 16]
    assert stored["total_steps"] == 256
    agent = PolicyAgent(run_dir / "policy.pt")
    assert agent.config["pi"] == [32, 16]
    assert_acts_legally(agent, 5, seed=3)
    # the same command again refuses to overwrite; with --resume it continues
    assert farlight(argv) == 2
    err = capsys.readouterr().err
    assert "already holds a run" in err and "--resume" in err and len(err.splitlines()) == 1
    argv[argv.index("--total-steps") + 1] = "512"
    assert farlight([*argv, "--resume"]) == 0
    assert "trained 512 steps" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("last", "now", "every", "expected"),
    [
        (0, 1024, 10_000, False),
        (9_216, 10_240, 10_000, True),
        (10_240, 11_264, 10_000, False),
        (120_832, 121_856, 50_000, False),  # resumed mid-interval: wait for 150,000
        (149_504, 150_528, 50_000, True),
        (0, 256, 256, True),
        (0, 10**6, 0, False),  # 0 switches the schedule off
    ],
)
def test_schedules_fire_on_multiples_of_their_interval(last, now, every, expected) -> None:
    """Checkpoints, evaluations and snapshots stay on multiples of their interval, so a
    resumed run evaluates at the same steps as an uninterrupted one."""
    assert runs.crossed_multiple(last, now, every) is expected


def test_init_from_copies_another_runs_weights_not_its_steps(ppo_run, tmp_path: Path) -> None:
    """--init-from starts a new run (fresh step count and optimiser) from another run's network,
    e.g. to continue with other hyper-parameters."""
    source_dir, source_config, _model = ppo_run
    config = tiny_ppo(
        tmp_path / "warm",
        init_from=str(source_dir / CHECKPOINT),
        learning_rate=1e-3,
        vec_env="dummy",
    )
    model = train_ppo.start_model(config, train_ppo.build_env(config), False, progress=False)
    assert model.num_timesteps == 0
    assert adam_steps(model) == set()
    source = load_run(source_dir, source_config)
    for name, tensor in source.policy.state_dict().items():
        torch.testing.assert_close(model.policy.state_dict()[name], tensor, msg=name)
    assert json.loads((tmp_path / "warm" / RUN_CONFIG).read_text())["init_from"] == str(
        source_dir / CHECKPOINT
    )


def test_init_from_a_different_network_is_refused_before_anything_is_written(
    ppo_run, tmp_path: Path
) -> None:
    source_dir, _config, _model = ppo_run
    config = tiny_ppo(tmp_path / "warm", init_from=str(source_dir / CHECKPOINT), arch="flat")
    with pytest.raises(ValueError, match="does not match.*--arch"):
        train_ppo.train(config, progress=False)
    assert not (tmp_path / "warm").exists()


def test_init_from_a_missing_checkpoint_is_refused(tmp_path: Path) -> None:
    config = tiny_ppo(tmp_path / "warm", init_from=str(tmp_path / "nowhere.zip"))
    with pytest.raises(runs.RunError, match="nowhere.zip"):
        train_ppo.train(config, progress=False)
    assert not (tmp_path / "warm").exists()


def test_imitation_data_is_the_teachers_legal_non_forced_decisions() -> None:
    """Behaviour cloning learns from every decision with a real choice, each one legal, and
    the same seed gives the same data."""
    from training.farlight.sb3.imitation import heuristic_decisions

    observations, masks, actions = heuristic_decisions(2, num_players=3, seed=4)
    assert len(observations) == len(masks) == len(actions) > 50
    assert masks[np.arange(len(actions)), actions].all()
    assert (masks.sum(axis=1) > 1).all()
    again = heuristic_decisions(2, num_players=3, seed=4)
    np.testing.assert_array_equal(again[2], actions)
    np.testing.assert_array_equal(again[0], observations)


def test_rule_options_reach_the_training_envs_and_the_run_config(tmp_path):
    """`--rule NAME=VALUE` fills PPOConfig.rule_options; the envs play by them."""
    import argparse

    from farlight_cli.config_flags import add_config_arguments, config_from_args
    from training.farlight.envs import make_env_fn

    parser = argparse.ArgumentParser()
    add_config_arguments(parser, SelfPlayConfig)
    args = parser.parse_args(["--rule", "token_rounding=down", "--run-dir", str(tmp_path)])
    config = config_from_args(args, SelfPlayConfig)
    assert config.rule_options == {"token_rounding": "down"}
    assert asdict(config)["rule_options"] == {"token_rounding": "down"}  # run_config.json
    env = make_env_fn(PPOConfig(opponents=["random"], rule_options=config.rule_options), 0)()
    assert env.aec.game.config.rule_options.token_rounding == "down"


def test_default_rollouts_hold_1024_steps_whatever_the_number_of_envs() -> None:
    """--n-steps 0 and --batch-size 0 (the defaults) stand for 1,024 steps over all envs and
    minibatches of 256 (or the rollout), so `--n-envs N` alone always makes a valid run; given
    values are kept, and the config holds (and run_config.json stores) the numbers used."""
    default = PPOConfig()
    assert (default.n_envs, default.vec_env, default.n_steps, default.batch_size) == (
        16,
        "dummy",
        64,
        256,
    )
    assert default.n_epochs == 4
    for n_envs, n_steps in ((1, 1024), (2, 512), (3, 341), (64, 16)):
        config = PPOConfig(n_envs=n_envs)
        assert (config.n_steps, config.batch_size) == (n_steps, 256)
    assert (PPOConfig(n_envs=2, n_steps=100).batch_size, PPOConfig(n_steps=7).n_steps) == (200, 7)
    assert PPOConfig(n_envs=4, n_steps=32, batch_size=100).batch_size == 100
    assert SelfPlayConfig(n_envs=4).n_steps == 256
    with pytest.raises(ValueError, match="--n-envs must be an integer >= 1"):
        PPOConfig(n_envs=0)
    with pytest.raises(ValueError, match="--batch-size 600 is larger than a rollout"):
        PPOConfig(n_envs=2, n_steps=100, batch_size=600)
    with pytest.raises(ValueError, match="--minibatch-chunk must be an integer >= 1"):
        PPOConfig(minibatch_chunk=0)
