"""The web API serves any registered game (#50): the throw-away duel (tests/toy_game.py)
played through HTTP with Starlette's test client, by two humans and against the random bot;
its options checked by its declaration, its hidden cards never sent to another seat before
the end, its record saved in the platform's generic format and replayed."""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
from starlette.testclient import TestClient  # noqa: E402

from farlight_env.platform import register  # noqa: E402
from farlight_env.platform.records import verify_record  # noqa: E402
from farlight_env.platform.registry import unregister  # noqa: E402
from farlight_web.app import make_app  # noqa: E402
from tests.toy_game import DUEL  # noqa: E402


@pytest.fixture(autouse=True)
def duel_registered():
    register(DUEL, replace=True)
    yield
    unregister("duel")


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def client(data: Path) -> TestClient:
    return TestClient(make_app(data, allowed_hosts=["testserver"]))


def _bearer(*tokens: str) -> dict[str, str]:
    return {"authorization": "Bearer " + " ".join(tokens)}


def _new(client: TestClient, **body: Any) -> dict[str, Any]:
    response = client.post("/api/games", json={"game": "duel", "players": 2, "seat": 0, **body})
    assert response.status_code == 201, response.text
    return response.json()


def _act(client: TestClient, state: dict[str, Any], index: int, token: str) -> Any:
    body = {"index": index, "version": state["version"]}
    return client.post(f"/api/games/{state['id']}/actions", json=body, headers=_bearer(token))


def _two_humans(client: TestClient) -> tuple[dict[str, Any], str, str]:
    """A duel of two humans: the creator's state and token, and seat 1's token."""
    created = _new(client, humans=[0, 1])
    invite = created["invites"][0]["code"]
    claimed = client.post(f"/api/games/{created['id']}/claim", json={"invite": invite})
    assert claimed.status_code == 200, claimed.text
    return created, created["token"], claimed.json()["token"]


def test_api_options_lists_every_game_with_its_players_options_and_bots(client) -> None:
    games = {g["name"]: g for g in client.get("/api/options").json()["games"]}
    assert list(games) == ["farlight", "duel"]
    assert games["duel"]["players"] == [2, 4] and games["duel"]["agents"] == ["random", "ismcts"]
    assert games["duel"]["options"] == [
        {"name": "stakes", "default": 1, "help": DUEL.options[0].help}
    ]
    assert "heuristic" in games["farlight"]["agents"] and games["farlight"]["players"] == [2, 5]


def test_two_humans_play_a_duel_to_its_end_through_the_api(client, data) -> None:
    created, mine, theirs = _two_humans(client)
    assert created["game"] == "duel" and created["players"] == ["human", "human"]
    assert created["your_turn"] and created["seat"] == 0
    assert [(a["index"], a["label"]) for a in created["actions"]] == [(0, "fold"), (1, "stay")]
    assert created["scores"] is None and created["winners"] is None and "seed" not in created
    assert "?" in created["text"]  # seat 1's card is hidden from seat 0

    after = _act(client, created, 1, mine)
    assert after.status_code == 200, after.text
    moved = after.json()
    assert moved["moves"][0]["label"] == "P0: stay" and not moved["your_turn"]

    seen = client.get(f"/api/games/{created['id']}?since=0", headers=_bearer(theirs)).json()
    assert seen["seat"] == 1 and seen["your_turn"]
    assert seen["moves"][0]["label"] == "P0 moved"  # named only to its mover
    done = _act(client, seen, 0, theirs).json()
    assert done["over"] and done["scores"] == [1.0, 0.0] and done["winners"] == [0]
    assert done["seed"].isdigit() and "?" not in done["text"]

    record = json.loads((data / "games" / f"{created['id']}.json").read_text())
    assert record["format"] == "platform-record" and record["game"] == "duel"
    assert record["actions"] == [1, 0] and record["finished"] is True
    assert verify_record(record).winners() == [0]
    assert mine not in json.dumps(record) and theirs not in json.dumps(record)


