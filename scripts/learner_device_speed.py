"""Learner throughput on the CPU against a GPU, and where a run's wall time goes.

    python scripts/learner_device_speed.py --runs cpu:2:256,cuda:2:256,cuda:14:2048

Each run is `farlight train ppo`'s stage-2 setup (structured network, 32 ship features,
warm-started from the shipped policy, margin reward against the heuristic, seed 1, no
evaluations or checkpoints) with a device, a number of environments and a minibatch size
(`DEVICE:N_ENVS:BATCH`; `N_ENVS` SubprocVecEnv workers, `--vec-env dummy` runs them all in
this process). The figure is learner steps per wall-second over `model.learn`, split into
the time spent waiting for the environments (their games and the opponents' moves), the
rest of collecting a rollout (the policy's forward pass, masks, the buffer) and the PPO
update, so the table says what limits a run on that device. Runs one after another in one
process; wall time, so run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from farlight_env.measure.timing import cpu_model  # noqa: E402  (the checkout, not an install)


@dataclass(frozen=True)
class Run:
    device: str
    n_envs: int
    batch_size: int


def parse_runs(text: str) -> list[Run]:
    runs = []
    for item in text.split(","):
        parts = item.split(":")
        if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
            sys.exit(f"learner_device_speed: run {item!r} is not DEVICE:N_ENVS:BATCH")
        runs.append(Run(parts[0], int(parts[1]), int(parts[2])))
    return runs


class PhaseClock:
    """Wall seconds spent inside patched methods, by phase name."""

    def __init__(self) -> None:
        self.spent: dict[str, float] = defaultdict(float)

    def wrap(self, owner: type, name: str, phase: str) -> None:
        inner = getattr(owner, name)
        clock = self

        def timed(self, *args, **kwargs):
            start = time.perf_counter()
            try:
                return inner(self, *args, **kwargs)
            finally:
                clock.spent[phase] += time.perf_counter() - start

        setattr(owner, name, timed)


def measure(run: Run, steps: int, vec_env: str, rollout: int, clock: PhaseClock) -> dict:
    from training.farlight.config import PPOConfig
    from training.farlight.sb3.train_ppo import train

    n_steps = max(1, rollout // run.n_envs)
    clock.spent.clear()
    with tempfile.TemporaryDirectory() as tmp:
        config = PPOConfig(
            run_dir=str(Path(tmp) / "run"),
            init_from=str(ROOT / "agents" / "data" / "ppo.pt"),
            learning_rate=0.0006,
            total_steps=steps,
            opponents=["heuristic"],
            reward_mode="margin",
            n_envs=run.n_envs,
            n_steps=n_steps,
            batch_size=min(run.batch_size, n_steps * run.n_envs),
            vec_env=vec_env,
            eval_every=0,
            checkpoint_every=0,
            seed=1,
            arch="structured",
            ship_features=32,
            device=run.device,
        )
        model = train(config, progress=False)
    learn = clock.spent["learn"]
    envs = clock.spent["envs"]
    rollout = clock.spent["rollout"]
    update = clock.spent["update"]
    return {
        "device": run.device,
        "n_envs": run.n_envs,
        "n_steps": n_steps,
        "batch_size": config.batch_size,
        "steps": int(model.num_timesteps),
        "seconds": learn,
        "steps_per_second": model.num_timesteps / learn,
        "share_envs": envs / learn,
        "share_forward_and_buffer": (rollout - envs) / learn,
        "share_update": update / learn,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", default="cpu:2:256", help="DEVICE:N_ENVS:BATCH,...")
    parser.add_argument("--steps", type=int, default=16384, help="learner steps per run")
    parser.add_argument("--vec-env", choices=("subproc", "dummy"), default="subproc")
    parser.add_argument("--rollout", type=int, default=8192, help="steps per rollout, all envs")
    parser.add_argument("--json", type=Path, help="also write the rows to this file")
    args = parser.parse_args()
    runs = parse_runs(args.runs)

    import sb3_contrib
    import torch
    from stable_baselines3.common.vec_env import VecMonitor

    clock = PhaseClock()
    clock.wrap(sb3_contrib.MaskablePPO, "learn", "learn")
    clock.wrap(sb3_contrib.MaskablePPO, "collect_rollouts", "rollout")
    clock.wrap(sb3_contrib.MaskablePPO, "train", "update")
    clock.wrap(VecMonitor, "step_wait", "envs")
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none"
    header = {"cpu": cpu_model(), "gpu": gpu, "torch": torch.__version__, "vec_env": args.vec_env}
    print(json.dumps(header), flush=True)
    print(
        f"{'device':<7}{'envs':>5}{'batch':>6}{'steps/s':>9}{'envs':>7}{'fwd+buf':>8}{'update':>8}"
    )
    rows = []
    for run in runs:
        try:
            row = measure(run, args.steps, args.vec_env, args.rollout, clock)
        except ValueError as exc:  # a device torch does not see, settings that do not fit
            sys.exit(f"learner_device_speed: run {run.device}:{run.n_envs}:{run.batch_size}: {exc}")
        rows.append(row)
        print(
            f"{row['device']:<7}{row['n_envs']:>5}{row['batch_size']:>6}"
            f"{row['steps_per_second']:>9.0f}{row['share_envs']:>7.0%}"
            f"{row['share_forward_and_buffer']:>8.0%}{row['share_update']:>8.0%}",
            flush=True,
        )
    if args.json:
        args.json.write_text(json.dumps({**header, "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
