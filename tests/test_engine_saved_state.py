"""A saved state that parses but could never arise is refused by from_json (DESIGN: bad input)."""

from __future__ import annotations

import json

import pytest

from farlight_env.game import FarlightGame


def _saved() -> dict:
    game = FarlightGame(3, seed=4)
    for _ in range(3):
        game.apply(game.legal_actions()[0])
    return json.loads(game.to_json())


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda s: s["state"]["hands"][0].append(4), "tiles"),
        (lambda s: s["state"]["deck"].append(s["state"]["deck"][0]), "exactly one place"),
        (lambda s: s["state"]["deck"].pop(), "exactly one place"),
        (lambda s: s["state"]["stacks"][0].pop(), "mission card"),
        (lambda s: s["state"].__setitem__("crew", [-1, 3, 3]), "negative"),
        (lambda s: s["state"].__setitem__("current", None), "to act"),
        (lambda s: s["state"]["ship_parts"][1].append(0), "ship"),
        (lambda s: s["state"].__setitem__("points", [0, 0]), "entries"),
    ],
)
def test_inconsistent_saved_state_is_refused(edit, message: str) -> None:
    saved = _saved()
    edit(saved)
    with pytest.raises(ValueError, match="saved game is corrupt") as excinfo:
        FarlightGame.from_json(json.dumps(saved))
    assert message in str(excinfo.value)


def test_consistent_saved_state_still_loads() -> None:
    saved = _saved()
    text = json.dumps(saved, sort_keys=True, separators=(",", ":"))
    assert FarlightGame.from_json(text).to_json() == text