def test_a_duel_against_the_random_bot_and_its_replay(client) -> None:
    state = _new(client, opponents=["random"], seed=5, options={"stakes": 3})
    assert state["players"] == ["human", "random"] and state["config"]["stakes"] == 3
    done = _act(client, state, 1, state["token"]).json()
    assert done["over"] and len(done["moves"]) == 2 and done["moves"][1]["label"] == "P1 moved"
    assert done["winners"] and len(done["scores"]) == 2

    rows = [r for r in client.get("/api/records").json() if r.get("game") == "duel"]
    assert rows and rows[0]["file"] == done["record"] and rows[0]["finished"] is True
    opened = client.post("/api/replays", json={"file": done["record"]})
    assert opened.status_code == 200, opened.text
    info = opened.json()
    assert info["game"] == "duel" and info["steps"] == 2 and info["scores"] == done["scores"]
    start = client.get(f"/api/replays/{info['id']}?step=0&viewer=0").json()
    assert start["move"] is None and start["text"].count("?") == 1
    end = client.get(f"/api/replays/{info['id']}?step=2").json()
    assert end["move"] == "P1 moved" and "?" not in end["text"]
    assert client.get(f"/api/replays/{info['id']}?step=1&viewer=0").json()["move"] == "P0: stay"


def test_a_duel_against_the_ismcts_bot(client) -> None:
    """The search plays another game on the web too, planning on a SeatView (nothing hidden)."""
    state = _new(client, opponents=["ismcts"], seed=5)
    assert state["players"] == ["human", "ismcts"]
    done = _act(client, state, 1, state["token"]).json()
    assert done["over"] and len(done["moves"]) == 2 and not done.get("bot_errors")


def test_an_illegal_or_untimely_move_is_refused_in_one_line_and_changes_nothing(client) -> None:
    created, mine, theirs = _two_humans(client)
    illegal = _act(client, created, 7, mine)
    assert illegal.status_code == 422
    assert illegal.json()["error"] == (
        "action index 7 is not legal now; legal indices: 0, 1 (GET the game to see their labels)"
    )
    early = _act(client, created, 1, theirs)
    assert early.status_code == 409 and early.json()["error"] == "it is P0's turn, not yours (P1)"
    assert _act(client, {**created, "version": 3}, 1, mine).status_code == 409
    again = client.get(f"/api/games/{created['id']}", headers=_bearer(mine)).json()
    assert again["version"] == 0 and again["your_turn"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"game": "chess"}, "unknown game 'chess'; the games are farlight, duel"),
        ({"options": {"colour": 1}}, "duel has no option 'colour'; its options are stakes"),
        ({"options": {"stakes": "x"}}, "duel option stakes='x'"),
        ({"players": 5}, "duel is for 2-4 players, not 5"),
        ({"grid_size": 7}, "grid_size: Farlight's option, not duel's"),
        ({"opponents": ["heuristic"]}, "heuristic cannot play duel; choose from random, ismcts"),
        ({"humans": [0, 1], "seed": 3}, "seed: a game with several humans gets a random seed"),
    ],
)
def test_a_bad_new_duel_is_refused_with_one_clear_line(client, body, message) -> None:
    response = client.post("/api/games", json={"game": "duel", "players": 2, **body})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error.startswith(message) and "\n" not in error


def test_farlight_refuses_another_games_options_field(client) -> None:
    response = client.post("/api/games", json={"players": 2, "options": {"stakes": 1}})
    assert response.status_code == 400 and "options: Farlight's options" in response.json()["error"]


def test_seat_0_gets_the_same_bytes_whatever_seat_1_holds_until_the_end(client) -> None:
    """Two deals differing only in seat 1's hidden card: every response to seat 0 before the
    end is byte for byte the same; the end shows the card."""
    created, mine, theirs = _two_humans(client)
    table = client.app.state.tables.get(created["id"])
    url = f"/api/games/{created['id']}?since=0"

    def seen_by_seat_0() -> list[bytes]:
        return [
            client.get(url, headers=_bearer(mine)).content,
            client.get(f"/api/games/{created['id']}", headers=_bearer(mine)).content,
        ]

    def with_card(card: int) -> list[bytes]:
        table.game.cards[1] = card
        return seen_by_seat_0()

    before = [with_card(card) for card in range(6)]
    assert all(b == before[0] for b in before)
    assert _act(client, json.loads(before[0][0]), 1, mine).status_code == 200
    after = [with_card(card) for card in range(6)]
    assert all(a == after[0] for a in after) and after[0] != before[0]
    table.game.cards[1] = 4
    seat_1 = client.get(url, headers=_bearer(theirs)).json()
    end = _act(client, seat_1, 1, theirs).json()
    assert end["over"] and end["text"].startswith(f"cards [{table.game.cards[0]}, 4]")


