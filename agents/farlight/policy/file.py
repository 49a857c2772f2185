"""The policy file: a plain `torch.save` of a dict (format tag, config, state dict of
tensors), written atomically and read back with `torch.load(..., weights_only=True)` only,
its config type- and range-checked and its network's size bounded before anything is built."""

from __future__ import annotations

import copy
import hashlib
import math
import pickle
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
import torch

from agents.farlight.policy.nets import ARCHITECTURES, PolicyNet, set_one_at_a_time
from agents.game_policy.payload import (
    MAX_ACTIONS,
    MAX_OBSERVATION,
    MAX_PARAMETERS,
    MAX_POLICY_BYTES,
    MAX_WIDTH,
    ZIP_MAGIC,
    write_payload,
)
from agents.torch_threads import library_default
from farlight_env.env.subgame import LearnerDecisions
from farlight_env.game.config import ConfigError
from farlight_env.untrusted.files import check_torch_archive

POLICY_FORMAT = "farlight-policy"
POLICY_VERSION = 1
#: State-dict prefixes of SB3's actor that a saved policy keeps. The flat architecture's critic
#: is dropped; the structured network's small value layer lives inside it and is kept.
ACTOR_PREFIXES = (
    "features_extractor.",
    "mlp_extractor.policy_net.",
    "mlp_extractor.net.",
    "action_net.",
)
SHIPPED_POLICY = Path(__file__).parents[2] / "data" / "ppo.pt"
#: The shipped bidding-only policy (agents.make("bidder")): bids only, the heuristic for the rest.
BIDDER_POLICY = Path(__file__).parents[2] / "data" / "bidder.pt"
Width = Annotated[int, msgspec.Meta(ge=1, le=MAX_WIDTH)]
#: What a policy file may name as its autopilot: a registered agent name, never a file.
AUTOPILOT_NAME = "^[a-z]+(@[0-9]{1,6})?$"
Index = Annotated[int, msgspec.Meta(ge=0, le=MAX_OBSERVATION)]


def save_policy(
    state_dict: Mapping[str, torch.Tensor], config: Mapping[str, Any], path: Path
) -> None:
    """Write the actor's weights and config atomically (temp file, then rename)."""
    actor = {
        k: v.detach().cpu().clone() for k, v in state_dict.items() if k.startswith(ACTOR_PREFIXES)
    }
    payload = {
        "format": POLICY_FORMAT,
        "version": POLICY_VERSION,
        "config": dict(config),
        "state_dict": actor,
    }
    write_payload(payload, path)


class PolicyConfig(msgspec.Struct):
    """What a policy file must say about its network; unknown keys (provenance such as
    trained_steps or opponents) are kept but not used to build anything."""

    layout: dict[str, tuple[Index, Index, Annotated[list[Width], msgspec.Meta(max_length=4)]]]
    obs_size: Annotated[int, msgspec.Meta(ge=1, le=MAX_OBSERVATION)]
    action_size: Annotated[int, msgspec.Meta(ge=1, le=MAX_ACTIONS)]
    embed: Width
    ship_features: Width
    arch: Literal["flat", "structured"] = "flat"
    hidden: Width = 256
    vf: Width = 128
    pi: Annotated[list[Width], msgspec.Meta(max_length=8)] = msgspec.field(default_factory=list)
    name: Annotated[str, msgspec.Meta(max_length=200)] = "policy"
    #: A sub-game policy (trained with --learner-decisions) plays only these decision kinds;
    #: `autopilot`, an agent name (never a path), plays the others (agents/farlight/subgame.py).
    learner_decisions: Annotated[str, msgspec.Meta(max_length=200)] = "all"
    autopilot: Annotated[str, msgspec.Meta(max_length=40, pattern=AUTOPILOT_NAME)] = "heuristic"


