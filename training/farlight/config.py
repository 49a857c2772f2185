"""Training hyper-parameters as dataclasses.

Every field has a type, a default and a help text (CleanRL's `Args`): `farlight train`'s
`--help` is built from them (farlight_cli/config_flags.py), `Literal` fields become `{a,b}`
choices, and `__post_init__` refuses values that make no sense, so a bad command line or a
hand-edited run_config.json fails before anything starts. The game options are GameConfig's,
inherited from `GameOptions` (training/farlight/game_options.py). Kept free of torch and
Stable-Baselines3 imports so `farlight --help` stays fast and works without the `train` extra.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Literal

from agents.torch_device import device_problem
from farlight_env.game.facts import MAX_PLAYERS, MIN_PLAYERS
from farlight_env.seeding import is_deal_key
from training.farlight.game_options import GameOptions, game_problems
from training.farlight.subgame import SubGameOptions, learner_kinds, subgame_problems
from training.run_config import (
    MAX_WIDTH,
    MAXIMUM,
    MINIBATCH,
    ROLLOUT_STEPS,
    bad_int,
    flag_name,
    literal_problems,
    opt,
    resolve_rollout,
)

Arch = Literal["structured", "flat"]
VecEnv = Literal["subproc", "dummy"]
RewardMode = Literal["win", "margin", "rank"]
ShipEncoder = Literal["auto", "train", "freeze"]


@dataclass
class PPOConfig(SubGameOptions, GameOptions):
    """Every knob of a run, stored in run_config.json. --resume continues with the stored
    values; only the options in RESUMABLE_OVERRIDES may change when resuming. The game
    options (grid_size, max_rounds, rule_options, ...) come from GameOptions, the learner's
    decision kinds and autopilot from SubGameOptions."""

    # ---- the run
    run_dir: str = opt("runs/ppo", "folder of the run: config, checkpoint, logs, policy.pt")
    total_steps: int = opt(200_000, "environment steps to train for, in total over resumes")
    seed: int = opt(0, "seed of the networks, the environments and the opponents")
    # ---- the game
    num_players: int = opt(2, f"seats per game, {MIN_PLAYERS}..{MAX_PLAYERS}")
    player_counts: list[int] = opt(
        [],
        "seats per game of each environment, cycled over --n-envs (e.g. 2,3,4,5 trains one "
        "policy for every count); empty: --num-players everywhere",
    )
    opponents: list[str] = opt(
        ["heuristic"],
        "opponent agents: one for every seat, or one per other seat (names or *.pt paths)",
    )
    sealed_opponents: bool = opt(
        False,
        "the opponents play sealed: each from its own process, seeing only its seat's "
        "observation, mask and redacted game (agents.farlight.sealed; farlight-eval-v2's best "
        "response)",
    )
    card_set: str = opt("", "card file (TOML/JSON) to train on; empty: the standard set")
    #: A wide secret mixed one-way into every training game's seed (the env's `deal_key`): a
    #: held-out farlight-eval-v2 run's best response trains on deals nobody can compute. Not
    #: a flag: the protocol sets it.
    deal_key: int | None = opt(None, "secret mixed into every training game's seed", flag=False)
    reward_mode: RewardMode = opt("win", "reward at the end of a game")
    # ---- environments
    # 16 games in this process: one forward pass steps them all (docs/performance-history.md,
    # "The learner")
    n_envs: int = opt(16, "parallel environments")
    vec_env: VecEnv = opt("dummy", "all environments in this process, or one process each")
    # ---- PPO: rollouts of 1,024 steps in all, 4 passes in minibatches of 256 (fewer updates
    # per step learn less per step: docs/performance-history.md, "The learner")
    n_steps: int = opt(
        0, f"steps per environment per rollout; 0: {ROLLOUT_STEPS:,} in all (divided by --n-envs)"
    )
    batch_size: int = opt(
        0, f"minibatch size, at most a rollout; 0: {MINIBATCH}, or the rollout if smaller"
    )
    n_epochs: int = opt(4, "passes over each rollout")
    # runs of steps of one game share ship grids, which the network computes once per
    # minibatch: ~1.3x learner steps per CPU-second, but over 4 seeds runs of 64 learnt less
    # per step than the old setup (docs/performance-history.md, "Minibatches of runs of one game")
    minibatch_chunk: int = opt(
        1,
        "minibatches are shuffled runs of this many consecutive steps of one game, which share "
        "ship grids the network computes once (1: single steps, SB3's shuffle)",
    )
    learning_rate: float = opt(3e-4, "Adam learning rate")
    gamma: float = opt(0.999, "discount factor, in (0, 1]")
    gae_lambda: float = opt(0.95, "GAE lambda, in [0, 1]")
    clip_range: float = opt(0.2, "PPO clip range (> 0)")
    ent_coef: float = opt(0.01, "entropy bonus (>= 0)")
    # ---- the network
    arch: Arch = opt("structured", "per-target bid and per-cell install heads, or a flat MLP")
    embed: int = opt(128, "width of the embedding of the non-ship observation")
    ship_features: int = opt(32, "channels of the ship CNN")
    hidden: int = opt(256, "structured arch: trunk width")
    pi: list[int] = opt([128], "flat arch: actor hidden layers")
    vf: list[int] = opt([128], "critic hidden layers (structured arch: the first width)")
    ship_encoder: ShipEncoder = opt(
        "auto",
        "the ship CNN learns (train) or keeps its starting weights (freeze: updates reuse each "
        "ship grid's features, cheaper updates); auto: freeze when the learner takes no install "
        "decision and starts from trained weights (--init-from, --bc-games), else train",
    )
    # ---- schedules and evaluation
    checkpoint_every: int = opt(20_000, "steps between checkpoints (0: only at the end)")
    eval_every: int = opt(20_000, "steps between evaluations (0: never)")
    eval_games: int = opt(20, "games per evaluation opponent")
    eval_opponents: list[str] = opt(["random", "heuristic"], "agents evaluated against")
    # ---- warm starts
    bc_games: int = opt(0, "behaviour-cloning warm start from this many heuristic games (0: off)")
    bc_epochs: int = opt(2, "epochs of behaviour cloning")
    init_from: str = opt(
        "",
        "start from another run's checkpoint.zip (weights only) or a saved policy *.pt "
        "(its actor; the value head starts fresh)",
    )
    value_warmup_steps: int = opt(
        0,
        "train only the value head for this many first steps (the actor stays frozen), so a "
        "policy warm-started with a fresh value head is not updated from a random critic",
    )
    torch_threads: int = opt(1, "torch threads of the learner")
    device: str = opt(
        "auto",
        "where the learner's network runs: auto (a GPU when torch sees one), cpu, cuda or "
        "cuda:N; games and opponents stay on the CPU (docs/device.md)",
        metavar="DEVICE",
    )

    def __post_init__(self) -> None:
        resolve_rollout(self)
        problems = config_problems(self)
        if problems:
            raise ValueError(problems[0])


# What --resume may change: how far to go, where the run now lives (a run directory may be
# moved or copied), and settings that do not change what is learnt. Every other field comes
# from run_config.json; giving another value for one is refused.
RESUMABLE_OVERRIDES = (
    "total_steps",
    "run_dir",
    "checkpoint_every",
    "eval_every",
    "eval_games",
    "eval_opponents",
    "vec_env",
    "torch_threads",
    "device",
)


@dataclass
class SelfPlayConfig(PPOConfig):
    """A league run: PPOConfig plus the league's own knobs."""

    run_dir: str = opt("runs/league", "folder of the run: config, league, checkpoint, logs")
    baselines: list[str] = opt(["random", "heuristic"], "fixed agents in the league")
    snapshot_every: int = opt(20_000, "steps between snapshots joining the league (0: never)")
    pfsp_power: float = opt(2.0, "prioritised fictitious self-play exponent (>= 0)")
    baseline_share: float = opt(
        0.0,
        "fraction of opponent draws kept for the baselines once snapshots exist, split among "
        "them by PFSP (0: one PFSP draw over the whole league)",
    )
    rating_games: int = opt(10, "games rating each new snapshot")
    eval_opponents: list[str] = opt(["heuristic"], "agents evaluated against")


