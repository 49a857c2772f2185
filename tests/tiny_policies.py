"""Tiny policy networks over the real observation layout, for the policy tests (what training
exports, but small enough to build in milliseconds)."""

from __future__ import annotations

from pathlib import Path

from farlight_env import farlight_v0

OBS_SIZE = farlight_v0.raw_env(num_players=2).encoder.size
ACTION_SIZE = farlight_v0.raw_env(num_players=2).codec.size


def tiny_config() -> dict:
    """A small network over the real observation layout (what training exports, but tiny)."""
    fields = farlight_v0.raw_env(num_players=2).encoder.fields
    return {
        "name": "tiny",
        "layout": {k: [f.start, f.start + f.size, list(f.shape)] for k, f in fields.items()},
        "embed": 8,
        "ship_features": 4,
        "pi": [8],
        "obs_size": OBS_SIZE,
        "action_size": ACTION_SIZE,
    }


def write_payload(path: Path, **payload: object) -> Path:
    """A policy-file-like torch file holding `payload` (to build foreign or broken files)."""
    import torch

    torch.save(payload, path)
    return path
