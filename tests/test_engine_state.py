"""The declared game state (game/state.py): one declaration from which clone, saving, loading,
the saved-file schema and `GameState` follow; positions built with `FarlightGame.from_state`,
checked exactly like `from_json`."""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import farlight_env
from farlight_env.game import FarlightGame, Phase
from farlight_env.game.state import DERIVED, FIELDS, GameState, dump_game_state
from farlight_env.game.tables import SHARED_TABLES


def _random_game(players: int, seed: int, steps: int) -> FarlightGame:
    game = FarlightGame(players, seed=seed)
    rng = random.Random(seed)
    while not game.is_over and len(game.history) < steps:
        game.apply(rng.choice(game.legal_actions()))
    return game


def test_every_attribute_of_a_game_is_declared() -> None:
    """A game holds exactly the declared fields, the declared caches, its tables and its RNG."""
    declared = {f.name for f in FIELDS} | {name for name, _, _ in DERIVED}
    for steps in (0, 30, 400):
        game = _random_game(3, 1, steps)
        for other in (game, game.clone(), FarlightGame.from_json(game.to_json())):
            # the generator, or for a clone what it will be until first used (the `rng` property)
            rng_slots = {"_rng", "_rng_recipe"}
            assert set(vars(other)) == declared | set(SHARED_TABLES) | rng_slots
            assert isinstance(other.rng, np.random.Generator)
            assert other._rng is other.rng and other._rng_recipe is None


def test_a_clone_shares_no_mutable_attribute_but_the_tables() -> None:
    """clone() copies the whole attribute dict at once, then replaces every mutable value: a
    list, dict or set still shared with the original (tables aside) would let one game's moves
    change the other's state."""
    for steps in (0, 30, 400):
        game = _random_game(4, 2, steps)
        game.legal_actions()  # fill the caches too
        other = game.clone()
        for name, value in vars(game).items():
            if name not in SHARED_TABLES and isinstance(value, (list, dict, set)):
                assert vars(other)[name] is not value, name
                for inner in value if isinstance(value, list) else ():
                    if isinstance(inner, (list, dict, set)):
                        assert all(inner is not o for o in vars(other)[name]), name


def test_a_clone_makes_its_generator_on_first_use_and_draws_what_an_eager_one_draws() -> None:
    """clone() continues the game's stream, clone(rng=k) is PCG64(k), a clone of a clone whose
    generator was never made continues the same stream; the original is not advanced."""
    game = _random_game(3, 1, 40)
    before = game.rng.bit_generator.state
    expected = np.random.Generator(np.random.PCG64(0))
    expected.bit_generator.state = before
    lazy = game.clone()
    twice = lazy.clone()  # lazy's generator not made yet: the recipe is copied
    assert (
        lazy.rng.integers(1 << 30, size=5).tolist() == expected.integers(1 << 30, size=5).tolist()
    )
    expected.bit_generator.state = before
    assert (
        twice.rng.integers(1 << 30, size=5).tolist() == expected.integers(1 << 30, size=5).tolist()
    )
    assert game.rng.bit_generator.state == before
    seeded = game.clone(rng=7).rng.integers(1 << 30, size=5).tolist()
    assert seeded == np.random.Generator(np.random.PCG64(7)).integers(1 << 30, size=5).tolist()
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = game.clone().nothing  # a lazy generator hides no other missing attribute


def test_game_state_has_one_attribute_per_field_and_a_comment_each() -> None:
    assert list(GameState.__dataclass_fields__) == [f.key for f in FIELDS]
    for f in FIELDS:
        assert f.doc and "\n" not in f.doc and f"{f.key}: {f.doc}" in GameState.__doc__


@pytest.mark.parametrize("players", [2, 3, 5])
def test_from_state_of_to_state_is_the_same_game(players: int) -> None:
    for steps in (0, 9, 25, 80, 500):
        game = _random_game(players, players + steps, steps)
        rebuilt = FarlightGame.from_state(
            game.config, game.cards, game.to_state(), seed=game.seed, rng=game.rng
        )
        assert rebuilt.to_json() == game.to_json()
        assert rebuilt.legal_actions() == game.legal_actions()


def test_to_state_shares_nothing_with_the_game() -> None:
    game = _random_game(3, 2, 40)
    before = game.to_json()
    state = game.to_state()
    state.crew[0] += 5
    state.ships[0][(9, 9)] = 0
    state.hands[1].clear()
    state.engine_values.clear()
    assert game.to_json() == before


_EDITS = [
    ("crew", lambda s: s.crew.__setitem__(0, -1), "state.crew[0]: expected int >= 0"),
    ("current", lambda s: setattr(s, "current", 4), "state.current: expected a seat 0..2"),
    ("deck", lambda s: s.deck.append(s.deck[0]), "is also in"),
    ("phase", lambda s: setattr(s, "phase", Phase.OVER), "state.current"),
    ("stacks", lambda s: s.stacks[0].reverse(), "state.stacks[0]"),
    ("awards", lambda s: setattr(s, "awards_down", s.awards_up + ["Colonist"]), "awards_up"),
]


