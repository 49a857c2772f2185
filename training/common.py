"""Pieces shared by the PPO and self-play scripts: network, envs, checkpoints, evaluation."""

from __future__ import annotations

import dataclasses
import json
import os
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import CSVOutputFormat, Logger, TensorBoardOutputFormat
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from agents.arena import play_episode
from agents.policy import ARCHITECTURES, ObservationNet, PolicyAgent, StructuredNet, save_policy
from agents.registry import make
from farlight_env.cards.loader import standard_card_set
from farlight_env.encode.observation import ObservationEncoder
from farlight_env.env.single_agent import FarlightSingleAgentEnv

CHECKPOINT = "checkpoint.zip"
RUN_CONFIG = "run_config.json"


class FarlightExtractor(BaseFeaturesExtractor):
    """SB3 wrapper of `agents.policy.ObservationNet` (attribute `net`, as PolicyNet expects)."""

    def __init__(
        self,
        observation_space: gym.spaces.Box,
        layout: dict,
        embed: int = 128,
        ship_features: int = 16,
    ) -> None:
        net = ObservationNet(layout, embed, ship_features)
        super().__init__(observation_space, features_dim=net.out_dim)
        self.net = net

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.net(observations)


class PassThrough(BaseFeaturesExtractor):
    """The raw observation: the structured network slices it itself."""

    def __init__(self, observation_space: gym.spaces.Box) -> None:
        super().__init__(observation_space, features_dim=int(observation_space.shape[0]))

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return observations


