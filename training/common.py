"""Pieces shared by the PPO and self-play scripts: network, envs, run files, evaluation."""

from __future__ import annotations

import contextlib
import csv
import dataclasses
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import gymnasium as gym
import msgspec
import numpy as np
import torch
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer, MaskableRolloutBufferSamples
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.logger import CSVOutputFormat, Logger, TensorBoardOutputFormat
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from agents.arena import play_episode
from agents.files import atomic_write, read_bounded
from agents.policy import ARCHITECTURES, ObservationNet, PolicyAgent, StructuredNet, save_policy
from agents.registry import make
from agents.workers import die_with_parent
from farlight_env.cards.loader import load_card_set, standard_card_set
from farlight_env.cards.model import CardSet
from farlight_env.encode.observation import ObservationEncoder
from farlight_env.env.single_agent import FarlightSingleAgentEnv
from training.checkpoints import restore_checkpoint
from training.config import PPOConfig, env_player_counts
from training.game_options import game_kwargs

RUN_CONFIG = "run_config.json"
MAX_RUN_CONFIG_BYTES = 1 << 20
#: The CSV column every logged row carries (SB3's dumps and the evaluations alike).
STEP_COLUMN = "time/total_timesteps"


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

    def forward(
        self,
        obs: torch.Tensor,
        deterministic: bool = False,
        action_masks: np.ndarray | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """The rollout step (actions, values, log-probabilities) of sb3-contrib's policy, without
        building its distribution objects: on a batch of 2 they cost a third of the step. The
        same operations in the same order, so the same numbers and random draws."""
        if action_masks is None:
            return super().forward(obs, deterministic)
        logits, latent_vf = self.mlp_extractor(self.extract_features(obs))
        masks = torch.as_tensor(action_masks, dtype=torch.bool).reshape(logits.shape)
        log_probs = masked_log_probs(logits, masks)
        probs = torch.softmax(log_probs, dim=-1)
        if deterministic:
            actions = probs.argmax(dim=-1)
        else:
            actions = torch.multinomial(probs, 1, True).T.reshape(-1)
        log_prob = log_probs.gather(-1, actions[:, None]).squeeze(-1)
        return actions.reshape((-1, *self.action_space.shape)), self.value_net(latent_vf), log_prob

    def evaluate_actions(
        self,
        obs: torch.Tensor,
        actions: torch.Tensor,
        action_masks: torch.Tensor | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
        """Values, log-probabilities of `actions` and entropies for the PPO update: the same
        operations as sb3-contrib's masked distribution, without building it."""
        if action_masks is None:
            return super().evaluate_actions(obs, actions)
        logits, latent_vf = self.mlp_extractor(self.extract_features(obs))
        masks = torch.as_tensor(action_masks, dtype=torch.bool).reshape(logits.shape)
        log_probs = masked_log_probs(logits, masks)
        log_prob = log_probs.gather(-1, actions.long().reshape(-1, 1)).squeeze(-1)
        p_log_p = log_probs * torch.softmax(log_probs, dim=-1)
        p_log_p = torch.where(masks, p_log_p, torch.tensor(0.0, dtype=p_log_p.dtype))
        return self.value_net(latent_vf), log_prob, -p_log_p.sum(-1)


#: What sb3-contrib's MaskableCategorical puts in place of a masked-out logit.
MASKED_LOGIT = -1e8


def masked_log_probs(logits: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """Normalised log-probabilities of masked logits, as MaskableCategorical computes them
    (normalise, mask, normalise again), so sampling from them draws the same actions."""
    logits = logits - logits.logsumexp(dim=-1, keepdim=True)
    logits = torch.where(masks, logits, torch.tensor(MASKED_LOGIT, dtype=logits.dtype))
    return logits - logits.logsumexp(dim=-1, keepdim=True)


class EnvMajorRolloutBuffer(MaskableRolloutBuffer):
    """sb3-contrib's rollout buffer, its observations stored environment-major in one array
    kept across rollouts, so the flattening before the update is a view, not a copy of the
    whole rollout (67 MB at 2 x 512 steps), and a minibatch is copied once, not twice. The
    samples are the same."""

    _storage: np.ndarray | None = None

    def reset(self) -> None:
        super().reset()
        shape = (self.n_envs, self.buffer_size, *self.obs_shape)
        if self._storage is None or self._storage.shape != shape:
            self._storage = np.zeros(shape, dtype=self.observation_space.dtype)
        self.observations = self._storage.swapaxes(0, 1)  # SB3's (step, env, ...) indexing

    def _get_samples(self, batch_inds: np.ndarray, env: Any = None) -> MaskableRolloutBufferSamples:
        data = (
            self.actions[batch_inds],
            self.values[batch_inds].flatten(),
            self.log_probs[batch_inds].flatten(),
            self.advantages[batch_inds].flatten(),
            self.returns[batch_inds].flatten(),
            self.action_masks[batch_inds].reshape(-1, self.mask_dims),
        )
        observations = torch.from_numpy(self.observations[batch_inds])  # a fresh copy already
        return MaskableRolloutBufferSamples(observations, *map(self.to_torch, data))


def policy_class(arch: str) -> type | str:
    """The SB3 policy for a network architecture name."""
    if arch not in ARCHITECTURES:
        raise ValueError(f"unknown network architecture {arch!r}; choose one of {ARCHITECTURES}")
    return StructuredPolicy if arch == "structured" else "MlpPolicy"


def card_set_of(config: PPOConfig) -> CardSet:
    """The run's card set: its --card-set file, or the standard one (CardFileError if bad)."""
    return load_card_set(config.card_set) if config.card_set else standard_card_set()


def env_options(config: PPOConfig) -> dict[str, Any]:
    """The game options of every environment of a run (training and evaluation alike)."""
    return {"card_set": config.card_set or None, **game_kwargs(config)}


def observation_layout(config: PPOConfig) -> dict[str, tuple[int, int, tuple[int, ...]]]:
    encoder = ObservationEncoder(card_set_of(config), config.grid_size)
    return {name: (f.start, f.start + f.size, f.shape) for name, f in encoder.fields.items()}


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
    """What `agents.policy.PolicyNet` needs to rebuild the actor, plus provenance."""
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
        "obs_size": int(model.observation_space.shape[0]),
        "action_size": int(model.action_space.n),
        **(extra or {}),
    }


def export_policy(model: Any, path: Path, config: dict[str, Any]) -> None:
    save_policy(model.policy.state_dict(), config, path)


def is_policy_path(name: str) -> bool:
    return name.endswith(".pt") or os.sep in name


def opponent_policies(names: Sequence[str], seed: int) -> list[Any]:
    """Agents for the opponent seats, from names or saved policy paths."""
    out = []
    for i, name in enumerate(names):
        if is_policy_path(name):
            out.append(PolicyAgent(name, seed=seed + i))
        else:
            out.append(make(name, seed=seed + i))
    return out


def check_agents(names: Sequence[str], option: str) -> None:
    """Build every named agent once, here, so a bad name or a corrupt policy file is refused
    before any worker starts (ValueError naming the option)."""
    for name in dict.fromkeys(names):
        try:
            opponent_policies([name], seed=0)
        except (ValueError, OSError) as exc:
            raise ValueError(f"{option}: {exc}") from exc


def seat_opponents(config: PPOConfig, num_players: int | None = None) -> list[str]:
    """One opponent per other seat: the list given, or its one agent repeated."""
    others = (num_players or config.num_players) - 1
    return (
        list(config.opponents)
        if len(config.opponents) == others
        else [config.opponents[0]] * others
    )


def make_env_fn(config: PPOConfig, rank: int) -> Callable[[], gym.Env]:
    """A picklable env factory for SB3 VecEnvs (one per worker); a worker process started by
    SubprocVecEnv ends when the process that built the factories does."""
    parent = os.getpid()

    def build() -> gym.Env:
        if os.getpid() != parent:
            die_with_parent(parent)
        seats = env_player_counts(config)[rank]
        env = FarlightSingleAgentEnv(
            num_players=seats,
            opponents=opponent_policies(
                seat_opponents(config, seats), config.seed * 1000 + rank * 10
            ),
            reward_mode=config.reward_mode,
            **env_options(config),
        )
        env.reset(seed=config.seed * 1000 + rank)
        return env

    return build


def probe_env(config: PPOConfig) -> FarlightSingleAgentEnv:
    """An env of the run's game options, unreset and without opponents: its spaces are every
    training env's (the observation covers the largest table whatever the seat count)."""
    return FarlightSingleAgentEnv(num_players=env_player_counts(config)[0], **env_options(config))


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
        seed=config.seed,
        device="cpu",
        verbose=0,
    )


def load_checkpoint(path: Path, env: Any, config: PPOConfig) -> Any:
    """The model of `config`, with the checkpoint's weights, optimiser and counters restored.
    Nothing in the file is unpickled: CheckpointError (a ValueError) names what is wrong."""
    return restore_checkpoint(build_model(config, env), path)


# ----------------------------------------------------------------------------- run files
def write_run_config(run_dir: Path, config: Any) -> None:
    atomic_write(run_dir / RUN_CONFIG, json.dumps(asdict(config), indent=1, sort_keys=True))


def read_run_config(run_dir: Path) -> dict[str, Any]:
    """The JSON object of a run's config (size-bounded; ValueError naming the file)."""
    path = run_dir / RUN_CONFIG
    if not path.is_file():
        raise FileNotFoundError(f"{run_dir}: no {RUN_CONFIG}; not a training run directory")
    try:
        data = json.loads(read_bounded(path, MAX_RUN_CONFIG_BYTES))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise ValueError(f"{path}: corrupt run config ({exc})") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{path}: run config must be a JSON object")
    return data


def stored_config(run_dir: Path, cls: type) -> Any:
    """The run's stored config as `cls`, every field type- and range-checked; a run of
    another kind is refused by name."""
    data = read_run_config(run_dir)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(
            f"{run_dir / RUN_CONFIG}: fields {unknown} do not belong to a {cls.__name__} run "
            "(resume it with the command that started it)"
        )
    try:
        return msgspec.convert(data, cls)
    except msgspec.ValidationError as exc:
        raise ValueError(f"{run_dir / RUN_CONFIG}: {exc}") from exc


def trim_log(path: Path, last_step: int) -> None:
    """Drop the rows of progress.csv logged after `last_step` (by a run killed after its
    last checkpoint), and a torn last line, so a resumed run's log has no stale steps."""
    if not path.is_file():
        return
    with path.open(newline="") as fh:
        lines = fh.read().splitlines(keepends=True)
    if not lines:
        return
    header = next(csv.reader([lines[0]]))
    column = header.index(STEP_COLUMN) if STEP_COLUMN in header else None
    kept = [lines[0] if lines[0].endswith("\n") else lines[0] + "\n"]
    for line in lines[1:]:
        if not line.endswith("\n"):
            continue  # torn by the kill
        row = next(csv.reader([line]), [])
        try:
            step = float(row[column]) if column is not None else None
        except (IndexError, ValueError):
            step = None
        if step is not None and step <= last_step:
            kept.append(line)
    if kept != lines:
        atomic_write(path, "".join(kept))


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


class ResumedTensorBoard(TensorBoardOutputFormat):
    """SB3's TensorBoard log, but a resumed run hides the events a killed run logged after its
    last checkpoint (TensorBoard's purge step), as `trim_log` does for the CSV."""

    def __init__(self, folder: str, purge_step: int | None) -> None:
        from torch.utils.tensorboard import SummaryWriter

        self.writer = SummaryWriter(log_dir=folder, purge_step=purge_step)
        self._is_closed = False


def run_logger(run_dir: Path, resumed_at: int | None = None) -> Logger:
    """CSV (appending across resumes) and TensorBoard logs under run_dir/logs; on a resume
    from step `resumed_at`, CSV rows and TensorBoard events of later steps are dropped first."""
    folder = run_dir / "logs"
    folder.mkdir(parents=True, exist_ok=True)
    purge_step = None
    if resumed_at is not None:
        trim_log(folder / "progress.csv", resumed_at)
        purge_step = resumed_at + 1
    formats = [
        AppendingCSV(str(folder / "progress.csv")),
        ResumedTensorBoard(str(folder), purge_step),
    ]
    return Logger(str(folder), formats)


# ----------------------------------------------------------------------------- evaluation
def evaluate_against(
    policy: PolicyAgent | Any,
    opponent: str,
    games: int,
    num_players: int,
    seed: int,
    options: dict[str, Any] | None = None,
) -> float:
    """Win rate (shared victories count as a fraction) of `policy` in seat rotation, in
    games with the given env `options` (card set, grid size, round cap)."""
    from farlight_env.env.aec import raw_env

    wins = 0.0
    for g in range(games):
        seat = g % num_players
        env = raw_env(num_players=num_players, **(options or {}))
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


#: Parameter names of the critic; everything else is the actor (or features both share).
VALUE_PREFIXES = ("value_net.", "mlp_extractor.value_net.")


class ValueWarmup(BaseCallback):
    """Freezes all but the value head until `until` steps, then unfreezes: a warm-started actor
    is first judged by a critic that has learnt its values, not by a random one."""

    def __init__(self, until: int) -> None:
        super().__init__()
        self.until = until

    def _set_frozen(self, frozen: bool) -> None:
        for name, param in self.model.policy.named_parameters():
            if not name.startswith(VALUE_PREFIXES):
                param.requires_grad_(not frozen)

    def _on_rollout_end(self) -> None:
        # called after each rollout, before the update that learns from it
        self._set_frozen(self.model.num_timesteps < self.until)

    def _on_step(self) -> bool:
        return True

    def _on_training_end(self) -> None:
        self._set_frozen(False)


def close_env(env: Any) -> None:
    """Close the vectorised env, also when its workers already died (Ctrl-C reaches the whole
    process group): the interrupt, not a broken pipe, is what the user should hear about."""
    with contextlib.suppress(EOFError, BrokenPipeError, ConnectionResetError):
        env.close()


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
