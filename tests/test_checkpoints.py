"""Training checkpoints are data, never code: weights read with weights_only, counters as
validated JSON, the model rebuilt from the run's own config. Resume stays exact: a model
restored from a checkpoint equals the one SB3's pickle-based load gives, and trains on to the
same parameters."""

from __future__ import annotations

import base64
import copy
import io
import json
import os
import pickle
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="training needs the train extra (torch, SB3)")
pytest.importorskip("sb3_contrib", reason="training needs the train extra (sb3-contrib)")

from sb3_contrib import MaskablePPO  # noqa: E402

from training.checkpoints import (  # noqa: E402
    CHECKPOINT,
    CheckpointError,
    read_checkpoint,
    restore_checkpoint,
    save_checkpoint,
)
from training.farlight.config import PPOConfig  # noqa: E402
from training.farlight.sb3 import train_ppo  # noqa: E402
from training.farlight.sb3.ppo_model import build_model, load_checkpoint  # noqa: E402
from training.sb3.run_files import RUN_CONFIG  # noqa: E402

torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parents[1]


def tiny(run_dir: Path, **overrides: object) -> PPOConfig:
    settings = dict(
        run_dir=str(run_dir),
        total_steps=128,
        n_steps=64,
        batch_size=32,
        n_epochs=1,
        n_envs=2,
        vec_env="dummy",
        checkpoint_every=0,
        eval_every=0,
        opponents=["random"],
        arch="structured",
        embed=8,
        ship_features=4,
        hidden=16,
        vf=[8],
    )
    settings.update(overrides)
    return PPOConfig(**settings)


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, PPOConfig, MaskablePPO]:
    run_dir = tmp_path_factory.mktemp("ckpt") / "run"
    config = tiny(run_dir)
    return run_dir, config, train_ppo.train(config, progress=False)


def assert_same_model(a: MaskablePPO, b: MaskablePPO) -> None:
    for name, tensor in a.policy.state_dict().items():
        torch.testing.assert_close(b.policy.state_dict()[name], tensor, rtol=0, atol=0, msg=name)
    sa, sb = a.policy.optimizer.state_dict(), b.policy.optimizer.state_dict()
    assert sa["param_groups"] == sb["param_groups"]
    assert sa["state"].keys() == sb["state"].keys()
    for index, slots in sa["state"].items():
        for key, value in slots.items():
            torch.testing.assert_close(sb["state"][index][key], value, rtol=0, atol=0)
    for attr in ("num_timesteps", "_n_updates", "_episode_num", "_current_progress_remaining"):
        assert getattr(a, attr) == getattr(b, attr), attr
    assert list(a.ep_info_buffer) == list(b.ep_info_buffer)


def test_save_then_load_restores_weights_optimiser_and_counters(trained) -> None:
    run_dir, config, model = trained
    restored = load_checkpoint(run_dir / CHECKPOINT, train_ppo.build_env(config), config)
    assert model.num_timesteps == config.total_steps and model._n_updates == 1
    assert_same_model(model, restored)


def test_resume_is_exactly_what_sb3s_own_load_gave(trained, tmp_path: Path) -> None:
    """The same model through SB3's pickled zip (the old resume) and through the new
    checkpoint, each trained one more rollout: identical parameters and optimiser state.
    (Both loads reseed the global RNGs from the run's seed, so each learns right after its
    own load.)"""
    run_dir, config, model = trained
    model.save(tmp_path / "sb3.zip")  # the old format, written and read by the test only
    save_checkpoint(model, tmp_path)
    old = MaskablePPO.load(tmp_path / "sb3.zip", env=train_ppo.build_env(config), device="cpu")
    new = load_checkpoint(tmp_path / CHECKPOINT, train_ppo.build_env(config), config)
    assert_same_model(old, new)
    old = MaskablePPO.load(tmp_path / "sb3.zip", env=train_ppo.build_env(config), device="cpu")
    old.learn(128, reset_num_timesteps=False)
    new = load_checkpoint(tmp_path / CHECKPOINT, train_ppo.build_env(config), config)
    new.learn(128, reset_num_timesteps=False)
    assert_same_model(old, new)
    assert new.num_timesteps == 256


def test_checkpoint_holds_no_pickled_objects(trained) -> None:
    """Every member is JSON or a torch file whose pickle refers only to tensors."""
    run_dir, _config, _model = trained
    with zipfile.ZipFile(run_dir / CHECKPOINT) as archive:
        assert sorted(archive.namelist()) == ["checkpoint.json", "weights.pt"]
        meta = json.loads(archive.read("checkpoint.json"))
        weights = archive.read("weights.pt")
    assert meta["format"] == "farlight-checkpoint" and meta["num_timesteps"] == 128
    torch.load(io.BytesIO(weights), weights_only=True)  # would raise on any other global


