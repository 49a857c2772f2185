"""The config of a MaskablePPO run on a game other than Farlight (#50), stored in the run's
run_config.json. Torch-free, as training/farlight/config.py, so `farlight --help` stays fast."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

#: What `farlight train ppo --game NAME --resume DIR` may change: how far to go, where the run
#: lives now, and settings that do not change what is learnt.
GAME_RESUMABLE = ("total_steps", "run_dir", "checkpoint_every", "torch_threads", "device")
MAX_WIDTH = 4096
MAX_STEPS = 10**12


@dataclass
class GamePPOConfig:
    """Every knob of a run on a declared game: the game and its options, the opponents, the
    plain MLP's layers and PPO's hyper-parameters (SB3's defaults but a shorter rollout,
    which suits games of a few decisions)."""

    game: str = "duel"
    game_options: dict[str, Any] = field(default_factory=dict)
    num_players: int = 2
    opponents: list[str] = field(default_factory=lambda: ["random"])
    run_dir: str = "runs/game-ppo"
    total_steps: int = 20_000
    seed: int = 0
    n_envs: int = 1
    n_steps: int = 256
    batch_size: int = 64
    n_epochs: int = 10
    learning_rate: float = 3e-4
    gamma: float = 0.99
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.0
    hidden: list[int] = field(default_factory=lambda: [64, 64])
    checkpoint_every: int = 2_048
    torch_threads: int = 1
    device: str = "cpu"

    def __post_init__(self) -> None:
        problem = game_config_problem(self)
        if problem:
            raise ValueError(problem)


def _count(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _rate(value: Any, low: float, high: float) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value) and low <= value <= high


def game_config_problem(config: GamePPOConfig) -> str | None:
    """The first value that makes no sense, in words naming its flag; None when all do."""
    checks = [
        (_count(config.total_steps, 1, MAX_STEPS), "--timesteps must be in 1..1e12"),
        (_count(config.seed, 0, 2**31 - 1), "--seed must be in 0..2**31-1"),
        (_count(config.num_players, 1, 64), "--players must be in 1..64"),
        (_count(config.n_envs, 1, 64), "--n-envs must be in 1..64"),
        (_count(config.n_steps, 2, 1 << 20), "--n-steps must be in 2..1048576"),
        (_count(config.batch_size, 2, 1 << 20), "--batch-size must be in 2..1048576"),
        (_count(config.n_epochs, 1, 1000), "--n-epochs must be in 1..1000"),
        (_rate(config.learning_rate, 1e-12, 1.0), "--learning-rate must be in (0, 1]"),
        (_rate(config.gamma, 1e-9, 1.0), "--gamma must be in (0, 1]"),
        (_rate(config.gae_lambda, 0.0, 1.0), "--gae-lambda must be in [0, 1]"),
        (_rate(config.clip_range, 1e-9, 10.0), "--clip-range must be in (0, 10]"),
        (_rate(config.ent_coef, 0.0, 10.0), "--ent-coef must be in [0, 10]"),
        (_count(config.checkpoint_every, 0, MAX_STEPS), "--checkpoint-every must be >= 0"),
        (_count(config.torch_threads, 0, 1024), "--torch-threads must be in 0..1024"),
        (
            len(config.hidden) <= 8 and all(_count(w, 1, MAX_WIDTH) for w in config.hidden),
            f"--pi (the hidden layers) must be at most 8 widths in 1..{MAX_WIDTH}",
        ),
        (
            1 <= len(config.opponents) <= 64 and all(isinstance(o, str) for o in config.opponents),
            "--opponents must name 1..64 agents",
        ),
    ]
    return next((message for ok, message in checks if not ok), None)
