"""A saved policy improved by rollouts where it hesitates: one step of policy iteration.

How it plays. When the policy's favourite move has less than `confidence` probability, its
`candidates` most likely moves (those above 2%) are each played to the end of the game in
`worlds` sampled worlds: determinizations of everything the seat cannot see (opponents'
face-down tiles, the deck order, face-down awards, future dice), the same world and the same
dice for every candidate, so the comparison is paired. In each play-out the policy moves for
its own seat and, by default, for every other seat too (`opponents="self"`: the search assumes
nothing about who sits across the table); `opponents="heuristic"` plays the others with the
heuristic instead, the opponent model of ismcts's play-outs. The move with the most wins over the
worlds is played (score margin breaks ties, then the policy's own order); elsewhere the
policy's favourite. Nothing hidden is read: worlds come from
the seat's `PlayerView.determinizer`. The play-outs of one decision run in lockstep, so the
network evaluates one batch per step instead of one position at a time. `device="cuda"` runs
those batches on a GPU (default: the CPU; agents/torch_device.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from agents.farlight.engine_agent import needs_view
from agents.farlight.heuristic import HeuristicAgent
from agents.farlight.policy import SHIPPED_POLICY, PolicyAgent, set_one_at_a_time
from farlight_env.encode.codec import ActionCodec
from farlight_env.encode.observation import ObservationEncoder
from farlight_env.game import FarlightGame
from farlight_env.game.hidden import PlayerView

#: A play-out's value: 1 for a sole win (1/k for a shared one), plus this much per point of
#: margin over the best opponent, which only breaks ties between equal win counts.
MARGIN_WEIGHT = 1e-3
#: Bounds on the search settings, so a typo cannot ask for hours per decision.
MAX_CANDIDATES = 10
#: Moves the policy gives less than this are never tried: the search refines its favourites.
MIN_CANDIDATE_PROBABILITY = 0.02
MAX_WORLDS = 64
#: Who plays the other seats in the play-outs.
OPPONENT_MODELS = ("self", "heuristic")


class RolloutAgent:
    """The policy's favourite, or where it is unsure, the best of its top moves by play-outs."""

    name = "rollout"

    def __init__(
        self,
        path: str | Path = SHIPPED_POLICY,
        seed: int | None = None,
        candidates: int = 3,
        worlds: int = 4,
        confidence: float = 0.9,
        opponents: str = "self",
        device: str = "cpu",
    ) -> None:
        _check_int("candidates", candidates, 2, MAX_CANDIDATES)
        _check_int("worlds", worlds, 1, MAX_WORLDS)
        if not isinstance(confidence, (int, float)) or not 0.0 < confidence <= 1.0:
            raise ValueError(f"rollout confidence must be in (0, 1], got {confidence!r}")
        if opponents not in OPPONENT_MODELS:
            raise ValueError(
                f"rollout opponents must be one of {', '.join(OPPONENT_MODELS)}, got {opponents!r}"
            )
        self.policy = PolicyAgent(path, device=device)  # its play-outs' batches run there too
        set_one_at_a_time(self.policy.net, False)  # a network of its own: batch the play-outs
        self.candidates, self.worlds, self.confidence = candidates, worlds, float(confidence)
        self.opponents = opponents
        self.seed = seed
        self.reset()
        self._tools: dict[tuple[int, int], tuple[ActionCodec, ObservationEncoder]] = {}

    def reset(self) -> None:
        """Restart the seeded world draws and the opponent model, so a game replays exactly."""
        self.rng = np.random.default_rng(self.seed)
        #: Decisions since the last reset that were settled by play-outs.
        self.searches = 0
        self.opponent_model = (
            HeuristicAgent(seed=None if self.seed is None else self.seed + 1)
            if self.opponents == "heuristic"
            else None
        )

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        logits = self.policy.logits(observation, action_mask)
        probs = np.exp(logits - logits.max())
        probs /= probs.sum()
        order = np.argsort(-probs, kind="stable")
        if probs[order[0]] >= self.confidence:
            return int(order[0])
        top = order[: self.candidates]
        moves = [int(i) for i in top if probs[i] >= MIN_CANDIDATE_PROBABILITY]
        if len(moves) == 1:
            return moves[0]
        view = info.get("view")
        if not isinstance(view, PlayerView):
            raise ValueError(needs_view("rollout plays moves out on game states"))
        self.searches += 1
        return moves[int(np.argmax(self._totals(view, moves)))]

    def _totals(self, view: PlayerView, moves: list[int]) -> np.ndarray:
        """Each move's summed play-out values over the same sampled worlds."""
        codec, encoder = self._tools_for(view)
        draw = view.determinizer()
        games: list[FarlightGame] = []
        for _ in range(self.worlds):
            world = draw(self.rng)
            dice_seed = int(self.rng.integers(2**62))
            for move in moves:
                game = world.clone(rng=np.random.default_rng(dice_seed))
                game.apply(codec.decode(move, game))
                games.append(game)
        values = self._play_out(games, view.seat, codec, encoder)
        return values.reshape(self.worlds, len(moves)).sum(axis=0)

    def _play_out(
        self,
        games: list[FarlightGame],
        seat: int,
        codec: ActionCodec,
        encoder: ObservationEncoder,
    ) -> np.ndarray:
        """Play every game to its end in lockstep: the heuristic moves where it models a seat,
        and one batched network call per step makes every move the policy plays."""
        model = self.opponent_model  # None: the policy plays every seat
        live = list(range(len(games)))
        while live:
            waiting = []
            for i in live:
                game = games[i]
                while model is not None and not game.is_over and game.current_player != seat:
                    game.apply(model.choose(game, game.current_player))
                if not game.is_over:
                    waiting.append(i)
            if waiting:
                observations = np.stack(
                    [encoder.encode(games[i], games[i].current_player) for i in waiting]
                )
                masks = np.stack([codec.mask(games[i]) for i in waiting])
                for i, index in zip(
                    waiting, self.policy.best_moves(observations, masks), strict=True
                ):
                    games[i].apply(codec.decode(int(index), games[i]))
            live = [i for i in live if not games[i].is_over]
        return np.array([_value(game, seat) for game in games])

    def _tools_for(self, view: PlayerView) -> tuple[ActionCodec, ObservationEncoder]:
        key = (id(view.cards), view.grid_size)
        tools = self._tools.get(key)
        if tools is None:
            tools = (ActionCodec(view.cards, view.grid_size),
                     ObservationEncoder(view.cards, view.grid_size))  # fmt: skip
            self._tools[key] = tools
        return tools


def _value(game: FarlightGame, seat: int) -> float:
    """Win share at the end, plus a sliver of the margin over the best opponent."""
    winners, scores = game.winners(), game.scores()
    best_other = max(s for q, s in enumerate(scores) if q != seat)
    share = 1.0 / len(winners) if seat in winners else 0.0
    return share + MARGIN_WEIGHT * (scores[seat] - best_other)


def _check_int(field: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"rollout {field} must be an integer {low}..{high}, got {value!r}")
