"""`farlight train ppo|self-play|rllib`: the whole command line of the training scripts.

The options are generated from each script's config dataclass (`training.farlight.config`)
by `farlight_cli.config_flags`; the scripts themselves (`training/farlight/sb3/train_ppo.py`,
`self_play.py`, `training/farlight/rllib/self_play.py`) hold the training logic and take a
config, not arguments. Needs the `train` extra (`rllib` for rllib).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from farlight_cli import argtypes, flags, train_game
from farlight_cli.config_flags import add_config_arguments, config_from_args, given_options
from farlight_cli.errors import InputError, needs_extra
from farlight_env.untrusted.messages import clip_message
from training.farlight.config import PPOConfig, SelfPlayConfig

HELP = (
    "train an agent: MaskablePPO against fixed opponents, league self-play, or "
    "self-play on Ray RLlib (the train extra; rllib: the rllib extra)"
)
DESCRIPTION = """\
Train agents: ppo (MaskablePPO against fixed opponents), self-play (a league on SB3) or rllib (a
league on Ray RLlib). Every flag mirrors a field of the script's config dataclass.
"""
#: Each kind's line in `farlight train --help`, and its description (which script trains it).
KIND_HELP = {
    "ppo": "MaskablePPO against chosen opponents",
    "self-play": "league self-play with snapshots and ratings",
    "rllib": "league self-play with PPO on Ray RLlib (needs the rllib extra)",
}
KIND_DESCRIPTION = {
    "ppo": "MaskablePPO against fixed opponents (training/farlight/sb3/train_ppo.py).",
    "self-play": "League self-play (training/farlight/sb3/self_play.py).",
    "rllib": "League self-play on Ray RLlib, local or on a cluster "
    "(training/farlight/rllib/self_play.py).",
}


def add(p: argparse.ArgumentParser) -> None:
    from training.farlight.rllib.config import RLlibConfig

    kinds = p.add_subparsers(dest="kind", metavar="KIND", required=True)
    _add_kind(kinds, "ppo", PPOConfig, _run_ppo)
    _add_kind(kinds, "self-play", SelfPlayConfig, _run_self_play)
    _add_kind(kinds, "rllib", RLlibConfig, _run_rllib, since="its checkpoint")


def _add_kind(
    kinds: argparse._SubParsersAction,
    name: str,
    config: type,
    runner: Callable[[argparse.Namespace], int],
    since: str = "its last checkpoint",
) -> None:
    """`farlight train NAME`: a flag per field of `config`, --resume (from `since`) and
    --no-progress; `run` hands the parsed line to `runner`."""
    parser = kinds.add_parser(name, help=KIND_HELP[name], description=KIND_DESCRIPTION[name])
    add_config_arguments(parser, config)
    if name == "ppo":  # also trains a game other than Farlight (#50): train_game.py
        train_game.add_flags(parser)
    else:
        flags.rerun(parser, f"continue the run in --run-dir from {since}")
    flags.no_progress(parser)
    parser.set_defaults(runner=runner, default_run_dir=_default_run_dir(config))


def _default_run_dir(config: type) -> str:
    """The config's own --run-dir default (flags not given are absent from the namespace)."""
    return next(f.default for f in dataclasses.fields(config) if f.name == "run_dir")


def run(args: argparse.Namespace) -> int:
    """The kind's runner, once a --run-dir that is a file is named in one line (it used to end
    the run with "[Errno 17] File exists"); without --run-dir, the config's default is checked."""
    try:
        argtypes.refuse_a_file("--run-dir", Path(getattr(args, "run_dir", args.default_run_dir)))
    except InputError as exc:
        return report(f"farlight train {args.kind}", exc)
    return args.runner(args)


def report(command: str, exc: Exception) -> int:
    """A run that could not start: at most two lines on stderr, status 2."""
    lines = [line for line in str(exc).splitlines() if line.strip()] or [type(exc).__name__]
    print(f"{command}: error: {clip_message(lines[0])}", file=sys.stderr)
    if len(lines) > 1:
        print(f"  {clip_message(' '.join(lines[1:]))}", file=sys.stderr)
    return 2


def checkpoint_steps(args: argparse.Namespace, run_dir: str) -> int | None:
    """The steps a resumed run starts from; None for a new run or a checkpoint that cannot be
    read (which the training script then refuses in its own words)."""
    from training.checkpoints import CHECKPOINT, read_checkpoint

    if not args.resume:
        return None
    try:
        return read_checkpoint(Path(run_dir) / CHECKPOINT)[0].num_timesteps
    except (OSError, ValueError):
        return None


def trained_text(steps: int, before: int | None) -> str:
    """'trained 512 steps', or that a resume to the steps already reached trained nothing."""
    if steps == before:
        return (
            f"nothing to train: the run is already at {steps} steps, its --total-steps "
            "(give a larger one to train on); checkpoint rewritten"
        )
    return f"trained {steps} steps"


def _run_options(args: argparse.Namespace, config: type) -> dict[str, Any]:
    """What every training script takes from the command line besides its config: --resume,
    --no-progress, and which options were given (a resumed run may change only some)."""
    given = sorted(given_options(args, config))
    return {"resume": args.resume, "progress": not args.no_progress, "given": given}


def _trained(
    args: argparse.Namespace, config: type, train: Callable[..., Any]
) -> tuple[Any, Any, int | None]:
    """An SB3 script's run: its config, the trained model and the steps it resumed from (to
    tell a resume that trained nothing); ValueError when it cannot start as asked."""
    run_config = config_from_args(args, config)
    before = checkpoint_steps(args, run_config.run_dir)
    return run_config, train(run_config, **_run_options(args, config)), before


def _run_ppo(args: argparse.Namespace) -> int:
    if train_game.other_game(args):
        return train_game.run(args, report)
    from training.farlight.sb3 import train_ppo

    try:
        train_game.farlight_line(args)
        config, model, before = _trained(args, PPOConfig, train_ppo.train)
    except ValueError as exc:  # RunError included: a run that cannot start as asked
        return report("farlight train ppo", exc)
    policy = Path(config.run_dir) / "policy.pt"
    print(f"{trained_text(model.num_timesteps, before)}; policy: {policy}")
    return 0


def _run_self_play(args: argparse.Namespace) -> int:
    from training.farlight.sb3 import self_play

    try:
        config, model, before = _trained(args, SelfPlayConfig, self_play.train)
    except ValueError as exc:
        return report("farlight train self-play", exc)
    run_dir = Path(config.run_dir)
    print(
        f"{trained_text(model.num_timesteps, before)}; league state "
        f"{run_dir / self_play.LEAGUE_STATE}; "
        f"learning curve {run_dir / 'learning_curve.png'}"
    )
    return 0


def _run_rllib(args: argparse.Namespace) -> int:
    from training.farlight.rllib.config import RLlibConfig

    command = "farlight train rllib"
    try:
        config = config_from_args(args, RLlibConfig)
        import ray.rllib  # noqa: F401
    except ImportError:
        return report(command, ValueError(needs_extra("rllib", "ray.rllib")))
    except ValueError as exc:
        return report(command, exc)
    from training.farlight.rllib import self_play as rllib_self_play

    try:
        state = rllib_self_play.train(config, **_run_options(args, RLlibConfig))
    except ValueError as exc:
        return report(command, exc)
    print(
        f"trained {state.iteration} iterations, {state.env_steps} env steps; "
        f"policy: {Path(config.run_dir) / rllib_self_play.POLICY}"
    )
    return 0
