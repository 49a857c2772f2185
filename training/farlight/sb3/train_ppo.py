"""Train a MaskablePPO agent on Farlight against chosen opponents.

    farlight train ppo --run-dir runs/ppo --total-steps 200000 --opponents heuristic
    farlight train ppo --run-dir runs/ppo --resume      # continue after a crash or kill

Hyper-parameters live in `PPOConfig`; the command line (farlight_cli/train_cmd.py) is
generated from it and calls `train(config)`. Every run writes
run_config.json, CSV and TensorBoard logs, an atomic checkpoint every `checkpoint_every` steps
(weights, optimiser, step count) and the exported actor `policy.pt` for `agents.make`.
"""

from __future__ import annotations

import sys
from collections.abc import Collection
from dataclasses import fields
from pathlib import Path
from typing import Any

from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

from agents.farlight.policy import load_policy
from agents.torch_device import resolve_device
from agents.torch_threads import set_threads
from evaluation.collector import fewer_collections
from training.checkpoints import (
    CHECKPOINT,
    CheckpointError,
    read_checkpoint,
    restore_weights,
    save_checkpoint,
)
from training.curves import plot_ppo_curve
from training.farlight.config import (
    RESUMABLE_OVERRIDES,
    PPOConfig,
    eval_player_counts,
    ship_encoder_frozen,
)
from training.farlight.envs import card_set_of, check_agents, env_options, make_env_fn, probe_env
from training.farlight.game_options import check_game_options
from training.farlight.sb3.callbacks import VALUE_PREFIXES, FreezeShipEncoder, ValueWarmup
from training.farlight.sb3.imitation import behaviour_clone
from training.farlight.sb3.live_eval import LivePolicy, evaluate_against
from training.farlight.sb3.ppo_model import (
    build_model,
    export_policy,
    load_checkpoint,
    policy_config,
)
from training.farlight.sb3.vec_env import SharedMemoryVecEnv
from training.farlight.subgame import as_learner, subgame_fields
from training.run_config import resume_config, stream_seed
from training.sb3.run_files import RUN_CONFIG, run_logger, stored_config, write_run_config
from training.sb3.runs import ProgressCallback, RunError, close_env, crossed_multiple

#: Parameters a saved policy lacks (it holds the actor only): SB3's value head.


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

    def _on_training_end(self) -> None:
        """Evaluate at the last step when it is a multiple of eval_every: no rollout starts
        after the last update, so the curve would end one evaluation early."""
        steps = self.model.num_timesteps
        if crossed_multiple(self.last_eval, steps, self.config.eval_every):
            self.evaluate()
            self.last_eval = steps

    def save(self) -> None:
        save_checkpoint(self.model, self.run_dir)
        export_policy(self.model, self.run_dir / "policy.pt", actor_config(self.model, self.config))

    def evaluate(self) -> dict[str, float]:
        results = {}
        live = as_learner(LivePolicy(self.model), self.config)
        counts = eval_player_counts(self.config)
        for opponent in self.config.eval_opponents:
            for seats in counts:
                rate = evaluate_against(
                    live,
                    opponent,
                    self.config.eval_games,
                    seats,
                    seed=10_000 + self.model.num_timesteps,
                    options=env_options(self.config),
                )
                key = opponent if len(counts) == 1 else f"{opponent}_{seats}p"
                self.logger.record(f"eval/win_rate_vs_{key}", rate)
                results[key] = rate
        self.logger.record("time/total_timesteps", self.model.num_timesteps)
        self.logger.dump(self.model.num_timesteps)
        plot_ppo_curve(self.run_dir)
        return results


def actor_config(model: Any, config: PPOConfig, name: str = "ppo") -> dict[str, Any]:
    """Config of the exported actor, with the run's provenance."""
    return policy_config(
        model,
        config,
        name=name,
        extra={
            "num_players": config.num_players,
            **({"player_counts": list(config.player_counts)} if config.player_counts else {}),
            "trained_steps": int(model.num_timesteps),
            "opponents": list(getattr(config, "baselines", config.opponents)),
            "seed": config.seed,
            **({"card_set": config.card_set} if config.card_set else {}),
            **({"grid_size": config.grid_size} if config.grid_size != 13 else {}),
            **subgame_fields(config),
        },
    )


def build_env(config: PPOConfig) -> VecMonitor:
    fns = [make_env_fn(config, rank) for rank in range(config.n_envs)]
    if config.vec_env == "subproc" and config.n_envs > 1:
        start = "fork" if sys.platform != "win32" else "spawn"
        probe = probe_env(config)
        return VecMonitor(
            SharedMemoryVecEnv(fns, probe.observation_space, probe.action_space, start)
        )
    return VecMonitor(DummyVecEnv(fns))


