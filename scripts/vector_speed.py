"""Throughput of vectorised Farlight, side by side in one run: SuperSuit's AEC vectorizer
(in-process; it cannot run workers for Farlight), `farlight_env.vector` in-process, and
`farlight_env.vector` with one worker process per env, taking turns.

    python scripts/vector_speed.py --envs 8 --seconds 20 --seed 0

Every seat plays uniformly random legal actions in 2-player games. `games/s` (games finished
per second) is the figure to compare: SuperSuit hands every seat's decision to the caller,
the vector env only the learner seat's (the opponent plays inside the env), so `decisions/s`
(observations handed to the caller per second) counts different things.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import numpy as np

from farlight_env import farlight_v0
from farlight_env.measure.timing import cpu_model
from farlight_env.vector import make_vector_env, random_legal_actions

PLAYERS = 2


class Setup:
    """One vectorised env with a step function: (games finished, decisions handed out)."""

    def __init__(self, name: str, step: Callable[[], tuple[int, int]], close: Callable) -> None:
        self.name, self.step, self.close = name, step, close
        self.games = self.decisions = 0
        self.seconds = 0.0

    def run_for(self, seconds: float) -> None:
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            games, decisions = self.step()
            self.games += games
            self.decisions += decisions
        self.seconds += time.perf_counter() - start

    def row(self) -> str:
        games, decisions = self.games / self.seconds, self.decisions / self.seconds
        return f"| {self.name} | {games:.1f} | {decisions:,.0f} |"


def supersuit_in_process(envs: int, seed: int) -> Setup:
    """SuperSuit's vectorize_aec_env_v0 on farlight_v0.env: the caller plays every seat."""
    import supersuit as ss

    vec = ss.vectorize_aec_env_v0(farlight_v0.env(num_players=PLAYERS), num_envs=envs)
    vec.reset(seed=seed)
    rng = np.random.default_rng(seed)

    def step() -> tuple[int, int]:
        obs, _, _, _, _, _, passes, _ = vec.last()
        masks = np.stack([o["action_mask"] for o in obs])
        masks[~masks.any(axis=1), 0] = 1  # a finished game: its action is ignored
        vec.step(random_legal_actions(masks, rng))
        # vec.envs_dones: the games that ended and were reset in this step
        return int(vec.envs_dones.sum()), int(envs - passes.sum())

    return Setup("SuperSuit vectorize_aec_env_v0, in-process", step, lambda: None)


def farlight_vector(envs: int, seed: int, workers: bool) -> Setup:
    """farlight_env.vector.make_vector_env, in this process or one worker per env."""
    vec = make_vector_env(envs, workers=workers, num_players=PLAYERS)
    vec.reset(seed=seed)
    rng = np.random.default_rng(seed)

    def step() -> tuple[int, int]:
        _, _, ended, cut, _ = vec.step(random_legal_actions(vec.action_masks(), rng))
        return int((ended | cut).sum()), envs

    where = f"{envs} worker processes" if workers else "in-process"
    return Setup(f"farlight_env.vector, {where}", step, vec.close)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", type=int, default=8, help="games stepped together")
    parser.add_argument("--seconds", type=float, default=20.0, help="time per setup")
    parser.add_argument("--turns", type=int, default=10, help="turns each setup takes")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    setups = [
        supersuit_in_process(args.envs, args.seed),
        farlight_vector(args.envs, args.seed, workers=False),
        farlight_vector(args.envs, args.seed, workers=True),
    ]
    for _ in range(args.turns):  # turns, so changing load from other jobs falls on all alike
        for setup in setups:
            setup.run_for(args.seconds / args.turns)
    for setup in setups:
        setup.close()
    print(f"CPU: {cpu_model()}, {os.cpu_count()} cores")
    print(
        f"{args.envs} envs, {PLAYERS} players, random legal play, {args.seconds:g} s each "
        f"in {args.turns} turns"
    )
    print()
    print("| setup | games/s | decisions/s |")
    print("|---|---:|---:|")
    for setup in setups:
        print(setup.row())


if __name__ == "__main__":
    main()