def _check_layout(config: PolicyConfig) -> None:
    """Every field's slice lies inside the observation and matches its shape."""
    if len(config.layout) > 64:
        raise ValueError("layout has more than 64 fields")
    for name, (start, stop, shape) in config.layout.items():
        if not 0 <= start < stop <= config.obs_size or math.prod(shape) != stop - start:
            raise ValueError(
                f"layout field {name!r} ({start}:{stop}, shape {shape}) does not fit an "
                f"observation of {config.obs_size}"
            )
    missing = {"ships", "station", "missions", "bids", "own_hand", "pending", "deck"} - set(
        config.layout
    )
    if missing:
        raise ValueError(f"layout lacks {sorted(missing)}")
    if len(config.layout["ships"][2]) != 4:
        raise ValueError("layout field 'ships' must have 4 dimensions (seat, plane, row, col)")


def validated_config(raw: Any) -> dict[str, Any]:
    """The network fields of a file's policy config (defaults filled in), every field type-
    and range-checked (ValueError)."""
    arch = raw.get("arch", "flat") if isinstance(raw, dict) else None
    if isinstance(arch, str) and arch not in ARCHITECTURES:
        raise ValueError(f"unknown architecture {arch!r}; expected one of {ARCHITECTURES}")
    try:
        config = msgspec.convert(raw, PolicyConfig)
    except msgspec.ValidationError as exc:
        raise ValueError(f"bad policy config: {exc}") from exc
    _check_layout(config)
    try:
        LearnerDecisions.parse(config.learner_decisions)
    except ConfigError as exc:
        raise ValueError(str(exc)) from exc
    return msgspec.to_builtins(config)


def parameter_count(config: Mapping[str, Any]) -> int:
    """Parameters the config's network would have, counted without allocating them."""
    with torch.device("meta"):
        return sum(p.numel() for p in PolicyNet(config).parameters())


def _load_failure(exc: Exception) -> str:
    """Why torch could not load a file, in a few words. Never torch's own advice for an
    unpickling refusal, which suggests weights_only=False: a policy file never needs it."""
    if isinstance(exc, pickle.UnpicklingError):
        return "it holds more than tensors and plain values, the only kind loaded"
    if isinstance(exc, EOFError):
        return "the file is cut short"
    first = str(exc).split(". ")[0].splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


#: Policies this process has read and checked, by file content -> (checked network config,
#: config, weights). Tournaments make a seat's agent for every game: a file already checked
#: is rebuilt from these (a fresh network every call) in less than half the time. Keyed by
#: the bytes' digest, so a file changed on disk in any way is read and checked again.
_CHECKED: dict[tuple, tuple[dict[str, Any], dict[str, Any], dict[str, torch.Tensor]]] = {}
CHECKED_KEPT = 8


def _identity(path: Path) -> tuple[int, str]:
    """(size, SHA-256 digest) of a file of at most MAX_POLICY_BYTES (ValueError if larger)."""
    size = path.stat().st_size
    if size > MAX_POLICY_BYTES:
        raise ValueError(f"{path}: larger than {MAX_POLICY_BYTES} bytes; not a policy file")
    with path.open("rb") as fh:
        return size, hashlib.file_digest(fh, "sha256").hexdigest()


def load_policy(path: str | Path) -> tuple[PolicyNet, dict[str, Any]]:
    """Load a saved policy; a foreign, corrupt or oversized file raises ValueError saying what
    is wrong. The file is at most MAX_POLICY_BYTES, its network at most MAX_PARAMETERS. Each
    call returns a network of its own, whose outputs for a position do not depend on the
    positions it saw before (`set_one_at_a_time`)."""
    library_default()  # one torch thread unless chosen (agents/torch_threads.py)
    path, identity = _existing(path)
    checked = _CHECKED.get(identity)
    if checked is None:
        net, checked = _read_policy(path)
        _keep(_CHECKED, CHECKED_KEPT, identity, path, checked)
    else:
        network, _config, state = checked
        with torch.random.fork_rng(devices=[]):  # the weights' random start is overwritten:
            net = PolicyNet(network)  # leave the caller's torch generator where it was
        net.load_state_dict(state, strict=True)  # copies: the checked weights stay as read
    net.eval()
    set_one_at_a_time(net, True)
    return net, copy.deepcopy(checked[1])