def prepare(
    config: PPOConfig, resume: bool, given: Collection[str] | None = None, cls: type = PPOConfig
) -> PPOConfig:
    """The config to run, once everything it names was checked: the run folder, the
    checkpoint, the card set, the agents. Nothing is written and no worker started yet."""
    run_dir = Path(config.run_dir)
    if resume:
        if given is None:  # the Python API: total_steps and options that differ from defaults
            defaults = cls()
            given = {"total_steps"} | {
                f.name for f in fields(cls) if getattr(config, f.name) != getattr(defaults, f.name)
            }
        config = resume_config(stored_config(run_dir, cls), config, given, RESUMABLE_OVERRIDES)
        if not (run_dir / CHECKPOINT).is_file():
            raise FileNotFoundError(
                f"no checkpoint at {run_dir / CHECKPOINT}: the run stopped before its first "
                "checkpoint; start it again in an empty --run-dir"
            )
        meta, _weights = read_checkpoint(run_dir / CHECKPOINT)
        refuse_a_total_already_passed(run_dir, config.total_steps, meta.num_timesteps)
    else:
        for name in (CHECKPOINT, RUN_CONFIG):
            if (run_dir / name).exists():
                raise FileExistsError(
                    f"{run_dir} already holds a run ({name}); pass --resume to continue it or "
                    "pick another --run-dir"
                )
        if config.init_from:
            check_warm_start(Path(config.init_from))
    resolve_device(config.device)  # a GPU torch does not see is refused before anything starts
    card_set_of(config)
    check_game_options(config)
    check_agents(config.opponents, "--opponents")
    check_agents(config.eval_opponents, "--eval-opponents")
    if hasattr(config, "baselines"):
        check_agents(config.baselines, "--baselines")
    return config


def refuse_a_total_already_passed(run_dir: Path, total: int, reached: int) -> None:
    """A resume to fewer steps than the run has trained would train nothing, yet record the
    smaller budget as the run's: refused, so that a typo cannot shrink a run. (Equal is
    allowed: it rewrites the checkpoint and policy of a run killed while writing them.)"""
    if total < reached:
        raise RunError(
            f"the run in {run_dir} is already at {reached:,} steps, more than --total-steps "
            f"{total}: give a --total-steps above {reached} to train on"
        )


def as_run_error(exc: Exception) -> RunError:
    return RunError(str(exc))


def start_model(config: PPOConfig, env: Any, resume: bool, progress: bool) -> MaskablePPO:
    """The model to train: restored from the run's checkpoint, or new (warm-started from
    --init-from and behaviour cloning if asked). A new run's config is written here."""
    run_dir = Path(config.run_dir)
    if resume:
        model = load_checkpoint(run_dir / CHECKPOINT, env, config)
        # new deals and draws from here on, not the start's again (applied at learn's reset)
        model.set_random_seed(stream_seed(config.seed, model.num_timesteps))
        write_run_config(run_dir, config)  # the new budget and resumable overrides
        return model
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
            options=env_options(config),
        )
    return model


def is_policy_file(path: Path) -> bool:
    return path.suffix == ".pt"


def check_warm_start(source: Path) -> None:
    """Refuse a missing or corrupt --init-from before anything is written (ValueError/OSError)."""
    if is_policy_file(source):
        load_policy(source)
    else:
        read_checkpoint(source)


def warm_start(model: MaskablePPO, source: Path) -> None:
    """Copy another run's network weights (not its optimiser or step count) into `model`: all
    of a checkpoint's, or a saved policy's actor (the value head then starts fresh)."""
    if is_policy_file(source):
        restore_actor(model, source)
        return
    _meta, weights = read_checkpoint(source)
    restore_weights(model, weights, source)


def restore_actor(model: MaskablePPO, path: Path) -> None:
    """Load a policy file's actor into the model; everything else must be the value head."""
    net, _config = load_policy(path)
    try:
        missing, unexpected = model.policy.load_state_dict(net.state_dict(), strict=False)
    except RuntimeError as exc:
        missing, unexpected = [str(exc).splitlines()[0]], []
    stray = [k for k in missing if not k.startswith(VALUE_PREFIXES)] + list(unexpected)
    if stray:
        raise CheckpointError(
            f"{path}: its network does not match this run's (--arch, --embed, --ship-features, "
            f"--hidden, --pi, --vf, the card set and grid size must be the same): {stray[0]}"
        )


@fewer_collections()  # the whole run: evaluation/collector.py
def train(
    config: PPOConfig,
    resume: bool = False,
    progress: bool = True,
    given: Collection[str] | None = None,
) -> MaskablePPO:
    """Run (or resume) training; returns the model. Writes everything under config.run_dir.

    On --resume, options in `given` (default: those differing from PPOConfig's defaults) must
    be resumable or equal to the stored ones. A run that cannot start raises RunError.
    """
    try:
        config = prepare(config, resume, given)
    except (ValueError, OSError) as exc:
        raise as_run_error(exc) from exc
    run_dir = Path(config.run_dir)
    set_threads(config.torch_threads)  # deliberate: the library default leaves it alone
    env = build_env(config)
    try:
        try:
            model = start_model(config, env, resume, progress)
        except (ValueError, OSError) as exc:
            raise as_run_error(exc) from exc
        model.set_logger(run_logger(run_dir, model.num_timesteps if resume else None))
        callbacks = CallbackList(
            [
                CheckpointAndEval(config, run_dir),
                FreezeShipEncoder(ship_encoder_frozen(config)),
                ValueWarmup(config.value_warmup_steps),
                *([ProgressCallback(config.total_steps, model.num_timesteps)] if progress else []),
            ]
        )
        remaining = config.total_steps - model.num_timesteps  # SB3 adds num_timesteps back
        if remaining > 0:
            model.learn(remaining, callback=callbacks, reset_num_timesteps=False)
        save_checkpoint(model, run_dir)
        export_policy(model, run_dir / "policy.pt", actor_config(model, config))
        plot_ppo_curve(run_dir)
    finally:
        close_env(env)
    return model
