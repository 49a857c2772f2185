"""`PolicyAgent`: plays a saved policy, the most probable legal action (or a sample)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.farlight.policy.file import SHIPPED_POLICY, load_policy, shared_policy
from agents.farlight.subgame import decision_of
from agents.torch_device import resolve_device
from farlight_env.encode.compact import CompactCodec
from farlight_env.env.subgame import LearnerDecisions


def autopilot_agent(name: str, seed: int | None) -> Any:
    """The registered agent a sub-game policy file names as its autopilot (ValueError for a
    name that is not one, or one that is itself a sub-game policy)."""
    from agents.registry import is_plain_agent, make

    if not is_plain_agent(name):
        raise ValueError(f"a policy's autopilot must be a plain agent name, got {name!r}")
    return make(name, seed=seed)


class PolicyAgent:
    """Plays a saved policy: the most probable legal action (or a sample, if stochastic).

    Takes the env's float32 observations or their compact uint8 form (#49), which it expands
    exactly (the file's layout says how) before the network: the same decisions either way.

    `device` (agents/torch_device.py) is where the network runs: the CPU by default, since one
    position at a time is faster there than a round trip to a GPU. `shared=True` plays a
    network this process lends to every shared agent of the same file (`shared_policy`, on the
    CPU): many envs' opponents then hold one copy, which none of them may change."""

    def __init__(
        self,
        path: str | Path = SHIPPED_POLICY,
        seed: int | None = None,
        deterministic: bool = True,
        device: str = "cpu",
        shared: bool = False,
    ) -> None:
        self.path = Path(path)
        self.device = resolve_device(device)
        if shared and self.device.type == "cpu":
            self.net, self.config = shared_policy(self.path)
        else:
            self.net, self.config = load_policy(self.path)
            self.net.to(self.device)
        self.name = str(self.config.get("name", self.path.stem))
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)
        #: The kinds the file's policy was trained on, read from the file once.
        self.decisions = LearnerDecisions.parse(self.config.get("learner_decisions", "all"))
        self.kinds = self.decisions.kinds
        #: A sub-game policy's autopilot, which plays the decisions it was not trained on.
        self.autopilot: Any = None
        self._compact: CompactCodec | None = None  # built at the first compact observation
        if not self.decisions.full:
            self.autopilot = autopilot_agent(str(self.config.get("autopilot")), seed)

    def reset(self) -> None:
        """Stateless between games (its autopilot is reset)."""
        if self.autopilot is not None:
            self.autopilot.reset()

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        if self.autopilot is not None and not self.decisions.covers(decision_of(observation, info)):
            return self.autopilot.act(observation, action_mask, info)
        logits = self.logits(observation, action_mask)
        if self.deterministic:
            return int(np.argmax(logits))
        probs = np.exp(logits - logits.max())
        probs /= probs.sum()
        return int(self.rng.choice(len(probs), p=probs))

    def logits(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The network's logits for one position, illegal actions at -inf (float64)."""
        observation = self._floats(observation)
        self._check_shapes(len(observation), len(action_mask))
        with torch.no_grad():
            logits = self.net(self._tensor(observation)[None])[0]
        logits = logits.cpu().numpy().astype(np.float64)
        logits[np.asarray(action_mask) == 0] = -np.inf
        return logits

    def best_moves(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The favourite legal action of each row, in one network call (search play-outs)."""
        observations = self._floats(observations)
        self._check_shapes(observations.shape[1], action_masks.shape[1])
        with torch.no_grad():
            logits = self.net(self._tensor(observations)).cpu().numpy()
        return np.where(action_masks != 0, logits, -np.inf).argmax(axis=1)

    def _floats(self, observations: np.ndarray) -> np.ndarray:
        """The float32 observations the network was trained on; compact ones expanded."""
        observations = np.asarray(observations)
        if observations.dtype != np.uint8:
            return observations
        if self._compact is None:
            try:
                self._compact = CompactCodec.for_layout(self.config["layout"])
            except ValueError as exc:
                raise ValueError(
                    f"policy {self.path.name} cannot expand compact observations: {exc}"
                ) from exc
        return self._compact.expand(observations)

    def _tensor(self, observations: np.ndarray) -> torch.Tensor:
        return torch.as_tensor(observations, dtype=torch.float32, device=self.device)

    def _check_shapes(self, observation_size: int, actions: int) -> None:
        size = self.config["action_size"]
        if actions != size or observation_size != self.config["obs_size"]:
            raise ValueError(
                f"policy {self.path.name} expects observations of {self.config['obs_size']} and "
                f"{size} actions; got {observation_size} and {actions} (another card "
                "set or grid size?)"
            )
