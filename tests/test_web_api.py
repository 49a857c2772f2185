"""The web API through Starlette's test client: games, errors, hidden information, resuming,
replays and the leaderboard (issue 15). No browser needed; these always run with the web extra."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
from starlette.testclient import TestClient  # noqa: E402
from test_render import _permute_tiles  # noqa: E402

from farlight_env.game import Phase  # noqa: E402
from farlight_env.records.record import load_record, verify_record  # noqa: E402
from farlight_web.app import make_app  # noqa: E402
from farlight_web.schemas import MAX_BODY_BYTES  # noqa: E402


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "data"


def _app(data: Path, **kw: Any) -> Any:
    return make_app(data, allowed_hosts=["testserver"], **kw)


@pytest.fixture
def client(data: Path) -> TestClient:
    return TestClient(_app(data))


def _hold(client: TestClient, token: str) -> None:
    """The client sends `token` with every request from now on (besides those it holds)."""
    held = client.headers.get("authorization", "Bearer").split()[1:]
    client.headers["authorization"] = " ".join(["Bearer", *held, token])


def _new(client: TestClient, **body: Any) -> dict[str, Any]:
    body = {"players": 2, "seat": 0, "opponents": ["heuristic"], "seed": 11, **body}
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    state = response.json()
    _hold(client, state["token"])
    return state


def _act(client: TestClient, state: dict[str, Any], index: int, **kw: Any) -> Any:
    body = {"index": index, "version": state["version"]}
    return client.post(f"/api/games/{state['id']}/actions", json=body, **kw)


def _play_first_legal(client: TestClient, game_id: str, limit: int = 10_000) -> dict[str, Any]:
    """Play the first legal action until the end (or `limit` decisions); the last state."""
    state = client.get(f"/api/games/{game_id}").json()
    for _ in range(limit):
        if state["over"]:
            break
        response = _act(client, state, state["actions"][0]["index"])
        assert response.status_code == 200, response.text
        state = response.json()
    return state


def test_health(client: TestClient) -> None:
    assert client.get("/api/health").json() == {"status": "ok"}


def test_a_game_plays_to_the_end_and_is_saved_as_a_record(client: TestClient, data: Path) -> None:
    state = _new(client, players=3, seat=1, opponents=["heuristic", "random"])
    assert state["your_turn"] and state["seat"] == 1
    assert state["players"] == ["heuristic", "human", "random"]
    assert state["view"]["viewer"] == 1
    assert all(set(a) >= {"index", "label"} for a in state["actions"])
    assert all(a["label"] for a in state["actions"])
    final = _play_first_legal(client, state["id"])
    assert final["over"] and final["actions"] == []
    assert len(final["scores"]) == 3 and final["winners"]
    assert final["view"]["final"]["winners"] == final["winners"]
    record = load_record(data / "games" / f"{state['id']}.json")
    assert record["finished"] is True and record["human_seat"] == 1
    assert verify_record(record).scores() == final["scores"]


def test_opponent_moves_come_one_by_one_without_hidden_tile_values(client: TestClient) -> None:
    state = _new(client, players=3, seat=0)
    for _ in range(5):  # a turn may hold several decisions (two tiles in the first pass)
        state = _act(client, state, state["actions"][0]["index"]).json()
        moves = state["moves"]
        assert moves[0]["seat"] == 0  # the human's own move first, then the bots'
        if len(moves) > 1:
            break
    bot_bids = [m for m in moves if m["seat"] != 0 and "placed" in m["label"]]
    assert bot_bids and all("face-down tile" in m["label"] for m in bot_bids)
    assert all(m["view"]["viewer"] == 0 for m in moves)


def _state_without_moves(client: TestClient, game_id: str) -> dict[str, Any]:
    return client.get(f"/api/games/{game_id}").json()


@pytest.mark.parametrize(
    ("body", "status", "needle"),
    [
        ({"index": 999_999, "version": 0}, 422, "not legal"),
        ({"index": "3", "version": 0}, 400, "Expected `int`, got `str`"),
        ({"index": True, "version": 0}, 400, "Expected `int`, got `bool`"),
        ({"index": -1, "version": 0}, 400, "$.index"),
        ({"idx": 3, "version": 0}, 400, "idx"),
        ({"version": 0}, 400, "index"),
        ({"index": 3}, 400, "version"),
        ({"index": 3, "version": "0"}, 400, "$.version"),
        ({"index": 2**40, "version": 0}, 400, "$.index"),
        ([3], 400, "Expected `object`"),
    ],
)
def test_a_bad_action_is_refused_and_the_game_is_unchanged(
    client: TestClient, body: Any, status: int, needle: str
) -> None:
    state = _new(client)
    before = _state_without_moves(client, state["id"])
    response = client.post(f"/api/games/{state['id']}/actions", json=body)
    assert response.status_code == status
    assert needle in response.json()["error"]
    assert _state_without_moves(client, state["id"]) == before


def test_malformed_oversized_and_empty_bodies_are_refused(client: TestClient) -> None:
    state = _new(client)
    url = f"/api/games/{state['id']}/actions"
    before = _state_without_moves(client, state["id"])
    json_type = {"content-type": "application/json"}
    bad = client.post(url, content=b'{"index": 1', headers=json_type)
    assert bad.status_code == 400 and "malformed JSON" in bad.json()["error"]
    empty = client.post(url, content=b"", headers=json_type)
    assert empty.status_code == 400 and "empty request body" in empty.json()["error"]
    huge = client.post(
        url, content=b" " * (MAX_BODY_BYTES + 1) + b'{"index": 0}', headers=json_type
    )
    assert huge.status_code == 413 and "too large" in huge.json()["error"]
    assert _state_without_moves(client, state["id"]) == before


def test_unknown_games_and_routes_are_404_json(client: TestClient) -> None:
    for url in ("/api/games/0123456789ab", "/api/games/../../etc"):
        response = client.get(url)
        assert response.status_code == 404 and "error" in response.json()
    response = client.post("/api/games/0123456789ab/actions", json={"index": 0, "version": 0})
    assert response.status_code == 404 and "unknown game" in response.json()["error"]


def test_acting_after_the_end_is_refused(client: TestClient) -> None:
    state = _new(client)
    final = _play_first_legal(client, state["id"])
    response = _act(client, final, 0)
    assert response.status_code == 409 and "over" in response.json()["error"]
    assert _state_without_moves(client, state["id"])["scores"] == final["scores"]


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"players": 6}, "$.players"),
        ({"players": 2, "seat": 2}, "seat must be 0..1"),
        ({"players": 3, "humans": [0, 3]}, "seat must be 0..2"),
        ({"players": 3, "seat": 1, "humans": [0, 2]}, "must be one of the human seats"),
        ({"players": 3, "humans": [0, 1], "opponents": ["a", "b"]}, "2 agents for 1"),
        ({"players": 3, "humans": [0, 1], "opponents": ["random"], "seed": 3}, "several humans"),
        ({"grid_size": "7"}, "$.grid_size"),
        ({"opponents": ["x" * 300]}, "$.opponents"),
        ({"opponents": ["x" * 190 + ".pt"]}, "unknown opponent(s) xxx"),
        ({"players": 3, "opponents": ["heuristic", "random", "random"]}, "3 agents for 2"),
        ({"opponents": ["nobody"]}, "unknown opponent(s) nobody"),
        ({"opponents": ["human"]}, "unknown opponent(s) human"),
        ({"opponents": ["missing.pt"]}, "missing.pt"),
        ({"rule_options": {"token_rounding": "sideways"}}, "token_rounding"),
        ({"rule_options": {"no_such_rule": True}}, "no_such_rule"),
        ({"max_rounds": 0}, "max_rounds"),
        ({"seed": -1}, "$.seed"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_a_bad_new_game_is_refused_naming_the_problem(
    client: TestClient, data: Path, body: dict[str, Any], needle: str
) -> None:
    response = client.post("/api/games", json=body)
    assert response.status_code == 400, response.text
    assert needle in response.json()["error"]
    assert not list((data / "games").glob("*.json"))


def test_rule_options_reach_the_game(client: TestClient, data: Path) -> None:
    state = _new(client, rule_options={"token_rounding": "down", "edge_connectors": "blocked"})
    record = load_record(data / "games" / f"{state['id']}.json")
    assert record["config"]["rule_options"]["token_rounding"] == "down"
    assert record["config"]["rule_options"]["edge_connectors"] == "blocked"


def _without_keys(record: dict[str, Any]) -> dict[str, Any]:
    """The record without the seats' token hashes (random per game)."""
    return {k: v for k, v in record.items() if k != "seat_keys"}


