"""Engine properties users build on: determinism, replay, clones, save/restore, action values.

Quality bar: same config + seed + actions -> the same game, byte for byte (`to_json`).
"""

from __future__ import annotations

import dataclasses
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import check_invariants

from farlight_env.game import (
    Bid,
    ChooseEngine,
    CompleteMission,
    Discard,
    FarlightGame,
    Install,
    PassMission,
    RefitRemove,
    RefitStop,
    SelectPart,
    SkipEngine,
    Target,
    TargetKind,
    action_from_dict,
    action_to_dict,
)
from farlight_env.game.ship import legal_cells
from farlight_env.game.tables import SHARED_TABLES as ENGINE_SHARED_TABLES

PLAYER_COUNTS = (2, 3, 4, 5)
CONFIGS = (
    {},
    {"grid_size": 5, "max_rounds": 7},
    {"random_first_player": True},
)


def random_game(num_players: int, seed: int, steps: int | None = None, **config) -> FarlightGame:
    """A game after `steps` random legal actions (to the end when None); choices from `seed`."""
    game = FarlightGame(num_players, seed=seed, **config)
    rng = random.Random(seed * 7919 + 13)
    while not game.is_over and (steps is None or len(game.history) < steps):
        game.apply(rng.choice(game.legal_actions()))
    return game


def play_in_lockstep(a: FarlightGame, b: FarlightGame, rng: random.Random) -> int:
    """Apply the same random actions to both games to the end, asserting identical state after
    every step; returns the number of actions applied."""
    steps = 0
    assert a.to_json() == b.to_json()
    while not a.is_over:
        assert a.legal_actions() == b.legal_actions(), f"legal actions differ at step {steps}"
        action = rng.choice(a.legal_actions())
        a.apply(action)
        b.apply(action)
        steps += 1
        assert a.to_json() == b.to_json(), f"states differ after step {steps} ({action})"
    assert b.is_over
    assert a.scores() == b.scores() and a.winners() == b.winners()
    return steps


def setup_key(game: FarlightGame) -> str:
    """Everything chance decided at setup, without the seed itself."""
    return json.dumps(
        [
            game.deck,
            game.spaces,
            game.stacks,
            game.awards_up,
            game.awards_down,
            sorted(game.engine_values.items()),
            game.first_player,
        ]
    )


# --------------------------------------------------------------------------------- determinism
@pytest.mark.parametrize("config", CONFIGS, ids=["default", "small", "random-first"])
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_same_seed_and_actions_give_identical_json_every_step(num_players, config) -> None:
    for seed in (0, 12345):
        a = FarlightGame(num_players, seed=seed, **config)
        b = FarlightGame(num_players, seed=seed, **config)
        play_in_lockstep(a, b, random.Random(seed))


@pytest.mark.parametrize("config", CONFIGS, ids=["default", "small", "random-first"])
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_replay_of_history_reproduces_json(num_players, config) -> None:
    """DESIGN: a record replays from (config, seed, history), mid-game and at the end."""
    for seed in (3, 77):
        full = random_game(num_players, seed, **config)
        replayed = FarlightGame.replay(full.history, num_players, seed, **config)
        assert replayed.to_json() == full.to_json()
        assert replayed.is_over and replayed.winners() == full.winners()
        cut = len(full.history) // 3
        partial = random_game(num_players, seed, steps=cut, **config)
        replayed = FarlightGame.replay(partial.history, num_players, seed, **config)
        assert replayed.to_json() == partial.to_json()


def test_replay_reproduces_a_game_with_an_unspecified_seed() -> None:
    """seed=None draws a seed, and the game records it so that it can be replayed."""
    game = FarlightGame(3)
    rng = random.Random(5)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    assert isinstance(game.seed, int)
    assert FarlightGame.replay(game.history, 3, game.seed).to_json() == game.to_json()


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_different_seeds_give_different_setups(num_players) -> None:
    keys = {setup_key(FarlightGame(num_players, seed=seed)) for seed in range(40)}
    assert len(keys) == 40, "two seeds out of 40 produced the same setup"
    decks = {tuple(FarlightGame(num_players, seed=seed).deck) for seed in range(40)}
    assert len(decks) == 40


def test_unseeded_games_differ() -> None:
    assert len({setup_key(FarlightGame(4)) for _ in range(10)}) == 10


