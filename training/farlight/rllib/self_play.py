"""League self-play with PPO on Ray RLlib: the same command on a laptop and on a cluster.

    farlight train rllib --run-dir runs/r --iterations 50                  # local Ray instance
    ray start --head && farlight train rllib --run-dir runs/r --address auto --num-env-runners 8
    farlight train rllib --run-dir runs/r --resume                         # after a kill

One shared policy (the project's StructuredNet inside `MaskedStructuredModule`) holds every
learner seat; league opponents (baselines and frozen snapshots) play inside `LeagueEnv`. Every
`checkpoint_every` iterations the run writes RLlib's checkpoint (`rllib_checkpoint/`, swapped
in whole), the exported `policy.pt` that `agents.make` loads, and `league.json`; logs go to
`logs/progress.csv` and TensorBoard, the curve to learning_curve.png, evaluations go through
the tournament code. A local Ray instance dies with this process (orphan reaper).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import shutil
import sys
import time
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

import msgspec

from agents.registry import make
from agents.torch_device import resolve_device
from agents.torch_threads import set_threads
from farlight_env.cards.io import load_card_set
from farlight_env.cards.schema import CardFileError
from farlight_env.processes import check_ray_address
from farlight_env.untrusted.files import atomic_write, read_bounded
from training.checkpoints import MAX_COUNTER
from training.farlight.config import ship_encoder_frozen
from training.farlight.envs import TRAINING_OBSERVATION
from training.farlight.game_options import check_game_options, game_kwargs
from training.farlight.rllib.config import CHECKPOINT_DIR, RLLIB_RESUMABLE, RLlibConfig
from training.farlight.rllib.ray_messages import (
    RAY_LOG,
    keep_ray_log,
    ray_stderr_captured,
    silence_known_notices,
)
from training.farlight.subgame import subgame_fields, subgame_kwargs
from training.run_config import resume_config, stream_seed

RUN_CONFIG = "run_config.json"
LEAGUE = "league.json"
POLICY = "policy.pt"
ENV_NAME = "farlight_league"
MODULE = "shared"
STEP = "time/total_timesteps"
CSV_COLUMNS = (
    STEP,
    "time/iterations",
    "time/env_steps_per_s",
    "time/sample_s",
    "time/learn_s",
    "rollout/ep_rew_mean",
    "rollout/ep_len_mean",
    "train/entropy",
    "train/policy_loss",
    "train/value_loss",
)


class RunError(ValueError):
    """A run that cannot start as asked: one or two lines for the user."""


class RunState(msgspec.Struct, forbid_unknown_fields=True):
    """Counters a resumed run continues from, saved inside each checkpoint."""

    iteration: int
    env_steps: int
    snapshots: list[str]


# ----------------------------------------------------------------------------- preparing
def game_options(config: RLlibConfig) -> dict[str, Any]:
    """Keyword arguments of `raw_env` (and the tournament's game config) for the run's game."""
    return {
        **({"card_set": config.card_set} if config.card_set else {}),
        **game_kwargs(config),
    }


def stored_config(run_dir: Path) -> RLlibConfig:
    path = run_dir / RUN_CONFIG
    if not path.is_file():
        raise RunError(f"{run_dir}: no {RUN_CONFIG}; not an rllib training run directory")
    try:
        data = json.loads(read_bounded(path, 1 << 20))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise RunError(f"{path}: corrupt run config ({exc})") from exc
    known = {f.name for f in dataclasses.fields(RLlibConfig)}
    if not isinstance(data, dict) or set(data) - known:
        raise RunError(
            f"{path}: not the config of an rllib run (resume it with the command that started it)"
        )
    try:
        return msgspec.convert(data, RLlibConfig)
    except (msgspec.ValidationError, ValueError) as exc:
        raise RunError(f"{path}: {exc}") from exc


def read_state(run_dir: Path) -> RunState:
    """The counters of the run's checkpoint; one killed between the two renames of `save`
    is put back first."""
    final, old = run_dir / CHECKPOINT_DIR, run_dir / f"{CHECKPOINT_DIR}.old"
    if not final.exists() and (old / LEAGUE).is_file():
        old.rename(final)
    path = final / LEAGUE
    if not path.is_file():
        raise RunError(
            f"no checkpoint in {run_dir / CHECKPOINT_DIR}: the run stopped before its first "
            "checkpoint; start it again in an empty --run-dir"
        )
    try:
        state = msgspec.json.decode(read_bounded(path, 1 << 20), type=RunState)
    except msgspec.DecodeError as exc:
        raise RunError(f"{path}: corrupt ({exc})") from exc
    for name in ("iteration", "env_steps"):
        if not 0 <= getattr(state, name) <= MAX_COUNTER:
            raise RunError(f"{path}: {name} must be in 0..{MAX_COUNTER:.0e}")
    for name in state.snapshots:
        if not (run_dir / "league" / name).is_file() or "/" in name or "\\" in name:
            raise RunError(f"{path}: snapshot {name!r} is missing from {run_dir / 'league'}")
    return state


def check_agents(names: Sequence[str], option: str) -> None:
    for name in dict.fromkeys(names):
        try:
            make(name, seed=0)
        except (ValueError, OSError) as exc:
            raise RunError(f"{option}: {exc}") from exc


def prepare(
    config: RLlibConfig, resume: bool, given: Collection[str] | None
) -> tuple[RLlibConfig, RunState | None]:
    """The config to run and the state to resume from, once everything they name was checked.
    Nothing is written and no Ray process started yet."""
    run_dir = Path(config.run_dir)
    state = None
    if resume:
        given = set(given) if given is not None else {"iterations"}
        try:
            config = resume_config(stored_config(run_dir), config, given, RLLIB_RESUMABLE)
        except ValueError as exc:
            raise RunError(str(exc)) from exc
        state = read_state(run_dir)
    elif (run_dir / RUN_CONFIG).exists():
        raise RunError(
            f"{run_dir} already holds a run ({RUN_CONFIG}); pass --resume to continue it or "
            "pick another --run-dir"
        )
    if config.card_set and not Path(config.card_set).is_file():
        raise RunError(f"--card-set: no card file at {config.card_set}")
    if config.card_set:
        try:
            load_card_set(config.card_set)
        except CardFileError as exc:
            raise RunError(f"--card-set: {exc}") from None
    try:
        check_game_options(config)
    except ValueError as exc:
        raise RunError(str(exc)) from None
    check_agents(config.baselines, "--baselines")
    check_agents(config.eval_opponents, "--eval-opponents")
    if config.init_from and state is None:
        check_init_from(config)
    try:
        learner_gpus(config)  # a GPU torch does not see is refused before Ray starts
    except ValueError as exc:
        raise RunError(str(exc)) from None
    check_address(config.address)
    if not config.address:
        cpus = config.num_cpus or os.cpu_count() or 1
        needed = config.num_env_runners + config.num_learners
        if needed > cpus:
            raise RunError(
                f"{config.num_env_runners} env runners and {config.num_learners} learners need "
                f"{needed} CPUs; the local Ray instance has {cpus} (--num-cpus)"
            )
    return config, state


def check_init_from(config: RLlibConfig) -> None:
    """Refuse an --init-from that cannot load or holds another network than the run's."""
    from agents.farlight.policy import load_policy
    from agents.farlight.policy.compact_input import expanded_size

    try:
        _net, stored = load_policy(config.init_from)
    except (ValueError, OSError) as exc:
        raise RunError(f"--init-from: {exc}") from None
    spec = module_spec(config)
    wanted = {
        "arch": "structured",
        "embed": config.embed,
        "ship_features": config.ship_features,
        "hidden": config.hidden,
        "vf": config.vf,
        "obs_size": expanded_size(spec.model_config["layout"]),
        "action_size": int(spec.action_space.n),
    }
    vf = stored.get("vf")
    have = {**stored, "vf": vf[0] if isinstance(vf, list) and len(vf) == 1 else vf}
    differ = [f"{k} {have.get(k)!r}, not {v!r}" for k, v in wanted.items() if have.get(k) != v]
    if differ:
        raise RunError(
            f"--init-from {config.init_from}: its network is not this run's ({differ[0]}); give "
            "the same --embed, --ship-features, --hidden, --vf, card set and grid size"
        )


def warm_start(algo: Any, path: str) -> None:
    """Load a policy file's actor into the learners' module and hand it to the env runners
    (RLlib's value head stays fresh)."""
    from agents.farlight.policy import load_policy
    from training.farlight.rllib.module import import_state

    net, _config = load_policy(path)
    state = {**module_state(algo), **import_state(net.state_dict())}
    algo.learner_group.set_state({"learner": {"rl_module": {MODULE: state}}})
    algo.env_runner_group.sync_weights(
        from_worker_or_learner_group=algo.learner_group, inference_only=True
    )


def freeze_ship_encoder(algo: Any) -> None:
    """`--ship-encoder freeze` (or auto's choice): every learner's ship CNN stops learning."""
    from agents.farlight.policy import set_ship_cnn_frozen

    algo.learner_group.foreach_learner(
        lambda learner, **_: set_ship_cnn_frozen(learner.module[MODULE], True)
    )


def check_address(address: str) -> None:
    """Refuse a malformed or unreachable cluster address in seconds (Ray itself retries for
    a minute or more)."""
    try:
        check_ray_address(address, "--address")
    except ValueError as exc:
        raise RunError(str(exc)) from None


# ----------------------------------------------------------------------------- Ray
def start_ray(config: RLlibConfig) -> Any:
    """Join the cluster at --address, or start a local instance that dies with this process.
    Returns the orphan reaper (None when joining a cluster)."""
    import logging

    import ray

    from farlight_env.processes import start_orphan_reaper

    if config.address:
        try:
            ray.init(address=config.address, logging_level=logging.ERROR, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise RunError(f"--address {config.address}: {first}") from exc
        return None
    reaper = start_orphan_reaper()
    root = str(Path(__file__).resolve().parents[3])  # the project
    path = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    ray.init(
        num_cpus=config.num_cpus or None,
        include_dashboard=False,
        logging_level=logging.ERROR,
        log_to_driver=False,
        runtime_env={"env_vars": {"PYTHONPATH": path, "OMP_NUM_THREADS": "1"}},
    )
    return reaper


def to_shared(agent_id: Any, episode: Any, **kwargs: Any) -> str:
    """Policy mapping: every learner seat plays the one shared module."""
    return MODULE


def module_spec(config: RLlibConfig) -> Any:
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from farlight_env.env.aec import raw_env
    from training.farlight.rllib.module import MaskedStructuredModule, module_model_config

    env = raw_env(
        num_players=config.num_players, observation=TRAINING_OBSERVATION, **game_options(config)
    )
    layout = {
        name: (s.start, s.stop, shape) for name, (s, shape) in env.observation_layout().items()
    }
    return RLModuleSpec(
        module_class=MaskedStructuredModule,
        observation_space=env.observation_space("player_0"),
        action_space=env.action_space("player_0"),
        model_config=module_model_config(
            layout, config.embed, config.ship_features, config.hidden, config.vf
        ),
    )


def learner_gpus(config: RLlibConfig) -> dict[str, int]:
    """RLlib's GPU settings for --device: one GPU per learner (the driver's when it learns
    itself) on cuda, none on cpu; `auto` and the check are the driver's torch's (a cluster
    whose remote learners have GPUs the driver lacks needs --device cuda)."""
    if config.address and config.num_learners > 0 and config.device == "cuda":
        return {"num_gpus_per_learner": 1}  # the cluster's GPUs, not the driver's
    device = resolve_device(config.device)
    if device.type != "cuda":
        return {"num_gpus_per_learner": 0}
    return {"num_gpus_per_learner": 1, "local_gpu_idx": device.index or 0}


def build_algorithm(config: RLlibConfig, seed: int | None = None) -> Any:
    """The PPO algorithm of the run (a new one; a resume restores its state afterwards)."""
    from ray.tune.registry import register_env

    from training.farlight.rllib.env import LeagueEnv

    register_env(ENV_NAME, LeagueEnv)
    return algorithm_config(config, seed).build_algo()


def algorithm_config(config: RLlibConfig, seed: int | None = None) -> Any:
    """RLlib's PPO config of the run, its env runners and games seeded from `seed` (default:
    the run's own)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    seed = config.seed if seed is None else seed
    env_config = {
        "num_players": config.num_players,
        "reward_mode": config.reward_mode,
        "options": game_options(config),
        "subgame": subgame_kwargs(config),
        "baselines": list(config.baselines),
        "self_play_fraction": config.self_play_fraction,
        "seed": seed,
    }
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config=env_config, disable_env_checking=True)
        .framework("torch")
        .env_runners(
            num_env_runners=config.num_env_runners,
            num_envs_per_env_runner=config.num_envs_per_env_runner,
            episodes_to_numpy=False,
        )
        .learners(num_learners=config.num_learners, **learner_gpus(config))
        .multi_agent(policies={MODULE}, policy_mapping_fn=to_shared, policies_to_train=[MODULE])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={MODULE: module_spec(config)}))
        .training(
            train_batch_size_per_learner=config.train_batch_size,
            minibatch_size=config.minibatch_size,
            num_epochs=config.num_epochs,
            lr=config.learning_rate,
            gamma=config.gamma,
            lambda_=config.gae_lambda,
            clip_param=config.clip_range,
            entropy_coeff=config.ent_coef,
        )
        .debugging(seed=seed, log_level="ERROR")
    )


# ----------------------------------------------------------------------------- run files
def module_state(algo: Any) -> dict[str, Any]:
    """The learner's copy of the shared module (the env runners' value head may lag)."""
    state = algo.learner_group.get_state(components=f"learner/rl_module/{MODULE}")
    return state["learner"]["rl_module"][MODULE]


def policy_config(config: RLlibConfig, state: RunState) -> dict[str, Any]:
    from agents.farlight.policy.compact_input import expanded_size

    spec = module_spec(config)
    return {
        **spec.model_config,
        "name": "rllib",
        **subgame_fields(config),
        "arch": "structured",
        "pi": [],
        "obs_size": expanded_size(spec.model_config["layout"]),
        "action_size": int(spec.action_space.n),
        "num_players": config.num_players,
        "trained_steps": state.env_steps,
        "iterations": state.iteration,
        "trainer": "rllib",
        "opponents": list(config.baselines),
        "seed": config.seed,
    }


def export(algo: Any, config: RLlibConfig, state: RunState, path: Path) -> None:
    from training.farlight.rllib.module import export_policy

    export_policy(module_state(algo), policy_config(config, state), path)


def save(algo: Any, config: RLlibConfig, state: RunState) -> None:
    """RLlib checkpoint plus league.json, written beside and swapped in whole; then policy.pt."""
    run_dir = Path(config.run_dir).resolve()
    final, tmp, old = (run_dir / f"{CHECKPOINT_DIR}{s}" for s in ("", ".tmp", ".old"))
    shutil.rmtree(tmp, ignore_errors=True)
    algo.save_to_path(str(tmp))
    atomic_write(tmp / LEAGUE, msgspec.json.encode(state))
    shutil.rmtree(old, ignore_errors=True)
    if final.exists():
        final.rename(old)
    tmp.rename(final)
    shutil.rmtree(old, ignore_errors=True)
    export(algo, config, state, run_dir / POLICY)


def push_league(algo: Any, config: RLlibConfig, snapshots: Sequence[str]) -> None:
    """Send the league (baseline names, snapshot files' bytes) to every env of every runner."""
    folder = Path(config.run_dir) / "league"
    entries = [(name, None) for name in config.baselines] + [
        (name, (folder / name).read_bytes()) for name in snapshots
    ]

    def apply(runner: Any) -> None:
        for env in getattr(runner.env, "envs", []):
            getattr(env, "unwrapped", env).set_league(entries)

    algo.env_runner_group.foreach_env_runner(apply, local_env_runner=True)


def take_snapshot(algo: Any, config: RLlibConfig, state: RunState) -> None:
    name = f"snapshot_{state.iteration:06d}.pt"
    export(algo, config, state, Path(config.run_dir) / "league" / name)
    state.snapshots = (state.snapshots + [name])[-config.max_snapshots :]
    push_league(algo, config, state.snapshots)


class RunLog:
    """progress.csv (appended across resumes, later rows dropped on resume) and TensorBoard."""

    def __init__(self, run_dir: Path, resumed_at: int | None) -> None:
        self.folder = run_dir / "logs"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.csv = self.folder / "progress.csv"
        self.rows = self._read(resumed_at)
        try:
            from tensorboardX import SummaryWriter

            # a resume hides TensorBoard events logged after the checkpoint, as for the CSV
            purge = None if resumed_at is None else resumed_at + 1
            self.tb: Any = SummaryWriter(str(self.folder), purge_step=purge)
        except ImportError:
            self.tb = None

    def _read(self, resumed_at: int | None) -> list[dict[str, str]]:
        import csv

        if resumed_at is None or not self.csv.is_file():
            return []
        with self.csv.open(newline="") as fh:
            return [r for r in csv.DictReader(fh) if float(r.get(STEP) or 0) <= resumed_at]

    def write(self, row: dict[str, float]) -> None:
        import csv
        import io

        self.rows.append({k: f"{v:.6g}" for k, v in row.items()})
        columns = list(dict.fromkeys([*CSV_COLUMNS, *(k for r in self.rows for k in r)]))
        out = io.StringIO()
        writer = csv.DictWriter(out, columns)
        writer.writeheader()
        writer.writerows(self.rows)
        atomic_write(self.csv, out.getvalue())
        if self.tb is not None:
            for key, value in row.items():
                if key != STEP:
                    self.tb.add_scalar(key, value, int(row[STEP]))
            self.tb.flush()

    def close(self) -> None:
        if self.tb is not None:
            self.tb.close()


def metrics(result: dict[str, Any]) -> dict[str, float]:
    """The logged numbers of one RLlib training result."""
    runners = result.get("env_runners", {})
    learner = result.get("learners", {}).get(MODULE, {})
    returns = runners.get("agent_episode_returns_mean", {})
    timers = result.get("timers", {})
    out = {
        "time/sample_s": timers.get("env_runner_sampling_timer"),
        "time/learn_s": timers.get("learner_update_timer"),
        "rollout/ep_rew_mean": (sum(returns.values()) / len(returns)) if returns else None,
        "rollout/ep_len_mean": runners.get("episode_len_mean"),
        "train/entropy": learner.get("entropy"),
        "train/policy_loss": learner.get("policy_loss"),
        "train/value_loss": learner.get("vf_loss"),
    }
    return {k: float(v) for k, v in out.items() if isinstance(v, (int, float)) and math.isfinite(v)}


def evaluate(config: RLlibConfig, state: RunState) -> dict[str, float]:
    """Win rate of the exported policy against each evaluation opponent (tournament code)."""
    from evaluation.tournament import run_tournament

    policy = str(Path(config.run_dir) / POLICY)
    rates = {}
    for opponent in config.eval_opponents:
        result = run_tournament(
            [policy, opponent],
            num_players=config.num_players,
            games=config.eval_games,
            seed=10_000 + state.iteration,
            config=game_options(config),
            progress=False,
        )
        row = next(r for r in result.summary if r.agent == policy)
        rates[f"eval/win_rate_vs_{opponent}"] = row.win_rate
    return rates


def crossed(iteration: int, every: int) -> bool:
    return every > 0 and iteration % every == 0


# ----------------------------------------------------------------------------- training
def train(
    config: RLlibConfig,
    resume: bool = False,
    progress: bool = True,
    given: Collection[str] | None = None,
) -> RunState:
    """Run (or resume) a run to config.iterations; returns its final counters. A run that
    cannot start raises RunError; everything is written under config.run_dir."""
    config, state = prepare(config, resume, given)

    set_threads(config.torch_threads)  # deliberate: the library default leaves it alone
    run_dir = Path(config.run_dir)
    where = f"joining the cluster at {config.address}" if config.address else "a local instance"
    print(f"starting Ray ({where}); its own messages go to {run_dir / RAY_LOG}", file=sys.stderr)
    with ray_stderr_captured() as ray_output:
        reaper = start_ray(config)
    import ray

    try:
        silence_known_notices()
        with ray_stderr_captured() as built_output:
            # a resume's games and draws continue from new seeds, not the run's first ones again
            seed = stream_seed(config.seed, state.env_steps if state else 0)
            algo = build_algorithm(config, seed)
        if state is not None:
            algo.restore_from_path(str((run_dir / CHECKPOINT_DIR).resolve()))
        else:
            state = RunState(iteration=0, env_steps=0, snapshots=[])
            if config.init_from:
                warm_start(algo, config.init_from)
        if ship_encoder_frozen(config):
            freeze_ship_encoder(algo)
        run_dir.mkdir(parents=True, exist_ok=True)
        keep_ray_log(run_dir, ray_output + built_output)
        atomic_write(run_dir / RUN_CONFIG, json.dumps(dataclasses.asdict(config), indent=1))
        push_league(algo, config, state.snapshots)
        log = RunLog(run_dir, state.env_steps if resume else None)
        try:
            _loop(algo, config, state, log, progress)
        finally:
            log.close()
        save(algo, config, state)
        from training.curves import plot_ppo_curve

        plot_ppo_curve(run_dir)
        algo.stop()
    finally:
        ray.shutdown()
        from farlight_env.processes import stop_orphan_reaper

        stop_orphan_reaper(reaper)
    return state


def _loop(algo: Any, config: RLlibConfig, state: RunState, log: RunLog, progress: bool) -> None:
    from tqdm.auto import tqdm

    from training.curves import plot_ppo_curve

    bar = tqdm(
        total=config.iterations,
        initial=state.iteration,
        unit="iter",
        desc="training",
        disable=not progress,
    )
    with bar:
        while state.iteration < config.iterations:
            start = time.perf_counter()
            result = algo.train()
            steps = int(result.get("env_runners", {}).get("num_env_steps_sampled", 0))
            state.iteration += 1
            state.env_steps += steps
            row = {
                STEP: float(state.env_steps),
                "time/iterations": float(state.iteration),
                "time/env_steps_per_s": steps / max(time.perf_counter() - start, 1e-9),
                **metrics(result),
            }
            evaluating = crossed(state.iteration, config.eval_every)
            if evaluating:
                export(algo, config, state, Path(config.run_dir) / POLICY)
                row.update(evaluate(config, state))
            log.write(row)  # before the checkpoint: a resume drops rows it does not cover
            if evaluating:
                plot_ppo_curve(Path(config.run_dir))
            if crossed(state.iteration, config.snapshot_every) and config.max_snapshots:
                take_snapshot(algo, config, state)
            if crossed(state.iteration, config.checkpoint_every):
                save(algo, config, state)
            bar.set_postfix(steps=state.env_steps, sps=f"{row['time/env_steps_per_s']:.0f}")
            bar.update(1)