def test_same_seed_and_same_choices_give_the_same_record(client: TestClient, data: Path) -> None:
    records = []
    for _ in range(2):
        state = _new(client, players=3, opponents=["heuristic", "random"], seed=5)
        _play_first_legal(client, state["id"])
        records.append(json.loads((data / "games" / f"{state['id']}.json").read_text()))
    assert _without_keys(records[0]) == _without_keys(records[1])


def test_a_game_resumes_after_a_server_restart_as_if_never_stopped(data: Path) -> None:
    first = TestClient(_app(data))
    whole = _new(first, players=3, opponents=["heuristic", "random"], seed=9)
    _play_first_legal(first, whole["id"])
    cut = _new(first, players=3, opponents=["heuristic", "random"], seed=9)
    half = _play_first_legal(first, cut["id"], limit=12)
    assert not half["over"]
    second = TestClient(_app(data))  # a new server: nothing in memory
    second.headers["authorization"] = first.headers["authorization"]
    resumed = second.get(f"/api/games/{cut['id']}").json()
    assert {k: v for k, v in resumed.items()} == {
        k: v for k, v in _state_without_moves(first, cut["id"]).items()
    }
    _play_first_legal(second, cut["id"])
    games = data / "games"
    a = json.loads((games / f"{whole['id']}.json").read_text())
    b = json.loads((games / f"{cut['id']}.json").read_text())
    assert _without_keys(a) == _without_keys(b)


