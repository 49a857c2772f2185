"""What one open replay holds: the replay figures of docs/safety.md.

    python scripts/web_replay_memory.py

Builds the longest game a replay takes (5 players, the largest grid, 10,000 actions, always the
last legal action so that it goes on), opens it as the server does (`farlight_web.replays`)
and shows a few steps, then prints what Python holds for it (tracemalloc) and the peak while
it was opened, with the time taken.
"""

from __future__ import annotations

import gc
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from farlight_env.game import FarlightGame  # noqa: E402
from farlight_env.game.facts import MAX_GRID_SIZE  # noqa: E402
from farlight_env.records.record import build_record  # noqa: E402
from farlight_web.replays import MAX_REPLAY_STEPS, REPLAY_BYTES_BOUND, Replay  # noqa: E402


def main() -> None:
    config = {"num_players": 5, "grid_size": MAX_GRID_SIZE, "max_rounds": 10_000}
    game = FarlightGame(seed=1, **config)
    while not game.is_over and len(game.history) < MAX_REPLAY_STEPS:
        game.apply(game.legal_actions()[-1])
    record = build_record(game, ["random"] * 5, 1, config, finished=game.is_over)
    del game
    gc.collect()
    tracemalloc.start()
    start = time.perf_counter()
    replay = Replay(record, "longest")
    opened = time.perf_counter() - start
    steps = (replay.steps, replay.steps // 2, 1, replay.steps - 1)
    start = time.perf_counter()
    for step in steps:
        replay.at(step, 0)
    shown = (time.perf_counter() - start) / len(steps)
    held, peak = tracemalloc.get_traced_memory()
    mib = 2**20
    print(
        f"{replay.steps} steps, {len(replay.checkpoints)} checkpoints every {replay.interval}: "
        f"holds {held / mib:.1f} MiB (peak {peak / mib:.1f} MiB; bound "
        f"{REPLAY_BYTES_BOUND / mib:.0f} MiB); opened in {opened:.1f} s, a step in "
        f"{shown * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
