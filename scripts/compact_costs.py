"""What v1's compact observation changes, side by side in one run: env steps per second of
masked random play (farlight_v0's float32 observation against farlight_v1's uint8 one), and
the memory of a 20,000-step SB3 replay buffer of each observation space.

    python scripts/compact_costs.py --players 4 --seconds 5 --seed 0
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np


def env_steps_per_second(make: Any, seconds: float, seed: int) -> float:
    """Random legal play through `make()`, observation and mask read at every step."""
    env = make()
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            if all(env.terminations.values()) or all(env.truncations.values()):
                env.reset(seed=int(rng.integers(2**31)))
                continue
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
        steps += 1
    return steps / (time.perf_counter() - start)


def replay_buffer_bytes(observation_space: Any, action_space: Any, size: int = 20_000) -> int:
    """Bytes of SB3's ReplayBuffer arrays (observations and next observations included)."""
    from stable_baselines3.common.buffers import ReplayBuffer

    buffer = ReplayBuffer(size, observation_space, action_space, device="cpu")
    arrays = [buffer.observations, buffer.next_observations, buffer.actions, buffer.rewards]
    return sum(a.nbytes for a in arrays)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=5.0, help="of play per env, per round")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds per env")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    from farlight_env import farlight_v0, farlight_v1

    makers = {
        "farlight_v0 (float32)": lambda: farlight_v0.env(num_players=args.players),
        "farlight_v1 (uint8)": lambda: farlight_v1.env(num_players=args.players),
    }
    rates: dict[str, list[float]] = {name: [] for name in makers}
    for _ in range(args.rounds):  # alternate, so both see the same machine
        for name, make in makers.items():
            rates[name].append(env_steps_per_second(make, args.seconds, args.seed))
    for name, make in makers.items():
        env = make()
        space = env.observation_space("player_0")["observation"]
        buffer = replay_buffer_bytes(space, env.action_space("player_0"))
        size = space.dtype.itemsize * space.shape[0]
        print(
            f"{name:22} {space.shape[0]:>6} x {space.dtype}: {size:>6} bytes/obs, "
            f"env {max(rates[name]):7.0f} steps/s, "
            f"20,000-step replay buffer {buffer / 2**20:7.1f} MiB"
        )
    v0, v1 = (max(r) for r in rates.values())
    print(f"env steps/s v1 / v0: {v1 / v0:.2f}")


if __name__ == "__main__":
    main()
