"""Single-observer information-set MCTS, written once for every game (#50).

Each iteration draws a determinization (a full state consistent with what the searching seat
knows), descends one tree shared by all determinizations, keyed by move, by UCB1 with
availability counts (a move is counted as available each time a determinization offers it),
adds one node, plays out and backs each seat's value up. `TreeSearch` is the loop; a game's
search says what its moves, play-outs and values are. `PlatformSearch` plays any declared
game through the `State` protocol: every legal action a candidate, a uniform random play-out
to the end, the winners' share as the value. Farlight's `ISMCTSAgent` is the same loop with
the heuristic's moves and round play-outs.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from farlight_env.platform import SeatView, State


@dataclass
class Node:
    """Statistics of one move sequence from the root (shared by all determinizations)."""

    player: int | None = None
    visits: int = 0
    total: float = 0.0
    available: int = 0
    children: dict[Any, Node] = field(default_factory=dict)


class TreeSearch:
    """The ISMCTS loop over a game's states; subclasses name the moves, play-outs and values.

    Budget: `iterations` per decision (deterministic for a seed) or, if given, `seconds`.
    """

    def __init__(
        self,
        seed: int | None = None,
        iterations: int = 60,
        seconds: float | None = None,
        exploration: float = 0.7,
    ) -> None:
        if iterations < 1:
            raise ValueError(f"iterations must be >= 1, got {iterations}")
        if seconds is not None and seconds <= 0:
            raise ValueError(f"seconds must be > 0, got {seconds}")
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.iterations = iterations
        self.seconds = seconds
        self.exploration = exploration

    # ------------------------------------------------------------ what a game says
    def _candidates(self, game: Any, seat: int) -> list[Hashable]:
        """The moves the tree considers for `seat` in `game`, best first."""
        raise NotImplementedError

    def _apply(self, game: Any, move: Hashable) -> None:
        raise NotImplementedError

    def _rollout(self, game: Any) -> list[float]:
        """Each seat's value in [0, 1] of `game` after a play-out (which may change it)."""
        raise NotImplementedError

    # ------------------------------------------------------------ the loop
    def run(self, seat: int, draw: Callable[[np.random.Generator], Any]) -> Hashable:
        """The most visited root move of `seat` after the budget's iterations, each on a
        determinization `draw(rng)`."""
        root = Node(player=seat)
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        done = 0
        while True:
            self._iterate(root, draw(self.rng))
            done += 1
            if deadline is None and done >= self.iterations:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
        best = max(root.children.items(), key=lambda kv: (kv[1].visits, kv[1].total))
        return best[0]

    def _iterate(self, root: Node, game: Any) -> None:
        path: list[tuple[Node, int]] = []
        node = root
        while not game.is_over:
            seat = game.current_player
            if seat is None:  # a game paused between turns (Farlight's held round reset)
                break
            moves = self._candidates(game, seat)
            children, untried = [], None
            for move in moves:  # one lookup per move: hashing moves is not free
                child = node.children.get(move)
                if child is None:
                    untried = move if untried is None else untried  # candidates best-first
                else:
                    child.available += 1
                    children.append((move, child))
            if untried is not None:
                child = node.children[untried] = Node(player=seat, available=1)
                self._apply(game, untried)
                path.append((child, seat))
                break
            move, node = self._select(children)
            self._apply(game, move)
            path.append((node, seat))
        values = self._rollout(game)
        for child, seat in path:
            child.visits += 1
            child.total += values[seat]

    def _select(self, children: list[tuple[Hashable, Node]]) -> tuple[Hashable, Node]:
        """The (move, child) with the best UCB1 score; the first of equals."""
        best, best_score = children[0], -math.inf
        for move, child in children:
            mean = child.total / child.visits if child.visits else 0.0
            bonus = self.exploration * math.sqrt(
                math.log(max(child.available, 1)) / max(child.visits, 1)
            )
            if mean + bonus > best_score:
                best, best_score = (move, child), mean + bonus
        return best


def shares(state: State) -> list[float]:
    """Each seat's value of a finished game: an equal share of 1 among the winners."""
    winners = state.winners()
    return [1.0 / len(winners) if s in winners else 0.0 for s in range(state.num_players)]


class PlatformSearch(TreeSearch):
    """ISMCTS for any declared game, on its `State` protocol: all legal actions, random
    play-outs to the end, the winners' shares. Plans on a `SeatView` (info["view"] of the
    platform's env), whose determinizations never hold a fact hidden from the seat."""

    name = "ismcts"
    needs_observation = False

    def reset(self) -> None:
        self.rng = np.random.default_rng(self.seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        view = info.get("view")
        if not isinstance(view, SeatView):
            raise ValueError("ismcts plans on game states: pass info['view'] (a SeatView)")
        legal = np.flatnonzero(action_mask)
        if len(legal) == 1:
            return int(legal[0])
        return int(self.run(view.seat, view.determinized))

    def _candidates(self, game: State, seat: int) -> list[int]:
        return game.legal_actions()

    def _apply(self, game: State, move: int) -> None:
        game.apply_action(move)

    def _rollout(self, game: State) -> list[float]:
        while not game.is_over:
            legal = game.legal_actions()
            game.apply_action(legal[int(self.rng.integers(len(legal)))])
        return shares(game)