@pytest.mark.parametrize(("what", "edit", "message"), _EDITS, ids=[e[0] for e in _EDITS])
def test_from_state_refuses_what_from_json_refuses_with_the_same_message(
    what: str, edit, message: str
) -> None:
    game = _random_game(3, 4, 3)
    state = game.to_state()
    edit(state)
    with pytest.raises(ValueError) as from_state:
        FarlightGame.from_state(game.config, game.cards, state, seed=game.seed)
    saved = json.loads(game.to_json())
    saved["state"] = dump_game_state(state)
    with pytest.raises(ValueError) as from_json:
        FarlightGame.from_json(json.dumps(saved))
    assert message in str(from_state.value)
    assert str(from_state.value).removeprefix("game state: ") == str(from_json.value).removeprefix(
        "saved game: "
    )


def test_r_setup_3_dealt_false_accepts_hand_built_stacks() -> None:
    """R-SETUP-3 deals each stack sorted with one climactic mission at its bottom; a puzzle
    position built by hand (dealt=False) may hold any stack, and the rest is still checked."""
    game = FarlightGame(3, seed=5)
    state = game.to_state()
    regular = next(m for m in state.stacks[0] if not game.cards.missions[m].climactic)
    state.missions_out += [m for m in state.stacks[0] if m != regular]
    state.stacks[0] = [regular]  # no climactic mission under it: no deal gives this
    with pytest.raises(ValueError, match=r"state\.stacks\[0\]: must end with its one climactic"):
        FarlightGame.from_state(game.config, game.cards, state)
    built = FarlightGame.from_state(game.config, game.cards, state, dealt=False)
    assert built.stacks[0] == [regular] and built.available_missions()[0] == regular
    state.crew[0] = -2  # what the engine relies on is still checked
    with pytest.raises(ValueError, match=r"state\.crew\[0\]"):
        FarlightGame.from_state(game.config, game.cards, state, dealt=False)


def test_r_setup_2_dealt_false_accepts_any_three_distinct_face_up_awards() -> None:
    """R-SETUP-2 deals all 7 awards, 3 face up; a hand-built position (dealt=False) may leave
    some out, but its 3 face-up awards must still be distinct."""
    game = FarlightGame(3, seed=5)
    state = game.to_state()
    state.awards_down = state.awards_down[:1]  # not the 7 awards: no deal gives this
    with pytest.raises(ValueError, match=r"state\.awards"):
        FarlightGame.from_state(game.config, game.cards, state)
    built = FarlightGame.from_state(game.config, game.cards, state, dealt=False)
    assert built.awards_up == state.awards_up and built.awards_down == state.awards_down
    state.awards_up = [state.awards_up[0]] * 3
    with pytest.raises(ValueError, match=r"state\.awards_up: expected 3 distinct awards"):
        FarlightGame.from_state(game.config, game.cards, state, dealt=False)


def test_set_state_moves_the_game_or_changes_nothing() -> None:
    game = FarlightGame(2, seed=3)
    state = game.to_state()
    state.crew = [7, 1]
    game.set_state(state)
    assert game.crew == [7, 1]
    before = game.to_json()
    state.crew = [7, -1]
    with pytest.raises(ValueError, match="crew"):
        game.set_state(state)
    assert game.to_json() == before


# A throw-away saved field, added to state.FIELDS as a developer would: one line.
_NEW_FIELD = (
    '    Field("morale", Annotated[list[Annotated[int, Meta(ge=0, le=9)]], PerSeat], LIST,\n'
    '          "crew morale per seat, 0..9 (a test field)", initial=lambda n: [5] * n),\n'
)
_CHECK = textwrap.dedent(
    """
    import json, sys
    import farlight_env
    assert farlight_env.__file__.startswith(sys.argv[1]), farlight_env.__file__
    from farlight_env.game import FarlightGame
    from farlight_env.game.schema import SavedState
    game = FarlightGame(3, seed=1)
    assert game.morale == [5, 5, 5]
    game.morale[1] = 7
    clone = game.clone()
    assert clone.morale == [5, 7, 5] and clone.morale is not game.morale
    saved = json.loads(game.to_json())
    assert saved["state"]["morale"] == [5, 7, 5]
    assert FarlightGame.from_json(game.to_json()).morale == [5, 7, 5]
    assert "morale" in SavedState.__struct_fields__
    state = game.to_state()
    assert state.morale == [5, 7, 5]
    state.morale[2] = 9
    assert FarlightGame.from_state(game.config, game.cards, state).morale == [5, 7, 9]
    saved["state"]["morale"][0] = 10
    try:
        FarlightGame.from_json(json.dumps(saved))
    except ValueError as exc:
        assert "state.morale[0]: expected int <= 9" in str(exc), exc
    else:
        raise AssertionError("out-of-range morale loaded")
    print("ok")
    """
)


def test_a_new_saved_field_is_one_edit(tmp_path: Path) -> None:
    """One line added to state.FIELDS: new games set it, clones copy it, saved files hold it,
    loading restores it, the schema checks its range, GameState and from_state carry it."""
    root = Path(farlight_env.__file__).parent
    copy = tmp_path / "farlight_env"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    state_py = copy / "game" / "state.py"
    text = state_py.read_text()
    anchor = '    Field("history",'
    assert text.count(anchor) == 1
    state_py.write_text(text.replace(anchor, _NEW_FIELD + anchor))
    out = subprocess.run(
        [sys.executable, "-c", _CHECK, str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": ""},
        timeout=120,
    )
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
