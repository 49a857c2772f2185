"""Throughput of vectorised Farlight, side by side in one run: SuperSuit's AEC vectorizer
(in-process; it cannot run workers for Farlight), `farlight_env.vector` in-process, and
`farlight_env.vector` with one worker process per env.

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
from dataclasses import dataclass

import numpy as np

from farlight_env import compiled, farlight_v0
from farlight_env.tools.bench import cpu_model
from farlight_env.vector import make_vector_env, random_legal_actions

PLAYERS = 2


@dataclass(frozen=True)
class Rate:
    """What one setup did in its time."""

    setup: str
    games: int
    decisions: int
    seconds: float

    def row(self) -> str:
        games, decisions = self.games / self.seconds, self.decisions / self.seconds
        return f"| {self.setup} | {games:.1f} | {decisions:,.0f} |"


def supersuit_in_process(envs: int, seconds: float, seed: int) -> Rate:
    """SuperSuit's vectorize_aec_env_v0 on farlight_v0.env: the caller plays every seat."""
    import supersuit as ss

    vec = ss.vectorize_aec_env_v0(farlight_v0.env(num_players=PLAYERS), num_envs=envs)
    vec.reset(seed=seed)
    rng = np.random.default_rng(seed)
    games = decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        obs, _, _, _, _, _, passes, _ = vec.last()
        masks = np.stack([o["action_mask"] for o in obs])
        masks[~masks.any(axis=1), 0] = 1  # a finished game: its action is ignored
        vec.step(random_legal_actions(masks, rng))
        decisions += int(envs - passes.sum())
        games += int(vec.envs_dones.sum())  # games that ended and were reset in this step
    return Rate("SuperSuit vectorize_aec_env_v0, in-process", games, decisions, seconds)


def farlight_vector(workers: bool) -> Callable[[int, float, int], Rate]:
    """farlight_env.vector.make_vector_env, in this process or one worker per env."""

    def measure(envs: int, seconds: float, seed: int) -> Rate:
        vec = make_vector_env(envs, workers=workers, num_players=PLAYERS)
        vec.reset(seed=seed)
        rng = np.random.default_rng(seed)
        games = decisions = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            _, _, ended, cut, _ = vec.step(random_legal_actions(vec.action_masks(), rng))
            decisions += envs
            games += int((ended | cut).sum())
        vec.close()
        where = f"{envs} worker processes" if workers else "in-process"
        return Rate(f"farlight_env.vector, {where}", games, decisions, seconds)

    return measure


SETUPS = (supersuit_in_process, farlight_vector(False), farlight_vector(True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--envs", type=int, default=8, help="games stepped together")
    parser.add_argument("--seconds", type=float, default=20.0, help="time per setup")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rates = [setup(args.envs, args.seconds, args.seed) for setup in SETUPS]
    build = "pure Python" if compiled.pure_python_requested() else compiled.summary()
    print(f"CPU: {cpu_model()}, {os.cpu_count()} cores; engine: {build}")
    print(f"{args.envs} envs, {PLAYERS} players, random legal play, {args.seconds:g} s each")
    print()
    print("| setup | games/s | decisions/s |")
    print("|---|---:|---:|")
    for rate in rates:
        print(rate.row())


if __name__ == "__main__":
    main()
