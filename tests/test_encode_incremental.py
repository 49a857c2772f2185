"""The incremental observation encoder returns exactly what the reference encoder (the
pre-incremental one, kept in tests/reference_observation.py) returns: every step of random
games, every observer, 2-5 players, with one long-lived encoder shared across games."""

from __future__ import annotations

import numpy as np
import pytest

from farlight_env.encode.observation import ObservationEncoder
from farlight_env.game import FarlightGame
from farlight_env.game.hidden import determinize
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