def _scramble(game: Any, seat: int, seed: int) -> None:
    """Change what `seat` may not know in the live game: other seats' tile values (between
    hand and board, while bidding), the deck order, the face-down awards' order."""
    rng = np.random.default_rng(seed)
    if game.phase is Phase.BIDDING:
        for other in range(game.num_players):
            if other != seat:
                _permute_tiles(game, other, rng)
    rng.shuffle(game.deck)
    game.awards_down = [game.awards_down[i] for i in rng.permutation(len(game.awards_down))]
    game.invalidate_cache()


def test_r_bid_5_the_api_never_shows_hidden_facts(data: Path) -> None:
    """Opponents' face-down tiles, the deck order and the face-down awards never change what
    GET /api/games/{id} sends: the same JSON before and after they are changed."""
    app = _app(data)
    client = TestClient(app)
    state = _new(client, players=4, seat=2, opponents=["random"], seed=21)
    checked = hidden_bids = 0
    for k in range(40):
        before = client.get(f"/api/games/{state['id']}").json()
        if before["over"]:
            break
        game = app.state.tables.get(state["id"]).game
        truth = (list(game.deck), list(game.awards_down), [list(b) for b in game.bids])
        hands = [list(h) for h in game.hands]
        _scramble(game, seat=2, seed=k)
        hidden_bids += [list(b) for b in game.bids] != truth[2]
        assert game.deck != truth[0] or len(truth[0]) < 2
        assert client.get(f"/api/games/{state['id']}").json() == before
        checked += 1
        game.deck, game.awards_down, game.bids = truth  # the truth back: the record must replay
        game.hands = hands
        game.invalidate_cache()
        response = _act(client, before, before["actions"][-1]["index"])
        assert response.status_code == 200
    assert checked >= 5 and hidden_bids > 0


# ---------------------------------------------------------------------------------- move events
def _first_legal_until(client: TestClient, state: dict[str, Any], version: int) -> dict[str, Any]:
    while state["version"] < version:
        state = _act(client, state, state["actions"][0]["index"]).json()
    return state


