"""`farlight serve` under load (issue 25, item 5): eight clients at once, each playing games to
the end against bots, on a server that keeps fewer live games than are being played, so games
are evicted and rebuilt from their records mid-game. No request fails, every game's record is
saved, replays and ends as the client saw it, and the server's peak memory (VmHWM) grows less
than LOAD_GROWTH_BOUND over its size after a first game."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("uvicorn", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("starlette", reason="the web extra is not installed")

from farlight_env.records.record import load_record, verify_record  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CLIENTS = 8
GAMES_EACH = 3
LIVE_GAMES = 3  # fewer than the clients' games in play at once: eviction happens mid-game
#: Peak memory growth allowed over the server's size after a first game: LIVE_GAMES tables
#: plus those in flight (0.3 MB each with these bots), the listings and the interpreter's slack.
LOAD_GROWTH_BOUND = 100 << 20


# ---- the calls a client makes (the only places that know the API's request shapes) -----
def create_game(url: str, **body: Any) -> dict[str, Any]:
    """POST /api/games: the new game's state (201), with the creator's seat token, once the
    bots have moved up to the human's first decision."""
    state = _post(f"{url}api/games", body, expect=201, token=None)
    return settle(url, state, state["token"])


def act(url: str, state: dict[str, Any], index: int) -> dict[str, Any]:
    """POST /api/games/{id}/actions answering the last `state` the client saw (its version):
    the next state, once the bots have moved up to the human's next decision."""
    body = {"index": index, "version": state["version"]}
    moved = _post(f"{url}api/games/{state['id']}/actions", body, expect=200, token=state["token"])
    return settle(url, moved, state["token"])


def settle(url: str, state: dict[str, Any], token: str) -> dict[str, Any]:
    """GET the game while its bots are still thinking (each request has a thinking budget)."""
    while state["thinking"] and not state["over"]:
        state = _get(f"{url}api/games/{state['id']}", token)
    return {**state, "token": token}


def _post(url: str, body: dict[str, Any], expect: int, token: str | None) -> dict[str, Any]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers)
    with urllib.request.urlopen(request, timeout=120) as response:
        assert response.status == expect, response.status
        return json.load(response)


def _get(url: str, token: str | None = None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with urllib.request.urlopen(
        urllib.request.Request(url, headers=headers), timeout=120
    ) as response:
        return json.load(response)


def _memory(pid: int) -> dict[str, int]:
    """VmRSS (now) and VmHWM (peak) of a process, in bytes (Linux)."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0]) * 1024
    return fields


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc (Linux)")
def test_concurrent_clients_play_to_the_end_with_eviction_and_bounded_memory(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    proc = subprocess.Popen(
        [sys.executable, "-m", "farlight_cli", "serve", "--port", "0", "--data", str(data)]
        + ["--max-live-games", str(LIVE_GAMES), "--games-per-minute", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("Farlight in the browser: http://"), line + proc.stderr.read()
        url = line.split()[4]
        # a first game: the agents and the env are imported, then the baseline is measured
        first = create_game(url, players=2, opponents=["heuristic"], seed=0, max_rounds=2)
        while not first["over"]:
            first = act(url, first, first["actions"][0]["index"])
        baseline = _memory(proc.pid)["VmRSS"]

        started = threading.Barrier(CLIENTS, timeout=120)

        def client(k: int) -> list[dict[str, Any]]:
            finals = []
            for g in range(GAMES_EACH):
                opponent = ("random", "heuristic")[(k + g) % 2]
                state = create_game(
                    url, players=2, opponents=[opponent], seed=100 * k + g, max_rounds=3
                )
                if g == 0:
                    started.wait()  # every client's first game is in play: some are evicted
                turns = 0
                while not state["over"]:
                    actions = state["actions"]
                    state = act(url, state, actions[(k + turns) % len(actions)]["index"])
                    turns += 1
                finals.append(state)
            return finals

        with ThreadPoolExecutor(CLIENTS) as pool:
            finals = [s for games in pool.map(client, range(CLIENTS)) for s in games]
        memory = _memory(proc.pid)
        listed = {r["file"] for r in _get(f"{url}api/records")}
    finally:
        proc.terminate()
        proc.wait(20)
    assert proc.returncode in (0, -15), proc.stderr.read()
    assert len(finals) == CLIENTS * GAMES_EACH
    assert len({s["id"] for s in finals}) == len(finals)
    for state in finals:
        record = load_record(data / state["record"])
        assert record["finished"] is True and state["record"] in listed
        assert verify_record(record).scores() == state["scores"] == record["scores"]
        assert record["winners"] == state["winners"]
    growth = memory["VmHWM"] - baseline
    assert growth < LOAD_GROWTH_BOUND, f"peak grew {growth / 2**20:.0f} MiB over {baseline}"
