"""The SB3 side of the project's networks: the flat feature extractor, the structured policy
whose logits follow the action layout, and the env-major rollout buffer. Both policies take the
compact uint8 observations training stores (#49) and expand them before the network."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer, MaskableRolloutBufferSamples
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

from agents.farlight.policy import ARCHITECTURES, ObservationNet, StructuredNet
from agents.farlight.policy.cache import SHIP_IDS
from agents.farlight.policy.compact_input import CompactInput


class FarlightExtractor(BaseFeaturesExtractor):
    """SB3 wrapper of `agents.farlight.policy.ObservationNet` (attribute `net`, as PolicyNet
    expects),
    reading compact observations expanded (`CompactInput`)."""

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
        self.compact_input = CompactInput.for_layout(layout)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.net(self.compact_input(observations))


class PassThrough(BaseFeaturesExtractor):
    """The float32 observation (compact ones expanded): the structured network slices it."""

    def __init__(self, observation_space: gym.spaces.Box, layout: dict) -> None:
        compact_input = CompactInput.for_layout(layout)
        super().__init__(observation_space, features_dim=compact_input.size)
        self.compact_input = compact_input

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.compact_input(observations)


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
        kwargs["features_extractor_kwargs"] = {"layout": layout}
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        s = self.structure
        size = int(self.action_space.n)
        net = StructuredNet(s["layout"], size, s["embed"], s["ship_features"], s["hidden"], s["vf"])
        self.mlp_extractor = StructuredHeads(net, size, s["vf"])

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        self.action_net = torch.nn.Identity()
        options = dict(self.optimizer_kwargs)
        if self.optimizer_class is torch.optim.Adam:
            # one fused kernel for every parameter: the step 4-5x cheaper on a CPU (same
            # update up to float rounding); a resumed run keeps the flag it was saved with
            options.setdefault("fused", True)
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **options)

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
        masks = torch.as_tensor(action_masks, dtype=torch.bool, device=logits.device)
        log_probs = masked_log_probs(logits, masks.reshape(logits.shape))
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
        masks = torch.as_tensor(action_masks, dtype=torch.bool, device=logits.device)
        masks = masks.reshape(logits.shape)
        log_probs = masked_log_probs(logits, masks)
        log_prob = log_probs.gather(-1, actions.long().reshape(-1, 1)).squeeze(-1)
        p_log_p = log_probs * torch.softmax(log_probs, dim=-1)
        p_log_p = torch.where(masks, p_log_p, p_log_p.new_tensor(0.0))
        return self.value_net(latent_vf), log_prob, -p_log_p.sum(-1)


#: What sb3-contrib's MaskableCategorical puts in place of a masked-out logit.
MASKED_LOGIT = -1e8


def masked_log_probs(logits: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
    """Normalised log-probabilities of masked logits, as MaskableCategorical computes them
    (normalise, mask, normalise again), so sampling from them draws the same actions."""
    logits = logits - logits.logsumexp(dim=-1, keepdim=True)
    logits = torch.where(masks, logits, logits.new_tensor(MASKED_LOGIT))
    return logits - _MaskedLogSumExp.apply(logits, masks)


class _MaskedLogSumExp(torch.autograd.Function):
    """`x.logsumexp(-1, keepdim=True)` of masked logits (MASKED_LOGIT where `masks` is False),
    bit for bit: torch's CPU `exp` is about 10x slower on arguments that underflow, and every
    masked entry's `exp(MASKED_LOGIT - max)` does, forward and backward. Those terms are exactly
    0, so they are written as 0 instead of computed; the rest are ATen's own operations
    (max, exp of the difference, sum, log, add the max; backward: grad * exp(x - result))."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, masks: torch.Tensor) -> torch.Tensor:
        masks = masks | ~masks.any(dim=-1, keepdim=True)  # a row with none legal: every entry
        maxes = x.amax(dim=-1, keepdim=True)
        maxes = maxes.masked_fill(maxes.abs() == float("inf"), 0)
        terms = _exp_where(masks, x - maxes)
        result = terms.sum(dim=-1, keepdim=True).log_().add_(maxes)
        ctx.save_for_backward(x, masks, result)
        return result

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        x, masks, result = ctx.saved_tensors
        return grad * _exp_where(masks, x - result), None