def test_moves_carry_the_bid_results_and_discards_they_set_off(client: TestClient) -> None:
    """Seed 6, three players, P0 playing its first legal action: the round's last tile (P2's,
    version 15) flips every tile and settles each target; P1 then cannot crew the part it won
    for 4 and the engine discards it (version 17). Each move says so, with seats, tiles and
    prices as data and the terminal's words as text."""
    state = _new(client, players=3, seat=0, seed=6)
    _first_legal_until(client, state, 20)
    moves = client.get(f"/api/games/{state['id']}?since=0&views=0").json()["moves"]
    assert all("view" not in m for m in moves)  # views=0: labels and events only
    with_events = {m["version"]: m for m in moves if m["events"]}
    assert sorted(with_events) == [15, 17]
    last_bid = with_events[15]
    assert last_bid["label"] == "P2 placed a face-down tile on Refit"
    results = {e["target"]: e for e in last_bid["events"]}
    assert all(e["type"] == "bid_result" for e in results.values()) and len(results) == 9
    assert results["part space 6 (Symbiont Incubator)"] == {
        "type": "bid_result",
        "slot": 6,
        "target": "part space 6 (Symbiont Incubator)",
        "kind": "part",
        "bids": [
            {"seat": 1, "tiles": [4], "crew": 0, "total": 4},
            {"seat": 2, "tiles": [2], "crew": 1, "total": 3},
        ],
        "winner": 1,
        "price": 4,
        "order": [],
        "text": "part space 6 (Symbiont Incubator): P1 4 (=4), P2 2 +1 crew (=3) → P1 wins it "
        "for 4",
        "you": False,
    }
    mine = results["part space 0 (Docking Clamp)"]
    assert mine["winner"] == 0 and mine["price"] == 10 and mine["you"]  # P0's own win
    assert results["Discover (+1 science)"]["text"].endswith("→ P1 wins it for 2")
    assert results["Refit (remove own parts)"]["winner"] is None  # a lone 0: no winner
    [discard] = with_events[17]["events"]
    assert discard == {
        "type": "auto_discard",
        "seat": 1,
        "part": "Symbiont Incubator",
        "cost": 3,
        "crew": 2,
        "reason": "crew",
        "text": "P1's Symbiont Incubator is discarded automatically: it costs 3 crew and P1 "
        "has 2 (R-INST-5)",
        "you": False,
    }
    # a spectator reads the same facts, none marked as its own
    watched = TestClient(client.app).get(f"/api/games/{state['id']}?since=14&views=0").json()
    assert [e["text"] for e in watched["moves"][0]["events"]] == [
        e["text"] for e in last_bid["events"]
    ]
    assert not any(e["you"] for m in watched["moves"] for e in m["events"])
    # the replay's steps carry the same events
    opened = client.post("/api/replays", json={"file": state["record"]}).json()
    step = client.get(f"/api/replays/{opened['id']}?step=15&viewer=0").json()
    assert step["events"] == last_bid["events"]
    assert client.get(f"/api/replays/{opened['id']}?step=14&viewer=0").json()["events"] == []


def test_after_a_restart_the_last_moves_and_the_options_are_still_sent(data: Path) -> None:
    """A reloaded page asks for the moves since 0: a restarted server rebuilds them (labels and
    events) from the record, as the first server had them; the state names the game's options."""
    first = TestClient(_app(data))
    state = _new(first, players=3, seed=3, max_rounds=4, rule_options={"token_rounding": "down"})
    _first_legal_until(first, state, 20)
    url = f"/api/games/{state['id']}?since=0&views=0"
    before = first.get(url).json()
    assert len(before["moves"]) >= 20 and before["moves"][0]["version"] == 1
    second = TestClient(_app(data))
    second.headers["authorization"] = first.headers["authorization"]
    after = second.get(url).json()
    assert after["moves"] == before["moves"]
    assert after["config"]["max_rounds"] == 4 and after["config"]["num_players"] == 3
    assert after["config"]["rule_options"]["token_rounding"] == "down"
    assert after["players"] == ["human", "heuristic", "heuristic"] and after["seat"] == 0


