"""Training hyper-parameters as dataclasses, and the CLI generated from them.

Kept free of torch and Stable-Baselines3 imports so `farlight --help` stays fast and works
without the `train` extra.
"""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass, field
from typing import Any


@dataclass
class PPOConfig:
    """Every knob of a run, stored in run_config.json. --resume continues with the stored
    values; only `total_steps` and `run_dir` are taken from the command line."""

    run_dir: str = "runs/ppo"
    total_steps: int = 200_000
    num_players: int = 2
    opponents: list[str] = field(default_factory=lambda: ["heuristic"])
    seed: int = 0
    n_envs: int = 2
    vec_env: str = "subproc"  # or "dummy" (one process)
    n_steps: int = 512
    batch_size: int = 256
    n_epochs: int = 4
    learning_rate: float = 3e-4
    gamma: float = 0.999
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    arch: str = "structured"  # per-target bid and per-cell install heads; or "flat"
    embed: int = 128
    ship_features: int = 32
    hidden: int = 256  # structured arch: trunk width
    pi: list[int] = field(default_factory=lambda: [128])  # flat arch: actor hidden layers
    vf: list[int] = field(default_factory=lambda: [128])
    reward_mode: str = "win"
    max_rounds: int = 50
    checkpoint_every: int = 20_000
    eval_every: int = 20_000
    eval_games: int = 20
    eval_opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"])
    bc_games: int = 0  # behaviour-cloning warm start from the heuristic (0 = off)
    init_from: str = ""  # warm start from another run's checkpoint.zip (weights only)
    bc_epochs: int = 2
    torch_threads: int = 1


# What --resume takes from the command line: how far to go, and where the run now lives (a
# run directory may be moved or copied); every other field comes from run_config.json.
RESUMABLE_OVERRIDES = ("total_steps", "run_dir")


@dataclass
class SelfPlayConfig(PPOConfig):
    run_dir: str = "runs/league"
    baselines: list[str] = field(default_factory=lambda: ["random", "heuristic"])
    snapshot_every: int = 20_000
    pfsp_power: float = 2.0
    rating_games: int = 10
    eval_opponents: list[str] = field(default_factory=lambda: ["heuristic"])


def add_config_arguments(parser: argparse.ArgumentParser, cls: type = PPOConfig) -> None:
    """One --flag per dataclass field, typed from its default."""
    for f in dataclasses.fields(cls):
        default = f.default if f.default is not dataclasses.MISSING else f.default_factory()
        flag = "--" + f.name.replace("_", "-")
        if isinstance(default, list):
            item = type(default[0]) if default else str
            parser.add_argument(
                flag,
                type=lambda s, t=item: [t(x) for x in s.split(",") if x],
                default=default,
                metavar="A,B",
                help=f"default: {default}",
            )
        else:
            parser.add_argument(
                flag, type=type(default), default=default, help=f"default: {default}"
            )


def config_from_args(args: argparse.Namespace, cls: type = PPOConfig) -> Any:
    return cls(**{f.name: getattr(args, f.name) for f in dataclasses.fields(cls)})
