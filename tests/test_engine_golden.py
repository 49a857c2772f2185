"""Golden games: the engine and the env produce, byte for byte, what they produced before the
state declaration and the split of game.py by phase (issue #27).

For a few seeds, player counts and rule options, random legal play through the PettingZoo env
is recorded: every action index, the SHA-256 of every observation and mask, of the engine's
`to_json` after every step, the full saved state at a few points, a game record, and that the
saved files still load and save to the same text. Regenerate only when a change of behaviour
is intended:

    python -m tests.test_engine_golden --write
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from farlight_env import farlight_v0
from farlight_env.game import FarlightGame
from farlight_env.records.record import build_record

DATA = Path(__file__).parent / "data" / "golden"
#: (name, players, seed, game options)
CASES: tuple[tuple[str, int, int, dict[str, Any]], ...] = (
    ("p2_s0", 2, 0, {}),
    ("p3_s1", 3, 1, {"random_first_player": True}),
    ("p4_s2", 4, 2, {}),
    ("p5_s3", 5, 3, {"grid_size": 9}),
    (
        "p3_s4_options",
        3,
        4,
        {
            "rule_options": {
                "lone_zero_mission_chance": False,
                "temp_biotech_lasts": "mission",
                "token_rounding": "down",
                "edge_connectors": "blocked",
            }
        },
    ),
    ("p4_s5_cap", 4, 5, {"max_rounds": 3}),
)
#: Steps at which the full saved text is kept (besides the start and the end).
SNAPSHOT_STEPS = (7, 60, 200)
#: Steps at which the whole saved text (card set and RNG too) is kept, to load it again.
SAVED_STEPS = (60,)


def _sha(data: bytes | str) -> str:
    raw = data.encode() if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()[:16]


def play(
    players: int, seed: int, options: dict[str, Any], saved: dict[str, str] | None = None
) -> dict[str, Any]:
    """One game of random legal play through the wrapped env, described by hashes; the full
    saved texts at SAVED_STEPS and at the end go into `saved` when given."""
    env = farlight_v0.env(num_players=players, **options)
    env.reset(seed=seed)
    game = env.unwrapped.game
    rng = random.Random(seed)
    steps: list[list[Any]] = []
    snapshots: dict[str, Any] = {"0": json.loads(game.to_json())["state"]}
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        if term or trunc:
            action = None
        else:
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.randrange(len(legal))])
        env.step(action)
        text = game.to_json()
        steps.append(
            [
                agent,
                action,
                _sha(np.ascontiguousarray(obs["observation"]).tobytes()),
                _sha(np.ascontiguousarray(obs["action_mask"]).tobytes()),
                float(reward),
                _sha(text),
            ]
        )
        if len(steps) in SNAPSHOT_STEPS:
            snapshots[str(len(steps))] = json.loads(text)["state"]
        if saved is not None and len(steps) in SAVED_STEPS:
            saved[f"after_{len(steps)}"] = text
    text = game.to_json()
    snapshots["end"] = json.loads(text)["state"]
    if saved is not None:
        saved["after_end"] = text
    record = build_record(game, ["random"] * players, seed, {"num_players": players, **options})
    return {
        "players": players,
        "seed": seed,
        "options": options,
        "steps": steps,
        "history": [str(a) for a in game.history],
        "final_sha": _sha(text),
        "clone_sha": _sha(game.clone().to_json()),
        "reload_sha": _sha(FarlightGame.from_json(text).to_json()),
        "record_sha": _sha(json.dumps(record, sort_keys=True)),
        "scores": game.scores(),
        "winners": game.winners(),
        "snapshots": snapshots,
    }


def _path(name: str) -> Path:
    return DATA / f"{name}.json"


def _dump(data: dict[str, Any]) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":")) + "\n"


@pytest.mark.parametrize(("name", "players", "seed", "options"), CASES, ids=[c[0] for c in CASES])
def test_games_are_byte_identical_to_the_golden_files(
    name: str, players: int, seed: int, options: dict[str, Any]
) -> None:
    expected = json.loads(_path(name).read_text())
    got = json.loads(_dump(play(players, seed, options)))
    for i, (want, have) in enumerate(zip(expected["steps"], got["steps"], strict=False)):
        assert want == have, f"step {i}: expected {want}, got {have}"
    assert got == expected


@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_files_saved_by_the_earlier_engine_still_load(name: str) -> None:
    """Saved texts written before the refactor (the golden snapshots) load and save unchanged."""
    data = json.loads(_path(name).read_text())
    saved = json.loads(_path(f"{name}_saved").read_text())
    assert set(saved) == {f"after_{k}" for k in (*SAVED_STEPS, "end")} - (
        set() if len(data["steps"]) >= max(SAVED_STEPS) else {f"after_{max(SAVED_STEPS)}"}
    )
    for key, text in saved.items():
        game = FarlightGame.from_json(text)
        assert game.to_json() == text, key
        assert game.clone().to_json() == text, key


def write() -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    for name, players, seed, options in CASES:
        saved: dict[str, str] = {}
        _path(name).write_text(_dump(play(players, seed, options, saved)))
        _path(f"{name}_saved").write_text(json.dumps(saved, indent=0, sort_keys=True) + "\n")


if __name__ == "__main__":
    if "--write" in sys.argv:
        write()
    else:
        print(__doc__)
