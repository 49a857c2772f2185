"""The encoders' caches (ships, station, missions, bid masks) never change what they return:
a long-lived encoder and a fresh one agree at every state of random games."""

from __future__ import annotations

import numpy as np
import pytest

from farlight_env.encode.codec import ActionCodec
from farlight_env.encode.observation import ObservationEncoder
from farlight_env.game import FarlightGame


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_cached_encoders_match_fresh_ones(num_players: int) -> None:
    probe = FarlightGame(num_players, seed=0)
    shared_obs = ObservationEncoder(probe.cards, 13)
    shared_codec = ActionCodec(probe.cards, 13)
    compared = 0
    for seed in range(3):
        game = FarlightGame(num_players, seed=seed)
        rng = np.random.default_rng(seed)
        step = 0
        while not game.is_over:
            if step % 7 == 0:
                seat = game.current_player
                fresh_obs = ObservationEncoder(game.cards, 13)
                for viewer in range(num_players):
                    assert np.array_equal(
                        shared_obs.encode(game, viewer), fresh_obs.encode(game, viewer)
                    )
                fresh_mask = ActionCodec(game.cards, 13).mask(game)
                assert np.array_equal(shared_codec.mask(game), fresh_mask), seat
                compared += 1
            legal = game.legal_actions()
            game.apply(legal[rng.integers(len(legal))])
            step += 1
    assert compared > 50