#: Networks lent to readers that share one per file (`shared_policy`), by file content ->
#: (network, config).
_SHARED: dict[tuple, tuple[PolicyNet, dict[str, Any]]] = {}
SHARED_KEPT = 64


def shared_policy(path: str | Path) -> tuple[PolicyNet, dict[str, Any]]:
    """`load_policy`, but the network is one this process lends to every caller asking for
    the same file content (by digest), for agents that only play it: a league's opponents in
    16 games hold one copy of each snapshot's weights and ship-map cache, not 16. The config
    is the caller's own copy; the network must not be changed (trained, moved, edited)."""
    path, identity = _existing(path)
    found = _SHARED.get(identity)
    if found is None:
        found = load_policy(path)
        _keep(_SHARED, SHARED_KEPT, identity, path, found)  # lent networks stay with agents
    net, config = found
    return net, copy.deepcopy(config)


def _existing(path: str | Path) -> tuple[Path, tuple[int, str]]:
    """The path and its file's identity (FileNotFoundError if there is no file)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no policy file at {path}")
    return path, _identity(path)


def _keep(cache: dict, limit: int, identity: tuple, path: Path, value: Any) -> None:
    """Keep `value` under the file's `identity` if the file was not changed while it was
    read; a cache at its `limit` starts over."""
    if _identity(path) == identity:
        if len(cache) >= limit:
            cache.clear()
        cache[identity] = value


def _read_policy(
    path: Path,
) -> tuple[PolicyNet, tuple[dict[str, Any], dict[str, Any], dict[str, torch.Tensor]]]:
    """A policy file's network, and (checked network config, config, a copy of its weights),
    every field checked (ValueError saying what is wrong)."""
    with path.open("rb") as fh:
        if fh.read(len(ZIP_MAGIC)) != ZIP_MAGIC:
            raise ValueError(
                f"{path}: not a loadable policy file (not a PyTorch file: policy files are "
                "the policy.pt that farlight train writes)"
            )
    try:  # sizes and torch's records, before torch reads a byte
        check_torch_archive(path, MAX_POLICY_BYTES)
    except ValueError as exc:
        raise ValueError(f"{path}: not a loadable policy file ({exc})") from None
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - torch raises many kinds on bad files
        raise ValueError(f"{path}: not a loadable policy file ({_load_failure(exc)})") from exc
    if not isinstance(payload, dict) or payload.get("format") != POLICY_FORMAT:
        raise ValueError(f"{path}: not a Farlight policy (expected format {POLICY_FORMAT!r})")
    if payload.get("version") != POLICY_VERSION:
        raise ValueError(
            f"{path}: policy version {payload.get('version')!r}, expected {POLICY_VERSION}"
        )
    config = payload.get("config")
    try:
        network = validated_config(config)
        count = parameter_count(network)
        if count > MAX_PARAMETERS:
            raise ValueError(f"its network has {count:,} parameters, more than {MAX_PARAMETERS:,}")
        with torch.random.fork_rng(devices=[]):  # the weights' random start is overwritten:
            net = PolicyNet(network)  # leave the caller's torch generator where it was
    except (KeyError, TypeError, ValueError, IndexError, RuntimeError) as exc:
        raise ValueError(f"{path}: {exc}") from exc
    state = payload.get("state_dict")
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ValueError(f"{path}: state_dict must map names to tensors")
    try:
        net.load_state_dict(state, strict=True)
    except (RuntimeError, KeyError, TypeError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise ValueError(f"{path}: weights do not match the policy config: {first}") from exc
    weights = {k: v.detach().clone() for k, v in net.state_dict().items()}
    return net, (network, config, weights)