# ----------------------------------------------------------------------------- validation
#: Upper bounds, so a run_config.json from someone else cannot start hundreds of processes or
#: allocate a rollout buffer larger than this machine's memory.
def config_problems(config: PPOConfig) -> list[str]:
    """What is wrong with a config, one sentence per problem (empty when it is sound)."""
    problems: list[str] = []
    minimum = {
        "total_steps": 1,
        "seed": 0,
        "n_envs": 1,
        "n_steps": 1,
        "batch_size": 2,
        "n_epochs": 1,
        "minibatch_chunk": 1,
        "embed": 1,
        "ship_features": 1,
        "hidden": 2,
        "checkpoint_every": 0,
        "eval_every": 0,
        "eval_games": 1,
        "bc_games": 0,
        "bc_epochs": 1,
        "value_warmup_steps": 0,
        "torch_threads": 1,
        "snapshot_every": 0,
        "rating_games": 0,
    }
    for name, low in minimum.items():
        if not hasattr(config, name):
            continue
        value = getattr(config, name)
        if bad_int(value) or value < low:
            problems.append(f"--{flag_name(name)} must be an integer >= {low}, got {value!r}")
    key = config.deal_key
    if key is not None and not is_deal_key(key):
        problems.append(f"deal_key must be a wide seed (an integer >= 2**64), got {key!r}")
    if problems:
        return problems
    for name, high in MAXIMUM.items():
        if hasattr(config, name) and getattr(config, name) > high:
            problems.append(
                f"--{flag_name(name)} must be at most {high:,}, got {getattr(config, name)}"
            )
    for name in ("embed", "ship_features", "hidden"):
        if getattr(config, name) > MAX_WIDTH:
            problems.append(f"--{flag_name(name)} must be at most {MAX_WIDTH}")
    if not MIN_PLAYERS <= config.num_players <= MAX_PLAYERS:
        problems.append(
            f"--num-players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {config.num_players}"
        )
    if config.n_steps * config.n_envs < 2:
        problems.append("a rollout (--n-steps x --n-envs) must hold at least 2 steps")
    elif config.batch_size > config.n_steps * config.n_envs:
        problems.append(
            f"--batch-size {config.batch_size} is larger than a rollout "
            f"({config.n_steps} x {config.n_envs} = {config.n_steps * config.n_envs} steps)"
        )
    problems += _float_problems(config)
    problems += _choice_problems(config)
    problems += _list_problems(config)
    return problems + game_problems(config) + subgame_problems(config)


