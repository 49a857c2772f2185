"""The seeds of browser games (issue 47, item 1): a seed the server chooses has 128 bits from
`secrets` and seeds the deck, the awards and every bot with all of them, so no search over
small seeds finds it; a client's own seed plays as it always did; no seed is anywhere a
client or the log can see before the end, and after it the seed is a string (no JavaScript
number holds 128 bits)."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
from starlette.testclient import TestClient  # noqa: E402

from agents.farlight.heuristic import HeuristicAgent  # noqa: E402
from farlight_env.game import FarlightGame  # noqa: E402
from farlight_env.platform.agents import reseed  # noqa: E402
from farlight_env.records.record import load_record, new_game  # noqa: E402
from farlight_env.view.model import board_view, to_builtins  # noqa: E402
from farlight_web import seeding  # noqa: E402
from farlight_web.app import make_app  # noqa: E402
from farlight_web.bots import opponent_seed  # noqa: E402
from farlight_web.seeding import SERVER_SEED_LOW, server_seed  # noqa: E402

#: Small seeds tried by the brute force below (the old server drew from 2**31 of them).
TRIED = 3000
JSON = {"content-type": "application/json"}


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def client(data: Path) -> TestClient:
    return TestClient(make_app(data), base_url="http://localhost", headers=JSON)


def _create(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/games", json={"players": 2, "opponents": ["heuristic"], **body})
    assert response.status_code == 201, response.text
    return response.json()


def _record(data: Path, state: dict[str, Any]) -> dict[str, Any]:
    return load_record(data / state["record"])


def test_server_seeds_have_128_bits_from_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    seeds = [server_seed() for _ in range(200)]
    assert len(set(seeds)) == 200
    assert all(2**64 <= s < 2**128 for s in seeds) and max(seeds) > 2**127
    monkeypatch.setattr(seeding.secrets, "randbelow", lambda n: n - 1)  # where they come from
    assert server_seed() == 2**128 - 1


def test_a_server_game_s_seed_comes_from_secrets(
    client: TestClient, data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(seeding.secrets, "randbelow", lambda n: 12345)
    record = _record(data, _create(client))
    assert record["env_seed"] == record["game_seed"] == SERVER_SEED_LOW + 12345


def test_a_server_game_is_dealt_and_bots_seeded_with_all_128_bits(
    client: TestClient, data: Path
) -> None:
    state = _create(client)
    record = _record(data, state)
    seed = record["env_seed"]
    assert seed >= 2**64 and record["game_seed"] == seed  # the engine's own seed: all of it
    table = client.app.state.tables.get(state["id"])
    assert table.game.seed == seed
    assert opponent_seed(seed, 1) >= 2**64  # 128 bits for the bot (from a client's seed: 32)
    flipped = seed ^ (1 << 120)  # a high bit: the bots' generators depend on it too
    draws = []
    for game_seed in (seed, flipped):
        bot = HeuristicAgent()
        reseed(bot, game_seed, 1, 0)
        draws.append([g.bit_generator.state["state"] for g in vars(bot).values() if _is_rng(g)])
    assert draws[0] and draws[0] != draws[1]


def _is_rng(value: Any) -> bool:
    return isinstance(value, np.random.Generator)


def _station(game: FarlightGame) -> str:
    """The round-1 station as everybody sees it (what the brute force matched on)."""
    return json.dumps(to_builtins(board_view(game, None))["station"], sort_keys=True)


def test_no_small_seed_deals_the_round_1_station_of_a_server_game(
    client: TestClient, data: Path
) -> None:
    """A brute force over the old seeds (env seeds 0..TRIED, as the old server drew them, and
    engine seeds 0..TRIED) finds no game with a server game's public round-1 station."""
    station = _station(new_game(_record(data, _create(client))))
    seeded = _station(new_game(_record(data, _create(client, seed=TRIED - 1))))
    found = []
    for small in range(TRIED):
        old_engine_seed = int(np.random.default_rng(small).integers(2**63 - 1))
        for engine_seed in (old_engine_seed, small):
            dealt = _station(FarlightGame(2, seed=engine_seed))
            assert dealt != station, small
            if dealt == seeded:
                found.append(small)
    assert TRIED - 1 in found  # the search does find a small seed when there is one