def _exp_where(masks: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """exp(x) where `masks`, 0 elsewhere, without computing the masked exponentials."""
    zero = x.new_zeros(())
    return torch.where(masks, torch.where(masks, x, zero).exp_(), zero)


class EnvMajorRolloutBuffer(MaskableRolloutBuffer):
    """sb3-contrib's rollout buffer, its observations stored environment-major in one array
    kept across rollouts, so the flattening before the update is a view, not a copy of the
    whole rollout (67 MB at 2 x 512 steps), and a minibatch is copied once, not twice. The
    samples are the same."""

    _storage: np.ndarray | None = None

    def __init__(
        self,
        *args: Any,
        chunk: int = 1,
        ships: tuple[int, int, int] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self.chunk = chunk
        #: (first column, end column, seats) of the observations' ship planes, if known
        self.ships = ships
        self._ids: np.ndarray | None = None
        #: The first id the next rollout's grids take: ids are never reused within a run, so a
        #: cache keyed by them (the frozen ship CNN's, agents.farlight.policy.cache) stays exact.
        self._next_id = 0

    def reset(self) -> None:
        super().reset()
        shape = (self.n_envs, self.buffer_size, *self.obs_shape)
        if self._storage is None or self._storage.shape != shape:
            self._storage = np.zeros(shape, dtype=self.observation_space.dtype)
        self.observations = self._storage.swapaxes(0, 1)  # SB3's (step, env, ...) indexing
        self._ids = None

    def get(self, batch_size: int | None = None) -> Iterator[MaskableRolloutBufferSamples]:  # type: ignore[override]
        """Minibatches of shuffled runs of `chunk` consecutive steps of one environment (1:
        single steps, sb3-contrib's shuffle). A run's steps share most ship grids, which the
        network computes once per distinct grid of a minibatch (agents.farlight.policy.cache), so
        runs of 16 steps hold about half as many grids as 256 scattered steps. Each row's grids
        come named by ids found once per rollout (`_ship_ids`)."""
        if not self.generator_ready:
            self._ids = self._ship_ids()
        if self.chunk <= 1:
            yield from super().get(batch_size)
            return
        assert self.full, ""
        if not self.generator_ready:
            for name in _ROLLOUT_ARRAYS:
                self.__dict__[name] = self.swap_and_flatten(self.__dict__[name])
            self.generator_ready = True
        indices = chunked_order(self.n_envs, self.buffer_size, self.chunk)
        batch_size = len(indices) if batch_size is None else batch_size
        for start in range(0, len(indices), batch_size):
            yield self._get_samples(indices[start : start + batch_size])

    def _ship_ids(self) -> np.ndarray | None:
        """Each stored row's ship grids named by an id per seat, env-major (rows, seats), equal
        ids exactly for equal grids (their bytes): found once per rollout, where each of 4
        epochs would hash and compare every minibatch's grids again. A grid equal to its
        environment's previous step's (most are) takes that step's id without hashing. Ids
        continue from the previous rollout's, so none names two grids within a run."""
        if self.ships is None or self._storage is None:
            return None
        start, stop, seats = self.ships
        steps = self.buffer_size
        ids = np.empty((self.n_envs, steps, seats), dtype=np.int64)
        names: dict[bytes, int] = {}
        for env, rows in enumerate(self._storage):  # one environment at a time: bounded memory
            grids = rows[:, start:stop].reshape(steps, seats, -1)
            heads = np.ones((steps, seats), dtype=bool)
            heads[1:] = ~(grids[1:] == grids[:-1]).all(axis=2)
            for step, seat in zip(*np.nonzero(heads), strict=True):
                name = len(names) + self._next_id
                ids[env, step, seat] = names.setdefault(grids[step, seat].tobytes(), name)
            source = np.where(heads, np.arange(steps)[:, None], 0)
            np.maximum.accumulate(source, axis=0, out=source)  # each row's run head
            ids[env] = np.take_along_axis(ids[env], source, axis=0)
        self._next_id += len(names)
        return ids.reshape(-1, seats)

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
        # float32 here, so SB3's cast before the features extractor returns this very tensor,
        # ship ids and all (compact codes stay exact integers; the extractor expands them)
        observations = observations.to(self.device, torch.float32)
        if self._ids is not None:  # each row's ship grids, named
            setattr(observations, SHIP_IDS, torch.from_numpy(self._ids[batch_inds]).to(self.device))
        return MaskableRolloutBufferSamples(observations, *map(self.to_torch, data))


#: The rollout arrays sb3-contrib's `get` flattens before sampling (the same, in order).
_ROLLOUT_ARRAYS = (
    "observations",
    "actions",
    "values",
    "log_probs",
    "advantages",
    "returns",
    "action_masks",
)


def chunked_order(n_envs: int, steps: int, chunk: int) -> np.ndarray:
    """Every flattened (environment-major) rollout index once: runs of `chunk` consecutive
    steps of one environment (an environment's last run may be shorter), in an order drawn
    from numpy's global generator, which SB3 seeds with the run."""
    runs = [
        np.arange(env * steps + start, env * steps + min(start + chunk, steps))
        for env in range(n_envs)
        for start in range(0, steps, chunk)
    ]
    order = np.random.permutation(len(runs))
    return np.concatenate([runs[i] for i in order])


def policy_class(arch: str) -> type | str:
    """The SB3 policy for a network architecture name."""
    if arch not in ARCHITECTURES:
        raise ValueError(f"unknown network architecture {arch!r}; choose one of {ARCHITECTURES}")
    return StructuredPolicy if arch == "structured" else "MlpPolicy"
