"""How many distinct ship grids a PPO minibatch holds, by how its rows are drawn.

    python scripts/minibatch_grids.py --chunks 1,8,16,32,64 --seed 1

Collects one rollout of `farlight train ppo`'s defaults (16 games in one process, 64 steps
each, the shipped policy against the heuristic) and draws minibatches of 256 rows from it the
way the learner does for each `--minibatch-chunk` (shuffled runs of that many consecutive steps
of one game; 1: single steps). The ship CNN runs once per distinct grid of a minibatch
(agents/farlight/policy/cache.py), so these counts are its work per update step. Grids are compared
by their bytes, exactly. It also says how much of each grid a ship covers: the CNN's two 3x3
layers see two cells around a cell, so beyond two cells of a ship every grid's map is the same,
and only the cells near ships carry work that differs from grid to grid. Last, how many of the
other observation columns (the flat layer's inputs) are non-zero somewhere in a minibatch of
single steps: the learner's flat layer reads only those (agents/farlight/policy/nets.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from first_rollout import collected_model  # noqa: E402  (this folder is sys.path[0])


def rollout_grids(seed: int) -> tuple[np.ndarray, np.ndarray, int, np.ndarray]:
    """Ids of each (env, step, seat) ship grid of one default rollout (equal ids, equal bytes),
    the footprints of its distinct grids, the cells of a grid, and which of each step's other
    observation columns are non-zero, (env * step, columns)."""
    from farlight_env import farlight_v0

    buffer = collected_model(opponents=["heuristic"], seed=seed).rollout_buffer
    where, (seats, *planes) = farlight_v0.env().unwrapped.observation_layout()["ships"]
    ships = buffer._storage[:, :, where]  # (env, step, seats * planes)
    envs, steps = ships.shape[:2]
    rows = ships.reshape(envs * steps * seats, -1)
    distinct = np.unique(rows, axis=0).reshape(-1, planes[0], planes[1], planes[2])
    ids: dict[bytes, int] = {}
    grids = np.array([ids.setdefault(row.tobytes(), len(ids)) for row in rows])
    others = np.delete(buffer._storage, np.arange(where.start, where.stop), axis=2)
    nonzero = (others != 0).reshape(envs * steps, -1)
    return grids.reshape(envs, steps, seats), footprints(distinct), planes[1] * planes[2], nonzero


def footprints(grids: np.ndarray) -> np.ndarray:
    """Per grid (n, channels, side, side): cells with anything on them, and cells within one
    and within two steps of those (king moves: a 3x3 layer's reach), as (n, 3) counts."""
    reach = grids.any(axis=1)
    counts = [reach.sum(axis=(1, 2))]
    for _ in range(2):
        padded = np.pad(reach, ((0, 0), (1, 1), (1, 1)))
        side = reach.shape[1]
        reach = np.zeros_like(reach)
        for dr in range(3):
            for dc in range(3):
                reach |= padded[:, dr : dr + side, dc : dc + side]
        counts.append(reach.sum(axis=(1, 2)))
    return np.stack(counts, axis=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", default="1,8,16,32,64", help="--minibatch-chunk values")
    parser.add_argument("--seed", type=int, default=1, help="seed of the run and the draws")
    parser.add_argument("--draws", type=int, default=20, help="shuffles of the rollout per chunk")
    args = parser.parse_args()
    try:
        chunks = [int(c) for c in args.chunks.split(",")]
    except ValueError:
        sys.exit("minibatch_grids: --chunks takes whole numbers, e.g. 1,16,64")
    if not chunks or min(chunks) < 1 or args.draws < 1:
        sys.exit("minibatch_grids: chunks and --draws must be at least 1")
    from training.farlight.sb3.policy import chunked_order

    grids, cover, cells, nonzero = rollout_grids(args.seed)
    envs, steps, seats = grids.shape
    flat = grids.reshape(envs * steps, seats)
    print(f"one rollout: {envs} games x {steps} steps, {len(np.unique(grids))} distinct grids")
    occupied, near, reach = cover.mean(axis=0)
    print(
        f"cells per distinct grid: {occupied:.1f} occupied, {near:.1f} within one of those, "
        f"{reach:.1f} within two (of {cells})"
    )
    print(f"{'chunk':>6} {'distinct grids per minibatch of 256':>38}")
    np.random.seed(args.seed)
    for chunk in chunks:
        counts = []
        for _ in range(args.draws):
            order = chunked_order(envs, steps, chunk)
            counts += [len(np.unique(flat[order[i : i + 256]])) for i in range(0, len(order), 256)]
        print(f"{chunk:>6} {np.mean(counts):>38.1f}")
    used = []
    for _ in range(args.draws):
        order = np.random.permutation(len(nonzero))
        used += [nonzero[order[i : i + 256]].any(axis=0).mean() for i in range(0, len(order), 256)]
    print(
        f"other columns non-zero in a row: {nonzero.mean():.1%}; in some row of a minibatch of "
        f"256 single steps: {np.mean(used):.1%} (of {nonzero.shape[1]})"
    )


if __name__ == "__main__":
    main()
