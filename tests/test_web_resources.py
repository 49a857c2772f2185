"""The web server's bounded resources (issue 25): live games evicted and reloaded, uploads
parsed in bounded memory, deduplicated and kept under a quota, listings that read only changed
files, per-client rate limits, temp files cleared at start, symbolic links never followed."""

from __future__ import annotations

import gc
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
from starlette.testclient import TestClient  # noqa: E402

from farlight_env.records.record import load_record, verify_record  # noqa: E402
from farlight_web.app import make_app  # noqa: E402
from farlight_web.farlight import tables as table_registry  # noqa: E402
from farlight_web.farlight.tables import Tables  # noqa: E402
from farlight_web.limits import Limits, Rate, RateLimiter  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHORT = {"players": 2, "seat": 0, "opponents": ["heuristic"], "max_rounds": 2}


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "data"


def _app(data: Path, clock: Clock | None = None, **limits: Any):
    return make_app(data, limits=Limits(**limits), clock=clock or Clock())


def _client(app: Any) -> TestClient:
    """A client as the page is one: on localhost, every body declared as JSON."""
    return TestClient(
        app, base_url="http://localhost", headers={"content-type": "application/json"}
    )


#: The seat token of each game created here (the creator's: the human seat).
TOKENS: dict[str, str] = {}


def _new(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/games", json={**SHORT, "seed": 1, **body})
    assert response.status_code == 201, response.text
    state = response.json()
    TOKENS[state["id"]] = state["token"]
    return state


def _get(client: TestClient, game_id: str) -> dict[str, Any]:
    headers = {"authorization": f"Bearer {TOKENS[game_id]}"}
    response = client.get(f"/api/games/{game_id}", headers=headers)
    assert response.status_code == 200, response.text
    return response.json()


def _act_first(client: TestClient, game_id: str) -> dict[str, Any]:
    state = _get(client, game_id)
    response = client.post(
        f"/api/games/{game_id}/actions",
        json={"index": state["actions"][0]["index"], "version": state["version"]},
        headers={"authorization": f"Bearer {TOKENS[game_id]}"},
    )
    assert response.status_code == 200, response.text
    return response.json()


def _record(data: Path, game_id: str) -> dict[str, Any]:
    return _without_keys(json.loads((data / "games" / f"{game_id}.json").read_text()))


def _without_keys(record: dict[str, Any]) -> dict[str, Any]:
    """A record without its seat keys (hashes of random tokens: every table has its own)."""
    return {k: v for k, v in record.items() if k != "seat_keys"}


def _play_first(table: Any) -> None:
    """The human (seat 0) takes its first legal action, as a request would."""
    table.play({0}, table.legal_indices(0)[0], table.version)


# ---------------------------------------------------------------------------------- live games
def test_games_past_the_live_limit_are_evicted_and_play_on_as_if_never_evicted(
    tmp_path: Path,
) -> None:
    """Two games, one live slot: every action reloads the game from its record, and both end
    with the records of the same games played on a server that never evicted them."""
    records = []
    for limit in (1, 10):
        data = tmp_path / f"limit{limit}"
        app = _app(data, max_live_games=limit)
        client = _client(app)
        ids = [_new(client, seed=seed)["id"] for seed in (3, 4)]
        assert len(app.state.tables.live) == min(limit, 2)
        over = {}
        while not all(over.get(i) for i in ids):
            for game_id in ids:
                if not over.get(game_id):
                    over[game_id] = _act_first(client, game_id)["over"]
                assert len(app.state.tables.live) <= limit
        records.append([_record(data, i) for i in ids])
    assert records[0] == records[1]
    assert all(r["finished"] for r in records[0])


def test_idle_games_are_evicted_and_reload_on_the_next_request(data: Path) -> None:
    clock = Clock()
    app = _app(data, clock, idle_seconds=60)
    client = _client(app)
    first = _new(client)["id"]
    clock.now += 61
    second = _new(client, seed=2)["id"]
    assert list(app.state.tables.live) == [second]
    gc.collect()
    assert first not in app.state.tables.loaded  # nothing holds it: its memory is free
    assert _get(client, first)["your_turn"]
    assert list(app.state.tables.live) == [second, first]


def test_a_table_evicted_while_a_request_holds_it_is_found_again_not_rebuilt(data: Path) -> None:
    tables = Tables(data, max_live=1)
    held = tables.get(tables.create(["human", "random"], 0, 5, {"max_rounds": 2})[0].id)
    tables.create(["human", "random"], 0, 6, {"max_rounds": 2})  # evicts it
    assert held.id not in tables.live
    again = tables.get(held.id)
    assert again is held  # one table, one lock: the two requests cannot both move
    with held.lock:
        _play_first(held)
    moves = len(held.game.history)
    game_id = held.id
    del held, again
    tables.create(["human", "random"], 0, 7, {"max_rounds": 2})
    gc.collect()
    assert game_id not in tables.loaded
    assert len(tables.get(game_id).game.history) == moves  # rebuilt from the saved record


def test_concurrent_requests_for_an_evicted_game_rebuild_it_once(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tables = Tables(data, max_live=1)
    game_id = tables.create(["human", "heuristic"], 0, 5, {"max_rounds": 2})[0].id
    tables.create(["human", "heuristic"], 0, 6, {"max_rounds": 2})
    gc.collect()
    calls = []
    real = table_registry.resume

    def slow_resume(*args: Any) -> Any:
        calls.append(args[0])
        time.sleep(0.2)  # widen the window in which other requests ask for the same game
        return real(*args)

    monkeypatch.setattr(table_registry, "resume", slow_resume)
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda _: tables.get(game_id), range(4)))
    assert calls == [game_id]
    assert all(table is got[0] for table in got)


