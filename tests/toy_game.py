"""A throw-away game declared to the platform (#50), to prove everything above the engines
serves any game: each seat holds a hidden card 0..5, then in turn stays (1) or folds (0); the
highest card among those who stayed wins (ties share; if all fold, all share)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import numpy as np

from farlight_env.platform import Benchmark, Game, GameError, IllegalMove, Option

CARDS = 6
FOLD, STAY = 0, 1


class DuelState:
    def __init__(self, cards: list[int], rng: np.random.Generator, choices: list[int]) -> None:
        self.cards, self.rng, self.choices = cards, rng, choices

    num_players = property(lambda self: len(self.cards))
    is_over = property(lambda self: len(self.choices) == len(self.cards))
    current_player = property(lambda self: None if self.is_over else len(self.choices))
    history = property(lambda self: list(self.choices))

    def legal_actions(self) -> list[int]:
        return [] if self.is_over else [FOLD, STAY]

    def legal_mask(self) -> np.ndarray:
        return np.array([0, 0] if self.is_over else [1, 1], dtype=np.int8)

    def apply_action(self, action: int) -> None:
        if action not in self.legal_actions():
            raise IllegalMove(f"{action!r} is not fold (0) or stay (1) now")
        self.choices.append(action)

    def clone(self) -> DuelState:
        rng = np.random.Generator(np.random.PCG64())
        rng.bit_generator.state = self.rng.bit_generator.state
        return DuelState(list(self.cards), rng, list(self.choices))

    def to_json(self) -> str:
        rng = self.rng.bit_generator.state
        return json.dumps({"cards": self.cards, "choices": self.choices, "rng": rng})

    def winners(self) -> list[int]:
        if not self.is_over:
            return []
        stayed = [s for s, c in enumerate(self.choices) if c == STAY] or list(
            range(len(self.cards))
        )
        best = max(self.cards[s] for s in stayed)
        return [s for s in stayed if self.cards[s] == best]

    def scores(self) -> list[float]:
        return [float(s in self.winners()) for s in range(self.num_players)]

    def observation(self, seat: int) -> np.ndarray:
        own = np.eye(CARDS, dtype=np.float32)[self.cards[seat]]
        said = np.zeros((self.num_players, 3), dtype=np.float32)  # not yet / folded / stayed
        said[np.arange(self.num_players), 0] = 1
        for s, choice in enumerate(self.choices):
            said[s] = [0, choice == FOLD, choice == STAY]
        return np.concatenate([own, said.ravel()])

    def view(self, seat: int) -> dict[str, Any]:
        return {"seat": seat, "card": self.cards[seat], "choices": list(self.choices)}

    def determinized(self, seat: int, rng: np.random.Generator) -> DuelState:
        cards = [c if s == seat else int(rng.integers(CARDS)) for s, c in enumerate(self.cards)]
        return DuelState(cards, rng, list(self.choices))

    def describe_action(self, action: int) -> str:
        return ("fold", "stay")[action]

    def render_text(self, seat: int | None = None) -> str:
        shown = [c if seat == s or self.is_over else "?" for s, c in enumerate(self.cards)]
        return f"cards {shown}, choices {self.choices}"


def new_state(num_players: int, seed: int | None, options: Mapping[str, Any]) -> DuelState:
    rng = np.random.default_rng(seed)
    return DuelState([int(c) for c in rng.integers(CARDS, size=num_players)], rng, [])


def load_state(text: str, options: Mapping[str, Any]) -> DuelState:
    try:
        data = json.loads(text)
        cards, choices = [int(c) for c in data["cards"]], [int(c) for c in data["choices"]]
        rng = np.random.Generator(np.random.PCG64())
        rng.bit_generator.state = data["rng"]
    except (ValueError, KeyError, TypeError) as exc:
        raise GameError(f"not a saved duel: {exc!r}") from None
    if not 2 <= len(cards) <= 4 or any(not 0 <= c < CARDS for c in cards):
        raise GameError("not a saved duel: cards out of range")
    if len(choices) > len(cards) or any(c not in (FOLD, STAY) for c in choices):
        raise GameError("not a saved duel: choices out of range")
    return DuelState(cards, rng, choices)


DUEL = Game(
    name="duel",
    version=1,
    title="Blind duel (a test's throw-away game)",
    min_players=2,
    max_players=4,
    options=(Option("stakes", 1, "a number nobody reads: options pass through checked", int),),
    new_state=new_state,
    load_state=load_state,
    action_size=lambda _players, _options: 2,
    observation_size=lambda players, _options: CARDS + 3 * players,
    decision_kinds=("stay_or_fold",),
    max_game_length=lambda players, _options: players,
    benchmark=Benchmark(
        protocol="duel-eval-v1",
        opponents=("random",),
        player_counts=(2, 3),
        games={"random": 6},
        quick_player_counts=(2,),
        base_seed=7_000,
    ),
)
