"""Policy files of a game other than Farlight (#50): a plain MLP's state dict and metadata
that say which game (name, version, player counts) and which sizes it was trained for.

Written as Farlight's policy files are (`torch.save` of a dict, atomically) and read back the
same way: `torch.load(..., weights_only=True)` only, after the archive's sizes are checked,
every metadata field checked by a msgspec schema and the network's size bounded before
anything is built. A refusal is one line naming the file and the field.
"""

from __future__ import annotations

import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
import torch
from torch import nn

from agents.game_policy.payload import (
    MAX_ACTIONS,
    MAX_OBSERVATION,
    MAX_PARAMETERS,
    MAX_POLICY_BYTES,
    MAX_WIDTH,
    ZIP_MAGIC,
    write_payload,
)
from farlight_env.untrusted.files import check_torch_archive
from farlight_env.untrusted.messages import clip_message

GAME_POLICY_FORMAT = "farlight-game-policy"
GAME_POLICY_VERSION = 1
#: SB3's MlpPolicy parameters a game policy keeps: the actor's layers and its action head.
SB3_ACTOR_PREFIXES = ("mlp_extractor.policy_net.", "action_net.")
#: The most a file's pickled record (metadata and tensor references, not the tensors) may be.
MAX_RECORD_BYTES = 1 << 20
MAX_COUNTER = 10**12

Width = Annotated[int, msgspec.Meta(ge=1, le=MAX_WIDTH)]
Label = Annotated[str, msgspec.Meta(max_length=200)]
OptionValue = bool | int | float | Annotated[str, msgspec.Meta(max_length=200)]


class GamePolicyConfig(msgspec.Struct, forbid_unknown_fields=True):
    """What a game policy file says about itself; every field is checked on reading."""

    game: Annotated[str, msgspec.Meta(pattern="^[a-z0-9][a-z0-9_.-]{0,63}$")]
    game_version: Annotated[int, msgspec.Meta(ge=0, le=MAX_COUNTER)]
    player_counts: Annotated[
        list[Annotated[int, msgspec.Meta(ge=1, le=64)]], msgspec.Meta(min_length=1, max_length=64)
    ]
    obs_size: Annotated[int, msgspec.Meta(ge=1, le=MAX_OBSERVATION)]
    action_size: Annotated[int, msgspec.Meta(ge=1, le=MAX_ACTIONS)]
    hidden: Annotated[list[Width], msgspec.Meta(max_length=8)]
    activation: Literal["tanh", "relu"] = "tanh"
    name: Label = "ppo"
    game_options: Annotated[dict[Label, OptionValue], msgspec.Meta(max_length=64)] = {}
    trained_steps: Annotated[int, msgspec.Meta(ge=0, le=MAX_COUNTER)] = 0
    seed: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)] = 0
    opponents: Annotated[list[Label], msgspec.Meta(max_length=64)] = []


class GameNet(nn.Module):
    """The actor of SB3's MlpPolicy: hidden layers, then one logit per action. Its parameter
    names are SB3's without `mlp_extractor.`, so an SB3 actor loads with no renaming."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        super().__init__()
        activation = {"tanh": nn.Tanh, "relu": nn.ReLU}[config.get("activation", "tanh")]
        layers: list[nn.Module] = []
        width = config["obs_size"]
        for hidden in config["hidden"]:
            layers += [nn.Linear(width, hidden), activation()]
            width = hidden
        self.policy_net = nn.Sequential(*layers)
        self.action_net = nn.Linear(width, config["action_size"])

    def forward(self, observation: torch.Tensor) -> torch.Tensor:
        return self.action_net(self.policy_net(observation))


def parameter_count(config: Mapping[str, Any]) -> int:
    """Parameters of the config's network, by arithmetic (nothing allocated)."""
    sizes = [config["obs_size"], *config["hidden"], config["action_size"]]
    return sum(a * b + b for a, b in zip(sizes, sizes[1:], strict=False))


def checked_config(raw: Any, where: str = "") -> dict[str, Any]:
    """The metadata as plain values, every field type- and range-checked (ValueError naming
    the field) and the network bounded to MAX_PARAMETERS."""
    try:
        config = msgspec.to_builtins(msgspec.convert(raw, GamePolicyConfig))
    except msgspec.ValidationError as exc:
        raise ValueError(clip_message(f"{where}bad game policy config: {exc}")) from None
    count = parameter_count(config)
    if count > MAX_PARAMETERS:
        raise ValueError(
            f"{where}its network has {count:,} parameters, more than {MAX_PARAMETERS:,}"
        )
    return config