# ---------------------------------------------------------------------------------- uploads
PATHOLOGICAL = {
    "array": lambda n: b"[" + b"{}," * n + b"{}]",
    "field": lambda n: b'{"format": "farlight-record", "x": [' + b"{}," * n + b"{}]}",
}
#: The measurement the README's upload figures come from (scripts/web_upload_memory.py).
_SCRIPT = importlib.util.spec_from_file_location(
    "web_upload_memory", ROOT / "scripts" / "web_upload_memory.py"
)
assert _SCRIPT is not None and _SCRIPT.loader is not None
_script = importlib.util.module_from_spec(_SCRIPT)
_SCRIPT.loader.exec_module(_script)
MEASURE = _script.MEASURE


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="reads /proc (Linux)")
@pytest.mark.parametrize("shape", sorted(PATHOLOGICAL))
def test_a_32_mb_upload_of_empty_objects_takes_memory_proportional_to_its_size(
    tmp_path: Path, shape: str
) -> None:
    """`{},{},...` used to take 26 times its size as Python objects (835 MiB for 32 MiB); it
    is refused at the first value of a wrong kind, never built. Peak RSS (VmHWM: ru_maxrss
    would include this process's peak, which a child inherits) of a fresh server."""
    body = PATHOLOGICAL[shape]((32 << 20) // 3 - 20)
    path = tmp_path / "body.json"
    path.write_bytes(body)
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, str(path)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    status, growth = map(int, out.stdout.split(" ", 2)[:2])
    assert status == 400
    mib = 2**20
    assert growth < 3 * len(body), f"{growth / mib:.0f} MiB for a {len(body) / mib:.0f} MiB body"


def _finished_record(client: TestClient, data: Path, seed: int = 2) -> bytes:
    state = _new(client, seed=seed)
    while not state["over"]:
        state = _act_first(client, state["id"])
    return (data / "games" / f"{state['id']}.json").read_bytes()


def test_the_same_upload_with_other_whitespace_is_stored_once(data: Path) -> None:
    client = _client(make_app(data))
    body = _finished_record(client, data)
    compact = json.dumps(json.loads(body), separators=(",", ":")).encode()
    names = []
    for content in (body, compact, b"\n  " + body):
        response = client.post("/api/replays/upload", content=content)
        assert response.status_code == 200, response.text
        names.append(response.json()["file"])
    assert len(set(names)) == 1
    assert [p.name for p in (data / "uploads").iterdir()] == [names[0].split("/")[1]]
    assert verify_record(load_record(data / names[0])).scores() == json.loads(body)["scores"]


def test_uploads_past_the_quota_remove_the_oldest(data: Path) -> None:
    clock = Clock()
    client = _client(_app(data, clock, upload_files=2))
    record = json.loads(_finished_record(client, data))
    names = []
    for index in range(3):  # three records with different content
        body = json.dumps({**record, "index": index}).encode()
        response = client.post("/api/replays/upload", content=body)
        assert response.status_code == 200, response.text
        names.append(response.json()["file"])
        os.utime(data / names[-1], ns=(index * 10**9, index * 10**9))  # distinct ages
    assert sorted(p.name for p in (data / "uploads").iterdir()) == sorted(
        n.split("/")[1] for n in names[1:]
    )
    size = (data / names[2]).stat().st_size
    client = _client(_app(data, clock, upload_bytes=size + 10))
    again = client.post("/api/replays/upload", content=json.dumps(record).encode())
    assert again.status_code == 200
    assert [p.name for p in (data / "uploads").iterdir()] == [again.json()["file"].split("/")[1]]


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        (b'{"format": {"a": 1}}', "not a Farlight record"),
        (b'{"format": ["farlight-record"]}', "not a Farlight record"),
        (b'{"format": "farlight-record", "actions": [{}]}', "not a valid farlight-record file"),
        (b'{"format": "farlight-tournament", "version": 1, "games": 3}', "Expected `array`"),
    ],
)
def test_malformed_uploads_are_a_400_naming_the_problem(
    data: Path, body: bytes, needle: str
) -> None:
    response = _client(make_app(data)).post("/api/replays/upload", content=body)
    assert response.status_code == 400 and needle in response.json()["error"], response.text


