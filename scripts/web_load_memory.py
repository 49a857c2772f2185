"""The web server's memory under a long load: the figures of docs/safety.md (issue 53).

    python scripts/web_load_memory.py                  # 30 clients, 10 minutes
    python scripts/web_load_memory.py --clients 4 --minutes 1

Starts `farlight serve` on 127.0.0.1 (an empty temp --data, default limits) behind a pretend
reverse proxy (`--trusted-proxy 127.0.0.1`; each client sends its own X-Forwarded-For), so
the clients count as `--clients` clients with their own rate limits and replays, as they would
on a network. Each client plays short games to the end against bots, replays them (and, now
and then, the longest game a replay takes: 5 players, the largest grid, 10,000 actions),
uploads its records and reads the listings, until the time is up; a refused request (429, 503)
waits as told. Every loop is bounded and stops by itself. The server's RSS (VmRSS, Linux
/proc) is sampled every few seconds; the script prints it per minute, the requests made,
the peak of each half, and the trends of the last half and the last quarter: level when the
last half's trend is below --level MiB a minute and the peak below --bound MiB (docs/safety.md's
sum of the bounded parts). The server's memory rises in steps (a new high-water mark of open
replays or uploads, each bounded, or the listings' index filling) and is flat between them.
`--out FILE` keeps the samples; `--report FILE` prints a kept run's report again.

The listings' index keeps one summary per file for at most 2,000 files of --data
(farlight_web.files.MAX_FILES), so a server whose folder is still filling grows until it
holds 2,000 (about 12 minutes of this load); `--prefill 2000` starts from a folder already at
that bound (copies of one short record), and before the clients start opens the most replays
the server keeps open at once (16, from 4 addresses), each of a copy of the longest game, and
steps through them: the high-water marks a server that has run a while has already reached.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_SECONDS = 5.0
MAX_GAMES_PER_CLIENT = 10_000  # a bound the time limit reaches first
MAX_REQUESTS_PER_GAME = 2_000
LONG_GAME_EVERY = 8  # a client replays the longest game once every this many games
UPLOAD_EVERY = 3
LONG_STEPS = 10_000


@dataclass
class Tally:
    """Requests made by status, shared by the clients."""

    statuses: dict[int, int] = field(default_factory=dict)
    games: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self, status: int) -> None:
        with self.lock:
            self.statuses[status] = self.statuses.get(status, 0) + 1


class Client:
    """One client: its own X-Forwarded-For address, its seat tokens, its bounded loops."""

    def __init__(self, url: str, data: Path, k: int, tally: Tally, deadline: float) -> None:
        self.url = url
        self.data = data  # the server's --data, where the records it saved are read back
        self.address = f"198.51.{100 + k // 250}.{k % 250 + 1}"
        self.tally = tally
        self.deadline = deadline
        self.rng = random.Random(k)

    def call(
        self, method: str, path: str, body: Any = None, token: str | None = None, raw: bytes = b""
    ) -> tuple[int, Any]:
        """(status, JSON answer) of one request; a 429 or 503 waits as told and tries again
        (while there is time)."""
        headers = {"x-forwarded-for": self.address, "content-type": "application/json"}
        if token:
            headers["authorization"] = f"Bearer {token}"
        data = raw or (json.dumps(body).encode() if body is not None else None)
        for _ in range(100):
            request = urllib.request.Request(
                self.url + path, data=data, method=method, headers=headers
            )
            try:
                with urllib.request.urlopen(request, timeout=120) as response:
                    self.tally.count(response.status)
                    return response.status, json.load(response)
            except urllib.error.HTTPError as exc:
                self.tally.count(exc.code)
                if exc.code not in (429, 503) or time.monotonic() > self.deadline:
                    return exc.code, None
                time.sleep(min(30.0, float(exc.headers.get("retry-after") or 1)))
        return 0, None

    def run(self) -> None:
        for n in range(MAX_GAMES_PER_CLIENT):
            if time.monotonic() > self.deadline:
                return
            state = self.play()
            if state is None:
                continue
            self.replay({"file": state["record"]}, steps=10)
            if n % UPLOAD_EVERY == 0:
                self.upload(state["record"])
            if n % LONG_GAME_EVERY == LONG_GAME_EVERY - 1:
                self.replay({"file": "long.json"}, steps=10)
            if n % 4 == 0:
                self.call("GET", "api/records")
                self.call("GET", "api/leaderboard")

    def play(self) -> dict[str, Any] | None:
        """A short game against bots, to the end; its last state (None if refused)."""
        players = self.rng.choice((2, 3))
        body = {"players": players, "opponents": [self.rng.choice(("heuristic", "random"))]}
        status, state = self.call("POST", "api/games", {**body, "max_rounds": 2})
        if status != 201:
            return None
        token = state["token"]
        for _ in range(MAX_REQUESTS_PER_GAME):
            if state["over"] or time.monotonic() > self.deadline:
                break
            if state["thinking"] or not state["actions"]:
                status, state = self.call("GET", f"api/games/{state['id']}", token=token)
            else:
                index = self.rng.choice(state["actions"])["index"]
                choice = {"index": index, "version": state["version"]}
                status, state = self.call(
                    "POST", f"api/games/{state['id']}/actions", choice, token=token
                )
            if state is None:
                return None
        with self.tally.lock:
            self.tally.games += 1
        return state

    def replay(self, body: dict[str, Any], steps: int) -> None:
        status, opened = self.call("POST", "api/replays", body)
        if status == 200:
            self.steps(opened, steps)

    def upload(self, record: str) -> None:
        path = self.data / record
        status, opened = self.call("POST", "api/replays/upload", raw=path.read_bytes())
        if status == 200:
            self.steps(opened, 5)

    def steps(self, opened: dict[str, Any], count: int) -> None:
        """Random steps of an open replay, as seat 0 when the game is over (else a spectator:
        a game still being played shows a seat's view only to its token)."""
        viewer = "&viewer=0" if opened.get("finished", True) else ""
        for _ in range(count):
            step = self.rng.randint(0, opened["steps"])
            self.call("GET", f"api/replays/{opened['id']}?step={step}{viewer}")


def long_record(path: Path) -> None:
    """The longest game a replay takes, saved as a record (always the last legal action)."""
    from farlight_env.game import FarlightGame
    from farlight_env.game.facts import MAX_GRID_SIZE
    from farlight_env.records.record import build_record, save_record

    config = {"num_players": 5, "grid_size": MAX_GRID_SIZE, "max_rounds": 10_000}
    game = FarlightGame(seed=1, **config)
    while not game.is_over and len(game.history) < LONG_STEPS:
        game.apply(game.legal_actions()[-1])
    save_record(build_record(game, ["random"] * 5, 1, config, finished=False), path)


#: What is sampled (Linux /proc/PID/status): the resident set, its anonymous memory (the
#: heaps and thread stacks, what a leak grows) and its mapped files' pages (libraries' code
#: and data, touched once and then kept: bounded by the files' size), in kB; and the threads.
RSS_FIELDS = ("VmRSS", "RssAnon", "RssFile", "Threads")


def warm_replays(url: str, data: Path) -> None:
    """Open as many replays of the longest game as the server keeps (MAX_OPEN_REPLAYS, from
    clients at REPLAYS_PER_CLIENT each) and step through each, all at once."""
    from farlight_web.limits import MAX_OPEN_REPLAYS, REPLAYS_PER_CLIENT

    tally = Tally()
    clients = [
        Client(url, data, 10_000 + k, tally, time.monotonic() + 600)
        for k in range(-(-MAX_OPEN_REPLAYS // REPLAYS_PER_CLIENT))
    ]

    text = (data / "long.json").read_bytes()
    (data / "warm").mkdir(exist_ok=True)
    for k in range(MAX_OPEN_REPLAYS):
        (data / "warm" / f"long-{k:02d}.json").write_bytes(text)

    def warm(client: Client) -> None:
        first = clients.index(client) * REPLAYS_PER_CLIENT
        for k in range(first, first + REPLAYS_PER_CLIENT):
            client.replay({"file": f"warm/long-{k:02d}.json"}, steps=20)

    with ThreadPoolExecutor(len(clients)) as pool:
        list(pool.map(warm, clients))


def prefill(folder: Path, count: int) -> None:
    """`count` records in `folder`: copies of one short game's (2 players, 2 rounds)."""
    if count <= 0:
        return
    from farlight_env.game import FarlightGame
    from farlight_env.records.record import build_record, save_record

    folder.mkdir(parents=True, exist_ok=True)
    config = {"num_players": 2, "max_rounds": 2}
    game = FarlightGame(seed=2, **config)
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    first = folder / "prefill-00000.json"
    save_record(build_record(game, ["random"] * 2, 2, config), first)
    text = first.read_bytes()
    for k in range(1, count):
        (folder / f"prefill-{k:05d}.json").write_bytes(text)


def rss(pid: int) -> tuple[int, ...]:
    """The RSS_FIELDS of a process: sizes in bytes, the thread count as it is."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in RSS_FIELDS:
            number = int(value.split()[0])
            found[name] = number if name == "Threads" else number * 1024
    return tuple(found[name] for name in RSS_FIELDS)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=30)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument(
        "--level", type=float, default=1.0, help="a trend below this many MiB a minute is level"
    )
    parser.add_argument(
        "--bound", type=float, default=1024.0, help="the documented bound, MiB (docs/safety.md)"
    )
    parser.add_argument(
        "--prefill", type=int, default=0, help="start with this many records in --data/games"
    )
    parser.add_argument("--out", type=Path, default=None, help="write the samples here (JSON)")
    parser.add_argument(
        "--report", type=Path, default=None, help="only print the report of a run saved by --out"
    )
    args = parser.parse_args()
    if args.report:
        return report_saved(args.report, argparse.Namespace(**{**vars(args), "out": None}))
    data = Path(tempfile.mkdtemp(prefix="farlight-load-")) / "data"
    data.mkdir(parents=True)
    long_record(data / "long.json")
    prefill(data / "games", args.prefill)
    server = subprocess.Popen(
        [sys.executable, "-m", "farlight_cli", "serve", "--port", "0", "--data", str(data)]
        + ["--trusted-proxy", "127.0.0.1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    samples: list[tuple[float, int, int, int, int]] = []
    tally = Tally()
    try:
        line = server.stdout.readline() if server.stdout else ""
        if not line.startswith("Farlight in the browser: http://"):
            print(line, server.stderr.read() if server.stderr else "", file=sys.stderr)
            return 1
        url = line.split()[4]
        if args.prefill > 0:
            warm_replays(url, data)
        start = time.monotonic()
        deadline = start + args.minutes * 60
        done = threading.Event()

        def sample() -> None:
            while not done.wait(SAMPLE_SECONDS):
                samples.append((time.monotonic() - start, *rss(server.pid)))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        clients = [Client(url, data, k, tally, deadline) for k in range(args.clients)]
        with ThreadPoolExecutor(args.clients) as pool:
            list(pool.map(Client.run, clients))
        done.set()
        sampler.join()
    finally:
        server.terminate()
        server.wait(30)
    return report(samples, tally, args)


def report(samples: list[tuple], tally: Tally, args: argparse.Namespace) -> int:
    """Per-minute RSS (and its anonymous and file-backed parts), the requests, the peak of each
    half of the run and the trends (least squares) of the last half and quarter; status 0
    when the last half's is below --level MiB a minute and the peak below --bound. Samples
    taken after the time was up (the clients finishing what they had begun) are shown apart.
    Samples of (time, RSS) only, as runs saved before the parts were sampled hold, report the
    RSS alone."""
    mib = 2**20
    duration = args.minutes * 60
    parts = all(len(s) >= 4 for s in samples) and bool(samples)
    print(f"clients {args.clients}, {args.minutes:g} minutes, {tally.games} games played")
    print("requests by status:", dict(sorted(tally.statuses.items())))
    for minute in range(int(args.minutes + 0.999)):
        inside = [s for s in samples if minute * 60 <= s[0] < min(duration, (minute + 1) * 60)]
        if inside:
            low, high = min(s[1] for s in inside) / mib, max(s[1] for s in inside) / mib
            line = f"minute {minute + 1:2d}: RSS {low:6.0f} .. {high:6.0f} MiB"
            if parts:
                anon, files = inside[-1][2] / mib, inside[-1][3] / mib
                line += f"   (at its end: anonymous {anon:4.0f}, files {files:4.0f}"
                line += f", {inside[-1][4]} threads)" if len(inside[-1]) > 4 else ")"
            print(line)
    after = [s[1] for s in samples if s[0] >= duration]
    if after:
        print(f"after the time was up: {len(after)} samples, peak {max(after) / mib:.0f} MiB")
    first = [(s[0], s[1]) for s in samples if s[0] < duration / 2]
    last = [(s[0], s[1]) for s in samples if duration / 2 <= s[0] < duration]
    peak_first = max((r for _, r in first), default=0)
    peak_last = max((r for _, r in last), default=0)
    trend = slope(last) * 60 / mib
    quarter = slope([(t, r) for t, r in last if t >= duration * 0.75]) * 60 / mib
    peak = max((s[1] for s in samples), default=0) / mib
    level = trend < args.level and peak < args.bound
    print(f"peak RSS: first half {peak_first / mib:.0f} MiB, last half {peak_last / mib:.0f} MiB")
    print(f"trend: last half {trend:+.1f}, last quarter {quarter:+.1f} MiB a minute")
    if parts:
        halves = [s for s in samples if duration / 2 <= s[0] < duration]
        anon = slope([(s[0], s[2]) for s in halves]) * 60 / mib
        files = slope([(s[0], s[3]) for s in halves]) * 60 / mib
        print(f"  last half: of which anonymous {anon:+.1f}, files {files:+.1f} MiB a minute")
    print(
        f"{'level' if level else 'not level'} (level: the last half's trend below "
        f"{args.level:g} MiB a minute, and the peak below {args.bound:g} MiB; peak {peak:.0f} MiB)"
    )
    if args.out:
        saved = {"samples": samples, "statuses": tally.statuses, "games": tally.games}
        args.out.write_text(json.dumps(saved))
    return 0 if level else 1


def slope(points: list[tuple[float, int]]) -> float:
    """The least-squares slope of (time, RSS) points, in bytes a second (0 for fewer than 2)."""
    if len(points) < 2:
        return 0.0
    mean_t = sum(t for t, _ in points) / len(points)
    mean_r = sum(r for _, r in points) / len(points)
    spread = sum((t - mean_t) ** 2 for t, _ in points)
    return sum((t - mean_t) * (r - mean_r) for t, r in points) / spread if spread else 0.0


def report_saved(path: Path, args: argparse.Namespace) -> int:
    """The report of a run saved with --out (--clients and --minutes as it was run)."""
    saved = json.loads(path.read_text())
    statuses = {int(k): v for k, v in saved["statuses"].items()}
    tally = Tally(statuses=statuses, games=saved.get("games", 0))
    return report([tuple(s) for s in saved["samples"]], tally, args)


if __name__ == "__main__":
    sys.exit(main())
