"""Where the web server's memory grows under load: Python's traced heap against its RSS.

Runs `farlight serve` under tracemalloc with the load of scripts/web_load_memory.py, takes a
snapshot at 35% and at 97% of the run (SIGUSR1 to the server), and prints what Python's
allocations did between them (total and the largest differences) beside the server's RSS.
Traced memory that stays flat while RSS grows means the growth is not objects the server
keeps (docs/safety.md, "Memory under a long load").

    python scripts/web_heap_probe.py --minutes 5 --clients 30
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import web_load_memory as load  # noqa: E402

#: The server side: tracemalloc on, a snapshot written at each SIGUSR1.
SERVER = """
import itertools, signal, sys, tracemalloc
tracemalloc.start(6)
shots = itertools.count()
signal.signal(signal.SIGUSR1, lambda *_: tracemalloc.take_snapshot().dump(
    f"{sys.argv[1]}/snap{next(shots)}.bin"))
from farlight_cli.main import main
sys.exit(main(sys.argv[2:]))
"""


def run(minutes: float, clients: int, scratch: Path) -> list[int]:
    """Play the load, snapshot twice; the server's RSS at each snapshot."""
    data = scratch / "data"
    data.mkdir()
    load.long_record(data / "long.json")
    argv = ["serve", "--port", "0", "--data", str(data), "--trusted-proxy", "127.0.0.1"]
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(scratch), *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    rss: list[int] = []
    try:
        url = server.stdout.readline().split()[4]
        start = time.monotonic()

        def snapshots() -> None:
            for share in (0.35, 0.97):
                time.sleep(max(0.0, start + share * minutes * 60 - time.monotonic()))
                server.send_signal(signal.SIGUSR1)
                rss.append(load.rss(server.pid))

        shooter = threading.Thread(target=snapshots, daemon=True)
        shooter.start()
        tally, deadline = load.Tally(), start + minutes * 60
        players = [load.Client(url, data, k, tally, deadline) for k in range(clients)]
        with ThreadPoolExecutor(clients) as pool:
            list(pool.map(load.Client.run, players))
        shooter.join()
        time.sleep(3)  # the last snapshot is written
    finally:
        server.terminate()
        server.wait(30)
    return rss


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--clients", type=int, default=30)
    parser.add_argument("--top", type=int, default=5, help="largest differences to print")
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="farlight-heap-"))
    rss = run(args.minutes, args.clients, scratch)
    first, last = (tracemalloc.Snapshot.load(str(scratch / f"snap{i}.bin")) for i in (0, 1))
    traced = [sum(s.size for s in shot.statistics("filename")) for shot in (first, last)]
    mib = 2**20
    print(f"server RSS:     {rss[0] / mib:7.1f} -> {rss[1] / mib:7.1f} MiB")
    print(f"Python traced:  {traced[0] / mib:7.1f} -> {traced[1] / mib:7.1f} MiB")
    for stat in last.compare_to(first, "lineno")[: args.top]:
        where = stat.traceback[0]
        print(f"  {stat.size_diff / mib:+6.2f} MiB  {where.filename}:{where.lineno}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