def test_a_game_of_uploaded_results_is_found_by_its_index(data: Path) -> None:
    client = _client(make_app(data))
    record = json.loads(_finished_record(client, data))
    other = json.loads(_finished_record(client, data, seed=3))
    unindexed = {k: v for k, v in other.items() if k != "index"}
    results = {
        "format": "farlight-tournament",
        "version": 1,
        "games": [unindexed, {**other, "index": 4}, {**record, "index": 7}],
    }
    response = client.post("/api/replays/upload?game=7", content=json.dumps(results).encode())
    assert response.status_code == 200, response.text
    assert response.json()["scores"] == record["scores"]
    assert response.json()["source"].endswith(" game 7")
    missing = client.post("/api/replays/upload?game=5", content=json.dumps(results).encode())
    assert missing.status_code == 400 and "available indices: 4, 7" in missing.json()["error"]


def test_an_upload_that_does_not_replay_is_not_stored(data: Path) -> None:
    client = _client(make_app(data))
    record = json.loads(_finished_record(client, data))
    record["scores"] = [s + 1 for s in record["scores"]]
    response = client.post("/api/replays/upload", content=json.dumps(record).encode())
    assert response.status_code == 400 and "does not replay" in response.json()["error"]
    assert not (data / "uploads").exists() or not list((data / "uploads").iterdir())


def _variant_record() -> dict[str, Any]:
    """A finished 2-player record played with its own card set (one mission worth a point
    more than the standard one), so the record carries its "card_set"."""
    import dataclasses

    from agents.farlight.heuristic import HeuristicAgent
    from farlight_env.cards.io import standard_card_set
    from farlight_env.game import FarlightGame
    from farlight_env.records.record import build_record

    standard = standard_card_set()
    first = dataclasses.replace(standard.missions[0], value=standard.missions[0].value + 1)
    cards = dataclasses.replace(standard, name="variant", missions=(first, *standard.missions[1:]))
    game, policy = FarlightGame(2, seed=5, card_set=cards), HeuristicAgent(0)
    while not game.is_over:
        game.apply(policy.choose(game, game.current_player))
    return build_record(game, ["heuristic", "heuristic"], None, {"num_players": 2})


def test_r_cards_5_an_uploaded_card_set_is_checked_by_the_card_file_schema(data: Path) -> None:
    """An uploaded record's card set is read with the card-file schema itself (R-CARDS-5): a
    valid one replays; a card the card loader would refuse is a 400 naming its field, and
    nothing is stored."""
    client = _client(make_app(data))
    record = _variant_record()
    good = client.post("/api/replays/upload", content=json.dumps(record).encode())
    assert good.status_code == 200, good.text
    for card, field, value, needle in (
        ("missions", "value", 0, "card_set.missions[0].value"),
        ("parts", "connectors", ["diagonal"], "card_set.parts[0].connectors[0]"),
        ("parts", "crew_cost", -1, "card_set.parts[0].crew_cost"),
    ):
        bad = json.loads(json.dumps(record))
        bad["card_set"][card][0][field] = value
        response = client.post("/api/replays/upload", content=json.dumps(bad).encode())
        assert response.status_code == 400 and needle in response.json()["error"], response.text
    assert len(list((data / "uploads").iterdir())) == 1