# -------------------------------------------------------------------------------------- clones
#: Derived lookup tables that clones may share: the engine treats them as immutable (and
#: declares them in game/tables.py's SHARED_TABLES).
SHARED_TABLES = frozenset(
    ["config", "cards", "part_index", "mission_index", "part_masks", "rank_part", "targets"]
    + ["target_slot", "bid_actions", *ENGINE_SHARED_TABLES]
)


def assert_no_shared_containers(a: object, b: object, path: str) -> None:
    if isinstance(a, (list, dict, set)):
        assert a is not b, f"clone shares the mutable {path}"
        if type(b) is not type(a):  # e.g. a cache the clone has not filled yet
            return
        if isinstance(a, list):
            for i, (x, y) in enumerate(zip(a, b, strict=False)):
                assert_no_shared_containers(x, y, f"{path}[{i}]")
        elif isinstance(a, dict):
            for key, value in a.items():
                assert_no_shared_containers(value, b.get(key), f"{path}[{key!r}]")


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_clone_shares_no_mutable_state(num_players) -> None:
    for steps in (0, 40, 150):
        game = random_game(num_players, 8, steps=steps)
        clone = game.clone()
        assert clone.rng is not game.rng
        assert set(vars(clone)) == set(vars(game)), "clone must copy every attribute"
        for name, value in vars(game).items():
            if name not in SHARED_TABLES:
                assert_no_shared_containers(value, getattr(clone, name), name)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_clone_is_independent_both_ways(num_players) -> None:
    rng = random.Random(num_players)
    for seed in range(6):
        game = random_game(num_players, seed, steps=rng.randrange(0, 200))
        if game.is_over:
            continue
        snapshot = game.to_json()
        clone = game.clone()
        assert clone.to_json() == snapshot
        assert clone.history == game.history and clone.history is not game.history
        # playing the clone to the end (dice rolls included) leaves the original untouched
        while not clone.is_over:
            clone.apply(rng.choice(clone.legal_actions()))
        assert game.to_json() == snapshot
        assert game.legal_actions() == FarlightGame.from_json(snapshot).legal_actions()
        # and the other way round
        clone = game.clone()
        clone_snapshot = clone.to_json()
        while not game.is_over:
            game.apply(rng.choice(game.legal_actions()))
        assert clone.to_json() == clone_snapshot
        check_invariants(clone)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_clone_rng_continues_identically(num_players) -> None:
    """Chance after cloning (station dice at round resets) matches the original's."""
    for seed in range(4):
        game = random_game(num_players, seed, steps=30 + 20 * seed)
        play_in_lockstep(game, game.clone(), random.Random(seed))


def test_clone_of_a_finished_game() -> None:
    game = random_game(3, 1)
    clone = game.clone()
    assert clone.is_over and clone.legal_actions() == [] and clone.current_player is None
    assert clone.to_json() == game.to_json()
    assert clone.winners() == game.winners() and clone.scores() == game.scores()


# --------------------------------------------------------------------------- save and restore
@pytest.mark.parametrize("config", CONFIGS, ids=["default", "small", "random-first"])
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_json_round_trip_at_random_points(num_players, config) -> None:
    rng = random.Random(100 + num_players)
    for seed in range(3):
        game = random_game(num_players, seed, steps=rng.randrange(0, 250), **config)
        text = game.to_json()
        restored = FarlightGame.from_json(text)
        assert restored.to_json() == text
        assert restored.history == game.history
        assert restored.legal_actions() == game.legal_actions()
        assert restored.current_player == game.current_player
        assert restored.phase is game.phase and restored.round == game.round
        check_invariants(restored)
        play_in_lockstep(game, restored, random.Random(seed))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    num_players=st.sampled_from(PLAYER_COUNTS),
    seed=st.integers(0, 2**32 - 1),
    steps=st.integers(0, 300),
)
def test_json_round_trip_hypothesis(num_players, seed, steps) -> None:
    game = random_game(num_players, seed, steps=steps)
    restored = FarlightGame.from_json(game.to_json())
    assert restored.to_json() == game.to_json()
    play_in_lockstep(game, restored, random.Random(seed))


