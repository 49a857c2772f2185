"""Which opponents a browser may name (issue 9's trust, in the web surface): registered agents,
`ismcts@N` up to the server's bound, and saved policies inside `--data/policies` only. Nothing
else on the server's disk can be named, and no error reveals where files are or whether they
exist."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
from starlette.testclient import TestClient  # noqa: E402

from agents.farlight.policy import SHIPPED_POLICY  # noqa: E402
from farlight_env.records.record import load_record  # noqa: E402
from farlight_web.app import make_app  # noqa: E402
from farlight_web.bots import WEB_MAX_ITERATIONS  # noqa: E402


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def client(data: Path) -> TestClient:
    return TestClient(make_app(data, allowed_hosts=["testserver"]))


def _post(client: TestClient, opponents: list[str]) -> Any:
    return client.post("/api/games", json={"players": 2, "opponents": opponents, "seed": 4})


def test_a_policy_in_the_policies_folder_plays_and_resumes(client: TestClient, data: Path) -> None:
    pytest.importorskip("torch", reason="saved policies need the train extra")
    (data / "policies" / "club").mkdir(parents=True)
    shutil.copy(SHIPPED_POLICY, data / "policies" / "club" / "mine.pt")
    assert client.get("/api/options").json()["policies"] == ["club/mine.pt"]
    response = _post(client, ["club/mine.pt"])
    assert response.status_code == 201, response.text
    state = response.json()
    assert state["players"] == ["human", "club/mine.pt"]
    record = load_record(data / "games" / f"{state['id']}.json")
    assert record["players"] == ["human", "club/mine.pt"]  # no server path in the record
    again = TestClient(make_app(data, allowed_hosts=["testserver"])).get(
        f"/api/games/{state['id']}", headers={"authorization": f"Bearer {state['token']}"}
    )  # a restarted server
    assert again.status_code == 200 and again.json()["view"] == state["view"]


@pytest.mark.parametrize(
    "name",
    [
        str(SHIPPED_POLICY),  # exists, but outside the policies folder
        "../../" + SHIPPED_POLICY.name,
        "../games/x.pt",
        "/etc/passwd.pt",
        "missing.pt",
    ],
)
def test_a_policy_outside_the_folder_or_missing_is_refused_alike(
    client: TestClient, data: Path, name: str
) -> None:
    response = _post(client, [name])
    assert response.status_code == 400
    message = response.json()["error"]
    assert message.startswith(f"unknown opponent(s) {name}; choose from random, heuristic")
    assert "--data/policies (none yet)" in message
    assert str(data) not in message.replace(name, "")
    assert not (data / "games").exists() or not list((data / "games").iterdir())


def test_search_budgets_are_bounded(client: TestClient) -> None:
    assert _post(client, ["ismcts@3"]).status_code == 201
    response = _post(client, [f"ismcts@{WEB_MAX_ITERATIONS + 1}"])
    assert response.status_code == 400
    assert f"at most ismcts@{WEB_MAX_ITERATIONS}" in response.json()["error"]
    assert client.get("/api/options").json()["max_ismcts_iterations"] == WEB_MAX_ITERATIONS


def test_a_corrupt_policy_is_refused_without_the_server_path(
    client: TestClient, data: Path
) -> None:
    (data / "policies").mkdir(parents=True)
    (data / "policies" / "bad.pt").write_bytes(b"not a policy at all")
    response = _post(client, ["bad.pt"])
    assert response.status_code == 400
    message = response.json()["error"]
    assert "bad.pt" in message
    assert str(data.resolve()) not in message and str(data) not in message


def test_a_saved_game_that_cannot_resume_is_named_without_the_server_path(
    client: TestClient, data: Path
) -> None:
    state = _post(client, ["random"]).json()
    path = data / "games" / f"{state['id']}.json"
    record = json.loads(path.read_text())
    record["players"][1] = "/somewhere/else.pt"  # edited on disk: no longer a web opponent
    path.write_text(json.dumps(record))
    response = TestClient(make_app(data, allowed_hosts=["testserver"])).get(
        f"/api/games/{state['id']}"
    )
    assert response.status_code == 409
    message = response.json()["error"]
    assert f"games/{state['id']}.json" in message
    assert str(data) not in message


@pytest.mark.parametrize(
    ("name", "content", "needle"),
    [
        ("x/bad.json", "{not json", "x/bad.json: not valid JSON"),
        ("x/obj.json", '{"a": 1}', "x/obj.json: not a Farlight record"),
        ("x/nope.json", None, "x/nope.json: no such file"),
        ("x", None, "x: is a directory"),
    ],
)
def test_replay_errors_name_the_file_as_the_client_did(
    client: TestClient, data: Path, name: str, content: str | None, needle: str
) -> None:
    (data / "x").mkdir(parents=True, exist_ok=True)
    if content is not None:
        (data / name).write_text(content)
    response = client.post("/api/replays", json={"file": name})
    assert response.status_code == 400
    message = response.json()["error"]
    assert message.startswith(needle), message
    assert str(data) not in message and str(data.resolve()) not in message
