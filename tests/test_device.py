"""`--device auto|cpu|cuda|cuda:N` (agents/torch_device.py): resolved, refused in one line when
torch sees no GPU, stored in run_config.json and changeable on --resume; files stay on the CPU.

CI has no GPU: these tests run the CPU path and the refusals. The GPU tests are skipped
unless torch sees a GPU; nothing here fakes one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="devices need the train extra (torch)")
pytest.importorskip("sb3_contrib", reason="training needs the train extra (sb3-contrib)")

from agents.torch_device import DeviceError, device_problem, resolve_device  # noqa: E402
from training.farlight.config import RESUMABLE_OVERRIDES, PPOConfig  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
GPU = torch.cuda.is_available()
no_gpu = pytest.mark.skipif(GPU, reason="checks the refusal on a machine without a GPU")
needs_gpu = pytest.mark.skipif(not GPU, reason="needs a GPU torch sees (CI has none)")


def tiny(run_dir: Path, **overrides: object) -> PPOConfig:
    """The smallest run that trains: tests/test_checkpoints.py's settings, fewer steps."""
    from test_checkpoints import tiny as checkpoints_tiny

    return checkpoints_tiny(run_dir, **{"total_steps": 64, "n_steps": 32, **overrides})


# ----------------------------------------------------------------------------- resolving
@no_gpu
def test_auto_is_the_cpu_without_a_gpu() -> None:
    assert resolve_device("auto") == torch.device("cpu")
    assert resolve_device("cpu") == torch.device("cpu")


@no_gpu
@pytest.mark.parametrize("name", ["cuda", "cuda:0", "cuda:3"])
def test_a_gpu_torch_does_not_see_is_refused_in_one_line(name: str) -> None:
    with pytest.raises(DeviceError, match=f"device {name}: torch sees no GPU here") as caught:
        resolve_device(name)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("name", ["gpu", "CPU", "cuda:", "cuda:x", "cuda:-1", "", "mps", None])
def test_anything_else_is_refused(name: object) -> None:
    with pytest.raises(DeviceError, match="must be auto, cpu, cuda or cuda:N"):
        resolve_device(name)  # type: ignore[arg-type]
    assert device_problem(name, "--device").startswith("--device must be")


def test_configs_check_the_name_without_importing_torch() -> None:
    """training.farlight.config (farlight --help) and the device check stay free of torch."""
    code = (
        "import sys, training.farlight.config, training.farlight.sb3.exploit_config\n"
        "import training.farlight.rllib.config\n"
        "from agents.torch_device import device_problem\n"
        "assert device_problem('cuda:1') is None and device_problem('tpu')\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
    )
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


def test_the_device_is_a_config_field_that_resume_may_change() -> None:
    assert PPOConfig().device == "auto"
    assert "device" in RESUMABLE_OVERRIDES
    with pytest.raises(ValueError, match="--device must be auto, cpu, cuda or cuda:N"):
        PPOConfig(device="gpu")


# ----------------------------------------------------------------------------- the CLI
@no_gpu
def test_train_with_cuda_here_is_one_line_status_2_and_writes_nothing(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "farlight_cli", "train", "ppo", "--run-dir", str(run_dir)]
        + ["--device", "cuda", "--no-progress"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "farlight train ppo: error: device cuda: torch sees no GPU here (a CPU-only torch "
        "build, or no CUDA driver); use cpu or auto"
    ]
    assert not run_dir.exists()


# ----------------------------------------------------------------------------- training
@pytest.fixture(scope="module")
def cpu_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    from training.farlight.sb3 import train_ppo

    run_dir = tmp_path_factory.mktemp("device") / "run"
    return run_dir, train_ppo.train(tiny(run_dir, device="cpu"), progress=False)


def test_a_cpu_run_trains_on_the_cpu_and_records_its_device(cpu_run) -> None:
    run_dir, model = cpu_run
    assert model.device == torch.device("cpu")
    assert {p.device.type for p in model.policy.parameters()} == {"cpu"}
    assert json.loads((run_dir / "run_config.json").read_text())["device"] == "cpu"


def test_a_resume_may_change_the_device(cpu_run, tmp_path: Path) -> None:
    """A copy of the run resumed with --device auto (the CPU here) trains on, and records it."""
    import shutil

    from training.farlight.sb3 import train_ppo

    run_dir = tmp_path / "run"
    shutil.copytree(cpu_run[0], run_dir)
    requested = tiny(run_dir, total_steps=128, device="auto")
    model = train_ppo.train(requested, resume=True, progress=False, given=["total_steps", "device"])
    assert model.num_timesteps == 128
    assert json.loads((run_dir / "run_config.json").read_text())["device"] == "auto"


