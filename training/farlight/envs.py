"""A run's environments: its game options, opponents per seat (names or policy files), picklable
env factories for the vectorised envs, and closing them."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym

from agents.farlight.policy import PolicyAgent
from agents.registry import make_shared
from farlight_env.cards.io import load_card_set, standard_card_set
from farlight_env.cards.model import CardSet
from farlight_env.env.single_agent import FarlightSingleAgentEnv
from farlight_env.processes import die_with_parent
from training.farlight.config import PPOConfig, env_player_counts
from training.farlight.game_options import game_kwargs
from training.farlight.subgame import subgame_kwargs

#: What training envs observe, and rollout buffers and imitation chunks store: the exact
#: uint8 form (#49), a quarter of the float32 bytes; the networks expand it (CompactInput).
TRAINING_OBSERVATION = "compact"


def card_set_of(config: PPOConfig) -> CardSet:
    """The run's card set: its --card-set file, or the standard one (CardFileError if bad)."""
    return load_card_set(config.card_set) if config.card_set else standard_card_set()


def env_options(config: PPOConfig) -> dict[str, Any]:
    """The game options of every environment of a run (training and evaluation alike)."""
    return {"card_set": config.card_set or None, **game_kwargs(config)}


def training_env_kwargs(config: PPOConfig) -> dict[str, Any]:
    """The single-agent env's options every training env of a run shares (PPO and league)."""
    return {
        "reward_mode": config.reward_mode,
        "deal_key": config.deal_key,
        "observation": TRAINING_OBSERVATION,
        **env_options(config),
        **subgame_kwargs(config),
    }


def is_policy_path(name: str) -> bool:
    return name.endswith(".pt") or os.sep in name


def opponent_policies(
    names: Sequence[str], seed: int, sealed_cards: CardSet | None = None
) -> list[Any]:
    """Agents for the opponent seats, from names or saved policy paths; with `sealed_cards`
    (the game's card set) each plays sealed, from its own process (agents.farlight.sealed)."""
    if sealed_cards is not None:
        from agents.farlight.sealed import SealedAgent
        from farlight_env.cards.io import card_set_to_dict

        cards = card_set_to_dict(sealed_cards)
        return [SealedAgent(name, seed + i, cards) for i, name in enumerate(names)]
    out = []
    for i, name in enumerate(names):
        if is_policy_path(name):  # one network per file for all the process's games
            out.append(PolicyAgent(name, seed=seed + i, shared=True))
        else:  # the shipped networks shared the same way
            out.append(make_shared(name, seed=seed + i))
    return out


def check_agents(names: Sequence[str], option: str) -> None:
    """Build every named agent once, here, so a bad name or a corrupt policy file is refused
    before any worker starts (ValueError naming the option)."""
    for name in dict.fromkeys(names):
        try:
            opponent_policies([name], seed=0)
        except (ValueError, OSError) as exc:
            raise ValueError(f"{option}: {exc}") from exc


def seat_opponents(config: PPOConfig, num_players: int | None = None) -> list[str]:
    """One opponent per other seat: the list given, or its one agent repeated."""
    others = (num_players or config.num_players) - 1
    return (
        list(config.opponents)
        if len(config.opponents) == others
        else [config.opponents[0]] * others
    )


def make_env_fn(config: PPOConfig, rank: int) -> Callable[[], gym.Env]:
    """A picklable env factory for SB3 VecEnvs (one per worker); a worker process started by
    SubprocVecEnv ends when the process that built the factories does."""
    parent = os.getpid()

    def build() -> gym.Env:
        if os.getpid() != parent:
            die_with_parent(parent)
        seats = env_player_counts(config)[rank]
        env = FarlightSingleAgentEnv(
            num_players=seats,
            opponents=opponent_policies(
                seat_opponents(config, seats),
                config.seed * 1000 + rank * 10,
                card_set_of(config) if config.sealed_opponents else None,
            ),
            **training_env_kwargs(config),
        )
        env.reset(seed=config.seed * 1000 + rank)
        return env

    return build


def probe_env(config: PPOConfig) -> FarlightSingleAgentEnv:
    """An env of the run's game options, unreset and without opponents: its spaces are every
    training env's (the observation covers the largest table whatever the seat count)."""
    return FarlightSingleAgentEnv(
        num_players=env_player_counts(config)[0],
        observation=TRAINING_OBSERVATION,
        **env_options(config),
    )