def _float_problems(config: PPOConfig) -> list[str]:
    ranges = {
        "learning_rate": (0.0, math.inf, False),
        "gamma": (0.0, 1.0, False),
        "gae_lambda": (0.0, 1.0, True),
        "clip_range": (0.0, math.inf, False),
        "ent_coef": (0.0, math.inf, True),
        "pfsp_power": (0.0, math.inf, True),
        "baseline_share": (0.0, 1.0, True),
    }
    problems = []
    for name, (low, high, low_ok) in ranges.items():
        if not hasattr(config, name):
            continue
        value = getattr(config, name)
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not number or not math.isfinite(value) or value > high or value < low:
            problems.append(
                f"--{flag_name(name)} must be a number in [{low}, {high}], got {value!r}"
            )
        elif value == low and not low_ok:
            problems.append(f"--{flag_name(name)} must be > {low}, got {value!r}")
    return problems


def _choice_problems(config: PPOConfig) -> list[str]:
    problems = literal_problems(config)
    problem = device_problem(config.device, "--device")
    if problem:
        problems.append(problem)
    if not isinstance(config.card_set, str) or not isinstance(config.init_from, str):
        problems.append("--card-set and --init-from must be paths (or empty)")
    return problems


def _list_problems(config: PPOConfig) -> list[str]:
    problems = []
    names = ["opponents", "eval_opponents"] + (
        ["baselines"] if hasattr(config, "baselines") else []
    )
    for name in names:
        value = getattr(config, name)
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            problems.append(f"--{flag_name(name)} must be a comma-separated list of agents")
    for name in ("pi", "vf"):
        value = getattr(config, name)
        if not isinstance(value, list) or not all(
            not bad_int(v) and 1 <= v <= MAX_WIDTH for v in value
        ):
            problems.append(f"--{flag_name(name)} must be layer widths 1..{MAX_WIDTH}, e.g. 128,64")
        elif len(value) > 8:
            problems.append(f"--{flag_name(name)} may have at most 8 layers")
    if problems:
        return problems
    if not config.vf:
        problems.append("--vf needs at least one width")
    problems += _player_count_problems(config)
    others = config.num_players - 1
    if config.player_counts and len(config.opponents) != 1 and not hasattr(config, "baselines"):
        problems.append("--opponents: give one agent when --player-counts varies the seats")
    elif len(config.opponents) not in (1, others) and not hasattr(config, "baselines"):
        problems.append(
            f"--opponents: give one agent or {others} (one per other seat), "
            f"got {len(config.opponents)}"
        )
    if hasattr(config, "baselines") and not config.baselines:
        problems.append("--baselines needs at least one agent")
    return problems


def _player_count_problems(config: PPOConfig) -> list[str]:
    counts = config.player_counts
    if not isinstance(counts, list) or not all(
        not bad_int(n) and MIN_PLAYERS <= n <= MAX_PLAYERS for n in counts
    ):
        return [f"--player-counts must be seat counts {MIN_PLAYERS}..{MAX_PLAYERS}, e.g. 2,3,4,5"]
    if len(counts) > config.n_envs:
        return [
            f"--n-envs {config.n_envs} is fewer than the {len(counts)} --player-counts: "
            "some counts would never be played"
        ]
    return []


def env_player_counts(config: PPOConfig) -> list[int]:
    """Seats per game of each environment rank: --player-counts cycled, else --num-players."""
    counts = config.player_counts or [config.num_players]
    return [counts[rank % len(counts)] for rank in range(config.n_envs)]


def eval_player_counts(config: PPOConfig) -> list[int]:
    """The seat counts a run is evaluated at: every count it trains on."""
    return sorted(set(config.player_counts)) or [config.num_players]


def ship_encoder_frozen(config: Any) -> bool:
    """Whether the run (PPO, self-play or RLlib) keeps the ship CNN at its starting weights
    (`--ship-encoder`). Left to itself it freezes only where nothing is lost: the learner places
    no part, so no decision of its reads the CNN's per-cell maps (the install head), and the CNN
    starts trained."""
    if config.ship_encoder != "auto":
        return config.ship_encoder == "freeze"
    installs = learner_kinds(config).covers("install")
    return not installs and bool(config.init_from or getattr(config, "bc_games", 0))
