"""The compact observation (farlight_env.encode.compact) expanded inside torch, so training
stores and ships uint8 observations while the networks read the float32 values they always
read, bit for bit: the same float32 division and the same tables as `CompactCodec.expand`."""

from __future__ import annotations

from collections.abc import Mapping

import torch

from agents.farlight.policy.cache import SHIP_IDS
from farlight_env.encode.compact import CompactCodec


def expanded_size(layout: Mapping[str, tuple]) -> int:
    """The size of the float32 observation a network's layout (name -> (start, stop, shape))
    describes: what a policy file records as its `obs_size`, compact inputs expanded."""
    return max(int(where[1]) for where in layout.values())


class CompactInput(torch.nn.Module):
    """uint8 (or float-held) compact observations (..., compact_size) -> float32 (..., size);
    float32 observations of `size` pass through unchanged."""

    def __init__(self, codec: CompactCodec) -> None:
        super().__init__()
        self.codec = codec
        self.size, self.compact_size = codec.size, codec.compact_size
        self.register_buffer("scale", torch.from_numpy(codec.denominators.copy()), persistent=False)
        self.register_buffer("wide", torch.from_numpy(codec.wide.copy()), persistent=False)
        self.runs = [run.where for run in codec.sum_runs]
        for k, run in enumerate(codec.sum_runs):  # buffers: they move with the module's device
            self.register_buffer(f"by_code_{k}", torch.from_numpy(run.by_code.copy()), False)

    @classmethod
    def for_layout(cls, layout: Mapping[str, tuple]) -> CompactInput:
        """The expander of a network's observation layout (ValueError if not the encoder's)."""
        return cls(CompactCodec.for_layout(layout))

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        if observations.shape[-1] == self.size and observations.dtype == torch.float32:
            return observations
        if observations.shape[-1] != self.compact_size:
            raise ValueError(
                f"expected observations of {self.size} floats or {self.compact_size} compact "
                f"bytes, got {tuple(observations.shape)}"
            )
        values = observations[..., : self.size].to(torch.float32)
        high = observations[..., self.size :].to(torch.float32)
        if bool(high.any()):  # usual: no count above 255
            values[..., self.wide] += high * 256.0
        values = values / self.scale
        for k, where in enumerate(self.runs):
            values[..., where] = getattr(self, f"by_code_{k}")[observations[..., where].long()]
        ids = getattr(observations, SHIP_IDS, None)
        if ids is not None:  # the rollout buffer's names of the ship grids travel along
            setattr(values, SHIP_IDS, ids)
        return values