class _CreatesFile:
    """Unpickling this runs `open(path, 'w')`: the attack a pickled checkpoint allows."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self) -> tuple:
        return (open, (self.path, "w"))


def malicious_sb3_zip(path: Path, marker: Path) -> Path:
    """An SB3-looking checkpoint whose 'data' and 'policy.pth' both create `marker` when
    loaded with SB3's MaskablePPO.load."""
    payload = base64.b64encode(pickle.dumps(_CreatesFile(marker))).decode()
    data = {
        "policy_class": {":type:": "<class 'abc.ABCMeta'>", ":serialized:": payload},
        "observation_space": {":type:": "x", ":serialized:": payload},
        "action_space": {":type:": "x", ":serialized:": payload},
    }
    buffer = io.BytesIO()
    torch.save(_CreatesFile(marker), buffer)
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps(data))
        archive.writestr("policy.pth", buffer.getvalue())
        archive.writestr("pytorch_variables.pth", buffer.getvalue())
    return path


def test_the_crafted_checkpoint_is_a_real_attack(tmp_path: Path) -> None:
    """Sanity check of the tests below: loading the crafted zip as SB3 did (MaskablePPO.load
    unpickles 'data' and torch.load's policy.pth without weights_only) creates the file."""
    marker = tmp_path / "pwned"
    path = malicious_sb3_zip(tmp_path / CHECKPOINT, marker)
    with zipfile.ZipFile(path) as archive:
        torch.load(io.BytesIO(archive.read("policy.pth")), weights_only=False)
    assert marker.exists()
    marker.unlink()
    with zipfile.ZipFile(path) as archive:
        data = json.loads(archive.read("data"))
    pickle.loads(base64.b64decode(data["policy_class"][":serialized:"]))
    assert marker.exists()


def test_a_pickled_checkpoint_is_refused_and_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    path = malicious_sb3_zip(tmp_path / CHECKPOINT, marker)
    with pytest.raises(CheckpointError, match="refused unread") as info:
        read_checkpoint(path)
    assert len(str(info.value).splitlines()) == 1
    assert not marker.exists()


def test_a_new_format_zip_with_a_pickled_weights_member_runs_nothing(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    buffer = io.BytesIO()
    torch.save({"policy": _CreatesFile(marker), "optimizer": {}}, buffer)
    path = tmp_path / CHECKPOINT
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("checkpoint.json", '{"format": "farlight-checkpoint", "version": 1}')
        archive.writestr("weights.pt", buffer.getvalue())
    with pytest.raises(CheckpointError, match="corrupt checkpoint.*weights.pt"):
        read_checkpoint(path)
    assert not marker.exists()


def test_a_compressed_weights_member_is_refused_before_torch_inflates_it(tmp_path: Path) -> None:
    """torch.load would allocate what the inner zip declares (here 40 MB from 40 KB)."""
    buffer = io.BytesIO()
    torch.save({"policy": {"w": torch.zeros(10_000_000)}, "optimizer": {}}, buffer)
    bomb = io.BytesIO()
    with zipfile.ZipFile(buffer) as src, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info))
    path = tmp_path / CHECKPOINT
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("checkpoint.json", '{"format": "farlight-checkpoint", "version": 1}')
        archive.writestr("weights.pt", bomb.getvalue())
    assert path.stat().st_size < 1 << 20
    with pytest.raises(CheckpointError, match="corrupt checkpoint.*weights.pt.*is compressed"):
        read_checkpoint(path)