def test_a_client_s_own_seed_is_dealt_and_seeds_bots_as_before(
    client: TestClient, data: Path
) -> None:
    """Records of games a client seeded (and golden files) rebuild byte for byte."""
    record = _record(data, _create(client, seed=11))
    assert record["env_seed"] == 11
    assert record["game_seed"] == int(np.random.default_rng(11).integers(2**63 - 1))
    for seat in range(5):
        old = int(np.random.SeedSequence([11, seat]).generate_state(1)[0])
        assert opponent_seed(11, seat) == old


def test_the_seed_is_in_no_answer_header_log_line_or_file_name_before_the_end(
    data: Path, caplog: pytest.LogCaptureFixture
) -> None:
    client = TestClient(make_app(data), base_url="http://localhost", headers=JSON)
    seen: list[str] = []

    def call(method: str, url: str, token: str | None = None, **kw: Any) -> dict[str, Any]:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        response = client.request(method, url, headers=headers, **kw)
        seen.append(json.dumps(dict(response.headers)) + response.text)
        return response.json()

    with caplog.at_level(logging.DEBUG):
        state = call("POST", "/api/games", json={"players": 3, "humans": [0, 1]})
        game = state["id"]
        claimed = call(
            "POST", f"/api/games/{game}/claim", json={"invite": state["invites"][0]["code"]}
        )
        tokens = {0: state["token"], 1: claimed["token"]}
        for _ in range(8):
            now = call("GET", f"/api/games/{game}?since=0")
            if now["over"]:
                break
            mover = tokens.get(now["turn"])
            if mover is None:
                continue
            mine = call("GET", f"/api/games/{game}?since=0", mover)
            body = {"index": mine["actions"][0]["index"], "version": mine["version"]}
            call("POST", f"/api/games/{game}/actions", mover, json=body)
        call("GET", "/api/games", f"{tokens[0]} {tokens[1]}")
        call("GET", "/api/records")
        opened = call("POST", "/api/replays", tokens[0], json={"file": state["record"]})
        for step in (0, opened["steps"]):
            call("GET", f"/api/replays/{opened['id']}?step={step}&viewer=0")
            call("GET", f"/api/replays/{opened['id']}?step={step}")
    assert not now["over"]
    seed = load_record(data / state["record"])["env_seed"]
    forms = [str(seed), f"{seed:x}", f"{seed:X}"]
    names = [str(p.relative_to(data)) for p in data.rglob("*")]
    for text in [*seen, *(r.getMessage() for r in caplog.records), *names]:
        assert not any(form in text for form in forms), text[:300]
        assert '"seed"' not in text and "game_seed" not in text, text[:300]


def test_after_the_end_the_seed_is_a_string_and_the_record_replays(
    client: TestClient, data: Path
) -> None:
    state = _create(client, opponents=["random"], max_rounds=1)
    token, game = state["token"], state["id"]
    headers = {"authorization": f"Bearer {token}"}
    for _ in range(500):
        if state["over"]:
            break
        if not state["your_turn"]:
            state = client.get(f"/api/games/{game}", headers=headers).json()
            continue
        body = {"index": state["actions"][0]["index"], "version": state["version"]}
        state = client.post(f"/api/games/{game}/actions", json=body, headers=headers).json()
    assert state["over"]
    record = _record(data, state)
    assert isinstance(state["seed"], str) and int(state["seed"]) == record["env_seed"] >= 2**64
    opened = client.post("/api/replays", json={"file": state["record"]})
    assert opened.status_code == 200 and opened.json()["scores"] == state["scores"]
    text = (data / state["record"]).read_bytes()
    uploaded = client.post("/api/replays/upload", content=text)
    assert uploaded.status_code == 200, uploaded.text
