"""The heuristic's bid gains, assembled from cached per-slot blocks, equal the gains computed
over the whole legal list at once, bit for bit (speed work must not change a decision)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.heuristic import UNKNOWN_TILE, HeuristicAgent, _placement_gains
from farlight_env.game import FarlightGame, Phase


def seen_bids(game: FarlightGame, seat: int) -> tuple[list[int], list[float]]:
    """The seat's own bid per slot and the best visible rival bid (as `bid_scores` reads)."""
    mine, rivals = [0] * len(game.targets), [0.0] * len(game.targets)
    for s, placed in enumerate(game.bids):
        per_seat: dict[int, float] = {}
        for p, t, c in placed:
            if p == seat:
                mine[s] += t + c
            else:
                per_seat[p] = per_seat.get(p, 0.0) + UNKNOWN_TILE + c
        rivals[s] = max(per_seat.values(), default=0.0)
    return mine, rivals


@pytest.mark.parametrize(("players", "lone_zero"), [(2, True), (3, False), (4, True)])
def test_block_gains_equal_whole_list_gains(players: int, lone_zero: bool) -> None:
    options = {"lone_zero_mission_chance": lone_zero}
    checked = 0
    for seed in range(3):
        game = FarlightGame(players, seed=seed, rule_options=options)
        agent, player = HeuristicAgent(seed=0), HeuristicAgent(seed=seed)
        while not game.is_over:
            seat = game.current_player
            if game.phase is Phase.BIDDING:
                legal = game.legal_actions()
                agent.rng = np.random.default_rng(checked)
                scores = agent.bid_scores(game, seat, legal)
                rows = agent._placements(game, legal)
                mine, rivals = seen_bids(game, seat)
                worths = agent.slot_worths(game, seat)
                crew_low = game.crew[seat] <= 2
                whole = _placement_gains(rows, worths, mine, rivals, crew_low, lone_zero)
                noise = 1e-3 * np.random.default_rng(checked).random(len(legal))
                assert np.array_equal(scores, whole + noise)
                checked += 1
            game.apply(player.choose(game, seat))
    assert checked > 50