def cli(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, "-m", "farlight_cli", *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("how", ["resume", "init-from"])
def test_cli_refuses_a_pickled_checkpoint_in_one_line(trained, tmp_path: Path, how: str) -> None:
    marker = tmp_path / "pwned"
    run_dir = tmp_path / "run"
    if how == "resume":
        run_dir.mkdir()
        (run_dir / RUN_CONFIG).write_text((trained[0] / RUN_CONFIG).read_text())
        malicious_sb3_zip(run_dir / CHECKPOINT, marker)
        argv = ["--resume"]
    else:
        argv = ["--init-from", str(malicious_sb3_zip(tmp_path / "other.zip", marker))]
    done = cli("train", "ppo", "--run-dir", str(run_dir), *argv, "--no-progress", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "refused unread" in done.stderr
    assert not marker.exists()


def test_a_checkpoint_of_another_network_is_refused_by_name(trained, tmp_path: Path) -> None:
    run_dir, config, _model = trained
    other = tiny(tmp_path / "run", hidden=32)
    with pytest.raises(CheckpointError, match="does not match.*--hidden"):
        load_checkpoint(run_dir / CHECKPOINT, train_ppo.build_env(other), other)


def test_optimiser_moments_of_the_wrong_shape_are_refused(trained, tmp_path: Path) -> None:
    run_dir, config, model = trained
    state = copy.deepcopy(model.policy.optimizer.state_dict())  # its slots are the live ones
    state["state"][0]["exp_avg"] = torch.zeros(3)
    buffer = io.BytesIO()
    torch.save({"policy": model.policy.state_dict(), "optimizer": state}, buffer)
    with zipfile.ZipFile(run_dir / CHECKPOINT) as archive:
        meta = archive.read("checkpoint.json")
    with zipfile.ZipFile(tmp_path / CHECKPOINT, "w") as archive:
        archive.writestr("checkpoint.json", meta)
        archive.writestr("weights.pt", buffer.getvalue())
    fresh = build_model(config, train_ppo.build_env(config))
    with pytest.raises(CheckpointError, match="optimiser state.*exp_avg"):
        restore_checkpoint(fresh, tmp_path / CHECKPOINT)


def _rewritten(trained, folder: Path, edit_optimizer=None, **meta_changes: object) -> Path:
    """The trained run's checkpoint with its optimiser state or counters edited."""
    run_dir, _config, model = trained
    with zipfile.ZipFile(run_dir / CHECKPOINT) as archive:
        meta = json.loads(archive.read("checkpoint.json"))
        weights = archive.read("weights.pt")
    meta.update(meta_changes)
    if edit_optimizer is not None:
        state = copy.deepcopy(model.policy.optimizer.state_dict())  # its slots are the live ones
        edit_optimizer(state)
        buffer = io.BytesIO()
        torch.save({"policy": model.policy.state_dict(), "optimizer": state}, buffer)
        weights = buffer.getvalue()
    folder.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(folder / CHECKPOINT, "w") as archive:
        archive.writestr("checkpoint.json", json.dumps(meta))
        archive.writestr("weights.pt", weights)
    return folder / CHECKPOINT


def _group(name: str, value: object):
    def edit(state: dict) -> None:
        state["param_groups"][0][name] = value

    return edit


def _slot(name: str, value: object):
    def edit(state: dict) -> None:
        slots = state["state"][0]
        slots[name] = value if not callable(value) else value(slots[name])

    return edit


@pytest.mark.parametrize(
    ("edit", "fragment"),
    [
        (_group("betas", (1.0, 1.0)), "betas must be two numbers in [0, 1)"),
        (_group("betas", (0.9,)), "betas must be two numbers in [0, 1)"),
        (_group("eps", 0.0), "eps must be a finite number > 0"),
        (_group("lr", float("inf")), "lr must be a finite number >= 0"),
        (_group("lr", -1.0), "lr must be a finite number >= 0"),
        (_group("weight_decay", float("nan")), "weight_decay"),
        (_slot("step", torch.tensor(-3.0)), "step must be a count"),
        (_slot("step", torch.tensor(2.0**62)), "step must be a count"),
        (_slot("exp_avg", lambda t: t * float("nan")), "exp_avg holds NaN"),
        (_slot("exp_avg_sq", lambda t: t - 1.0), "exp_avg_sq holds negative values"),
    ],
)
def test_impossible_optimiser_settings_are_refused(trained, tmp_path, edit, fragment) -> None:
    """Adam with betas (1, 1) divides by 1 - 1**step: a resume died in a ZeroDivisionError
    traceback (issue #26). Such a file is refused on load, by name."""
    _run_dir, config, _model = trained
    path = _rewritten(trained, tmp_path, edit)
    fresh = build_model(config, train_ppo.build_env(config))
    with pytest.raises(CheckpointError, match="impossible optimiser state") as info:
        restore_checkpoint(fresh, path)
    assert fragment in str(info.value)


@pytest.mark.parametrize("name", ["num_timesteps", "n_updates", "episode_num"])
def test_counters_are_capped(trained, tmp_path, name) -> None:
    path = _rewritten(trained, tmp_path, **{name: 2**62})
    with pytest.raises(CheckpointError, match=f"{name} must be in 0..1e\\+12"):
        read_checkpoint(path)


def test_a_resume_from_impossible_betas_is_one_line_not_a_traceback(trained, tmp_path) -> None:
    run_dir = tmp_path / "run"
    _rewritten(trained, run_dir, _group("betas", (1.0, 1.0)))
    (run_dir / RUN_CONFIG).write_text((trained[0] / RUN_CONFIG).read_text())
    done = cli("train", "ppo", "--run-dir", str(run_dir), "--resume", "--no-progress", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "ZeroDivisionError" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "betas must be two numbers in [0, 1)" in done.stderr


def test_a_resume_with_an_absurd_step_count_is_refused(trained, tmp_path) -> None:
    run_dir = tmp_path / "run"
    _rewritten(trained, run_dir, num_timesteps=2**62)
    (run_dir / RUN_CONFIG).write_text((trained[0] / RUN_CONFIG).read_text())
    done = cli("train", "ppo", "--run-dir", str(run_dir), "--resume", "--no-progress", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "trained 4611686018427387904" not in done.stdout
    assert "num_timesteps must be in 0..1e+12" in done.stderr