def save_game_policy(state_dict: Mapping[str, torch.Tensor], config: Any, path: Path) -> None:
    """Write an actor (SB3 MlpPolicy's or a GameNet's parameters) with its metadata
    atomically: a temp file, then a rename. The metadata is checked before anything is written."""
    checked = checked_config(config)
    actor = {
        name.removeprefix("mlp_extractor."): tensor.detach().cpu().clone()
        for name, tensor in state_dict.items()
        if name.startswith((*SB3_ACTOR_PREFIXES, "policy_net."))
    }
    payload = {
        "format": GAME_POLICY_FORMAT,
        "version": GAME_POLICY_VERSION,
        "config": checked,
        "state_dict": actor,
    }
    write_payload(payload, path)


def is_game_policy(path: str | Path) -> bool:
    """Whether `path` is (by its record's format tag) a game policy file rather than Farlight's.
    Reads only the small pickled record as bytes, unpickling nothing; anything unreadable is
    False (Farlight's loader then says what is wrong with it)."""
    try:
        with zipfile.ZipFile(path) as archive:
            records = [i for i in archive.infolist() if i.filename.endswith("/data.pkl")]
            if len(records) != 1 or records[0].file_size > MAX_RECORD_BYTES:
                return False
            with archive.open(records[0]) as fh:
                return GAME_POLICY_FORMAT.encode() in fh.read(MAX_RECORD_BYTES)
    except (OSError, zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError):
        return False


def _payload(path: Path) -> dict[str, Any]:
    """The file's dict, read with weights_only=True once its size and archive are checked."""
    if not path.is_file():
        raise FileNotFoundError(f"no policy file at {path}")
    if path.stat().st_size > MAX_POLICY_BYTES:
        raise ValueError(f"{path}: larger than {MAX_POLICY_BYTES} bytes; not a policy file")
    with path.open("rb") as fh:
        if fh.read(len(ZIP_MAGIC)) != ZIP_MAGIC:
            raise ValueError(f"{path}: not a loadable policy file (not a PyTorch file)")
    try:
        check_torch_archive(path, MAX_POLICY_BYTES)
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - torch raises many kinds on bad bytes
        first = str(exc).split(". ")[0].splitlines()[0] if str(exc) else type(exc).__name__
        raise ValueError(clip_message(f"{path}: not a loadable policy file ({first})")) from None
    if not isinstance(payload, dict) or payload.get("format") != GAME_POLICY_FORMAT:
        raise ValueError(f"{path}: not a game policy (expected format {GAME_POLICY_FORMAT!r})")
    if payload.get("version") != GAME_POLICY_VERSION:
        raise ValueError(
            f"{path}: game policy version {clip_message(repr(payload.get('version')))}, "
            f"expected {GAME_POLICY_VERSION}"
        )
    if set(payload) != {"format", "version", "config", "state_dict"}:
        raise ValueError(f"{path}: a game policy holds format, version, config and state_dict")
    return payload


def _checked_weights(net: GameNet, state: Any, path: Path) -> None:
    """Load `state` into `net`: the same names and shapes, finite values (ValueError)."""
    if not isinstance(state, dict) or not all(
        isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in state.items()
    ):
        raise ValueError(f"{path}: state_dict must map names to tensors")
    expected = net.state_dict()
    if set(state) != set(expected):
        odd = sorted(set(state) ^ set(expected))
        raise ValueError(clip_message(f"{path}: state_dict does not match the config: {odd[0]}"))
    for name, tensor in state.items():
        if tuple(tensor.shape) != tuple(expected[name].shape):
            raise ValueError(
                f"{path}: state_dict {name} has shape {tuple(tensor.shape)}, the config "
                f"asks for {tuple(expected[name].shape)}"
            )
        if not tensor.is_floating_point() or not bool(torch.isfinite(tensor).all()):
            raise ValueError(f"{path}: state_dict {name} must hold finite floating-point values")
    net.load_state_dict({k: v.float() for k, v in state.items()}, strict=True)


def load_game_policy(path: str | Path) -> tuple[GameNet, dict[str, Any]]:
    """A game policy's network (in eval mode) and its checked metadata; ValueError (one line,
    naming the file) for a foreign, corrupt, tampered or oversized file."""
    path = Path(path)
    payload = _payload(path)
    config = checked_config(payload["config"], f"{path}: ")
    with torch.random.fork_rng(devices=[]):  # the random start is overwritten: leave the
        net = GameNet(config)  # caller's torch generator where it was
    _checked_weights(net, payload["state_dict"], path)
    net.eval()
    return net, config


def file_game(path: str | Path) -> str | None:
    """The game a policy file plays: its declared game for a game policy, 'farlight' for any
    other file (Farlight's loader judges it), None for a game policy that cannot be read."""
    if not is_game_policy(path):
        return "farlight"
    try:
        return load_game_policy(path)[1]["game"]
    except (OSError, ValueError):
        return None
