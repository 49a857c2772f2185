"""Random legal play to the end, with every invariant checked after every action.

CI plays a few hundred games in all (``--fuzz-games N`` games per player count and policy, N
small by default); run many thousands locally, e.g.::

    python -m pytest tests/test_engine_fuzz.py --fuzz-games 5000 -n 2

``FARLIGHT_FUZZ_EXAMPLES=M`` gives the hypothesis test M examples (30 by default);
``FARLIGHT_FUZZ_SEED=K`` shifts every seed by K to explore games CI never saw. A failure names
the seed, player count, policy and action index, so it replays with `FarlightGame.replay`.
"""

from __future__ import annotations

import itertools
import os
import random
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import check_invariants

from farlight_env.game import (
    Bid,
    ChooseEngine,
    CompleteMission,
    Discard,
    EndReason,
    FarlightGame,
    Install,
    Phase,
    RefitStop,
    RuleOptions,
    TargetKind,
)
from farlight_env.game.options import members

PLAYER_COUNTS = (2, 3, 4, 5)  # R-COMP-1
DEFAULT_GAMES = 20
#: No game needs this many decisions: 5 tiles + a handful of other choices per player per round.
MAX_STEPS_PER_ROUND = 400

Policy = Callable[[FarlightGame, random.Random], object]


def fuzz_count(request: pytest.FixtureRequest) -> int:
    """Games per player count and policy: the conftest ``fuzz_games`` fixture when there is one,
    else the ``--fuzz-games`` option, else ``FARLIGHT_FUZZ_GAMES``, else a small default."""
    try:
        value = request.getfixturevalue("fuzz_games")
    except pytest.FixtureLookupError:
        value = request.config.getoption("--fuzz-games", default=None)
    if value is None:
        value = os.environ.get("FARLIGHT_FUZZ_GAMES") or DEFAULT_GAMES
    count = int(value)
    assert count >= 1, f"the fuzz game count must be >= 1, got {count}"
    return count


def seed_offset() -> int:
    return int(os.environ.get("FARLIGHT_FUZZ_SEED", "0"))


# ------------------------------------------------------------------------------------ policies
def uniform_policy(game: FarlightGame, rng: random.Random) -> object:
    """Any legal action, uniformly."""
    return rng.choice(game.legal_actions())


def eager_policy(game: FarlightGame, rng: random.Random) -> object:
    """A random player that mostly goes for things: high tiles with crew, installs rather than
    discards, completes missions, upgrades engines, rarely refits. It reaches bigger ships,
    more engines and climactic endings than uniform play does."""
    legal = game.legal_actions()
    if rng.random() < 0.15:
        return rng.choice(legal)
    phase = game.phase
    if phase is Phase.BIDDING:
        weights = [
            (1 + a.tile) * (2 if a.crew else 1) * (3 if a.target.kind is TargetKind.MISSION else 1)
            for a in legal
            if isinstance(a, Bid)
        ]
        return rng.choices(legal, weights=weights)[0]
    preferred = {
        Phase.INSTALL: (Install,),
        Phase.MISSION: (CompleteMission,),
        Phase.UPGRADE: (ChooseEngine,),
        Phase.OVERHAUL: (ChooseEngine,),
        Phase.REFIT: (RefitStop,),
    }.get(phase, ())
    good = [a for a in legal if isinstance(a, preferred)]
    return rng.choice(good or legal)


POLICIES: dict[str, Policy] = {"uniform": uniform_policy, "eager": eager_policy}


# --------------------------------------------------------------------------------------- driver
def play_checked(game: FarlightGame, choose: Callable[[FarlightGame], object], label: str) -> int:
    """Play to the end, checking invariants after every action; returns the number of actions.

    Assertion messages start with `label` and the action index so a failure can be replayed.
    """
    _checked(game, label, "at setup")
    step_cap = MAX_STEPS_PER_ROUND * game.config.max_rounds
    steps = 0
    while not game.is_over:
        assert steps < step_cap, f"{label}: no end after {steps} actions (round {game.round})"
        action = choose(game)
        before = len(game.history)
        game.apply(action)
        steps += 1
        where = f"after action #{steps - 1} {action} (round {game.round}, {game.phase.value})"
        assert len(game.history) == before + 1, f"{label}: history did not record {where}"
        _checked(game, label, where)
    assert game.round <= game.config.max_rounds, f"{label}: round {game.round} beyond the cap"
    assert game.is_truncated == (game.end_reason is EndReason.ROUND_CAP), f"{label}: truncation"
    return steps


def _checked(game: FarlightGame, label: str, where: str) -> None:
    try:
        check_invariants(game)
    except AssertionError as exc:
        raise AssertionError(f"{label} {where}: {exc}") from None


def _play_many(num_players: int, policy: str, games: int, **config) -> list[FarlightGame]:
    choose_with = POLICIES[policy]
    base = seed_offset() + 1_000_000 * num_players + (0 if policy == "uniform" else 500_000)
    finished = []
    for i in range(games):
        seed = base + i
        rng = random.Random(seed)
        game = FarlightGame(num_players, seed=seed, **config)
        label = f"[seed={seed} players={num_players} policy={policy} config={config}]"
        play_checked(game, lambda g, rng=rng: choose_with(g, rng), label)
        finished.append(game)
    return finished


