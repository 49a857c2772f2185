"""The incremental observation encoder returns exactly what the reference encoder (the
pre-incremental one, kept in tests/reference_observation.py) returns: every step of random
games, every observer, 2-5 players, with one long-lived encoder shared across games."""

from __future__ import annotations

import numpy as np
import pytest

from farlight_env.encode.observation import ObservationEncoder
from farlight_env.game import FarlightGame
from farlight_env.game.hidden import determinize
from tests import scenarios
from tests.reference_observation import ObservationEncoder as ReferenceEncoder


def assert_same(fast: ObservationEncoder, ref: ReferenceEncoder, game: FarlightGame) -> None:
    for seat in range(game.num_players):
        got, want = fast.encode(game, seat), ref.encode(game, seat)
        assert got.dtype == want.dtype == np.float32
        if not np.array_equal(got, want):
            diff = np.flatnonzero(got != want)
            names = sorted(
                {
                    n
                    for n, f in fast.fields.items()
                    if any(i in range(f.start, f.start + f.size) for i in diff)
                }
            )
            raise AssertionError(f"seat {seat} differs in {names} at step {len(game.history)}")


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_incremental_encoding_matches_reference_every_step(
    num_players: int, fuzz_games: int
) -> None:
    probe = FarlightGame(num_players, seed=0)
    fast, ref = ObservationEncoder(probe.cards, 13), ReferenceEncoder(probe.cards, 13)
    for seed in range(max(3, fuzz_games // 50)):
        game = FarlightGame(num_players, seed=seed)
        rng = np.random.default_rng(seed)
        while not game.is_over:
            assert_same(fast, ref, game)
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])
        assert_same(fast, ref, game)


def test_one_encoder_serves_interleaved_games_of_any_size() -> None:
    """Buffers are per observer, not per game: switching games or player counts never leaks."""
    probe = FarlightGame(2, seed=0)
    fast, ref = ObservationEncoder(probe.cards, 13), ReferenceEncoder(probe.cards, 13)
    games = [FarlightGame(n, seed=10 + n) for n in (5, 2, 4, 3)]
    rng = np.random.default_rng(1)
    for _ in range(150):
        for game in games:
            if game.is_over:
                continue
            assert_same(fast, ref, game)
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])
            copy = determinize(game, int(rng.integers(game.num_players)), rng)
            assert_same(fast, ref, copy)  # clones share stamps; resampled facts still show


def test_observations_are_fresh_arrays() -> None:
    """Callers may keep observations: a later encode never changes an earlier result."""
    game = FarlightGame(3, seed=2)
    fast = ObservationEncoder(game.cards, 13)
    first = fast.encode(game, 0)
    kept = first.copy()
    rng = np.random.default_rng(0)
    for _ in range(30):
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
        fast.encode(game, 0)
    assert np.array_equal(first, kept)


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_observers_looking_now_and_then_see_exactly_the_reference(
    num_players: int, fuzz_games: int
) -> None:
    """As in an env loop: the acting seat looks every step, others only now and then, so an
    observer's last observation can be many steps old when it is brought up to date."""
    probe = FarlightGame(num_players, seed=0)
    fast, ref = ObservationEncoder(probe.cards, 13), ReferenceEncoder(probe.cards, 13)
    for seed in range(max(3, fuzz_games // 50)):
        game = FarlightGame(num_players, seed=100 + seed)
        rng = np.random.default_rng(seed)
        while not game.is_over:
            seats = [game.current_player] + [s for s in range(num_players) if rng.random() < 0.15]
            for seat in seats:
                assert np.array_equal(fast.encode(game, seat), ref.encode(game, seat)), seat
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])
        assert_same(fast, ref, game)


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_clones_and_reloaded_games_branching_off_share_one_encoder(num_players: int) -> None:
    """Copies start with the original's stamps and then go their own ways; one encoder
    serving all of them in turn never shows one game's facts in another's observation."""
    probe = FarlightGame(num_players, seed=0)
    fast, ref = ObservationEncoder(probe.cards, 13), ReferenceEncoder(probe.cards, 13)
    rng = np.random.default_rng(num_players)
    games = [FarlightGame(num_players, seed=7)]
    for step in range(600):
        game = games[int(rng.integers(len(games)))]
        if game.is_over:
            games.remove(game)
            if not games:
                break
            continue
        seat = int(rng.integers(num_players))
        assert np.array_equal(fast.encode(game, seat), ref.encode(game, seat)), step
        if step % 25 == 0 and len(games) < 6:
            games.append(game.clone() if step % 50 else FarlightGame.from_json(game.to_json()))
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])


def test_direct_edits_show_after_invalidate_cache() -> None:
    """tests/scenarios.py edits state and calls `invalidate_cache` (and `renew_ship_stamps`):
    every observer that looked before the edit sees the edited position after it."""
    game = scenarios.make_game(4, seed=3)
    fast, ref = ObservationEncoder(game.cards, 13), ReferenceEncoder(game.cards, 13)
    edits = [
        lambda: scenarios.give(game, 2, crew=8, science=3, points=5),
        lambda: scenarios.put_part(game, 0, game.cards.parts[game.deck[-1]].name, dice=6),
        lambda: scenarios.clear_space(game, 2),
        lambda: scenarios.install_directly(game, 1, game.cards.parts[game.deck[0]].name, (0, 1)),
        lambda: scenarios.set_first_player(game, 3),
        lambda: scenarios.use_sink(game),
    ]
    assert_same(fast, ref, game)
    for edit in edits:
        edit()
        assert_same(fast, ref, game)
    rng = np.random.default_rng(0)
    while not game.is_over:  # and play on from the edited position
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
        assert_same(fast, ref, game)
