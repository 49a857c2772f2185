"""Train a MaskablePPO agent on Farlight against chosen opponents.

    python -m training.train_ppo --run-dir runs/ppo --total-steps 200000 --opponents heuristic
    farlight train ppo --run-dir runs/ppo --resume      # continue after a crash or kill

Hyper-parameters live in `PPOConfig`; the CLI is generated from it. Every run writes
run_config.json, CSV and TensorBoard logs, an atomic checkpoint every `checkpoint_every` steps
(weights, optimiser, step count) and the exported actor `policy.pt` for `agents.make`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

from training.common import (
    CHECKPOINT,
    LivePolicy,
    ProgressCallback,
    check_checkpoint,
    evaluate_against,
    export_policy,
    load_checkpoint,
    make_env_fn,
    policy_class,
    policy_config,
    policy_kwargs,
    run_logger,
    save_checkpoint,
    stored_config,
    write_run_config,
)
from training.config import RESUMABLE_OVERRIDES, PPOConfig, add_config_arguments, config_from_args
from training.imitation import behaviour_clone


def crossed_multiple(last: int, now: int, every: int) -> bool:
    """Whether a multiple of `every` lies in (last, now]: schedules stay on the same steps
    however often a run is resumed (0 = never)."""
    return every > 0 and now // every > last // every


class CheckpointAndEval(BaseCallback):
    """At rollout boundaries (after an update): atomic checkpoint, policy export, evaluation."""

    def __init__(self, config: PPOConfig, run_dir: Path) -> None:
        super().__init__()
        self.config = config
        self.run_dir = run_dir
        self.last_checkpoint = 0
        self.last_eval = 0

    def _on_training_start(self) -> None:
        self.last_checkpoint = self.last_eval = self.model.num_timesteps

    def _on_rollout_start(self) -> None:
        steps = self.model.num_timesteps
        if crossed_multiple(self.last_checkpoint, steps, self.config.checkpoint_every):
            self.save()
            self.last_checkpoint = steps
        if crossed_multiple(self.last_eval, steps, self.config.eval_every):
            self.evaluate()
            self.last_eval = steps

    def _on_step(self) -> bool:
        return True

    def save(self) -> None:
        save_checkpoint(self.model, self.run_dir)
        export_policy(self.model, self.run_dir / "policy.pt", actor_config(self.model, self.config))

    def evaluate(self) -> dict[str, float]:
        results = {}
        live = LivePolicy(self.model)
        for opponent in self.config.eval_opponents:
            rate = evaluate_against(
                live,
                opponent,
                self.config.eval_games,
                self.config.num_players,
                seed=10_000 + self.model.num_timesteps,
            )
            self.logger.record(f"eval/win_rate_vs_{opponent}", rate)
            results[opponent] = rate
        self.logger.record("time/total_timesteps", self.model.num_timesteps)
        self.logger.dump(self.model.num_timesteps)
        return results


def actor_config(model: Any, config: PPOConfig, name: str = "ppo") -> dict[str, Any]:
    """Config of the exported actor, with the run's provenance."""
    return policy_config(
        model,
        config.embed,
        config.ship_features,
        config.pi,
        name=name,
        arch=config.arch,
        hidden=config.hidden,
        vf=config.vf,
        extra={
            "num_players": config.num_players,
            "trained_steps": int(model.num_timesteps),
            "opponents": list(getattr(config, "baselines", config.opponents)),
            "seed": config.seed,
        },
    )


def build_env(config: PPOConfig):
    fns = [
        make_env_fn(
            config.num_players,
            config.opponents,
            config.seed,
            rank,
            config.reward_mode,
            config.max_rounds,
        )
        for rank in range(config.n_envs)
    ]
    if config.vec_env == "subproc" and config.n_envs > 1:
        start = "fork" if sys.platform != "win32" else "spawn"
        return VecMonitor(SubprocVecEnv(fns, start_method=start))
    return VecMonitor(DummyVecEnv(fns))