# ------------------------------------------------------------------------------------------ tests
@pytest.mark.parametrize("policy", sorted(POLICIES))
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_fuzz_random_play_keeps_invariants(
    num_players: int, policy: str, request: pytest.FixtureRequest
) -> None:
    """DESIGN quality bars hold after every action of random legal games, which all end."""
    games = _play_many(num_players, policy, fuzz_count(request))
    reasons = {g.end_reason for g in games}
    assert reasons <= {EndReason.CLIMACTIC, EndReason.DECK}, (
        f"random {num_players}-player games should end by the rules, not the round cap: {reasons}"
    )


def test_fuzz_eager_play_reaches_climactic_endings(request: pytest.FixtureRequest) -> None:
    """The eager policy really exercises the mission path: some 2-player games end climactic."""
    games = _play_many(2, "eager", max(fuzz_count(request), 20))
    assert any(g.end_reason is EndReason.CLIMACTIC for g in games)
    assert any(g.ship_parts[s] for g in games for s in range(2))


@settings(
    max_examples=int(os.environ.get("FARLIGHT_FUZZ_EXAMPLES", "30")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    num_players=st.sampled_from(PLAYER_COUNTS),
    seed=st.integers(min_value=0, max_value=2**63 - 1),
    grid_size=st.sampled_from((3, 5, 13)),
    random_first_player=st.booleans(),
    data=st.data(),
)
def test_fuzz_hypothesis_games_keep_invariants(
    num_players: int, seed: int, grid_size: int, random_first_player: bool, data: st.DataObject
) -> None:
    """Hypothesis picks the seed, config and every action index; it shrinks any failure."""
    game = FarlightGame(
        num_players, seed=seed, grid_size=grid_size, random_first_player=random_first_player
    )
    label = f"[seed={seed} players={num_players} grid={grid_size} rfp={random_first_player}]"

    def choose(g: FarlightGame) -> object:
        legal = g.legal_actions()
        return legal[data.draw(st.integers(0, len(legal) - 1), label="action index")]

    play_checked(game, choose, label)


#: Every combination of every rule option's values (docs/rules.md, "Rule options").
RULE_OPTION_COMBINATIONS = [
    dict(zip(RuleOptions.names(), values, strict=True))
    for values in itertools.product(
        *(spec.choices or (default, not default) for spec, default in members(RuleOptions).values())
    )
]


@pytest.mark.parametrize(
    "rule_options", RULE_OPTION_COMBINATIONS, ids=lambda o: "-".join(map(str, o.values()))
)
@settings(
    max_examples=int(os.environ.get("FARLIGHT_FUZZ_OPTION_EXAMPLES", "3")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    num_players=st.sampled_from(PLAYER_COUNTS),
    seed=st.integers(min_value=0, max_value=2**63 - 1),
    grid_size=st.sampled_from((3, 5, 13)),
    policy=st.sampled_from(sorted(POLICIES)),
)
def test_fuzz_every_rule_option_combination_keeps_invariants(
    rule_options: dict, num_players: int, seed: int, grid_size: int, policy: str
) -> None:
    """Every combination of rule options plays random games to the end, every invariant held
    after every action (the invariants read the options independently of the engine)."""
    game = FarlightGame(num_players, seed=seed, grid_size=grid_size, rule_options=rule_options)
    rng = random.Random(seed)
    label = f"[seed={seed} players={num_players} grid={grid_size} {policy} {rule_options}]"
    play_checked(game, lambda g: POLICIES[policy](g, rng), label)
    assert game.config.rule_options.to_dict() == rule_options


@pytest.mark.parametrize("max_rounds", [1, 2])
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_fuzz_round_cap_truncates(
    num_players: int, max_rounds: int, request: pytest.FixtureRequest
) -> None:
    """R-RESET-6: a tiny round cap ends every game by then, scored in full and marked truncated."""
    games = _play_many(
        num_players, "uniform", max(5, fuzz_count(request) // 4), max_rounds=max_rounds
    )
    for game in games:
        assert game.round <= max_rounds
        if game.end_reason is EndReason.ROUND_CAP:
            assert game.round == max_rounds
            assert game.is_truncated
        else:
            assert not game.is_truncated
        breakdown = game.final_breakdown
        assert breakdown is not None
        assert game.scores() == [sum(b.values()) for b in breakdown]  # final scoring applied
    # random play hardly ever ends a game in 1-2 rounds by the rules: the cap must do it
    assert any(g.end_reason is EndReason.ROUND_CAP for g in games)


@pytest.mark.parametrize("max_rounds", [1, 2, 50])
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_fuzz_tiny_grid_still_plays(
    num_players: int, max_rounds: int, request: pytest.FixtureRequest
) -> None:
    """R-INST-2: on a 3x3 grid (8 cells around the core) every game still plays to its end."""
    games = _play_many(
        num_players, "eager", max(5, fuzz_count(request) // 4), grid_size=3, max_rounds=max_rounds
    )
    for game in games:
        for seat in range(num_players):
            assert len(game.ship_parts[seat]) <= 8
            assert all(abs(r) <= 1 and abs(c) <= 1 for r, c in game.ships[seat])
    if max_rounds == 50:
        # some ship fills up or loses cells to the edge: the grid really binds
        assert any(isinstance(a, Discard) for g in games for a in g.history), (
            "no part was ever discarded on a 3x3 grid"
        )