def test_a_run_config_from_before_the_device_option_loads_with_auto(cpu_run, tmp_path) -> None:
    from training.sb3.run_files import stored_config

    stored = json.loads((cpu_run[0] / "run_config.json").read_text())
    del stored["device"]
    (tmp_path / "run_config.json").write_text(json.dumps(stored))
    assert stored_config(tmp_path, PPOConfig).device == "auto"


class LooksOnAGpu(torch.Tensor):
    """A CPU tensor that counts the `.cpu()` calls a GPU tensor would need (no GPU faked:
    it only shows that every tensor written passes through `.cpu()`)."""

    moved = 0

    def cpu(self, *args: object, **kwargs: object) -> torch.Tensor:
        LooksOnAGpu.moved += 1
        return self.as_subclass(torch.Tensor).clone()


def test_exported_policies_and_checkpoints_move_every_tensor_to_the_cpu(cpu_run, tmp_path) -> None:
    from agents.farlight.policy import ACTOR_PREFIXES, load_policy, save_policy
    from training.checkpoints import on_cpu

    path = cpu_run[0] / "policy.pt"
    _net, config = load_policy(path)
    state = cpu_run[1].policy.state_dict()
    actor = {
        k: v.as_subclass(LooksOnAGpu) for k, v in state.items() if k.startswith(ACTOR_PREFIXES)
    }
    LooksOnAGpu.moved = 0
    save_policy(actor, config, tmp_path / "policy.pt")
    assert LooksOnAGpu.moved == len(actor)
    payload = torch.load(tmp_path / "policy.pt", weights_only=True)  # no map_location needed
    assert {type(v) for v in payload["state_dict"].values()} == {torch.Tensor}
    LooksOnAGpu.moved = 0
    moment = next(iter(actor.values()))
    groups = [{"lr": 1e-3, "betas": (0.9, 0.999)}]
    nested = on_cpu(
        {"policy": actor, "optimizer": {"state": {0: {"exp_avg": moment}}, "param_groups": groups}}
    )
    assert LooksOnAGpu.moved == len(actor) + 1
    assert all(type(v) is torch.Tensor for v in nested["policy"].values())
    assert nested["optimizer"]["param_groups"] == groups


# ----------------------------------------------------------------------------- inference
def test_policy_agents_play_on_the_cpu_and_refuse_junk() -> None:
    import agents
    from evaluation.arena import play_episode
    from farlight_env.env.aec import raw_env

    agent = agents.make("ppo", device="cpu", seed=0)
    assert {p.device.type for p in agent.net.parameters()} == {"cpu"}
    env = raw_env(num_players=2)
    env.reset(seed=3)
    play_episode(env, [agent, agents.make("random", seed=1)])
    assert env.game.is_over
    assert agents.make("rollout", device="cpu").policy.device == torch.device("cpu")
    with pytest.raises(DeviceError):
        agents.make("bidder", device="gpu")


@needs_gpu
def test_on_a_gpu_a_policy_agent_scores_as_on_the_cpu_and_plays_a_game() -> None:
    import agents
    from evaluation.arena import play_episode
    from farlight_env.env.aec import raw_env

    gpu, cpu = agents.make("ppo", device="cuda", seed=0), agents.make("ppo", seed=0)
    assert {p.device.type for p in gpu.net.parameters()} == {"cuda"}
    env = raw_env(num_players=2)
    env.reset(seed=3)
    seat = env.agent_selection
    observation = env.observe(seat)
    on_gpu = gpu.logits(observation["observation"], observation["action_mask"])
    on_cpu = cpu.logits(observation["observation"], observation["action_mask"])
    np.testing.assert_allclose(on_gpu, on_cpu, rtol=1e-3, atol=1e-3)
    play_episode(env, [gpu, agents.make("random", seed=1)])
    assert env.game.is_over
    rollout = agents.make("rollout", device="cuda", seed=0)  # its batched play-outs on the GPU
    assert rollout.policy.device.type == "cuda"
    env.reset(seed=4)
    for _ in range(6):  # a few decisions: a whole game of rollout search is minutes
        observation, info = env.observe(env.agent_selection), env.infos[env.agent_selection]
        action = rollout.act(observation["observation"], observation["action_mask"], info)
        assert observation["action_mask"][action] == 1
        env.step(action)


@no_gpu
def test_a_policy_agent_on_a_gpu_torch_does_not_see_is_refused() -> None:
    import agents

    with pytest.raises(DeviceError, match="torch sees no GPU"):
        agents.make("ppo", device="cuda")


