"""What open replays do to the web server's memory, in one process: open a batch of replays of
the longest game a replay takes, step through them, close them, and again (docs/safety.md).

    python scripts/web_replay_memory.py --replays 8 --cycles 3

Prints the process's RSS and its anonymous part after each opening and each closing (with a
collection and glibc's `malloc_trim`, as `farlight serve` trims every 30 s). Memory an opening
took is only partly handed back, but a second batch reuses what the first left: the level a
server keeps is the high-water mark of what was open at once, which the replay limits bound.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from web_load_memory import long_record  # noqa: E402

from farlight_env.records.record import load_record  # noqa: E402
from farlight_web.farlight.replays import Replay  # noqa: E402
from farlight_web.heap import trim  # noqa: E402


def memory() -> str:
    """This process's VmRSS and RssAnon, in MiB."""
    found = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "RssAnon"):
            found[name] = int(value.split()[0]) / 1024
    return f"RSS {found['VmRSS']:6.1f} MiB, anonymous {found['RssAnon']:6.1f} MiB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replays", type=int, default=8, help="replays open at once")
    parser.add_argument("--cycles", type=int, default=3, help="times to open and close them")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="farlight-replays-"))
    long_record(folder / "long.json")
    record = load_record(folder / "long.json")
    print(f"a record of {len(record['actions'])} actions; at the start: {memory()}")
    for cycle in range(1, args.cycles + 1):
        replays = [Replay(record, "long.json") for _ in range(args.replays)]
        for replay in replays:
            for step in range(0, replay.steps + 1, 997):
                replay.at(step, 0)
        print(f"cycle {cycle}: {args.replays} open:  {memory()}")
        del replays
        gc.collect()
        trim()
        print(f"cycle {cycle}: all closed: {memory()}")


if __name__ == "__main__":
    main()