class StructuredHeads(torch.nn.Module):
    """SB3's mlp_extractor slot filled by `StructuredNet`: the 'actor latent' is the logits."""

    def __init__(self, net: StructuredNet, action_size: int, vf: int) -> None:
        super().__init__()
        self.net = net
        self.latent_dim_pi = action_size
        self.latent_dim_vf = vf

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.net(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.net(features)[0]

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.net(features)[1]


class StructuredPolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy around `StructuredNet`; its action_net is the identity."""

    def __init__(
        self,
        *args: Any,
        layout: dict,
        embed: int = 128,
        ship_features: int = 32,
        hidden: int = 256,
        vf: int = 128,
        **kwargs: Any,
    ) -> None:
        self.structure = {
            "layout": layout,
            "embed": embed,
            "ship_features": ship_features,
            "hidden": hidden,
            "vf": vf,
        }
        kwargs.setdefault("ortho_init", False)
        kwargs["features_extractor_class"] = PassThrough
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        s = self.structure
        size = int(self.action_space.n)
        net = StructuredNet(s["layout"], size, s["embed"], s["ship_features"], s["hidden"], s["vf"])
        self.mlp_extractor = StructuredHeads(net, size, s["vf"])

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        self.action_net = torch.nn.Identity()
        self.optimizer = self.optimizer_class(
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )


def policy_class(arch: str) -> type | str:
    """The SB3 policy for a network architecture name."""
    if arch not in ARCHITECTURES:
        raise ValueError(f"unknown network architecture {arch!r}; choose one of {ARCHITECTURES}")
    return StructuredPolicy if arch == "structured" else "MlpPolicy"


def observation_layout(grid_size: int = 13) -> dict[str, tuple[int, int, tuple[int, ...]]]:
    encoder = ObservationEncoder(standard_card_set(), grid_size)
    return {name: (f.start, f.start + f.size, f.shape) for name, f in encoder.fields.items()}


def structured_vf(vf: Sequence[int]) -> int:
    """The structured network's one value layer takes the first --vf width."""
    return int(vf[0]) if vf else 128


def policy_kwargs(
    embed: int,
    ship_features: int,
    pi: Sequence[int],
    vf: Sequence[int],
    grid_size: int = 13,
    arch: str = "flat",
    hidden: int = 256,
) -> dict[str, Any]:
    if arch == "structured":
        return {
            "layout": observation_layout(grid_size),
            "embed": embed,
            "ship_features": ship_features,
            "hidden": hidden,
            "vf": structured_vf(vf),
        }
    return {
        "features_extractor_class": FarlightExtractor,
        "features_extractor_kwargs": {
            "layout": observation_layout(grid_size),
            "embed": embed,
            "ship_features": ship_features,
        },
        "net_arch": {"pi": list(pi), "vf": list(vf)},
        "activation_fn": torch.nn.Tanh,
    }


def policy_config(
    model: Any,
    embed: int,
    ship_features: int,
    pi: Sequence[int],
    name: str,
    extra: dict[str, Any] | None = None,
    arch: str = "flat",
    hidden: int = 256,
    vf: Sequence[int] = (128,),
) -> dict[str, Any]:
    """What `agents.policy.PolicyNet` needs to rebuild the actor, plus provenance."""
    layout = observation_layout()
    return {
        "name": name,
        "arch": arch,
        "hidden": hidden,
        "vf": structured_vf(vf),
        "layout": {k: [a, b, list(shape)] for k, (a, b, shape) in layout.items()},
        "embed": embed,
        "ship_features": ship_features,
        "pi": list(pi),
        "obs_size": int(model.observation_space.shape[0]),
        "action_size": int(model.action_space.n),
        **(extra or {}),
    }


def export_policy(model: Any, path: Path, config: dict[str, Any]) -> None:
    save_policy(model.policy.state_dict(), config, path)


def opponent_policies(names: Sequence[str], seed: int) -> list[Any]:
    """Agents for the opponent seats, from names or saved policy paths."""
    out = []
    for i, name in enumerate(names):
        if name.endswith(".pt") or os.sep in name:
            out.append(PolicyAgent(name, seed=seed + i))
        else:
            out.append(make(name, seed=seed + i))
    return out


def make_env_fn(
    num_players: int,
    opponents: Sequence[str],
    seed: int,
    rank: int,
    reward_mode: str = "win",
    max_rounds: int = 50,
) -> Callable[[], gym.Env]:
    """A picklable env factory for SB3 VecEnvs (one per worker)."""

    def build() -> gym.Env:
        names = (
            list(opponents)
            if len(opponents) == num_players - 1
            else [opponents[0]] * (num_players - 1)
        )
        env = FarlightSingleAgentEnv(
            num_players=num_players,
            opponents=opponent_policies(names, seed * 1000 + rank * 10),
            reward_mode=reward_mode,
            max_rounds=max_rounds,
        )
        env.reset(seed=seed * 1000 + rank)
        return env

    return build


# ----------------------------------------------------------------------------- checkpoints
def save_checkpoint(model: Any, run_dir: Path) -> Path:
    """SB3 zip (weights, optimiser, step count) written to a temp name, then renamed."""
    path = run_dir / CHECKPOINT
    tmp = run_dir / (CHECKPOINT + ".tmp.zip")
    model.save(tmp)
    os.replace(tmp, path)
    return path


def check_checkpoint(path: Path) -> None:
    """Refuse a missing, corrupt or foreign checkpoint with a clear message."""
    if not path.exists():
        raise FileNotFoundError(f"no checkpoint at {path}")
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            data = json.loads(archive.read("data")) if "data" in names else None
    except (zipfile.BadZipFile, json.JSONDecodeError, UnicodeDecodeError, OSError) as exc:
        raise ValueError(f"{path}: corrupt checkpoint ({exc})") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{path}: not a Stable-Baselines3 checkpoint (bad 'data' entry)")
    if data is None or "policy.pth" not in names or "pytorch_variables.pth" not in names:
        raise ValueError(f"{path}: not a Stable-Baselines3 checkpoint")
    policy_class = str(data.get("policy_class", {}).get(":serialized:", ""))
    if "observation_space" not in data or not policy_class:
        raise ValueError(f"{path}: not a Farlight MaskablePPO checkpoint")


def write_run_config(run_dir: Path, config: Any) -> None:
    path = run_dir / RUN_CONFIG
    tmp = run_dir / (RUN_CONFIG + ".tmp")
    tmp.write_text(json.dumps(asdict(config), indent=1, sort_keys=True))
    os.replace(tmp, path)


def read_run_config(run_dir: Path) -> dict[str, Any]:
    path = run_dir / RUN_CONFIG
    if not path.exists():
        raise FileNotFoundError(f"{run_dir}: no {RUN_CONFIG}; not a training run directory")
    try:
        data = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: corrupt run config ({exc})") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{path}: run config must be a JSON object")
    return data


