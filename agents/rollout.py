"""Policy rollouts: one step of policy improvement on top of a saved policy, at decision time.

Where the policy is unsure (its favourite move below `confidence`), each of its few most
probable moves is tried in `determinizations` copies of the game that agree with everything the
seat has seen (`PlayerView.determinizer`: opponents' tiles, deck order, face-down awards and
future dice resampled) and played to the end by the same policy in every seat. The move with
the most wins is played (then the larger mean margin; then the policy's own order). Within one
copy every candidate meets the same dice, so the comparison is between moves, not luck. The
search never reads a hidden fact, and it models opponents as itself, not as any agent it meets.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.policy import SHIPPED_POLICY, load_policy
from farlight_env.encode.codec import ActionCodec
from farlight_env.encode.observation import ObservationEncoder
from farlight_env.game import FarlightGame
from farlight_env.game.hidden import PlayerView

#: Per move tried: a win counts 1, and a point of final margin this much, so margin only
#: breaks ties between moves with equal wins (a game's margin stays under 1,000 points).
MARGIN_WEIGHT = 1e-3


class RolloutAgent:
    """A saved policy improved by rollouts of itself where it hesitates (default: the shipped)."""

    name = "rollout"

    def __init__(
        self,
        path: str | Path = SHIPPED_POLICY,
        seed: int | None = None,
        candidates: int = 3,
        determinizations: int = 4,
        confidence: float = 0.9,
        floor: float = 0.02,
    ) -> None:
        if candidates < 1 or determinizations < 1:
            raise ValueError(
                f"candidates and determinizations must be >= 1, got {candidates} and "
                f"{determinizations}"
            )
        if not 0.0 < confidence <= 1.0 or not 0.0 <= floor < 1.0:
            raise ValueError(
                f"confidence must be in (0, 1] and floor in [0, 1), got {confidence}, {floor}"
            )
        self.path = Path(path)
        self.net, self.config = load_policy(self.path)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.candidates = candidates
        self.determinizations = determinizations
        self.confidence = confidence
        self.floor = floor
        self._tools: dict[tuple[int, int], tuple[ActionCodec, ObservationEncoder]] = {}

    def reset(self) -> None:
        self.rng = np.random.default_rng(self.seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        if len(action_mask) != self.config["action_size"]:
            raise ValueError(
                f"policy {self.path.name} expects {self.config['action_size']} actions, got "
                f"{len(action_mask)} (another card set or grid size?)"
            )
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        probs = self._probabilities(observation, action_mask)
        moves = self._moves_worth_trying(probs)
        if len(moves) == 1:
            return moves[0]
        view = info.get("view")
        if not isinstance(view, PlayerView):
            raise ValueError("rollout plays games out: pass info['view'] (a PlayerView)")
        return self._best_by_rollouts(view, moves)

    # ------------------------------------------------------------ the policy
    def _probabilities(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            vector = torch.as_tensor(np.asarray(observation, dtype=np.float32).copy())
            logits = self.net(vector[None])[0].numpy().astype(np.float64)
        logits[np.asarray(action_mask) == 0] = -np.inf
        probs = np.exp(logits - logits.max())
        return probs / probs.sum()

    def _moves_worth_trying(self, probs: np.ndarray) -> list[int]:
        """The policy's favourite alone when it is sure; else its few likeliest, best first."""
        order = np.argsort(-probs, kind="stable")
        if probs[order[0]] >= self.confidence:
            return [int(order[0])]
        return [int(i) for i in order[: self.candidates] if probs[i] >= self.floor] or [
            int(order[0])
        ]

    def _policy_move(
        self, game: FarlightGame, seat: int, codec: ActionCodec, encoder: ObservationEncoder
    ) -> int:
        mask = codec.mask(game)
        return int(np.argmax(self._probabilities(encoder.encode(game, seat), mask)))

    # ------------------------------------------------------------ rollouts
    def _best_by_rollouts(self, view: PlayerView, moves: list[int]) -> int:
        codec, encoder = self._tools_for(view)
        draw = view.determinizer()
        totals = np.zeros(len(moves))
        for _ in range(self.determinizations):
            copy = draw(self.rng)
            dice = int(self.rng.integers(2**63 - 1))
            for k, move in enumerate(moves):
                game = copy.clone(rng=np.random.default_rng(dice))
                game.apply(codec.decode(move, game))
                totals[k] += self._play_out(game, view.seat, codec, encoder)
        return moves[int(np.argmax(totals))]  # the first of equals: the policy's order

    def _play_out(
        self, game: FarlightGame, seat: int, codec: ActionCodec, encoder: ObservationEncoder
    ) -> float:
        while not game.is_over:
            player = game.current_player
            assert player is not None
            game.apply(codec.decode(self._policy_move(game, player, codec, encoder), game))
        winners, scores = game.winners(), game.scores()
        won = 1.0 / len(winners) if seat in winners else 0.0
        margin = scores[seat] - max(s for p, s in enumerate(scores) if p != seat)
        return won + MARGIN_WEIGHT * margin

    def _tools_for(self, view: PlayerView) -> tuple[ActionCodec, ObservationEncoder]:
        key = (id(view.cards), view.grid_size)
        if key not in self._tools:
            self._tools[key] = (
                ActionCodec(view.cards, view.grid_size),
                ObservationEncoder(view.cards, view.grid_size),
            )
        return self._tools[key]
