"""Peak memory of one upload through the web app: the upload figures of docs/safety.md.

    python scripts/web_upload_memory.py            # every body below, 32 MiB each
    python scripts/web_upload_memory.py --mib 8 --only field

Each body is written to a temporary file, then a fresh Python process starts the app
(Starlette's test client, an empty --data), reads the body, resets its peak RSS, posts the
body to /api/replays/upload and reports the peak RSS (VmHWM) above the RSS before. Linux
(/proc); ru_maxrss would not do: a child process inherits its parent's peak.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RECORD_HEAD = (
    b'{"format":"farlight-record","version":1,"game_seed":0,"config":{},"players":[],"scores":[],'
)
ACTION = b'{"type":"RefitStop"}'
RESULTS_HEAD = b'{"format":"farlight-tournament","version":1,"games":['
MEASURE = r"""
import re, sys, tempfile, pathlib
from starlette.testclient import TestClient
from farlight_web.app import make_app
def status(field):
    text = pathlib.Path("/proc/self/status").read_text()
    return int(re.search(field + r":\s+(\d+) kB", text).group(1)) * 1024
body = pathlib.Path(sys.argv[1]).read_bytes()
client = TestClient(  # as the page is: on localhost, the body declared as JSON
    make_app(pathlib.Path(tempfile.mkdtemp()) / "d"),
    base_url="http://localhost",
    headers={"content-type": "application/json"},
)
client.get("/api/health")
try:  # the peak (VmHWM) back to the current size, so it measures only the upload
    pathlib.Path("/proc/self/clear_refs").write_text("5")
except OSError:
    pass
before = status("VmRSS")
url = "/api/replays/upload" + (sys.argv[2] if len(sys.argv) > 2 else "")
response = client.post(url, content=body)
print(response.status_code, status("VmHWM") - before, response.text[:70])
"""


def _fill(size: int, prefix: bytes, item: bytes, suffix: bytes) -> bytes:
    n = (size - len(prefix) - len(suffix)) // (len(item) + 1)
    return prefix + b",".join([item] * n) + suffix


def _results(size: int) -> bytes:
    """A real tournament's results.json, one 5-player game repeated up to `size` bytes."""
    from evaluation.tournament import run_tournament

    lineup = ["heuristic", "random", "heuristic", "random", "heuristic"]
    played = run_tournament(lineup, num_players=5, games=1, seed=3, progress=False)
    record = {k: v for k, v in played.records[0].items() if k != "timing"}
    one = len(json.dumps({"x": [record]}, indent=1, sort_keys=True)) + 100
    games = [{**record, "index": i} for i in range(size // one)]
    payload = {"format": "farlight-tournament", "version": 1, "num_players": 5, "games": games}
    return json.dumps(payload, indent=1, sort_keys=True).encode()


BODIES = {
    "array": lambda size: _fill(size, b"[", b"{}", b"]"),
    "field": lambda size: _fill(size, RECORD_HEAD + b'"actions":[],"x":[', b"{}", b"]}"),
    "actions": lambda size: _fill(
        size, RECORD_HEAD + b'"actions":[', b'{"type":"RefitStop"}', b"]}"
    ),
    "games": lambda size: _fill(
        size,
        b'{"format":"farlight-tournament","version":1,"games":[',
        RECORD_HEAD + b'"actions":[]}',
        b"]}",
    ),
    "results": _results,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=32, help="body size in MiB (default: 32)")
    parser.add_argument("--only", choices=sorted(BODIES), help="one body only")
    args = parser.parse_args()
    size = (args.mib << 20) - 1024  # under the 32 MiB limit with room for the framing
    for name in [args.only] if args.only else list(BODIES):
        with tempfile.NamedTemporaryFile(suffix=".json") as fh:
            body = BODIES[name](size)
            fh.write(body)
            fh.flush()
            query = "?game=7" if name == "results" else ""
            out = subprocess.run(
                [sys.executable, "-c", MEASURE, fh.name, query],
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
            )
        status, growth, text = out.stdout.split(" ", 2)
        print(
            f"{name:8} {len(body) / 2**20:5.1f} MiB  status {status}  "
            f"peak +{int(growth) / 2**20:4.0f} MiB  {text.strip()}"
        )


if __name__ == "__main__":
    main()
