"""Information-set Monte Carlo tree search (single-observer ISMCTS) over engine clones.

Each iteration draws a determinization: a copy of the game in which every fact the acting seat
cannot see (opponents' face-down tiles, the deck order, face-down awards, future dice) is
resampled consistently with what it has seen (`farlight_env.game.hidden.determinize`). The
iteration descends one shared tree keyed by action, choosing among the actions available in that
determinization by UCB1 with availability counts, adds one node, then plays the round out with
the heuristic policy and scores the position with a static evaluation. Candidate moves at each
node are the heuristic's best few, which keeps the 190-way bidding decisions searchable.
Nothing hidden is ever read: the search starts from `PlayerView.determinizer`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from agents.farlight.engine_agent import EngineAgent, needs_view
from agents.farlight.heuristic import HeuristicAgent, Planner
from agents.search import PlatformSearch, TreeSearch
from farlight_env.game import Action, FarlightGame, Phase
from farlight_env.game.facts import AWARD_POINTS
from farlight_env.game.hidden import PlayerView
from farlight_env.platform import SeatView


def evaluate(game: FarlightGame, policy: HeuristicAgent | None = None) -> list[float]:
    """Per-seat value in [0, 1]: projected score margin over the best rival, squashed."""
    n = game.num_players
    if game.is_over:
        winners = game.winners()
        return [1.0 / len(winners) if p in winners else 0.0 for p in range(n)]
    holders = [game.award_holders(award) for award in game.awards_up]
    projected = [_projection(game, p, policy, holders) for p in range(n)]
    values = []
    for p in range(n):
        rival = max(projected[q] for q in range(n) if q != p)
        values.append(1.0 / (1.0 + math.exp(-(projected[p] - rival) / 6.0)))
    return values


def _projection(
    game: FarlightGame,
    seat: int,
    policy: HeuristicAgent | None = None,
    holders: list[list[int]] | None = None,
) -> float:
    """Points now, token points, awards currently held and a share of reachable missions.

    `holders`: each face-up award's holders, if the caller already has them (every seat's
    projection reads the same ones).
    """
    score = game.points[seat] + game.token_points(seat)
    if holders is None:
        holders = [game.award_holders(award) for award in game.awards_up]
    for held_by in holders:
        if seat in held_by:
            score += AWARD_POINTS / len(held_by)
    plan = Planner(game, seat) if policy is None else policy.planner(game, seat)
    score += 0.6 * sum(weight for _, weight in plan.targets[:2])
    return score


class ISMCTSAgent(EngineAgent, TreeSearch):
    """ISMCTS with heuristic-pruned moves and heuristic round rollouts.

    Budget: `iterations` per decision (deterministic for a seed) or, if given, `seconds`.
    """

    name = "ismcts"

    def __init__(
        self,
        seed: int | None = None,
        iterations: int = 60,
        seconds: float | None = None,
        exploration: float = 0.7,
        candidates: int = 6,
    ) -> None:
        EngineAgent.__init__(self)
        TreeSearch.__init__(self, seed, iterations, seconds, exploration)
        self.candidates = candidates
        self.policy = HeuristicAgent(seed=None if seed is None else seed + 1)
        self._platform = PlatformSearch(seed, iterations, seconds, exploration)

    def reset(self) -> None:
        self.rng = np.random.default_rng(self.seed)
        self.policy.rng = np.random.default_rng(None if self.seed is None else self.seed + 1)
        self._platform.reset()

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        view = info.get("view")
        if isinstance(view, SeatView):  # another game, through the platform
            return self._platform.act(observation, action_mask, info)
        if not isinstance(view, PlayerView):
            raise ValueError(needs_view("ismcts plans on game states"))
        if int(action_mask.sum()) == 1:
            return int(np.flatnonzero(action_mask)[0])
        action = self.search(view)
        return self.codec_for(view).encode(action)

    def choose(self, game: FarlightGame, seat: int) -> Action:
        return self.search(PlayerView(game, seat))

    # ------------------------------------------------------------ search
    def search(self, view: PlayerView) -> Action:
        return self.run(view.seat, view.determinizer())

    def _apply(self, game: FarlightGame, move: Action) -> None:
        game.apply(move)

    def _candidates(self, game: FarlightGame, seat: int) -> list[Action]:
        """The heuristic's best few moves, best first (all moves for small decisions)."""
        legal = game.legal_actions()
        if game.phase is not Phase.BIDDING or len(legal) <= self.candidates:
            first = self.policy.choose(game, seat)
            return [first] + [a for a in legal if a != first][: max(self.candidates - 1, 0)]
        return self.policy.ranked_bids(game, seat, legal, self.candidates)

    def _rollout(self, game: FarlightGame) -> list[float]:
        """Play to the end of the current round with the heuristic, then evaluate.

        The round's reset is held: it draws parts and rolls station dice, which change no
        score, so it runs only when it ends the game (the evaluation is the same either way).
        """
        start_round = game.round
        game.hold_round_reset = True
        choose = self.policy.choose
        while not game.is_over and game.round == start_round:
            seat = game.current_player
            if seat is None:  # the round is over, its reset held
                break
            game.apply(choose(game, seat))
        if game.round_reset_held and game.reset_ends_game():
            game.release_round_reset()
        return evaluate(game, self.policy)
