"""The heuristic's scalar per-slot gains (`block_gains`) and its table of slots without bids
(`open_gains`) equal the vectorised `_placement_gains` bit for bit, over worths, bids and
options that play reaches and a few it rarely does."""

from __future__ import annotations

import itertools

import numpy as np

from agents.farlight.heuristic.placements import (
    SLOT_BLOCK,
    OpenRows,
    Placements,
    _placement_gains,
    block_gains,
    open_gains,
)

WORTHS = (0.0, -0.0, -1.25, 0.1, 0.35, 1.3, 2.7182818, 6.0, 11.5)
RIVALS = (0.0, 1.0, 2.0, 2.5, 3.0, 4.0, 5.0, 7.5)


def test_scalar_blocks_equal_vectorised_gains() -> None:
    rows = {
        is_mission: Placements.of(np.array([(0, t, c) for t, c in SLOT_BLOCK]), 1 - is_mission)
        for is_mission in (False, True)
    }
    for worth, mine, rival, is_mission, crew_low, lone_zero in itertools.product(
        WORTHS, range(7), RIVALS, (False, True), (False, True), (False, True)
    ):
        block_gains.cache_clear()  # each case computed, not recalled for an equal key
        got = block_gains(worth, mine, rival, is_mission, crew_low, lone_zero)
        want = _placement_gains(
            rows[is_mission], np.array([worth]), [mine], [rival], crew_low, lone_zero
        )
        assert got.tobytes() == want.tobytes(), (worth, mine, rival, is_mission)


def test_open_table_equals_vectorised_gains_without_bids() -> None:
    """Every slot's placements, first missions at slot 7 (as at 4 players): worths drawn from
    WORTHS, so -0.0, 0 and negative worths meet both kinds of target."""
    slots, first_mission = 19, 7
    fields = np.array([(s, t, c) for s in range(slots) for t, c in SLOT_BLOCK])
    rows = Placements.of(fields, first_mission)
    open_rows = OpenRows.of(rows)
    rng = np.random.default_rng(5)
    for _ in range(40):
        worths = np.array(rng.choice(WORTHS, size=slots))
        for crew_low, lone_zero in itertools.product((False, True), repeat=2):
            got = open_gains(open_rows, worths, crew_low, lone_zero)
            want = _placement_gains(rows, worths, [0] * slots, [0.0] * slots, crew_low, lone_zero)
            assert got.tobytes() == want.tobytes(), (worths.tolist(), crew_low, lone_zero)


def test_progress_equals_the_sum_of_gaps() -> None:
    """`Planner.progress` writes `_gap` out inline: over positions of heuristic play at 2-5
    players and changes of dice, bio-tech, science and crew, it gives the float that summing
    `_gap` per target gives."""
    from agents.farlight.heuristic import HeuristicAgent
    from agents.farlight.heuristic.planner import Planner
    from farlight_env.game import FarlightGame

    for players in (2, 3, 4, 5):
        game, agent = FarlightGame(players, seed=players), HeuristicAgent(seed=0)
        while not game.is_over:
            for seat in range(players):
                plan = Planner(game, seat)
                engines = [*plan.engine_values, 3]
                for change in itertools.product((None, engines), (0, 1, 2), (0, 1), (0, 2)):
                    dice, biotech, science, crew = change
                    have = tuple(plan.engine_values if dice is None else dice)
                    want = 0.0
                    for value, inverse, need, bio, sci in plan._target_facts:
                        after = plan._gap(have, need, bio - biotech, sci - science, crew)
                        want += value * (1.0 / (1.0 + after) - inverse)
                    got = plan.progress(dice, biotech, science, crew)
                    assert got.hex() == want.hex(), (players, seat, change)
            game.apply(agent.choose(game, game.current_player))