def _tied_record(data: Path) -> tuple[str, str, dict[str, Any]]:
    """A finished 3-seat browser game (every seat a human, random choices) that ends in a tie
    broken by the face-down awards, saved in DATA/games; its id, seat 0's token, the tiebreak."""
    import random

    from farlight_env.env.aec import raw_env
    from farlight_env.records.record import build_record, save_record
    from farlight_env.view.events import final_tiebreak
    from farlight_web.seats import token_hash

    for env_seed in range(300):
        env = raw_env(num_players=3)
        env.reset(seed=env_seed)
        game = env.game
        rng = random.Random(env_seed)
        while not game.is_over:
            game.apply(rng.choice(game.legal_actions()))
        tiebreak = final_tiebreak(game)
        if tiebreak is not None and len(tiebreak.winners) == 1:
            break
    else:  # pragma: no cover
        pytest.fail("no tie broken by the awards in the seeds tried")
    game_id, token = "00000000a1e5", "00000000a1e5.secret"
    keys = [{"token": token_hash(token)}, {}, {}]
    record = build_record(
        game, ["human"] * 3, env_seed, {"num_players": 3}, human_seat=0, seat_keys=keys,
        finished=True,
    )  # fmt: skip
    save_record(record, data / "games" / f"{game_id}.json")
    return game_id, token, msgspec.to_builtins(tiebreak)


def test_r_end_4_the_game_over_state_and_the_last_step_say_how_the_tie_was_broken(
    data: Path,
) -> None:
    game_id, token, tiebreak = _tied_record(data)
    client = TestClient(_app(data))
    over = client.get(f"/api/games/{game_id}", headers={"authorization": f"Bearer {token}"}).json()
    assert over["over"] and over["tiebreak"] == tiebreak["text"]
    assert "face-down awards broke the tie" in over["tiebreak"] and "R-END-4" in over["tiebreak"]
    assert over["winners"] == tiebreak["winners"]
    opened = client.post("/api/replays", json={"file": f"games/{game_id}.json"}).json()
    last = client.get(f"/api/replays/{opened['id']}?step={opened['steps']}").json()
    assert last["events"][-1] == {**tiebreak, "you": False}
    seen_by_tied = client.get(
        f"/api/replays/{opened['id']}?step={opened['steps']}&viewer={tiebreak['tied'][0]}"
    ).json()
    assert seen_by_tied["events"][-1]["you"]


def test_no_tiebreak_is_named_while_playing_or_without_a_tie(client: TestClient) -> None:
    state = _new(client, seed=2)
    assert "tiebreak" not in state  # only once the game is over
    final = _play_first_legal(client, state["id"])
    top = final["scores"].count(max(final["scores"]))
    assert final["over"] and (final["tiebreak"] is None) == (top == 1)


# ---------------------------------------------------------------------------------- replays
def test_replay_steps_any_seat_and_hides_other_seats_tiles(client: TestClient) -> None:
    state = _new(client, players=3, opponents=["heuristic", "random"], seed=4)
    _play_first_legal(client, state["id"])
    opened = client.post("/api/replays", json={"file": state["record"]})
    assert opened.status_code == 200, opened.text
    info = opened.json()
    assert info["players"] == ["human", "heuristic", "random"]
    assert info["rounds"][0] == {"round": 1, "step": 0}
    last = client.get(f"/api/replays/{info['id']}?step={info['steps']}").json()
    assert last["view"]["final"] is not None and last["view"]["viewer"] is None
    # early in round 1, P1's tiles on the board: face down for P0 and spectators, not for P1
    for step in range(1, 30):
        seen = {
            v: client.get(f"/api/replays/{info['id']}?step={step}&viewer={v}").json()
            for v in ("0", "1")
        }
        spectator = client.get(f"/api/replays/{info['id']}?step={step}").json()
        tiles = {
            v: [
                t["value"]
                for space in s["view"]["station"]
                for g in space["bids"]
                if g["seat"] == 1
                for t in g["tiles"]
            ]
            for v, s in {**seen, "spectator": spectator}.items()
        }
        if tiles["1"]:
            assert None not in tiles["1"]
            assert set(tiles["0"]) == {None} and set(tiles["spectator"]) == {None}
            assert "face-down" in (seen["0"]["move"] or "") or step > 1
            break
    else:
        pytest.fail("P1 never bid on a part space early in the game")
    for query, needle in (
        (f"step={info['steps'] + 1}", "step must be"),
        ("viewer=7", "viewer must be"),
        ("step=x", "non-negative integer"),
    ):
        response = client.get(f"/api/replays/{info['id']}?{query}")
        assert response.status_code == 400 and needle in response.json()["error"]
    assert client.get("/api/replays/nope").status_code == 404


