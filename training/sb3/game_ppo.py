"""Train MaskablePPO on a game other than Farlight (#50), written against the platform only:
the learner holds one seat of `farlight_env/Game-v0` (platform/gym.py) against opponents that
play any game (random, ismcts, a game policy file), with SB3's plain MLP policy.

    farlight train ppo --game duel --players 2 --timesteps 20000 --out runs/duel
    farlight train ppo --resume runs/duel --timesteps 40000

A run writes what Farlight's runs do, with the same plumbing (training/checkpoints.py,
training/sb3/run_files.py): run_config.json, CSV and TensorBoard logs, an atomic checkpoint
every `checkpoint_every` steps and at the end, and policy.pt, a game policy file
(agents/game_policy/file.py) that `agents.make` plays.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from pathlib import Path
from typing import Any

from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

from agents.game_policy.file import save_game_policy
from agents.registry import plays_game
from agents.torch_device import resolve_device
from agents.torch_threads import set_threads
from farlight_env.platform import get_game
from farlight_env.platform.gym import PlatformSingleAgentEnv
from training.checkpoints import CHECKPOINT, read_checkpoint, restore_checkpoint, save_checkpoint
from training.game_config import GAME_RESUMABLE, GamePPOConfig
from training.run_config import resume_config, stream_seed
from training.sb3.run_files import RUN_CONFIG, run_logger, stored_config, write_run_config
from training.sb3.runs import ProgressCallback, RunError, close_env, crossed_multiple

POLICY = "policy.pt"


def check_game(config: GamePPOConfig) -> dict[str, Any]:
    """The game's checked options, once the game, its player count and the opponents are
    known to fit (GameError/RunError naming what does not)."""
    game = get_game(config.game)
    options = game.checked_options(config.game_options)
    game.check_players(config.num_players)
    if len(config.opponents) not in (1, config.num_players - 1, config.num_players):
        raise RunError(
            f"--opponents: one agent for every seat, or {config.num_players - 1} (one per other "
            f"seat), got {len(config.opponents)}"
        )
    for name in config.opponents:
        if not plays_game(name, game.name):
            raise RunError(
                f"--opponents: agent {name} does not play {game.name}; agents for every game: "
                "random, ismcts, ismcts@N, or a policy file trained for it"
            )
    return options


def prepare(config: GamePPOConfig, resume: bool, given: Collection[str]) -> GamePPOConfig:
    """The config to run, once the run folder, checkpoint, game and opponents are checked;
    nothing is written yet. A resume takes the stored config, with the resumable options given."""
    run_dir = Path(config.run_dir)
    if resume:
        stored = stored_config(run_dir, GamePPOConfig)
        config = resume_config(stored, config, given, GAME_RESUMABLE)
        if not (run_dir / CHECKPOINT).is_file():
            raise FileNotFoundError(
                f"no checkpoint at {run_dir / CHECKPOINT}: the run stopped before its first "
                "checkpoint; start it again in an empty --out"
            )
        meta, _weights = read_checkpoint(run_dir / CHECKPOINT)
        if "total_steps" in given and config.total_steps < meta.num_timesteps:
            raise RunError(
                f"the run in {run_dir} is already at {meta.num_timesteps:,} steps, more than "
                f"--timesteps {config.total_steps}: give more to train on"
            )
    else:
        for name in (CHECKPOINT, RUN_CONFIG):
            if (run_dir / name).exists():
                raise FileExistsError(
                    f"{run_dir} already holds a run ({name}); pass --resume {run_dir} to "
                    "continue it or pick another --out"
                )
    resolve_device(config.device)
    check_game(config)
    return config


def _env_fn(config: GamePPOConfig, rank: int) -> Any:
    opponents = config.opponents[0] if len(config.opponents) == 1 else list(config.opponents)

    def make() -> PlatformSingleAgentEnv:
        return PlatformSingleAgentEnv(
            config.game, config.num_players, opponents=opponents, **config.game_options
        )

    make.__name__ = f"{config.game}_env_{rank}"
    return make


def build_env(config: GamePPOConfig) -> VecMonitor:
    return VecMonitor(DummyVecEnv([_env_fn(config, rank) for rank in range(config.n_envs)]))


def build_model(config: GamePPOConfig, env: Any) -> MaskablePPO:
    """SB3's MlpPolicy with `hidden` layers for actor and critic (tanh, SB3's default)."""
    return MaskablePPO(
        "MlpPolicy",
        env,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        learning_rate=config.learning_rate,
        gamma=config.gamma,
        gae_lambda=config.gae_lambda,
        clip_range=config.clip_range,
        ent_coef=config.ent_coef,
        policy_kwargs={"net_arch": {"pi": list(config.hidden), "vf": list(config.hidden)}},
        seed=config.seed,
        device=resolve_device(config.device),
        verbose=0,
    )


def policy_metadata(model: Any, config: GamePPOConfig) -> dict[str, Any]:
    """What the policy file says about its game, sizes, network and provenance."""
    game = get_game(config.game)
    options = game.checked_options(config.game_options)
    return {
        "game": game.name,
        "game_version": int(game.version),
        "player_counts": [config.num_players],
        "obs_size": int(game.observation_size(config.num_players, options)),
        "action_size": int(game.action_size(config.num_players, options)),
        "hidden": list(config.hidden),
        "activation": "tanh",
        "name": "ppo",
        "game_options": dict(config.game_options),
        "trained_steps": int(model.num_timesteps),
        "seed": config.seed,
        "opponents": list(config.opponents),
    }


def export_policy(model: Any, config: GamePPOConfig, run_dir: Path) -> Path:
    """run_dir/policy.pt from the model's actor, written atomically."""
    path = run_dir / POLICY
    save_game_policy(model.policy.state_dict(), policy_metadata(model, config), path)
    return path


