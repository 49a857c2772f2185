"""The project's StructuredNet as an RLlib RLModule (PPO), with the action mask on its logits.

RLlib sees PettingZoo's observation dict as it is (`observation`, `action_mask`); the mask
replaces illegal logits by the lowest finite float in every forward pass (sampling, greedy
inference and the PPO loss alike), so an illegal action has probability 0 and log-probs and
entropy stay consistent. The network's weights keep the names `agents.farlight.policy.PolicyNet`
uses for a structured policy, so `export_policy` writes a `.pt` file every tool of the project
loads.
Needs the `rllib` extra.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.distribution.torch.torch_distribution import TorchCategorical
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from torch import nn

from agents.farlight.policy import StructuredNet, save_policy
from agents.farlight.policy.compact_input import CompactInput

#: Finite, so an all-masked row (a terminal observation) gives no NaN.
MASKED_LOGIT = torch.finfo(torch.float32).min
#: The prefix `agents.farlight.policy.PolicyNet` gives the structured network's weights.
EXPORT_PREFIX = "mlp_extractor.net."


class MaskedStructuredModule(TorchRLModule, ValueFunctionAPI):
    """PPO actor-critic: StructuredNet's logits (masked) and a linear value head on its value
    latent. `model_config` holds `layout`, `embed`, `ship_features`, `hidden` and `vf`."""

    def setup(self) -> None:
        cfg = self.model_config
        layout = {k: (int(v[0]), int(v[1]), tuple(v[2])) for k, v in cfg["layout"].items()}
        self.net = StructuredNet(
            layout,
            int(self.action_space.n),
            int(cfg["embed"]),
            int(cfg["ship_features"]),
            int(cfg["hidden"]),
            int(cfg["vf"]),
        )
        self.value_head = nn.Linear(int(cfg["vf"]), 1)
        self.compact_input = CompactInput.for_layout(layout)  # compact observations expanded
        self.action_dist_cls = TorchCategorical

    def _logits_and_latent(self, batch: Mapping[str, Any]) -> tuple[torch.Tensor, torch.Tensor]:
        obs = batch[Columns.OBS]
        logits, latent = self.net(self.compact_input(obs["observation"]))
        logits = logits.masked_fill(obs["action_mask"] == 0, MASKED_LOGIT)
        return logits, latent

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        logits, _ = self._logits_and_latent(batch)
        return {Columns.ACTION_DIST_INPUTS: logits}

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        logits, latent = self._logits_and_latent(batch)
        return {Columns.ACTION_DIST_INPUTS: logits, Columns.EMBEDDINGS: latent}

    def compute_values(
        self, batch: dict[str, Any], embeddings: torch.Tensor | None = None
    ) -> torch.Tensor:
        """State values; GAE calls this without embeddings, the PPO loss with them."""
        if embeddings is None:
            features = self.net.observation(self.compact_input(batch[Columns.OBS]["observation"]))
            embeddings = self.net.value(features)
        return self.value_head(embeddings).squeeze(-1)


def import_state(policy_state: Mapping[str, torch.Tensor]) -> dict[str, Any]:
    """A policy file's actor weights under the module's names (`export_state` reversed)."""
    return {
        "net." + k[len(EXPORT_PREFIX) :]: v.detach().cpu().numpy()
        for k, v in policy_state.items()
        if k.startswith(EXPORT_PREFIX)
    }


def module_model_config(
    layout: Mapping[str, tuple[int, int, tuple[int, ...]]],
    embed: int,
    ship_features: int,
    hidden: int,
    vf: int,
) -> dict[str, Any]:
    """The RLModule's model_config (JSON-friendly lists, as RLlib stores it)."""
    return {
        "layout": {k: [a, b, list(shape)] for k, (a, b, shape) in layout.items()},
        "embed": embed,
        "ship_features": ship_features,
        "hidden": hidden,
        "vf": vf,
    }


def export_state(module_state: Mapping[str, Any]) -> dict[str, torch.Tensor]:
    """The actor's weights of a module state (learner side), under PolicyNet's names."""
    prefix = "net."
    return {
        EXPORT_PREFIX + k[len(prefix) :]: torch.as_tensor(v).detach().cpu().clone()
        for k, v in module_state.items()
        if k.startswith(prefix)
    }


def export_policy(module_state: Mapping[str, Any], config: dict[str, Any], path: Path) -> None:
    """Write the module's actor as a project policy file (`agents.make(path)` loads it)."""
    save_policy(export_state(module_state), {**config, "arch": "structured"}, path)
