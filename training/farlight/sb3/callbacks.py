"""SB3 callbacks of the training scripts: the value-head warm-up and the progress bar."""

from __future__ import annotations

import torch
from stable_baselines3.common.callbacks import BaseCallback

from agents.farlight.policy import set_ship_cnn_frozen

#: Parameter names of the critic; everything else is the actor (or features both share).
VALUE_PREFIXES = ("value_net.", "mlp_extractor.value_net.")


class ValueWarmup(BaseCallback):
    """Freezes all but the value head until `until` steps, then unfreezes: a warm-started actor
    is first judged by a critic that has learnt its values, not by a random one. Parameters
    frozen before training starts (`FreezeShipEncoder`) stay frozen."""

    def __init__(self, until: int) -> None:
        super().__init__()
        self.until = until
        self.actor: list[torch.nn.Parameter] = []

    def _on_training_start(self) -> None:
        self.actor = [
            param
            for name, param in self.model.policy.named_parameters()
            if param.requires_grad and not name.startswith(VALUE_PREFIXES)
        ]

    def _set_frozen(self, frozen: bool) -> None:
        for param in self.actor:
            param.requires_grad_(not frozen)

    def _on_rollout_end(self) -> None:
        # called after each rollout, before the update that learns from it
        self._set_frozen(self.model.num_timesteps < self.until)

    def _on_step(self) -> bool:
        return True

    def _on_training_end(self) -> None:
        self._set_frozen(False)


class FreezeShipEncoder(BaseCallback):
    """Keeps the ship CNN at its starting weights (`--ship-encoder`): the updates then take
    each ship grid's features from a cache instead of running the CNN forward and backward
    every minibatch (agents.farlight.policy.nets, `distinct_ships`)."""

    def __init__(self, frozen: bool) -> None:
        super().__init__()
        self.frozen = frozen

    def _on_training_start(self) -> None:
        set_ship_cnn_frozen(self.model.policy, self.frozen)

    def _on_step(self) -> bool:
        return True