def test_json_round_trip_of_finished_game() -> None:
    for n in PLAYER_COUNTS:
        game = random_game(n, 21)
        restored = FarlightGame.from_json(game.to_json())
        assert restored.to_json() == game.to_json()
        assert restored.is_over and restored.legal_actions() == []
        assert restored.winners() == game.winners()
        assert restored.scores() == game.scores()
        assert restored.final_breakdown == game.final_breakdown
        assert restored.end_reason == game.end_reason


def test_json_is_text_with_a_format_tag() -> None:
    data = json.loads(FarlightGame(2, seed=1).to_json())
    assert data["format"] == "farlight-game" and data["version"] == 1
    assert data["seed"] == 1


def _saved(steps: int = 60) -> dict:
    return json.loads(random_game(3, 4, steps=steps).to_json())


@pytest.mark.parametrize(
    "text, problem",
    [
        ("", "JSON"),
        ("{not json", "JSON"),
        ("hello", "JSON"),
        ("[1, 2, 3]", "farlight-game"),
        ('{"format": "chess-game", "version": 1}', "farlight-game"),
        ("null", "farlight-game"),
    ],
    ids=["empty", "broken", "word", "array", "foreign-format", "null"],
)
def test_from_json_refuses_foreign_text(text, problem) -> None:
    with pytest.raises(ValueError, match=problem):
        FarlightGame.from_json(text)


def test_from_json_refuses_non_text() -> None:
    with pytest.raises(ValueError, match="JSON"):
        FarlightGame.from_json(None)  # type: ignore[arg-type]


