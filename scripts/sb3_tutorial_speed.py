"""PettingZoo's SB3 action-mask recipe, on farlight_v1 and connect_four_v3 side by side.

The recipe of PettingZoo's tutorial for MaskablePPO (sb3-contrib) on a turn-based classic game:
one wrapper turns the AEC env into a Gymnasium-style env in which one model plays every seat,
and `ActionMasker` hands it the acting seat's mask. Written here in this project's own words,
so the test suite runs it against the real packages (tests/test_library_examples.py) and this
script measures it: learner steps per second on each game in one run, and their ratio.

It also measures the learner alone at each game's spaces: a `Replayed` env that plays back
steps recorded from the real game (observations, masks, episode ends) at almost no cost, so
what remains is MaskablePPO's own work on those spaces, the most any env with them can reach.

    python scripts/sb3_tutorial_speed.py --steps 4096 --players 4 --seed 0
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import gymnasium as gym
import numpy as np
from pettingzoo.utils import BaseWrapper


class OneModelEverySeat(BaseWrapper, gym.Env):
    """An AEC env seen as one Gymnasium-style env: each step is the acting seat's move, the
    reward the acting seat's, as the tutorial's wrapper does. (The tutorial pins Gymnasium
    0.29; under 1.x, sb3-contrib's `ActionMasker` wants a `gymnasium.Env`, hence the base.)"""

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        super().reset(seed, options)
        first = self.possible_agents[0]
        self.observation_space = super().observation_space(first)["observation"]
        self.action_space = super().action_space(first)
        return self.observe(self.agent_selection), {}

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict]:
        acting = self.agent_selection
        super().step(action)
        return (
            self.observe(self.agent_selection),
            float(self._cumulative_rewards[acting]),
            self.terminations[acting],
            self.truncations[acting],
            self.infos[acting],
        )

    def observe(self, agent: str) -> np.ndarray:
        return super().observe(agent)["observation"]

    def action_mask(self) -> np.ndarray:
        return super().observe(self.agent_selection)["action_mask"]


class Replayed(gym.Env):
    """Steps recorded from a wrapped game, played back in a loop: the game's spaces, its
    observations, masks and episode ends, at the cost of an index."""

    def __init__(self, game: OneModelEverySeat, steps: int, seed: int) -> None:
        rng = np.random.default_rng(seed)
        observation = game.reset(seed=seed)[0]
        self.observation_space, self.action_space = game.observation_space, game.action_space
        self.tape: list[tuple[np.ndarray, np.ndarray, bool]] = []
        while len(self.tape) < steps:
            mask = game.action_mask()
            self.tape.append((observation, mask, False))
            observation, _, terminated, truncated, _ = game.step(
                int(rng.choice(np.flatnonzero(mask)))
            )
            if terminated or truncated:
                self.tape[-1] = (self.tape[-1][0], mask, True)
                observation = game.reset()[0]
        self.at = 0

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[Any, dict]:
        super().reset(seed=seed)
        return self.tape[self.at][0], {}

    def step(self, action: int) -> tuple[Any, float, bool, bool, dict]:
        ended = self.tape[self.at][2]
        self.at = (self.at + 1) % len(self.tape)
        return self.tape[self.at][0], 0.0, ended, False, {}

    def action_mask(self) -> np.ndarray:
        return self.tape[self.at][1]


def masked_learner(env: gym.Env, seed: int, n_steps: int = 2048) -> Any:
    """MaskablePPO on a wrapped env, as the tutorial builds it (its defaults)."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from sb3_contrib.common.wrappers import ActionMasker

    env.reset(seed=seed)
    env = ActionMasker(env, lambda e: e.action_mask())
    return MaskablePPO(MaskableActorCriticPolicy, env, n_steps=n_steps, seed=seed, verbose=0)


def steps_per_second(env: gym.Env, steps: int, seed: int) -> float:
    model = masked_learner(env, seed)
    start = time.perf_counter()
    model.learn(total_timesteps=steps)
    return model.num_timesteps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--steps", type=int, default=4096, help="learner steps per game (2 rollouts of 2,048)"
    )
    parser.add_argument("--players", type=int, default=4, help="Farlight seats")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tape", type=int, default=2048, help="steps recorded for the replay")
    args = parser.parse_args()
    from pettingzoo.classic import connect_four_v3

    from farlight_env import farlight_v1

    games = {
        f"farlight_v1 ({args.players} players)": lambda: farlight_v1.env(num_players=args.players),
        "connect_four_v3": connect_four_v3.env,
    }
    rates: dict[str, tuple[float, float]] = {}
    for name, make in games.items():
        real = steps_per_second(OneModelEverySeat(make()), args.steps, args.seed)
        tape = Replayed(OneModelEverySeat(make()), args.tape, args.seed)
        rates[name] = (real, steps_per_second(tape, args.steps, args.seed))
    width = max(map(len, rates))
    print(f"{'':{width}}  learner steps/s   learner alone at its spaces")
    for name, (real, alone) in rates.items():
        print(f"{name:{width}}  {real:15.1f}   {alone:27.1f}")
    (farlight, farlight_alone), (connect_four, connect_four_alone) = rates.values()
    print(f"ratio farlight_v1 / connect_four_v3: {farlight / connect_four:.2f}")
    print(f"farlight_v1 learner alone / connect_four_v3: {farlight_alone / connect_four:.2f}")


if __name__ == "__main__":
    main()
