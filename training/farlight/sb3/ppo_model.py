"""A run's MaskablePPO: its network's kwargs, the model built (or a checkpoint loaded into it),
and the policy config and file exported from it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import torch

from agents.farlight.policy import save_policy
from agents.farlight.policy.compact_input import expanded_size
from agents.torch_device import resolve_device
from farlight_env.encode.observation import ObservationEncoder
from training.checkpoints import restore_checkpoint
from training.farlight.config import PPOConfig
from training.farlight.envs import card_set_of
from training.farlight.sb3.policy import EnvMajorRolloutBuffer, FarlightExtractor, policy_class


def observation_layout(config: PPOConfig) -> dict[str, tuple[int, int, tuple[int, ...]]]:
    encoder = ObservationEncoder(card_set_of(config), config.grid_size)
    return {name: (f.start, f.start + f.size, f.shape) for name, f in encoder.fields.items()}


def ship_columns(config: PPOConfig) -> tuple[int, int, int]:
    """(first column, end column, seats) of the ship planes in the run's observations."""
    start, stop, shape = observation_layout(config)["ships"]
    return start, stop, shape[0]


def structured_vf(vf: Sequence[int]) -> int:
    """The structured network's one value layer takes the first --vf width."""
    return int(vf[0]) if vf else 128


def policy_kwargs(config: PPOConfig) -> dict[str, Any]:
    """SB3 policy_kwargs of the run's network."""
    if config.arch == "structured":
        return {
            "layout": observation_layout(config),
            "embed": config.embed,
            "ship_features": config.ship_features,
            "hidden": config.hidden,
            "vf": structured_vf(config.vf),
        }
    return {
        "features_extractor_class": FarlightExtractor,
        "features_extractor_kwargs": {
            "layout": observation_layout(config),
            "embed": config.embed,
            "ship_features": config.ship_features,
        },
        "net_arch": {"pi": list(config.pi), "vf": list(config.vf)},
        "activation_fn": torch.nn.Tanh,
    }


def policy_config(
    model: Any, config: PPOConfig, name: str, extra: dict[str, Any] | None = None
) -> dict[str, Any]:
    """What `agents.farlight.policy.PolicyNet` needs to rebuild the actor, plus provenance."""
    layout = observation_layout(config)
    return {
        "name": name,
        "arch": config.arch,
        "hidden": config.hidden,
        "vf": structured_vf(config.vf),
        "layout": {k: [a, b, list(shape)] for k, (a, b, shape) in layout.items()},
        "embed": config.embed,
        "ship_features": config.ship_features,
        "pi": list(config.pi),
        "obs_size": expanded_size(layout),  # the float32 observation's: compact ones are expanded
        "action_size": int(model.action_space.n),
        **(extra or {}),
    }


def export_policy(model: Any, path: Path, config: dict[str, Any]) -> None:
    """The actor as a policy file; save_policy moves its tensors to the CPU."""
    save_policy(model.policy.state_dict(), config, path)


def build_model(config: PPOConfig, env: Any) -> Any:
    """A fresh MaskablePPO for the run's config (also the frame a checkpoint is loaded into)."""
    from sb3_contrib import MaskablePPO

    return MaskablePPO(
        policy_class(config.arch),
        env,
        learning_rate=config.learning_rate,
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        gamma=config.gamma,
        gae_lambda=config.gae_lambda,
        clip_range=config.clip_range,
        ent_coef=config.ent_coef,
        policy_kwargs=policy_kwargs(config),
        rollout_buffer_class=EnvMajorRolloutBuffer,
        rollout_buffer_kwargs={"chunk": config.minibatch_chunk, "ships": ship_columns(config)},
        seed=config.seed,
        device=resolve_device(config.device),
        verbose=0,
    )


def load_checkpoint(path: Path, env: Any, config: PPOConfig) -> Any:
    """The model of `config`, with the checkpoint's weights, optimiser and counters restored.
    Nothing in the file is unpickled: CheckpointError (a ValueError) names what is wrong."""
    return restore_checkpoint(build_model(config, env), path)
