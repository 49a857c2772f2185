"""`farlight train ppo|self-play`: the training scripts behind one command (needs `train`)."""

from __future__ import annotations

import argparse

from training.config import PPOConfig, SelfPlayConfig, add_config_arguments


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "train",
        help="train a MaskablePPO agent (needs the train extra: torch, SB3)",
        description="Train agents. Every flag mirrors a field of the script's config dataclass.",
    )
    kinds = p.add_subparsers(dest="kind", metavar="KIND", required=True)
    ppo = kinds.add_parser(
        "ppo",
        help="MaskablePPO against chosen opponents",
        description="MaskablePPO against fixed opponents (training/train_ppo.py).",
    )
    add_config_arguments(ppo, PPOConfig)
    league = kinds.add_parser(
        "self-play",
        help="league self-play with snapshots and ratings",
        description="League self-play (training/self_play.py).",
    )
    add_config_arguments(league, SelfPlayConfig)
    for parser, runner in ((ppo, _run_ppo), (league, _run_self_play)):
        parser.add_argument(
            "--resume",
            action="store_true",
            help="continue the run in --run-dir from its last checkpoint",
        )
        parser.add_argument("--no-progress", action="store_true", help="no progress bar")
        parser.set_defaults(func=runner)
    rllib = kinds.add_parser(
        "rllib",
        help="league self-play with PPO on Ray RLlib (needs the rllib extra)",
        description="League self-play on Ray RLlib, local or on a cluster "
        "(training/rllib_self_play.py).",
    )
    _add_rllib(rllib)


def _run_ppo(args: argparse.Namespace) -> int:
    from training import train_ppo

    return train_ppo.run(args)


def _add_rllib(parser: argparse.ArgumentParser) -> None:
    from training.rllib_config import RLlibConfig

    add_config_arguments(parser, RLlibConfig)
    parser.add_argument(
        "--resume", action="store_true", help="continue the run in --run-dir from its checkpoint"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.set_defaults(func=_run_rllib)


def _run_rllib(args: argparse.Namespace) -> int:
    from training import rllib_self_play

    return rllib_self_play.run(args)


def _run_self_play(args: argparse.Namespace) -> int:
    from training import self_play

    return self_play.run(args)
