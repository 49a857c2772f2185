"""`farlight train ppo --game NAME`: MaskablePPO on a game other than Farlight (#50).

    farlight train ppo --game duel --players 2 --timesteps 20000 --seed 0 --out runs/duel
    farlight train ppo --resume runs/duel --timesteps 40000

The flags of that run (--game, --game-option, --players, --timesteps, --out, --resume DIR) are
added to `farlight train ppo`, whose other flags are Farlight's (PPOConfig's): those a plain
MLP on any game honours (--seed, --opponents, PPO's hyper-parameters, --pi as the hidden
layers) are taken, every other one is refused in one line rather than silently ignored. With
Farlight, --players, --timesteps and --out stand for --num-players, --total-steps and
--run-dir, and --resume DIR for --resume --run-dir DIR.
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

from farlight_cli import argtypes, flags
from farlight_cli.errors import InputError
from farlight_env.platform import DEFAULT_GAME
from training.farlight.config import PPOConfig
from training.farlight.game_options import GAME_FLAGS
from training.game_config import GamePPOConfig

#: PPOConfig's flags a run on another game honours, by the GamePPOConfig field they set.
HONOURED = {
    "run_dir": "run_dir",
    "total_steps": "total_steps",
    "seed": "seed",
    "num_players": "num_players",
    "opponents": "opponents",
    "n_envs": "n_envs",
    "n_steps": "n_steps",
    "batch_size": "batch_size",
    "n_epochs": "n_epochs",
    "learning_rate": "learning_rate",
    "gamma": "gamma",
    "gae_lambda": "gae_lambda",
    "clip_range": "clip_range",
    "ent_coef": "ent_coef",
    "pi": "hidden",
    "checkpoint_every": "checkpoint_every",
    "torch_threads": "torch_threads",
    "device": "device",
}
#: The short flags of a run on another game, and the PPOConfig field each stands for.
ALIASES = {"players": "num_players", "timesteps": "total_steps", "out": "run_dir"}


def add_flags(parser: argparse.ArgumentParser) -> None:
    """--game, --game-option, --players, --timesteps, --out and --resume [DIR]."""
    group = parser.add_argument_group(
        "another game", "a plain MLP on a game other than Farlight (farlight_env/Game-v0)"
    )
    flags.game(group)
    common = {"default": argparse.SUPPRESS, "metavar": "N"}
    group.add_argument(
        "--players",
        type=argtypes.positive_int,
        help="seats per game (= --num-players) (default: 2)",
        **common,
    )
    group.add_argument(
        "--timesteps",
        type=argtypes.positive_int,
        help="environment steps in total over resumes (= --total-steps) "
        "(default: 20000 on another game)",
        **common,
    )
    group.add_argument(
        "--out",
        default=argparse.SUPPRESS,
        metavar="DIR",
        help="folder of the run: config, checkpoint, logs, policy.pt (= --run-dir) "
        "(default: runs/game-ppo on another game)",
    )
    parser.add_argument(
        "--resume",
        nargs="?",
        const=True,
        default=False,
        metavar="DIR",
        help="continue the run in DIR (or --run-dir) from its last checkpoint (default: a new run)",
    )


def _merge_aliases(args: argparse.Namespace) -> None:
    """--players/--timesteps/--out and --resume DIR onto the fields they stand for; the same
    field given twice with different values is refused."""
    pairs = dict(ALIASES)
    if isinstance(args.resume, str):
        args.resume_dir = args.resume
        pairs["resume_dir"] = "run_dir"
        args.resume = True
    for alias, name in pairs.items():
        if not hasattr(args, alias):
            continue
        value = getattr(args, alias)
        if hasattr(args, name) and str(getattr(args, name)) != str(value):
            raise InputError(f"--{alias.replace('_', '-')} and --{name.replace('_', '-')} differ")
        setattr(args, name, value if name != "run_dir" else str(value))
        delattr(args, alias)


def stored_game(run_dir: Path) -> str | None:
    """The game a run directory's run_config.json names (None: Farlight's, or none)."""
    from training.sb3.run_files import read_run_config

    try:
        game = read_run_config(run_dir).get("game")
    except (OSError, ValueError):
        return None
    return game if isinstance(game, str) and game != DEFAULT_GAME else None


def other_game(args: argparse.Namespace) -> bool:
    """Whether the line trains another game: --game NAME, or --resume DIR of such a run."""
    if args.game != DEFAULT_GAME:
        return True
    return isinstance(args.resume, str) and stored_game(Path(args.resume)) is not None


def farlight_line(args: argparse.Namespace) -> None:
    """Farlight's line, with the aliases merged (InputError for --game-option)."""
    if args.game_option:
        raise InputError("--game-option is for another --game; Farlight's options have flags")
    _merge_aliases(args)


def _refuse_farlight_flags(args: argparse.Namespace, game: str) -> None:
    """PPOConfig's flags a plain MLP on `game` cannot honour, refused by name."""
    given = [f.name for f in dataclasses.fields(PPOConfig) if hasattr(args, f.name)]
    refused = [n for n in given if n not in HONOURED]
    if refused:
        named = ", ".join(GAME_FLAGS.get(n) or "--" + n.replace("_", "-") for n in refused)
        raise InputError(f"{named}: Farlight's training options, not {game}'s")


def game_run(args: argparse.Namespace) -> tuple[GamePPOConfig, bool, set[str]]:
    """(config, resume, the fields given) of a line that trains another game."""
    _merge_aliases(args)
    values: dict[str, Any] = {
        HONOURED[f.name]: getattr(args, f.name)
        for f in dataclasses.fields(PPOConfig)
        if f.name in HONOURED and hasattr(args, f.name)
    }
    run_dir = Path(values.get("run_dir", GamePPOConfig.run_dir))
    game = args.game if args.game != DEFAULT_GAME else stored_game(run_dir)
    _refuse_farlight_flags(args, game or args.game)
    values["game"] = game
    if args.game_option:
        values["game_options"] = flags.game_options(args)
    if args.resume:
        from training.sb3.run_files import stored_config

        if "run_dir" not in values:
            raise InputError("--resume DIR: name the run to continue")
        config = dataclasses.replace(stored_config(run_dir, GamePPOConfig), **values)
    else:
        config = GamePPOConfig(**values)
    argtypes.refuse_a_file("--out", Path(config.run_dir))
    return config, bool(args.resume), set(values)


def _steps_at(checkpoint: Path) -> int | None:
    """The steps a resumed run starts from (None: no readable checkpoint, which the training
    then refuses in its own words)."""
    from training.checkpoints import checkpoint_steps

    try:
        return checkpoint_steps(checkpoint)
    except (OSError, ValueError):
        return None


def run(args: argparse.Namespace, report: Any) -> int:
    """Train (or resume) a run on another game; the outcome in one line."""
    from training.checkpoints import CHECKPOINT

    command = "farlight train ppo"
    try:
        config, resume, given = game_run(args)
        before = _steps_at(Path(config.run_dir) / CHECKPOINT) if resume else None
        from training.sb3 import game_ppo

        model = game_ppo.train(config, resume, progress=not args.no_progress, given=given)
    except (ValueError, OSError) as exc:  # InputError, RunError, GameError, CheckpointError
        return report(command, exc)
    steps = int(model.num_timesteps)
    if steps == before:
        text = (
            f"nothing to train: the run is already at {steps} steps, its --timesteps (give "
            "more to train on); checkpoint and policy rewritten"
        )
    else:
        text = f"trained {steps} steps"
    print(f"{config.game}: {text}; policy: {Path(config.run_dir) / game_ppo.POLICY}")
    return 0
