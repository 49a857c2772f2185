"""Trained policies: the network shared with training, saving, and a loading Agent.

A policy file is a plain `torch.save` of a dict (format tag, config, state dict of tensors),
read back with `torch.load(..., weights_only=True)` only: no pickled code ever runs. Needs torch
(the `train` extra); the rest of the project does not.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

POLICY_FORMAT = "farlight-policy"
POLICY_VERSION = 1
#: State-dict prefixes of SB3's actor that a saved policy keeps (critic weights are dropped).
ACTOR_PREFIXES = ("features_extractor.", "mlp_extractor.policy_net.", "action_net.")
SHIPPED_POLICY = Path(__file__).with_name("data") / "ppo_2p.pt"


class ObservationNet(nn.Module):
    """Features of a flat Farlight observation: a linear layer over everything but the ships,
    and a small shared CNN over each seat's ship planes, pooled to a fixed size."""

    def __init__(
        self,
        layout: Mapping[str, tuple[int, int, tuple[int, ...]]],
        embed: int = 128,
        ship_features: int = 16,
    ) -> None:
        super().__init__()
        self.layout = {
            name: (int(a), int(b), tuple(shape)) for name, (a, b, shape) in layout.items()
        }
        ships_start, ships_stop, ships_shape = self.layout["ships"]
        self.ships_slice = (ships_start, ships_stop)
        self.num_seats, self.channels, self.grid, _ = ships_shape
        flat = [
            i for name, (a, b, _) in self.layout.items() if name != "ships" for i in range(a, b)
        ]
        self.register_buffer("flat_index", torch.tensor(flat, dtype=torch.long), persistent=False)
        self.flat = nn.Sequential(nn.Linear(len(flat), embed), nn.ReLU())
        self.ship_cnn = nn.Sequential(
            nn.Conv2d(self.channels, ship_features, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(ship_features, ship_features, 3, padding=1),
            nn.ReLU(),
        )
        self.out_dim = embed + self.num_seats * ship_features * 2

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        batch = obs.shape[0]
        flat = self.flat(obs.index_select(1, self.flat_index))
        a, b = self.ships_slice
        ships = obs[:, a:b].reshape(batch * self.num_seats, self.channels, self.grid, self.grid)
        maps = self.ship_cnn(ships)
        pooled = torch.cat([maps.mean(dim=(2, 3)), maps.amax(dim=(2, 3))], dim=1)
        return torch.cat([flat, pooled.reshape(batch, -1)], dim=1)


class _Extractor(nn.Module):
    """Same attribute path as training's SB3 extractor: `features_extractor.net`."""

    def __init__(self, net: ObservationNet) -> None:
        super().__init__()
        self.net = net


class _MlpExtractor(nn.Module):
    def __init__(self, policy_net: nn.Sequential) -> None:
        super().__init__()
        self.policy_net = policy_net


def actor_layers(in_dim: int, hidden: list[int]) -> tuple[nn.Sequential, int]:
    """SB3's MlpExtractor policy branch: Linear + Tanh per hidden size."""
    layers: list[nn.Module] = []
    for size in hidden:
        layers += [nn.Linear(in_dim, size), nn.Tanh()]
        in_dim = size
    return nn.Sequential(*layers), in_dim


class PolicyNet(nn.Module):
    """The actor of a trained MaskablePPO policy, rebuilt without SB3."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        super().__init__()
        layout = {k: (v[0], v[1], tuple(v[2])) for k, v in config["layout"].items()}
        net = ObservationNet(layout, config["embed"], config["ship_features"])
        self.features_extractor = _Extractor(net)
        policy_net, out = actor_layers(net.out_dim, list(config["pi"]))
        self.mlp_extractor = _MlpExtractor(policy_net)
        self.action_net = nn.Linear(out, config["action_size"])

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        features = self.features_extractor.net(obs)
        return self.action_net(self.mlp_extractor.policy_net(features))


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
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(payload, tmp)
    tmp.replace(path)


def load_policy(path: str | Path) -> tuple[PolicyNet, dict[str, Any]]:
    """Load a saved policy; a foreign or corrupt file raises ValueError saying what is wrong."""
    path = Path(path)
    if not path.exists():
        raise FileNotFoundError(f"no policy file at {path}")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - torch raises many kinds on bad files
        raise ValueError(
            f"{path}: not a loadable policy file ({type(exc).__name__}: {exc})"
        ) from exc
    if not isinstance(payload, dict) or payload.get("format") != POLICY_FORMAT:
        raise ValueError(f"{path}: not a Farlight policy (expected format {POLICY_FORMAT!r})")
    if payload.get("version") != POLICY_VERSION:
        raise ValueError(
            f"{path}: policy version {payload.get('version')!r}, expected {POLICY_VERSION}"
        )
    config = payload.get("config")
    try:
        net = PolicyNet(config)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ValueError(f"{path}: bad policy config ({type(exc).__name__}: {exc})") from exc
    try:
        net.load_state_dict(payload["state_dict"], strict=True)
    except (RuntimeError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: weights do not match the policy config: {exc}") from exc
    net.eval()
    return net, config


class PolicyAgent:
    """Plays a saved policy: the most probable legal action (or a sample, if stochastic)."""

    def __init__(
        self, path: str | Path = SHIPPED_POLICY, seed: int | None = None, deterministic: bool = True
    ) -> None:
        self.path = Path(path)
        self.net, self.config = load_policy(self.path)
        self.name = str(self.config.get("name", self.path.stem))
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """Stateless between games."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        size = self.config["action_size"]
        if len(action_mask) != size or len(observation) != self.config["obs_size"]:
            raise ValueError(
                f"policy {self.path.name} expects observations of {self.config['obs_size']} and "
                f"{size} actions; got {len(observation)} and {len(action_mask)} (another card "
                "set or grid size?)"
            )
        with torch.no_grad():
            logits = self.net(torch.as_tensor(observation, dtype=torch.float32)[None])[0]
        logits = logits.numpy().astype(np.float64)
        logits[np.asarray(action_mask) == 0] = -np.inf
        if self.deterministic:
            return int(np.argmax(logits))
        probs = np.exp(logits - logits.max())
        probs /= probs.sum()
        return int(self.rng.choice(len(probs), p=probs))