def stored_config(run_dir: Path, cls: type) -> Any:
    """The run's stored config as `cls`; a run of another kind is refused by name."""
    data = read_run_config(run_dir)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(
            f"{run_dir / RUN_CONFIG}: fields {unknown} do not belong to a {cls.__name__} run "
            "(resume it with the command that started it)"
        )
    return cls(**data)


def load_checkpoint(path: Path, env: Any) -> Any:
    """MaskablePPO.load with every failure turned into a ValueError naming the file."""
    from sb3_contrib import MaskablePPO

    check_checkpoint(path)
    try:
        return MaskablePPO.load(path, env=env, device="cpu")
    except Exception as exc:  # noqa: BLE001 - SB3/torch raise many kinds on bad files
        raise ValueError(
            f"{path}: corrupt or incompatible checkpoint ({type(exc).__name__}: "
            f"{str(exc).splitlines()[0] if str(exc) else ''})"
        ) from exc


class AppendingCSV(CSVOutputFormat):
    """SB3's CSV log, but a resumed run appends instead of wiping earlier rows."""

    def __init__(self, filename: str) -> None:
        Path(filename).touch()
        self.file = open(filename, "r+")  # noqa: SIM115 - owned by the logger, closed by it
        header = self.file.readline().strip()
        self.keys = header.split(",") if header else []
        self.separator = ","
        self.quotechar = '"'
        self.file.seek(0, os.SEEK_END)


def run_logger(run_dir: Path) -> Logger:
    """CSV (appending across resumes) and TensorBoard logs under run_dir/logs."""
    folder = run_dir / "logs"
    folder.mkdir(parents=True, exist_ok=True)
    formats = [AppendingCSV(str(folder / "progress.csv")), TensorBoardOutputFormat(str(folder))]
    return Logger(str(folder), formats)


# ----------------------------------------------------------------------------- evaluation
def evaluate_against(
    policy: PolicyAgent | Any, opponent: str, games: int, num_players: int, seed: int
) -> float:
    """Win rate (shared victories count as a fraction) of `policy` in seat rotation."""
    from farlight_env.env.aec import raw_env

    wins = 0.0
    for g in range(games):
        seat = g % num_players
        env = raw_env(num_players=num_players)
        env.reset(seed=seed + g)
        seats = [
            policy if s == seat else make(opponent, seed=seed * 7 + g * 11 + s)
            for s in range(num_players)
        ]
        play_episode(env, seats)
        winners = env.game.winners()
        if seat in winners:
            wins += 1.0 / len(winners)
    return wins / games


class LivePolicy:
    """The model being trained, as an Agent (masked, deterministic)."""

    def __init__(self, model: Any) -> None:
        self.model = model

    def reset(self) -> None:
        pass

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Any) -> int:
        action, _ = self.model.predict(
            observation, action_masks=action_mask.astype(bool), deterministic=True
        )
        return int(action)


class ProgressCallback(BaseCallback):
    """A tqdm bar over timesteps (SB3's own bar needs `rich`)."""

    def __init__(self, total: int, start: int = 0) -> None:
        super().__init__()
        self.total = total
        self.start = start
        self.bar = None

    def _on_training_start(self) -> None:
        from tqdm.auto import tqdm

        self.bar = tqdm(total=self.total, initial=self.start, unit="step", desc="training")

    def _on_step(self) -> bool:
        assert self.bar is not None
        done = min(self.model.num_timesteps, self.total)
        if done > self.bar.n:
            self.bar.update(done - self.bar.n)  # tqdm throttles redraws
        return True

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()