# ----------------------------------------------------------------------------- exploit, RLlib
def test_exploit_trains_its_best_response_on_the_device_asked() -> None:
    from training.farlight.sb3.exploit import ppo_config
    from training.farlight.sb3.exploit_config import RESUMABLE_OVERRIDES as EXPLOIT_RESUMABLE
    from training.farlight.sb3.exploit_config import ExploitConfig

    assert ppo_config(ExploitConfig(device="cpu", init_from="none")).device == "cpu"
    assert "device" in EXPLOIT_RESUMABLE
    with pytest.raises(ValueError, match="--device must be"):
        ExploitConfig(device="gpu")


def test_rllib_learners_get_a_gpu_only_on_cuda() -> None:
    pytest.importorskip("ray", reason="needs the rllib extra")
    from training.farlight.rllib.config import RLlibConfig
    from training.farlight.rllib.self_play import learner_gpus

    assert learner_gpus(RLlibConfig(device="cpu")) == {"num_gpus_per_learner": 0}
    remote = RLlibConfig(device="cuda", address="auto", num_learners=2)
    assert learner_gpus(remote) == {"num_gpus_per_learner": 1}  # the cluster's GPUs
    with pytest.raises(ValueError, match="Ray picks each"):
        RLlibConfig(device="cuda:1", num_learners=2)
    if not GPU:
        assert learner_gpus(RLlibConfig()) == {"num_gpus_per_learner": 0}
        with pytest.raises(DeviceError, match="torch sees no GPU"):
            learner_gpus(RLlibConfig(device="cuda"))


# ----------------------------------------------------------------------------- on a GPU
@needs_gpu
def test_on_a_gpu_the_learner_trains_there_and_its_files_load_on_the_cpu(tmp_path) -> None:
    import io
    import zipfile

    from agents.farlight.policy import PolicyAgent
    from training.checkpoints import WEIGHTS_MEMBER
    from training.farlight.sb3 import train_ppo

    run_dir = tmp_path / "run"
    model = train_ppo.train(tiny(run_dir, device="cuda"), progress=False)
    assert {p.device.type for p in model.policy.parameters()} == {"cuda"}
    with zipfile.ZipFile(run_dir / "checkpoint.zip") as archive:
        raw = torch.load(io.BytesIO(archive.read(WEIGHTS_MEMBER)), weights_only=True)
    assert {v.device.type for v in raw["policy"].values()} == {"cpu"}  # as saved, not mapped
    policy = torch.load(run_dir / "policy.pt", weights_only=True)["state_dict"]
    assert {v.device.type for v in policy.values()} == {"cpu"}
    assert PolicyAgent(run_dir / "policy.pt").device == torch.device("cpu")
    train_ppo.train(tiny(run_dir, total_steps=128, device="cpu"), resume=True, progress=False)


def test_the_device_page_runs() -> None:
    from tests.doc_snippets import run_page

    assert run_page("docs/device.md", 1).strip() == "cpu"


@no_gpu
def test_exploit_with_cuda_here_is_one_line_status_2_and_writes_nothing(tmp_path, capsys) -> None:
    from farlight_cli.main import main

    run_dir = tmp_path / "run"
    status = main(
        ["exploit", "heuristic", "--quick", "--device", "cuda", "--run-dir", str(run_dir)]
    )
    err = capsys.readouterr().err
    assert status == 2 and len(err.strip().splitlines()) == 1, err
    assert err.startswith("farlight exploit: error: device cuda: torch sees no GPU here")
    assert not run_dir.exists()


def test_a_run_config_from_before_chunked_minibatches_resumes_with_single_steps(
    cpu_run, tmp_path
) -> None:
    """Runs stored before --minibatch-chunk sampled single steps: a resume keeps doing so."""
    from training.sb3.run_files import stored_config

    stored = json.loads((cpu_run[0] / "run_config.json").read_text())
    del stored["minibatch_chunk"]
    (tmp_path / "run_config.json").write_text(json.dumps(stored))
    assert stored_config(tmp_path, PPOConfig).minibatch_chunk == 1
    assert PPOConfig().minibatch_chunk == 1


def test_a_run_config_from_before_ship_encoder_resumes_training_its_cnn(cpu_run, tmp_path) -> None:
    """Runs stored before --ship-encoder trained the ship CNN: a resume keeps doing so, even
    where `auto` would freeze it now."""
    from training.sb3.run_files import stored_config

    stored = json.loads((cpu_run[0] / "run_config.json").read_text())
    del stored["ship_encoder"]
    stored |= {"learner_decisions": ["bidding"], "init_from": "start.pt"}
    (tmp_path / "run_config.json").write_text(json.dumps(stored))
    assert stored_config(tmp_path, PPOConfig).ship_encoder == "train"
    assert PPOConfig().ship_encoder == "auto"