def test_replay_refuses_files_outside_data_and_bad_uploads(client: TestClient) -> None:
    outside = client.post("/api/replays", json={"file": "../../../etc/passwd"})
    assert outside.status_code == 400 and "outside the data folder" in outside.json()["error"]
    missing = client.post("/api/replays", json={"file": "nope.json"})
    assert missing.status_code == 400 and "no such file" in missing.json()["error"]
    json_type = {"content-type": "application/json"}
    junk = client.post("/api/replays/upload", content=b"not json", headers=json_type)
    assert junk.status_code == 400 and "not valid JSON" in junk.json()["error"]
    foreign = client.post("/api/replays/upload", content=b'{"format": "chess"}', headers=json_type)
    assert foreign.status_code == 400 and "not a Farlight record" in foreign.json()["error"]


def test_an_uploaded_record_replays(client: TestClient, data: Path) -> None:
    state = _new(client, seed=2)
    _play_first_legal(client, state["id"])
    body = (data / "games" / f"{state['id']}.json").read_bytes()
    response = client.post(
        "/api/replays/upload", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 200, response.text
    assert response.json()["steps"] > 10 and response.json()["file"].startswith("uploads/")


DEEP = "[" * 100_000 + "]" * 100_000


def test_deeply_nested_files_and_uploads_are_refused_not_a_server_error(data: Path) -> None:
    """JSON nested 100,000 levels (a RecursionError in any parser) is a 400 for an upload or
    an opened file, and a file in --data never breaks the record list or the leaderboard."""
    (data / "j").mkdir(parents=True)
    (data / "deep.json").write_text(DEEP)
    (data / "j" / "games.jsonl").write_text(DEEP + "\n")
    (data / "e").mkdir()
    (data / "e" / "scorecard.json").write_text(f'{{"extra": {DEEP}}}')
    (data / "good.json").write_text(json.dumps({"format": "farlight-record", "players": ["a"]}))
    client = TestClient(_app(data), raise_server_exceptions=False)
    json_type = {"content-type": "application/json"}
    upload = client.post("/api/replays/upload", content=DEEP.encode(), headers=json_type)
    assert upload.status_code == 400 and "expected a JSON object" in upload.json()["error"]
    deep_field = f'{{"format": "farlight-record", "actions": {DEEP}}}'.encode()
    upload = client.post("/api/replays/upload", content=deep_field, headers=json_type)
    assert upload.status_code == 400 and "nested too deeply" in upload.json()["error"]
    for file, game in (("deep.json", None), ("j/games.jsonl", 0)):
        opened = client.post("/api/replays", json={"file": file, "game": game})
        assert opened.status_code == 400 and "nested too deeply" in opened.json()["error"], file
    records = client.get("/api/records")
    assert records.status_code == 200 and [r["file"] for r in records.json()] == ["good.json"]
    board = client.get("/api/leaderboard")
    assert board.status_code == 200, board.text
    errors = [row["error"] for kind in ("tournaments", "scorecards") for row in board.json()[kind]]
    assert len(errors) == 2 and all("nested too deeply" in e for e in errors), errors


# ---------------------------------------------------------------------------------- leaderboard
SCORECARD = {
    "protocol": "farlight-eval-v1",
    "agent": "heuristic",
    "cells": [
        {
            "players": 2,
            "opponent": "random",
            "games": 40,
            "wins": 38,
            "win_rate": 0.95,
            "ci_low": 0.83,
            "ci_high": 0.99,
            "fair_share": 0.5,
            "mean_margin": 31.5,
        }
    ],
    "rating": {"mu": 30.1, "sigma": 1.2},
    "extra_field_from_a_newer_version": [1, 2, 3],
}


def test_leaderboard_lists_tournaments_and_scorecards_with_replay_links(
    client: TestClient, data: Path
) -> None:
    from evaluation.tournament import run_tournament, write_results

    result = run_tournament(["random", "heuristic"], num_players=2, games=4, seed=1, progress=False)
    write_results(result, data / "tour")
    (data / "eval").mkdir(parents=True)
    (data / "eval" / "scorecard.json").write_text(json.dumps(SCORECARD))
    (data / "quick").mkdir()
    (data / "quick" / "scorecard.json").write_text(json.dumps({**SCORECARD, "quick": True}))
    (data / "broken").mkdir()
    (data / "broken" / "scorecard.json").write_text(json.dumps({"protocol": "x", "agent": 3}))
    board = client.get("/api/leaderboard").json()
    [tour] = board["tournaments"]
    assert tour["file"] == "tour/results.json" and tour["total_games"] == 4
    assert tour["num_players"] == 2 and tour["seed"] == "1" and tour["sealed"] is False  # titles
    assert {row["agent"] for row in tour["summary"]} == {"random", "heuristic"}
    assert all(0 <= r["win_low"] <= r["win_rate"] <= r["win_high"] <= 1 for r in tour["summary"])
    assert all(isinstance(r["mu"], float) for r in tour["summary"])
    cards = {c["file"]: c for c in board["scorecards"]}
    assert cards["eval/scorecard.json"]["cells"][0]["win_rate"] == 0.95
    assert cards["eval/scorecard.json"]["rating"] == {"mu": 30.1, "sigma": 1.2}
    assert cards["eval/scorecard.json"]["quick"] is False  # no "quick": a full evaluation
    assert cards["quick/scorecard.json"]["quick"] is True  # farlight evaluate --quick
    assert "error" in cards["broken/scorecard.json"]
    game = tour["games"][2]
    opened = client.post("/api/replays", json={"file": tour["file"], "game": game["index"]})
    assert opened.status_code == 200 and opened.json()["players"] == game["players"]
    no_game = client.post("/api/replays", json={"file": tour["file"]})
    assert no_game.status_code == 400 and "--game" in no_game.json()["error"]


def test_a_tournament_journal_in_progress_is_rated_and_replayable(
    client: TestClient, data: Path
) -> None:
    from evaluation.tournament import run_tournament

    run_tournament(["random", "heuristic"], 2, games=4, seed=2, progress=False, out_dir=data / "j")
    (data / "j" / "results.json").unlink(missing_ok=True)
    [tour] = client.get("/api/leaderboard").json()["tournaments"]
    assert tour["kind"] == "journal" and tour["total_games"] == 4
    assert tour["seed"] is None  # the run's seed deals the games to come: not shown
    opened = client.post("/api/replays", json={"file": tour["file"], "game": 1})
    assert opened.status_code == 200, opened.text


def test_the_page_and_its_scripts_are_served(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and "board.js" in page.text
    for name in ("board.js", "app.js", "style.css"):
        assert client.get(f"/static/{name}").status_code == 200
    options = client.get("/api/options").json()
    assert "heuristic" in options["agents"] and options["players"] == [2, 5]


def test_the_rules_page_the_first_page_links_is_served_as_text(
    client: TestClient, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue #48: the page links /rules, the source tree's docs/rules.md as plain text; an
    install without it (a wheel) gets a 404 saying where the page is."""
    from farlight_env.tools.rules_page import rules_path

    page = client.get("/rules")
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/plain; charset=utf-8"
    assert page.text == rules_path().read_text(encoding="utf-8")
    assert "R-BID-1" in page.text
    assert 'href="/rules"' in client.get("/").text
    monkeypatch.setattr(
        "farlight_web.farlight.routes.rules_path", lambda: tmp_path / "no" / "rules.md"
    )
    missing = client.get("/rules")
    assert missing.status_code == 404 and "docs/rules.md" in missing.json()["error"]
