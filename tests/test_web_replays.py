"""Open replays in bounded memory (issue 53): a replay keeps checkpoints, not every state, and
shows each step as the full replay does; the longest game a replay accepts holds less than
REPLAY_BYTES_BOUND; open replays are bounded per client and in all, and opening them is
rate limited per client."""

from __future__ import annotations

import gc
import random
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
from starlette.testclient import TestClient  # noqa: E402

from farlight_env.game import FarlightGame  # noqa: E402
from farlight_env.game.facts import MAX_GRID_SIZE  # noqa: E402
from farlight_env.records.record import (  # noqa: E402
    build_record,
    record_actions,
    replay_record,
    save_record,
)
from farlight_env.view.model import board_view, to_builtins  # noqa: E402
from farlight_web.app import make_app  # noqa: E402
from farlight_web.farlight import replays  # noqa: E402
from farlight_web.farlight.moves import move_label  # noqa: E402
from farlight_web.farlight.replays import (  # noqa: E402
    MAX_CHECKPOINTS,
    MAX_REPLAY_STEPS,
    REPLAY_BYTES_BOUND,
    Replay,
)
from farlight_web.limits import Limits, Rate  # noqa: E402

LONGEST = {"num_players": 5, "grid_size": MAX_GRID_SIZE, "max_rounds": 10_000}


def _record(steps: int, config: dict[str, Any] | None = None, seed: int = 1) -> dict[str, Any]:
    """A game of `steps` actions (always the last legal one: the game goes on), as a record."""
    config = config or LONGEST
    game = FarlightGame(seed=seed, **config)
    while not game.is_over and len(game.history) < steps:
        game.apply(game.legal_actions()[-1])
    return build_record(game, ["random"] * config["num_players"], seed, config, finished=False)


def test_a_replay_keeps_checkpoints_and_shows_every_step_as_the_full_replay() -> None:
    record = _record(700, {"num_players": 3, "grid_size": 7, "max_rounds": 100})
    replay = Replay(record, "game.json")
    states, actions = replay_record(record), record_actions(record)
    assert replay.steps == len(states) - 1 == 700
    assert len(replay.checkpoints) <= MAX_CHECKPOINTS + 1
    order = list(range(replay.steps + 1))
    random.Random(3).shuffle(order)
    for step in [*order[:60], 699, 700, 0, 1, 2, 1]:  # backwards and forwards
        for viewer in (None, 1):
            shown = replay.at(step, viewer)
            assert shown["view"] == to_builtins(board_view(states[step], viewer))
            if step:
                before = states[step - 1]
                label = move_label(before, before.current_player, actions[step - 1], viewer)
                assert shown["move"] == label


def test_the_longest_replay_holds_less_than_its_documented_bound() -> None:
    """5 players, the largest grid, MAX_REPLAY_STEPS actions: every state kept would be
    hundreds of MB (each holds the history before it); the replay holds a few MB."""
    record = _record(MAX_REPLAY_STEPS)
    assert len(record["actions"]) == MAX_REPLAY_STEPS
    gc.collect()
    tracemalloc.start()
    try:
        replay = Replay(record, "long.json")
        for step in (MAX_REPLAY_STEPS, MAX_REPLAY_STEPS // 2, 1, MAX_REPLAY_STEPS - 1):
            replay.at(step, 0)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held < REPLAY_BYTES_BOUND, f"{held / 2**20:.1f} MiB"
    assert len(replay.checkpoints) <= MAX_CHECKPOINTS + 1


def test_a_record_longer_than_a_replay_takes_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(replays, "MAX_REPLAY_STEPS", 50)
    data = tmp_path / "data"
    save_record(_record(60, {"num_players": 2, "grid_size": 5, "max_rounds": 50}), data / "g.json")
    client = TestClient(make_app(data), base_url="http://localhost")
    response = client.post("/api/replays", json={"file": "g.json"})
    assert response.status_code == 400 and "at most 50" in response.json()["error"]


# ---------------------------------------------------------------------------------- limits
def _served(tmp_path: Path, files: int, **limits: Any) -> tuple[Any, Path]:
    data = tmp_path / "data"
    small = {"num_players": 2, "grid_size": 5, "max_rounds": 3}
    for k in range(files):
        save_record(_record(40, small, seed=k), data / f"g{k}.json")
    return make_app(data, limits=Limits(**limits)), data


def _client(app: Any, address: str) -> TestClient:
    return TestClient(app, base_url="http://localhost", client=(address, 40000))


def _open(client: TestClient, k: int) -> str:
    response = client.post("/api/replays", json={"file": f"g{k}.json"})
    assert response.status_code == 200, response.text
    return response.json()["id"]


def _is_open(client: TestClient, rid: str) -> bool:
    return client.get(f"/api/replays/{rid}?step=1").status_code == 200


def test_a_client_keeps_at_most_its_share_of_open_replays(tmp_path: Path) -> None:
    app, _ = _served(tmp_path, 6, replays_per_client=3, open_replays=10)
    mine, theirs = _client(app, "10.0.0.1"), _client(app, "10.0.0.2")
    kept = _open(theirs, 5)
    ids = [_open(mine, k) for k in range(5)]
    assert [_is_open(mine, rid) for rid in ids] == [False, False, True, True, True]
    assert _is_open(theirs, kept)  # another client's replay stays open


def test_open_replays_are_bounded_in_all(tmp_path: Path) -> None:
    app, _ = _served(tmp_path, 4, replays_per_client=2, open_replays=3)
    ids = [_open(_client(app, f"10.0.0.{k}"), k) for k in range(4)]
    assert [_is_open(_client(app, "10.0.0.9"), rid) for rid in ids] == [False, True, True, True]


def test_opening_replays_is_rate_limited_per_client(tmp_path: Path) -> None:
    app, _ = _served(tmp_path, 1, replays=Rate(per_minute=1, burst=2))
    mine = _client(app, "10.0.0.1")
    assert [mine.post("/api/replays", json={"file": "g0.json"}).status_code for _ in range(3)] == [
        200,
        200,
        429,
    ]
    refused = mine.post("/api/replays", json={"file": "g0.json"})
    assert refused.headers["retry-after"] and "too many" in refused.json()["error"]
    assert (
        _client(app, "10.0.0.2").post("/api/replays", json={"file": "g0.json"}).status_code == 200
    )
    loopback = [_client(app, f"127.0.0.{k}") for k in (1, 2, 3)]
    codes = [c.post("/api/replays", json={"file": "g0.json"}).status_code for c in loopback]
    assert codes == [200, 200, 429]  # every loopback address is one client