# ---------------------------------------------------------------------------------- listings
def test_listings_read_only_new_and_changed_files(data: Path) -> None:
    from evaluation.tournament import run_tournament, write_results

    app = make_app(data)
    client = _client(app)
    ids = [_new(client, seed=s)["id"] for s in (1, 2)]
    while not _act_first(client, ids[0])["over"]:  # finished: listed (a live game is not)
        pass
    write_results(
        run_tournament(["random", "heuristic"], 2, games=2, seed=1, progress=False),
        data / "tour",
    )
    index = app.state.index
    first = client.get("/api/records").json()
    assert {r["file"] for r in first} == {f"games/{ids[0]}.json", "tour/results.json"}
    reads = index.reads
    assert reads == len(list(data.rglob("*.json")))  # the records, results.json, timing.json
    assert client.get("/api/records").json() == first
    assert index.reads == reads  # nothing changed: nothing read
    _act_first(client, ids[1])  # one record rewritten
    (data / "tour" / "results.json").unlink()
    listed = client.get("/api/records").json()
    assert index.reads == reads + 1
    assert {r["file"] for r in listed} == {f"games/{ids[0]}.json"}
    client.get("/api/leaderboard")
    reads = index.reads
    client.get("/api/leaderboard")
    assert index.reads == reads


def test_a_full_games_folder_does_not_push_other_folders_out_of_listings(
    data: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """More browser games than the walk's bound: the files of `data`, `tour/` and `uploads/`
    are listed all the same, the games take the rest, and the listing keeps to the bound."""
    from farlight_web import files as library

    monkeypatch.setattr(library, "MAX_FILES", 12)
    head = {"format": "farlight-record", "players": ["a", "b"], "finished": True}
    record = json.dumps({**head, "scores": [1, 2]})
    (data / "games").mkdir(parents=True)
    for i in range(40):
        (data / "games" / f"{i:04x}.json").write_text(record)
    for folder in ("tour", "uploads"):
        (data / folder / "deep").mkdir(parents=True)
        (data / folder / "deep" / "x.json").write_text(record)
    (data / "tour" / "deep" / "results.json").write_text("{}")
    (data / "mine.json").write_text(record)
    client = _client(make_app(data))
    listed = [r["file"] for r in client.get("/api/records").json()]
    assert {"mine.json", "tour/deep/x.json", "uploads/deep/x.json"} <= set(listed)
    assert len(listed) == 11 and sum(f.startswith("games/") for f in listed) == 8
    assert len(library.walk(data)) == 12  # results.json is walked too, not a record
    board = client.get("/api/leaderboard").json()
    assert [t["file"] for t in board["tournaments"]] == ["tour/deep/results.json"]


# ---------------------------------------------------------------------------------- rate limits
def test_starting_games_is_rate_limited_per_client(data: Path) -> None:
    clock = Clock()
    app = _app(data, clock, new_games=Rate(per_minute=6, burst=2))
    client = _client(app)
    _new(client)
    _new(client)
    refused = client.post("/api/games", json=SHORT)
    assert refused.status_code == 429 and "too many requests" in refused.json()["error"]
    assert refused.headers["retry-after"] == "10"
    assert len(list((data / "games").glob("*.json"))) == 2
    _new(
        TestClient(app, base_url="http://localhost", client=("192.0.2.7", 4000))
    )  # another client has its own bucket
    clock.now += 9
    assert client.post("/api/games", json=SHORT).headers["retry-after"] == "1"
    clock.now += 1
    _new(client)


def test_uploads_are_rate_limited_per_client(data: Path) -> None:
    clock = Clock()
    client = _client(_app(data, clock, uploads=Rate(per_minute=1, burst=1)))
    assert client.post("/api/replays/upload", content=b"junk").status_code == 400
    refused = client.post("/api/replays/upload", content=b"junk")
    assert refused.status_code == 429 and refused.headers["retry-after"] == "60"
    clock.now += 60
    assert client.post("/api/replays/upload", content=b"junk").status_code == 400


def test_uploads_past_the_concurrency_limit_are_told_to_come_back(data: Path) -> None:
    app = _app(data, concurrent_uploads=1)
    client = _client(app)
    assert app.state.upload_slots.acquire(blocking=False)  # an upload in progress
    busy = client.post("/api/replays/upload", content=b"junk")
    assert busy.status_code == 503 and busy.headers["retry-after"] == "5"
    app.state.upload_slots.release()
    assert client.post("/api/replays/upload", content=b"junk").status_code == 400
    assert client.post("/api/replays/upload", content=b"junk").status_code == 400  # released


def test_the_rate_limiter_forgets_the_least_recent_clients_past_its_bound() -> None:
    clock = Clock()
    limiter = RateLimiter(Rate(per_minute=1, burst=1), clock, max_clients=3)
    for client in "abcd":
        assert limiter.take(client) is None
    assert list(limiter.buckets) == ["b", "c", "d"]
    assert limiter.take("d") == pytest.approx(60)


# ---------------------------------------------------------------------------------- temp files
def test_temp_files_a_killed_writer_left_are_removed_at_start(data: Path) -> None:
    """save_record killed between writing its temp file and renaming it (SIGKILL, as a killed
    server): the temp file stays until the next server starts on that folder."""
    games = data / "games"
    games.mkdir(parents=True)
    code = textwrap.dedent(
        f"""
        import os, signal
        from farlight_env.records import record
        os.replace = lambda *a: os.kill(os.getpid(), signal.SIGKILL)
        record.save_record({{"format": "farlight-record"}}, {str(games / "0123456789ab.json")!r})
        """
    )
    killed = subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60
    )
    assert killed.returncode == -9
    [left] = games.iterdir()
    assert left.name.startswith(".0123456789ab.json.") and left.name.endswith(".tmp")
    (data / "uploads").mkdir()
    (data / "uploads" / ".abc.json.x7.tmp").write_text("{")
    (games / "notes.tmp").write_text("not ours")  # only hidden .tmp files are the writers'
    make_app(data)
    assert [p.name for p in games.iterdir()] == ["notes.tmp"]
    assert not list((data / "uploads").iterdir())


