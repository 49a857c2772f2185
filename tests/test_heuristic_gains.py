"""The heuristic's bid gains, assembled from cached per-slot blocks, equal the gains computed
over the whole legal list at once, bit for bit, and its shortcuts (bids from the mask, plans
shared across crew) decide as before (speed work must not change a decision)."""

from __future__ import annotations

import numpy as np
import pytest

from agents.farlight.engine_agent import EngineAgent
from agents.farlight.heuristic import UNKNOWN_TILE, HeuristicAgent, _placement_gains, valuation_key
from farlight_env import farlight_v0
from farlight_env.game import FarlightGame, Phase
from farlight_env.game.hidden import PlayerView


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


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_act_bids_from_the_mask_as_choose_does(players: int) -> None:
    """`act` scores the mask's bid indices instead of an action list: the same bid, and the
    same tie-breakers drawn (the generators stay in step), as `choose` through the codec."""
    env = farlight_v0.env(num_players=players).unwrapped
    checked = 0
    for seed in range(2):
        env.reset(seed=seed)
        fast, plain = HeuristicAgent(seed=seed), HeuristicAgent(seed=seed)
        while not env.game.is_over:
            game, seat = env.game, env.game.current_player
            mask = env.action_mask(env.possible_agents[seat])
            view = PlayerView(game, seat)
            index = fast.act(env._blank_observation, mask, {"view": view})
            expected = EngineAgent.decide(plain, view.redacted(), seat, mask, fast.codec_for(view))
            assert index == expected
            checked += game.phase is Phase.BIDDING
            env.step(index)
        assert fast.rng.random() == plain.rng.random()
    assert checked > 40


def test_plans_keyed_on_whole_bio_tech_purchases_of_crew() -> None:
    """Crew enters a plan only as the temporary bio-tech it could buy (3 crew each, R-MIS-5):
    games that differ in crew alone within one such step value every target alike, so they
    may share cached plans."""
    compared = 0
    for seed in range(6):
        game = FarlightGame(3, seed=seed)
        player = HeuristicAgent(seed=seed)
        while not game.is_over:
            seat = game.current_player
            if game.phase is Phase.BIDDING and compared < 60:
                crew = game.crew[seat]
                for other in {crew - crew % 3, crew - crew % 3 + 2} - {crew}:
                    twin = game.clone()
                    twin.crew[seat] = other
                    twin.invalidate_cache()
                    assert valuation_key(twin, seat) == valuation_key(game, seat)
                    fresh = HeuristicAgent(seed=0)  # no caches shared with the other game
                    ours = HeuristicAgent(seed=0).target_values(game, seat)
                    assert fresh.target_values(twin, seat) == ours
                    compared += 1
            game.apply(player.choose(game, seat))
    assert compared >= 60


def test_cached_plans_keep_no_earlier_game_alive() -> None:
    """Plans are cached across decisions but hold only the game being planned on: a redacted
    copy an opponent decided on is freed once it decides on the next one (a cache holding
    every copy kept thousands alive for the garbage collector to walk)."""
    import weakref

    game, agent = FarlightGame(3, seed=6), HeuristicAgent(seed=1)
    earlier: list[weakref.ref] = []
    for _ in range(60):
        seat = game.current_player
        copy = PlayerView(game, seat).redacted()
        game.apply(agent.choose(copy, seat))
        earlier.append(weakref.ref(copy))
        del copy
    assert sum(ref() is not None for ref in earlier) == 1  # the last one, still planned on
    holding = {id(plan.game) for plan in agent._planners.values() if plan.game is not None}
    assert len(holding) <= 1 and len(agent._planners) > 10


@pytest.mark.parametrize("players", [2, 4, 5])
def test_r_bid_1_kept_tables_patch_only_logged_slots(players: int) -> None:
    """R-BID-1/R-RES: the table a seat keeps under one bid stamp, patched along `bid_log`,
    equals one computed afresh, at every step of a game and for every seat: bids placed
    between a seat's turns, and targets whose bids go back at resolution (~slot entries),
    bit for bit. The kept table is reused within the stamp and renewed with the next."""
    game = FarlightGame(players, seed=players + 20)
    agent, player = HeuristicAgent(seed=0), HeuristicAgent(seed=1)
    reused = renewed = 0
    while not game.is_over:
        for seat in range(players):
            kept = agent._kept_gains.get(seat)
            got = agent.slot_gains(game, seat)
            fresh = HeuristicAgent(seed=0).slot_gains(game, seat)
            assert got.tobytes() == fresh.tobytes(), (len(game.history), seat)
            same_stamp = kept is not None and kept[0] == game.bid_stamp
            reused += same_stamp
            renewed += not same_stamp
        game.apply(player.choose(game, game.current_player))
    assert reused > 10 * renewed > 0