def build_model(config: PPOConfig, env: Any) -> MaskablePPO:
    return MaskablePPO(
        policy_class(config.arch),
        env,
        learning_rate=config.learning_rate,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        gamma=config.gamma,
        gae_lambda=config.gae_lambda,
        clip_range=config.clip_range,
        ent_coef=config.ent_coef,
        policy_kwargs=policy_kwargs(
            config.embed,
            config.ship_features,
            config.pi,
            config.vf,
            arch=config.arch,
            hidden=config.hidden,
        ),
        seed=config.seed,
        device="cpu",
        verbose=0,
    )


def warm_start(model: MaskablePPO, checkpoint: Path) -> None:
    """Copy another run's network weights (not its optimiser or step count) into `model`."""
    source = load_checkpoint(checkpoint, env=None)
    try:
        model.policy.load_state_dict(source.policy.state_dict(), strict=True)
    except RuntimeError as exc:
        raise ValueError(
            f"{checkpoint}: its network does not match this run's (--arch, --embed, "
            f"--ship-features, --hidden, --pi, --vf must be the same): {str(exc).splitlines()[0]}"
        ) from exc


def resolve_resume(config: PPOConfig, run_dir: Path) -> PPOConfig:
    """The stored config, with RESUMABLE_OVERRIDES (total_steps, run_dir) from the command line."""
    merged = stored_config(run_dir, PPOConfig)
    for name in RESUMABLE_OVERRIDES:
        setattr(merged, name, getattr(config, name))
    return merged


def train(config: PPOConfig, resume: bool = False, progress: bool = True) -> MaskablePPO:
    """Run (or resume) training; returns the model. Writes everything under config.run_dir."""
    run_dir = Path(config.run_dir)
    policy_class(config.arch)  # refuse a bad architecture before anything is written
    torch.set_num_threads(config.torch_threads)
    checkpoint = run_dir / CHECKPOINT
    if resume:
        config = resolve_resume(config, run_dir)
        check_checkpoint(checkpoint)
    else:
        if checkpoint.exists():
            raise FileExistsError(
                f"{run_dir} already holds a run; pass --resume to continue it or pick another "
                "--run-dir"
            )
    env = build_env(config)
    try:
        if resume:
            model = load_checkpoint(checkpoint, env)
        else:
            model = build_model(config, env)
            if config.init_from:
                warm_start(model, Path(config.init_from))
            run_dir.mkdir(parents=True, exist_ok=True)  # only once the model is sound
            write_run_config(run_dir, config)
            if config.bc_games:
                behaviour_clone(
                    model,
                    config.bc_games,
                    config.num_players,
                    config.seed,
                    epochs=config.bc_epochs,
                    progress=progress,
                )
        model.set_logger(run_logger(run_dir))
        callbacks = CallbackList(
            [
                CheckpointAndEval(config, run_dir),
                *([ProgressCallback(config.total_steps, model.num_timesteps)] if progress else []),
            ]
        )
        remaining = config.total_steps - model.num_timesteps  # SB3 adds num_timesteps back
        if remaining > 0:
            model.learn(remaining, callback=callbacks, reset_num_timesteps=False)
        save_checkpoint(model, run_dir)
        export_policy(model, run_dir / "policy.pt", actor_config(model, config))
    finally:
        env.close()
    return model


# ----------------------------------------------------------------------------- CLI
def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    parser = parser or argparse.ArgumentParser(
        prog="train_ppo", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_config_arguments(parser)
    parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the run in --run-dir from its last checkpoint",
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def run(args: argparse.Namespace) -> int:
    config = config_from_args(args)
    model = train(config, resume=args.resume, progress=not args.no_progress)
    print(f"trained {model.num_timesteps} steps; policy: {Path(config.run_dir) / 'policy.pt'}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return run(build_parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