def test_a_duel_resumes_from_its_record_after_the_server_restarts(data) -> None:
    first = TestClient(make_app(data, allowed_hosts=["testserver"]))
    created = first.post(
        "/api/games", json={"game": "duel", "players": 3, "opponents": ["random"], "seat": 2}
    ).json()
    assert created["your_turn"] and created["version"] == 2  # the two bots moved first
    again = TestClient(make_app(data, allowed_hosts=["testserver"]))
    resumed = again.get(f"/api/games/{created['id']}?since=0", headers=_bearer(created["token"]))
    assert resumed.status_code == 200, resumed.text
    state = resumed.json()
    assert state["text"] == created["text"] and len(state["moves"]) == 2
    assert state["actions"] == created["actions"]
    mine = again.get("/api/games", headers=_bearer(created["token"])).json()
    assert [(g["id"], g["game"], g["finished"], g["scores"]) for g in mine] == [
        (created["id"], "duel", False, None)
    ]


def test_seats_rate_limits_and_eviction_apply_to_a_duel_as_to_farlight(data) -> None:
    """One rate for new games of every game; a spectator, a foreign token and a used invite are
    treated as in Farlight; an evicted duel plays on; an unfinished one replays as Farlight's
    does (no scores, only the seats the opener's tokens hold)."""
    from farlight_web.limits import Limits, Rate

    limits = Limits(new_games=Rate(per_minute=1, burst=2), max_live_games=1)
    client = TestClient(make_app(data, allowed_hosts=["testserver"], limits=limits))
    created, mine, theirs = _two_humans(client)
    farlight = client.post("/api/games", json={"players": 2, "opponents": ["random"]})
    assert farlight.status_code == 201  # the second game of the burst evicts the duel
    assert list(client.app.state.tables.live) == [farlight.json()["id"]]
    refused = client.post("/api/games", json={"game": "duel", "players": 2})
    assert refused.status_code == 429 and "Retry-After" in refused.headers

    game = f"/api/games/{created['id']}"
    watched = client.get(game).json()
    assert watched["seat"] is None and watched["actions"] == [] and watched["view"] is None
    assert watched["text"].count("?") == 2
    assert client.get(game, headers=_bearer(farlight.json()["token"])).status_code == 403
    assert client.post(f"{game}/actions", json={"index": 1, "version": 0}).status_code == 401
    again = client.post(f"{game}/claim", json={"invite": created["invites"][0]["code"]})
    assert again.status_code == 403 and "already used" in again.json()["error"]
    assert _act(client, watched, 1, mine).status_code == 200  # evicted, yet it plays on
    unfinished = client.post("/api/replays", json={"file": created["record"]})
    assert unfinished.status_code == 200, unfinished.text
    shown = unfinished.json()
    assert shown["scores"] is None and shown["viewers"] == [] and shown["finished"] is False
    replay = f"/api/replays/{shown['id']}"
    assert client.get(f"{replay}?step=1&viewer=1").status_code == 403
    assert client.get(f"{replay}?step=1").json()["move"] == "P0 moved"


def test_a_failing_bot_is_reported_once_and_a_random_legal_move_stands_in(client) -> None:
    state = _new(client, players=3, opponents=["random"], seed=1)
    table = client.app.state.tables.get(state["id"])

    def broken(*_: Any) -> int:
        raise RuntimeError("seat 1 holds card 5")  # a detail that must never be sent

    table.bots[1].act = broken
    table.bots[2].act = lambda *_: 9  # an illegal index
    done = _act(client, state, 1, state["token"])
    assert done.status_code == 200, done.text
    assert done.json()["over"] and "card 5" not in done.text
    assert done.json()["bot_errors"] == [
        {"seat": 1, "agent": "random", "error": "raised RuntimeError; " + STOOD_IN},
        {"seat": 2, "agent": "random", "error": "returned an illegal action; " + STOOD_IN},
    ]
    record = json.loads((client.app.state.tables.folder / f"{state['id']}.json").read_text())
    assert [e["seat"] for e in record["bot_errors"]] == [1, 2] and verify_record(record)