# ---------------------------------------------------------------------------------- symlinks
def test_symbolic_links_in_data_are_not_followed(tmp_path: Path, data: Path) -> None:
    from evaluation.tournament import run_tournament, write_results

    outside = tmp_path / "outside"
    write_results(
        run_tournament(["random", "heuristic"], 2, games=2, seed=1, progress=False), outside
    )
    (outside / "scorecard.json").write_text("{}")
    client = _client(make_app(data))
    real = _finished_record(client, data)
    (outside / "record.json").write_bytes(real)
    (data / "mine.json").write_bytes(real)
    (data / "file-link.json").symlink_to(outside / "record.json")
    (data / "folder-link").symlink_to(outside)
    (data / "alias.json").symlink_to(data / "mine.json")  # inside, but a link all the same
    listed = {r["file"] for r in client.get("/api/records").json()}
    assert listed == {"mine.json", *(f"games/{p.name}" for p in (data / "games").iterdir())}
    board = client.get("/api/leaderboard").json()
    assert board == {"tournaments": [], "scorecards": []}
    for file in ("file-link.json", "folder-link/results.json", "alias.json"):
        opened = client.post("/api/replays", json={"file": file, "game": 0})
        assert opened.status_code == 400, file
        assert "outside the data folder" in opened.json()["error"]
    assert client.post("/api/replays", json={"file": "mine.json"}).status_code == 200


def test_linked_server_folders_and_policies_are_refused(tmp_path: Path, data: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "mine.pt").write_bytes(b"not read")
    data.mkdir()
    (data / "policies").symlink_to(outside)
    client = _client(make_app(data))
    assert client.get("/api/options").json()["policies"] == []
    response = client.post("/api/games", json={**SHORT, "opponents": ["mine.pt"]})
    assert response.status_code == 400 and "unknown opponent" in response.json()["error"]
    (data / "games").symlink_to(outside)
    with pytest.raises(ValueError, match="symbolic link"):
        make_app(data)


def test_one_lock_per_table_holds_under_threads(data: Path) -> None:
    """Eight threads act on four games with two live slots: every action lands exactly once."""
    tables = Tables(data, max_live=2)
    ids = [tables.create(["human", "random"], 0, s, {"max_rounds": 2})[0].id for s in range(4)]
    played = {i: 0 for i in ids}
    count = threading.Lock()

    def worker(k: int) -> None:
        for step in range(30):
            game_id = ids[(k + step) % len(ids)]
            table = tables.get(game_id)
            with table.lock:
                if not table.legal_indices(0):
                    continue
                _play_first(table)
            with count:
                played[game_id] += 1

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(worker, range(8)))
    alone = Tables(data.parent / "alone")  # the same games played one at a time
    for seed, game_id in enumerate(ids):
        table = alone.create(["human", "random"], 0, seed, {"max_rounds": 2})[0]
        for _ in range(played[game_id]):
            _play_first(table)
        mine = _without_keys(load_record(table.path))
        assert mine == _without_keys(load_record(data / "games" / f"{game_id}.json"))
