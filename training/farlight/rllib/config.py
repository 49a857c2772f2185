"""Options of `farlight train rllib`, as one dataclass (CLI and run_config.json built from it).

Kept free of Ray and torch imports so `farlight --help` stays fast without the `rllib` extra.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from agents.torch_device import device_problem
from farlight_env.game.facts import MAX_PLAYERS, MIN_PLAYERS
from training.farlight.config import RewardMode, ShipEncoder
from training.farlight.game_options import GameOptions, game_problems
from training.farlight.subgame import SubGameOptions, subgame_problems
from training.run_config import MAX_WIDTH, bad_int, flag_name, literal_problems, opt

#: The run's RLlib checkpoint folder under --run-dir (named here, free of Ray, for the CLI).
CHECKPOINT_DIR = "rllib_checkpoint"
#: What --resume may change; every other option comes from run_config.json.
RLLIB_RESUMABLE = (
    "iterations",
    "run_dir",
    "address",
    "num_cpus",
    "num_env_runners",
    "num_envs_per_env_runner",
    "num_learners",
    "checkpoint_every",
    "eval_every",
    "eval_games",
    "eval_opponents",
    "torch_threads",
    "device",
)


@dataclass
class RLlibConfig(SubGameOptions, GameOptions):
    """Every knob of an RLlib self-play run, stored in run_config.json (the game options
    come from GameOptions)."""

    # ---- the run
    run_dir: str = opt("runs/rllib", "folder of the run: config, checkpoints, logs, policy.pt")
    iterations: int = opt(100, "training iterations in total over resumes")
    seed: int = opt(0, "seed of the networks, environments and league draws")
    # ---- where it runs
    address: str = opt(
        "",
        "Ray cluster to join (auto, HOST:PORT or ray://HOST:PORT); empty: local",
        metavar="ADDRESS",
    )
    num_cpus: int = opt(0, "CPUs of the local Ray instance (0: all of this machine)")
    num_env_runners: int = opt(1, "remote env runners sampling games (0: sample in the driver)")
    num_envs_per_env_runner: int = opt(4, "games each env runner plays side by side")
    num_learners: int = opt(0, "remote learner processes (0: learn in the driver)")
    # ---- the game
    num_players: int = opt(2, f"seats per game, {MIN_PLAYERS}..{MAX_PLAYERS}")
    card_set: str = opt("", "card file (TOML/JSON) to train on; empty: the standard set")
    reward_mode: RewardMode = opt("win", "reward at the end of a game")
    # ---- the league
    baselines: list[str] = opt(["random", "heuristic"], "fixed agents in the league")
    self_play_fraction: float = opt(
        0.5, "share of games where the learner holds every seat; the rest face league opponents"
    )
    snapshot_every: int = opt(
        10, "iterations between frozen snapshots joining the league (0: never)"
    )
    max_snapshots: int = opt(10, "snapshots kept in the league (oldest leave first)")
    # ---- PPO
    train_batch_size: int = opt(4000, "environment steps per iteration (per learner)")
    minibatch_size: int = opt(500, "minibatch size")
    num_epochs: int = opt(4, "passes over each batch")
    learning_rate: float = opt(3e-4, "Adam learning rate")
    gamma: float = opt(0.999, "discount factor, in (0, 1]")
    gae_lambda: float = opt(0.95, "GAE lambda, in [0, 1]")
    clip_range: float = opt(0.2, "PPO clip range (> 0)")
    ent_coef: float = opt(0.01, "entropy bonus (>= 0)")
    # ---- the network (the project's structured network)
    embed: int = opt(128, "width of the embedding of the non-ship observation")
    ship_features: int = opt(32, "channels of the ship CNN")
    hidden: int = opt(256, "trunk width")
    vf: int = opt(128, "width of the value layer")
    init_from: str = opt(
        "",
        "start from a saved policy *.pt of the same network (its actor; the value head starts "
        "fresh); empty: a fresh network",
    )
    ship_encoder: ShipEncoder = opt(
        "auto",
        "the ship CNN learns (train) or keeps its starting weights (freeze: updates reuse each "
        "ship grid's features); auto: freeze when the learner takes no install decision and "
        "starts from --init-from, else train",
    )
    # ---- schedules and evaluation
    checkpoint_every: int = opt(5, "iterations between checkpoints (0: only at the end)")
    eval_every: int = opt(5, "iterations between evaluations (0: never)")
    eval_games: int = opt(20, "games per evaluation opponent")
    eval_opponents: list[str] = opt(["heuristic"], "agents evaluated against (tournament code)")
    torch_threads: int = opt(1, "torch threads of the driver")
    device: str = opt(
        "auto",
        "where the learners train: auto (a GPU when the driver's torch sees one), cpu, cuda "
        "(one GPU per learner) or cuda:N (that GPU, learning in the driver or one learner); "
        "env runners stay on the CPU (docs/device.md)",
        metavar="DEVICE",
    )

    def __post_init__(self) -> None:
        problems = rllib_config_problems(self)
        if problems:
            raise ValueError(problems[0])


def rllib_config_problems(config: RLlibConfig) -> list[str]:
    """What is wrong with a config, one sentence per problem (empty when it is sound)."""
    minimum = {
        "iterations": 1,
        "seed": 0,
        "num_cpus": 0,
        "num_env_runners": 0,
        "num_envs_per_env_runner": 1,
        "num_learners": 0,
        "grid_size": 3,
        "snapshot_every": 0,
        "max_snapshots": 0,
        "train_batch_size": 2,
        "minibatch_size": 1,
        "num_epochs": 1,
        "embed": 1,
        "ship_features": 1,
        "hidden": 2,
        "vf": 1,
        "checkpoint_every": 0,
        "eval_every": 0,
        "eval_games": 1,
        "torch_threads": 1,
    }
    problems = [
        f"--{flag_name(name)} must be an integer >= {low}, got {getattr(config, name)!r}"
        for name, low in minimum.items()
        if bad_int(getattr(config, name)) or getattr(config, name) < low
    ]
    if problems:
        return problems
    for name in ("embed", "ship_features", "hidden", "vf"):
        if getattr(config, name) > MAX_WIDTH:
            problems.append(f"--{flag_name(name)} must be at most {MAX_WIDTH}")
    if not MIN_PLAYERS <= config.num_players <= MAX_PLAYERS:
        problems.append(
            f"--num-players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {config.num_players}"
        )
    if config.minibatch_size > config.train_batch_size:
        problems.append(
            f"--minibatch-size {config.minibatch_size} is larger than --train-batch-size "
            f"{config.train_batch_size}"
        )
    ranges = {
        "self_play_fraction": (0.0, 1.0, True),
        "learning_rate": (0.0, math.inf, False),
        "gamma": (0.0, 1.0, False),
        "gae_lambda": (0.0, 1.0, True),
        "clip_range": (0.0, math.inf, False),
        "ent_coef": (0.0, math.inf, True),
    }
    for name, (low, high, low_ok) in ranges.items():
        value = getattr(config, name)
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not number or not math.isfinite(value) or not low <= value <= high:
            problems.append(
                f"--{flag_name(name)} must be a number in [{low}, {high}], got {value!r}"
            )
        elif value == low and not low_ok:
            problems.append(f"--{flag_name(name)} must be > {low}, got {value!r}")
    problems += literal_problems(config)  # --reward-mode, --ship-encoder
    for name in ("baselines", "eval_opponents"):
        value = getattr(config, name)
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            problems.append(f"--{flag_name(name)} must be a comma-separated list of agents")
    problem = device_problem(config.device, "--device")
    if problem:
        problems.append(problem)
    elif config.device.startswith("cuda:") and config.num_learners > 1:
        problems.append(
            f"--device {config.device}: Ray picks each of the {config.num_learners} learners' "
            "GPU; use --device cuda"
        )
    if not isinstance(config.init_from, str):
        problems.append("--init-from must be a path to a saved policy *.pt (or empty)")
    elif config.init_from and not config.init_from.endswith(".pt"):
        problems.append(f"--init-from {config.init_from}: expected a saved policy *.pt")
    if not isinstance(config.address, str) or not isinstance(config.card_set, str):
        problems.append("--address and --card-set must be strings (or empty)")
    return problems + game_problems(config) + subgame_problems(config)