STOOD_IN = "a random legal move was played when it failed"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"actions": [1, 7]}, "action 1 (7) is not legal"),
        ({"actions": [1, 0, 1]}, "action 2 after the end of the game"),
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"game_version": 9}, "a record of duel version 9"),
        ({"players": ["human", "heuristic"]}, "heuristic cannot play duel"),
    ],
)
def test_a_broken_duel_record_is_refused_in_one_line(data, change, message) -> None:
    """A saved duel that cannot be resumed is a 409 naming what is wrong (never the server's
    folders); one that does not replay is a 400 as a replay too."""
    client = TestClient(make_app(data, allowed_hosts=["testserver"]))
    created = _new(client, opponents=["random"])
    path = data / "games" / f"{created['id']}.json"
    record = {**json.loads(path.read_text()), "actions": [1, 0], "finished": False, **change}
    path.write_text(json.dumps(record))
    fresh = TestClient(make_app(data, allowed_hosts=["testserver"]))
    resumed = fresh.get(f"/api/games/{created['id']}", headers=_bearer(created["token"]))
    assert resumed.status_code == 409 and message in resumed.json()["error"]
    assert str(data) not in resumed.json()["error"]
    opened = fresh.post("/api/replays", json={"file": created["record"]})
    replays = "players" in change  # no bot is needed to replay it
    assert opened.status_code == (200 if replays else 400) and str(data) not in opened.text


def test_a_duels_record_uploads_and_replays_and_a_broken_one_is_refused(data) -> None:
    from farlight_web.limits import Limits, Rate

    limits = Limits(uploads=Rate(per_minute=0, burst=1))  # no limit: many uploads in a row
    client = TestClient(make_app(data, allowed_hosts=["testserver"], limits=limits))
    state = _new(client, opponents=["random"], seed=2)
    done = _act(client, state, 0, state["token"]).json()
    text = (data / done["record"]).read_text()
    sent = client.post("/api/replays/upload", content=text, headers=JSON)
    assert sent.status_code == 200, sent.text
    info = sent.json()
    assert info["game"] == "duel" and info["steps"] == 2 and info["scores"] == done["scores"]
    assert info["file"].startswith("uploads/")
    last = client.get(f"/api/replays/{info['id']}?step=2&viewer=1").json()
    assert last["text"] == done["text"] and last["move"] in ("P1: fold", "P1: stay")
    record = json.loads(text)
    for change, message in (
        ({"actions": [0, 5]}, "action 1 (5) is not legal"),
        ({"winners": [0, 1], "scores": [1.0, 1.0]}, "the record does not replay"),
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"players": ["x"] * 9}, "upload: not a valid platform-record file"),
    ):
        body = json.dumps({**record, **change})
        refused = client.post("/api/replays/upload", content=body, headers=JSON)
        assert refused.status_code == 400 and message in refused.json()["error"], refused.text


JSON = {"content-type": "application/json"}


def test_the_generic_tables_create_evict_and_rebuild_a_platform_game(data: Path) -> None:
    """farlight_web.tables.Tables with no game of its own (#50): a duel is created, evicted
    past the live limit, rebuilt from its saved record at the same decision, and played on;
    a table with no game named is refused, and an unknown id is GameNotFound."""
    from farlight_web.tables import GameNotFound, Tables

    tables = Tables(data, max_live=1)
    with pytest.raises(ValueError, match="name the game"):
        tables.create(["human", "random"], 0, 5, {}, None)
    first, token, _ = tables.create(["human", "random"], 0, 5, {"stakes": 2}, DUEL)
    other, _, _ = tables.create(["human", "random"], 0, 6, {}, DUEL)
    assert first.id not in tables.live and other.id in tables.live  # the oldest evicted
    game_id, version, legal = first.id, first.version, first.legal_indices(0)
    del first  # no request holds it: the next get rebuilds it from games/<id>.json
    gc.collect()
    assert game_id not in tables.loaded
    rebuilt = tables.get(game_id)
    assert rebuilt.version == version and rebuilt.legal_indices(0) == legal
    rebuilt.play(rebuilt.seats_of([token]), legal[0], version)
    assert rebuilt.game.is_over
    record = json.loads((data / "games" / f"{rebuilt.id}.json").read_text())
    verify_record(record)
    with pytest.raises(GameNotFound):
        tables.get("0123456789ab")
