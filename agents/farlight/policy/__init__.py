"""Trained policies: the network shared with training, saving, and a loading Agent.

A policy file is a plain `torch.save` of a dict (format tag, config, state dict of tensors),
read back with `torch.load(..., weights_only=True)` only: no pickled code ever runs. Needs torch
(the `train` extra); the rest of the project does not.

Building a network or loading a policy sets torch to one math thread, once per process, unless
OMP_NUM_THREADS, MKL_NUM_THREADS or FARLIGHT_TORCH_THREADS is set or the count was already
changed (agents/torch_threads.py; FARLIGHT_TORCH_THREADS=0 leaves torch alone).

One module per concept: `cache` (distinct ship grids, the inference map cache), `nets` (the
networks), `file` (saving, checking and loading policy files), `agent` (`PolicyAgent`).
"""

from __future__ import annotations

from agents.farlight.policy.agent import PolicyAgent
from agents.farlight.policy.cache import (
    CHECK_BYTES,
    ROW_HASH_SEED,
    DistinctShips,
    ShipEntry,
    ShipMapCache,
    distinct_rows,
    gather_rows,
    pool_maps,
)
from agents.farlight.policy.file import (
    ACTOR_PREFIXES,
    BIDDER_POLICY,
    MAX_ACTIONS,
    MAX_OBSERVATION,
    MAX_PARAMETERS,
    MAX_POLICY_BYTES,
    MAX_WIDTH,
    POLICY_FORMAT,
    POLICY_VERSION,
    SHIPPED_POLICY,
    ZIP_MAGIC,
    PolicyConfig,
    load_policy,
    parameter_count,
    save_policy,
    shared_policy,
    validated_config,
)
from agents.farlight.policy.nets import (
    ARCHITECTURES,
    ObservationNet,
    PolicyNet,
    StructuredNet,
    actor_layers,
    set_one_at_a_time,
    set_ship_cnn_frozen,
)

__all__ = [
    "ACTOR_PREFIXES",
    "ARCHITECTURES",
    "BIDDER_POLICY",
    "CHECK_BYTES",
    "MAX_ACTIONS",
    "MAX_OBSERVATION",
    "MAX_PARAMETERS",
    "MAX_POLICY_BYTES",
    "MAX_WIDTH",
    "POLICY_FORMAT",
    "POLICY_VERSION",
    "ROW_HASH_SEED",
    "SHIPPED_POLICY",
    "ZIP_MAGIC",
    "DistinctShips",
    "ObservationNet",
    "PolicyAgent",
    "PolicyConfig",
    "PolicyNet",
    "ShipEntry",
    "ShipMapCache",
    "StructuredNet",
    "actor_layers",
    "distinct_rows",
    "gather_rows",
    "load_policy",
    "parameter_count",
    "pool_maps",
    "save_policy",
    "set_one_at_a_time",
    "set_ship_cnn_frozen",
    "shared_policy",
    "validated_config",
]