def test_from_json_refuses_truncated_text() -> None:
    text = random_game(2, 3, steps=50).to_json()
    for cut in (1, len(text) // 2, len(text) - 1):
        with pytest.raises(ValueError, match="JSON"):
            FarlightGame.from_json(text[:cut])


def test_from_json_refuses_wrong_format_tag() -> None:
    data = _saved()
    data["format"] = "farlight-checkpoint"
    with pytest.raises(ValueError, match="format"):
        FarlightGame.from_json(json.dumps(data))
    del data["format"]
    with pytest.raises(ValueError, match="format"):
        FarlightGame.from_json(json.dumps(data))


@pytest.mark.parametrize("version", [0, 2, "1", None])
def test_from_json_refuses_wrong_version(version) -> None:
    data = _saved()
    data["version"] = version
    with pytest.raises(ValueError, match="version"):
        FarlightGame.from_json(json.dumps(data))


@pytest.mark.parametrize(
    "key", ["crew", "hands", "ships", "deck", "bids", "engine_values", "history", "phase"]
)
def test_from_json_refuses_truncated_state(key) -> None:
    data = _saved()
    del data["state"][key]
    with pytest.raises(ValueError, match=key):
        FarlightGame.from_json(json.dumps(data))


@pytest.mark.parametrize("key", ["state", "config", "card_set", "rng", "seed"])
def test_from_json_refuses_missing_section(key) -> None:
    data = _saved()
    del data[key]
    with pytest.raises(ValueError, match=key):
        FarlightGame.from_json(json.dumps(data))


def test_from_json_refuses_bad_config_and_cards() -> None:
    data = _saved()
    data["config"]["num_players"] = 9
    with pytest.raises(ValueError, match="num_players"):
        FarlightGame.from_json(json.dumps(data))
    data = _saved()
    data["card_set"]["parts"][0]["crew_cost"] = -4
    with pytest.raises(ValueError, match="crew_cost"):
        FarlightGame.from_json(json.dumps(data))
    data = _saved()
    data["state"]["phase"] = "dancing"
    with pytest.raises(ValueError, match="dancing"):
        FarlightGame.from_json(json.dumps(data))


# ------------------------------------------------------------------------------------- actions
def _seen_actions() -> set:
    """Every legal action offered in a few random games of each size (all phases)."""
    seen: set = set()
    for n in PLAYER_COUNTS:
        for seed in range(3):
            game = FarlightGame(n, seed=seed)
            rng = random.Random(seed)
            while not game.is_over:
                legal = game.legal_actions()
                seen.update(legal)
                game.apply(rng.choice(legal))
    return seen


@pytest.fixture(scope="module")
def seen_actions() -> set:
    return _seen_actions()


def test_seen_actions_cover_every_action_type(seen_actions) -> None:
    kinds = {type(a) for a in seen_actions}
    expected = {
        Bid,
        SelectPart,
        Install,
        Discard,
        RefitRemove,
        RefitStop,
        ChooseEngine,
        SkipEngine,
        CompleteMission,
        PassMission,
    }
    assert kinds == expected, f"random play never offered {expected - kinds}"


def test_actions_are_hashable_frozen_and_readable(seen_actions) -> None:
    by_text: dict[str, object] = {}
    for action in seen_actions:
        assert hash(action) == hash(dataclasses.replace(action))
        assert action == dataclasses.replace(action)
        text = str(action)
        assert text and "object at" not in text and "\n" not in text, repr(text)
        assert by_text.setdefault(text, action) == action, f"two actions read {text!r}"
        field = dataclasses.fields(action)
        if field:
            with pytest.raises(dataclasses.FrozenInstanceError):
                setattr(action, field[0].name, None)


def test_readable_action_strings() -> None:
    assert "3" in str(Bid(3, Target(TargetKind.PART, 2), True))
    assert "crew" in str(Bid(3, Target(TargetKind.PART, 2), True))
    assert "crew" not in str(Bid(3, Target(TargetKind.PART, 2), False))
    assert "Hire" in str(Bid(0, Target(TargetKind.FACILITY, 1)))
    assert "mission" in str(Bid(1, Target(TargetKind.MISSION, 0)))
    assert "Proton Analyzer" in str(Install("Proton Analyzer", -1, 0))


def test_action_dict_round_trip_for_every_seen_action(seen_actions) -> None:
    for action in seen_actions:
        data = action_to_dict(action)
        assert action_from_dict(data) == action
        through_json = json.loads(json.dumps(data))
        assert action_from_dict(through_json) == action, data


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"type": "Teleport"},
        "Bid",
        None,
        {"type": "Install", "part": "Proton Analyzer"},
        {"type": "Bid", "tile": 1},
        {"type": "Bid", "tile": 1, "target": ["planet", 0], "crew": False},
        {"type": "Bid", "tile": 1, "target": 5, "crew": False},
        {"type": "Bid", "tile": "high", "target": ["part", 0], "crew": False},
    ],
    ids=[
        "empty",
        "unknown-type",
        "string",
        "none",
        "install-no-cell",
        "bid-no-target",
        "bid-bad-kind",
        "bid-target-not-pair",
        "bid-tile-not-int",
    ],
)
def test_action_from_dict_refuses_malformed_records(data) -> None:
    """Malformed action records raise ValueError (actions.py docstring), never KeyError."""
    with pytest.raises(ValueError) as info:
        action_from_dict(data)
    assert not isinstance(info.value, (KeyError, TypeError))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    num_players=st.integers(2, 5),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 400),
    edge=st.sampled_from(["open", "blocked"]),
)
def test_r_ship_1_connectors_after_equals_a_recount(num_players, seed, steps, edge) -> None:
    """R-SHIP-1: counting a placement by its change matches recounting the whole ship."""
    game = random_game(num_players, seed, steps=steps, rule_options={"edge_connectors": edge})
    for seat in range(num_players):
        ship = game.ships[seat]
        for part in range(0, len(game.cards.parts), 7):
            mask = game.part_masks[part]
            for cell in legal_cells(ship, game.part_masks, mask, game.half):
                placed = {**ship, cell: part}
                assert game.connectors_after(seat, cell, part) == game.count_connectors(placed)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    num_players=st.integers(2, 5),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 400),
    grid_size=st.sampled_from([5, 13]),
)
def test_r_inst_3_can_install_says_whether_any_cell_is_legal(
    num_players, seed, steps, grid_size
) -> None:
    """R-INST-3: `can_install` (stopping at the first legal cell) agrees with `legal_cells`,
    both before the cells are listed and from the cache after; a 5-wide grid fills up, so
    parts with no legal cell come up too."""
    game = random_game(num_players, seed, steps=steps, grid_size=grid_size)
    for seat in range(num_players):
        for part in range(len(game.cards.parts)):
            game.cells_cache.clear()
            before = game.can_install(seat, part)
            cells = game.legal_cells(seat, part)
            assert before == bool(cells) == game.can_install(seat, part), (seat, part)
