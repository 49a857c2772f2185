"""`GamePolicyAgent`: plays a game policy file (agents/game_policy/file.py) of a game other
than Farlight: the network's most probable legal action (or a sample)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.game_policy.file import load_game_policy
from agents.torch_threads import library_default


class GamePolicyAgent:
    """A trained MLP for one declared game. It refuses (ValueError, one line) to play another
    game, or observations and masks of sizes other than those it was trained on, rather than
    read a vector that means something else."""

    needs_observation = True

    def __init__(
        self,
        path: str | Path,
        seed: int | None = None,
        deterministic: bool = True,
        device: str = "cpu",
        shared: bool = False,
    ) -> None:
        del device, shared  # a small MLP: always on the CPU, one copy per agent
        library_default()  # one torch thread unless chosen (agents/torch_threads.py)
        self.path = Path(path)
        self.net, self.config = load_game_policy(self.path)
        self.game: str = self.config["game"]
        self.name = str(self.config.get("name") or self.path.stem)
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """Nothing is carried between games."""

    def check_game(self, game: str, num_players: int | None = None) -> None:
        """Refuse a game (or player count) this policy was not trained for."""
        if game != self.game:
            raise ValueError(f"{self.path}: a policy for {self.game}, it cannot play {game}")
        counts = self.config["player_counts"]
        if num_players is not None and num_players not in counts:
            raise ValueError(
                f"{self.path}: a policy for {self.game} with {_counts(counts)} players, "
                f"not {num_players}"
            )

    def _checked(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The observation as float32, once both sizes are the file's (ValueError if not)."""
        vector = np.asarray(observation, dtype=np.float32).reshape(-1)
        for what, got, want in (
            ("observation", vector.size, self.config["obs_size"]),
            ("action mask", np.asarray(action_mask).size, self.config["action_size"]),
        ):
            if got != want:
                raise ValueError(
                    f"{self.path}: a policy for {self.game} takes an {what} of {want}, got "
                    f"{got}: not the game (or player count) it was trained for"
                )
        return vector

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        vector = self._checked(observation, action_mask)
        legal = np.flatnonzero(np.asarray(action_mask).reshape(-1))
        if legal.size == 0:
            raise ValueError("no legal action to choose from")
        with torch.no_grad():
            logits = self.net(torch.from_numpy(vector)).numpy().astype(np.float64)[legal]
        if self.deterministic:
            return int(legal[int(np.argmax(logits))])
        weights = np.exp(logits - logits.max())
        return int(self.rng.choice(legal, p=weights / weights.sum()))


def _counts(counts: list[int]) -> str:
    return ", ".join(map(str, counts))