def policy_from_checkpoint(run_dir: str | Path) -> Path:
    """Write run_dir/policy.pt from the run's last checkpoint (on demand: e.g. a run killed
    between its checkpoint and its policy, or a policy file deleted); returns its path."""
    run_dir = Path(run_dir)
    config = stored_config(run_dir, GamePPOConfig)
    env = build_env(config)
    try:
        model = restore_checkpoint(build_model(config, env), run_dir / CHECKPOINT)
        return export_policy(model, config, run_dir)
    finally:
        close_env(env)


class CheckpointEvery(BaseCallback):
    """At rollout boundaries: an atomic checkpoint and policy every `every` steps."""

    def __init__(self, config: GamePPOConfig, run_dir: Path) -> None:
        super().__init__()
        self.config, self.run_dir, self.last = config, run_dir, 0

    def _on_training_start(self) -> None:
        self.last = self.model.num_timesteps

    def _on_rollout_start(self) -> None:
        steps = self.model.num_timesteps
        if crossed_multiple(self.last, steps, self.config.checkpoint_every):
            save_checkpoint(self.model, self.run_dir)
            export_policy(self.model, self.config, self.run_dir)
            self.last = steps

    def _on_step(self) -> bool:
        return True


def start_model(config: GamePPOConfig, env: Any, resume: bool) -> MaskablePPO:
    """The model: restored from the run's checkpoint (new random streams for the steps it is
    at), or new; the run's config is written here either way."""
    run_dir = Path(config.run_dir)
    model = build_model(config, env)
    if resume:
        restore_checkpoint(model, run_dir / CHECKPOINT)
        model.set_random_seed(stream_seed(config.seed, model.num_timesteps))
    run_dir.mkdir(parents=True, exist_ok=True)
    write_run_config(run_dir, config)
    return model


def train(
    config: GamePPOConfig,
    resume: bool = False,
    progress: bool = True,
    given: Collection[str] | None = None,
) -> MaskablePPO:
    """Run (or resume) training to `config.total_steps`; returns the model. A run that cannot
    start as asked raises RunError (one line)."""
    if given is None:
        defaults = GamePPOConfig()
        given = {"total_steps"} | {
            f.name
            for f in dataclasses.fields(GamePPOConfig)
            if getattr(config, f.name) != getattr(defaults, f.name)
        }
    try:
        config = prepare(config, resume, given)
    except (ValueError, OSError) as exc:
        raise RunError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__) from exc
    run_dir = Path(config.run_dir)
    set_threads(config.torch_threads)
    env = build_env(config)
    try:
        try:
            model = start_model(config, env, resume)
        except (ValueError, OSError) as exc:
            raise RunError(str(exc)) from exc
        model.set_logger(run_logger(run_dir, model.num_timesteps if resume else None))
        callbacks = CallbackList(
            [
                CheckpointEvery(config, run_dir),
                *([ProgressCallback(config.total_steps, model.num_timesteps)] if progress else []),
            ]
        )
        remaining = config.total_steps - model.num_timesteps
        if remaining > 0:
            model.learn(remaining, callback=callbacks, reset_num_timesteps=False)
        save_checkpoint(model, run_dir)
        export_policy(model, config, run_dir)
    finally:
        close_env(env)
    return model
