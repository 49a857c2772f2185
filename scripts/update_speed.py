"""The PPO update on one rollout with the ship CNN run where ships reach and run dense, in turns.

    OMP_NUM_THREADS=1 python scripts/update_speed.py --turns 4

Collects one rollout of `farlight train ppo`'s stage-2 setup (structured network, 32 ship
features, warm-started from the shipped policy, margin reward against the heuristic, seed 1,
today's default environments: 16 games x 64 steps), then times `model.train()` on it (4
passes in minibatches of 256) from the same weights and optimiser state, alternating the
network's `use_reach` switch (`agents/farlight/policy/reach.py`) so that load from other jobs falls
on both alike. Thread CPU time; the table gives each setting's median and best turn.
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from first_rollout import collected_model  # noqa: E402  (this folder is sys.path[0])


def stage_two_model():  # noqa: ANN201 - a MaskablePPO, imported lazily
    """The stage-2 run's model holding one full rollout, before its first update."""
    return collected_model(
        learning_rate=0.0006,
        opponents=["heuristic"],
        reward_mode="margin",
        seed=1,
        arch="structured",
        ship_features=32,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=4, help="timed updates per setting")
    args = parser.parse_args()
    if args.turns < 1:
        sys.exit("update_speed: --turns must be at least 1")
    model = stage_two_model()
    nets = [m for m in model.policy.modules() if hasattr(m, "use_reach")]
    weights = copy.deepcopy(model.policy.state_dict())
    optimiser = copy.deepcopy(model.policy.optimizer.state_dict())

    def update(use_reach: bool) -> float:
        for net in nets:
            net.use_reach = use_reach
        model.policy.load_state_dict(weights)
        model.policy.optimizer.load_state_dict(optimiser)
        start = time.thread_time()
        model.train()
        return time.thread_time() - start

    update(True), update(False)  # warm-up: allocator, caches
    times: dict[bool, list[float]] = {True: [], False: []}
    for _ in range(args.turns):
        for use_reach in (False, True):
            times[use_reach].append(update(use_reach))
    steps = model.rollout_buffer.buffer_size * model.rollout_buffer.n_envs
    print(f"model.train() on one rollout of {steps} steps, {args.turns} turns, thread CPU time")
    print(f"{'ship CNN':<24}{'median s':>10}{'best s':>10}")
    for use_reach, name in ((False, "dense"), (True, "where ships reach")):
        print(
            f"{name:<24}{statistics.median(times[use_reach]):>10.3f}{min(times[use_reach]):>10.3f}"
        )
    ratio = statistics.median(times[False]) / statistics.median(times[True])
    print(f"dense / reach, medians: {ratio:.2f}x")


if __name__ == "__main__":
    main()
