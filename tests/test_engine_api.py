"""The rules engine's public contract (the README's "API in ten lines" and its quality bars).

current_player, legal_actions, apply, is_over, scores, winners, round, phase, clone,
to_json/from_json, history; illegal actions and bad configurations get clear errors and change
nothing.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable

import numpy as np
import pytest
from invariants import check_invariants

from farlight_env.cards import AWARDS, FACILITIES, Side, standard_card_set
from farlight_env.game import (
    Action,
    Bid,
    ChooseEngine,
    CompleteMission,
    ConfigError,
    Discard,
    FarlightGame,
    GameConfig,
    IllegalActionError,
    Install,
    PassMission,
    Phase,
    RefitRemove,
    RefitStop,
    SelectPart,
    SkipEngine,
    Target,
    TargetKind,
)

PLAYER_COUNTS = (2, 3, 4, 5)


def part(i: int) -> Target:
    return Target(TargetKind.PART, i)


def fac(name: str) -> Target:
    return Target(TargetKind.FACILITY, FACILITIES.index(name))


def stack(i: int) -> Target:
    return Target(TargetKind.MISSION, i)


def eager(game: FarlightGame, rng: random.Random) -> Action:
    """Random play leaning towards installing, completing and upgrading (reaches every phase)."""
    legal = game.legal_actions()
    good = [
        a
        for a in legal
        if isinstance(a, (Install, CompleteMission, ChooseEngine, RefitStop))
        or (isinstance(a, Bid) and a.tile >= 2)
    ]
    return rng.choice(good if good and rng.random() < 0.85 else legal)


def find_state(
    predicate: Callable[[FarlightGame], bool], num_players: int = 3, games: int = 200
) -> FarlightGame:
    """The first state of a seeded eager game where `predicate` holds."""
    for seed in range(games):
        game = FarlightGame(num_players, seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            if predicate(game):
                return game
            game.apply(eager(game, rng))
    raise AssertionError("no game reached the wanted state")


def play_out(game: FarlightGame, seed: int = 0) -> FarlightGame:
    rng = random.Random(seed)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    return game


def assert_refused(game: FarlightGame, action: object) -> IllegalActionError:
    """`action` raises IllegalActionError (a ValueError) naming it and the phase; the state,
    legal actions and history are unchanged."""
    before = game.to_json()
    legal = game.legal_actions()
    history = list(game.history)
    phase = game.phase
    with pytest.raises(IllegalActionError) as info:
        game.apply(action)  # type: ignore[arg-type]
    error = info.value
    assert isinstance(error, ValueError)
    message = str(error)
    assert repr(action) in message or str(action) in message, f"{message!r} names no action"
    assert phase.value in message, f"{message!r} does not name the phase {phase.value}"
    assert game.to_json() == before, f"{action!r} half-applied"
    assert game.legal_actions() == legal and game.history == history
    return error


# ------------------------------------------------------------------------------ the contract
def test_contract_at_setup() -> None:
    game = FarlightGame(num_players=4, seed=7)
    assert game.current_player == 0  # R-SETUP-6 default
    assert game.phase is Phase.BIDDING
    assert game.round == 1
    assert game.is_over is False
    assert game.scores() == [0, 0, 0, 0]
    assert game.winners() == []
    assert game.history == []
    legal = game.legal_actions()
    assert isinstance(legal, list) and legal and all(isinstance(a, Bid) for a in legal)
    assert isinstance(game.to_json(), str)
    assert isinstance(str(game), str) and str(game)
    check_invariants(game)


def test_contract_keyword_config() -> None:
    game = FarlightGame(
        num_players=2, seed=1, card_set=standard_card_set(), grid_size=5, max_rounds=3
    )
    assert game.config.grid_size == 5 and game.config.max_rounds == 3
    assert game.config.num_players == game.num_players == 2
    play_out(game)
    assert game.round <= 3


def test_contract_config_object() -> None:
    """A GameConfig is taken as it is (the envs pass theirs); it plays as its keywords do."""
    config = GameConfig.from_options(num_players=2, grid_size=5, max_rounds=3)
    game = FarlightGame(seed=1, config=config)
    assert game.config is config
    assert game.to_json() == FarlightGame(2, 1, grid_size=5, max_rounds=3).to_json()
    assert FarlightGame(seed=1).config == GameConfig()  # no options: the defaults
    with pytest.raises(ConfigError, match="not both: config was given with grid_size"):
        FarlightGame(seed=1, config=config, grid_size=7)
    with pytest.raises(ConfigError, match="not both: config was given with num_players"):
        FarlightGame(2, 1, config=config)
    with pytest.raises(ConfigError, match="config must be a GameConfig"):
        FarlightGame(seed=1, config={"num_players": 2})  # type: ignore[arg-type]


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_contract_through_a_whole_game(num_players: int) -> None:
    game = FarlightGame(num_players, seed=num_players)
    rng = random.Random(num_players)
    rounds_seen = {1}
    phases_seen = set()
    while not game.is_over:
        seat = game.current_player
        assert isinstance(seat, int) and 0 <= seat < num_players
        assert isinstance(game.phase, Phase) and game.phase is not Phase.OVER
        assert game.winners() == []
        legal = game.legal_actions()
        legal.clear()  # the returned list is the caller's own
        assert game.legal_actions(), "clearing the returned list emptied the game's"
        action = rng.choice(game.legal_actions())
        size = len(game.history)
        assert game.apply(action) is None
        assert len(game.history) == size + 1 and game.history[-1] == action
        assert game.round >= max(rounds_seen)
        rounds_seen.add(game.round)
        phases_seen.add(game.phase)
    assert game.phase is Phase.OVER
    assert game.current_player is None
    assert game.legal_actions() == []
    assert game.is_over is True
    assert len(game.scores()) == num_players
    assert rounds_seen == set(range(1, game.round + 1)), "rounds went up by one"
    assert {Phase.BIDDING, Phase.INSTALL} <= phases_seen


def test_scores_and_winners_are_copies() -> None:
    game = play_out(FarlightGame(3, seed=2))
    scores, winners = game.scores(), game.winners()
    scores[0] += 100
    winners.append(99)
    assert game.scores() != scores and 99 not in game.winners()


def test_clone_and_json_in_the_contract() -> None:
    game = FarlightGame(3, seed=5)
    game.apply(game.legal_actions()[0])
    clone = game.clone()
    assert isinstance(clone, FarlightGame) and clone is not game
    restored = FarlightGame.from_json(game.to_json())
    assert isinstance(restored, FarlightGame)
    assert clone.to_json() == restored.to_json() == game.to_json()


def test_history_holds_only_player_decisions_and_replays() -> None:
    """FarlightGame docstring: forced single-option decisions are automatic, not recorded."""
    game = play_out(FarlightGame(4, seed=11), seed=11)
    assert all(isinstance(a, Action.__args__) for a in game.history)  # type: ignore[attr-defined]
    assert FarlightGame.replay(game.history, 4, 11).to_json() == game.to_json()


@pytest.mark.parametrize("seed", range(6))
def test_random_first_player_draws_a_seat(seed: int) -> None:
    firsts = {FarlightGame(5, seed=s, random_first_player=True).current_player for s in range(30)}
    assert firsts <= set(range(5)) and len(firsts) > 1
    game = FarlightGame(5, seed=seed, random_first_player=True)
    assert game.current_player == game.first_player


# ----------------------------------------------------------------------------- end of game
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_winners_nonempty_subset_of_top_scorers(num_players: int) -> None:
    for seed in range(8):
        game = play_out(FarlightGame(num_players, seed=seed), seed)
        winners, scores = game.winners(), game.scores()
        assert winners, "R-END-3: somebody wins"
        assert len(set(winners)) == len(winners)
        assert set(winners) <= {s for s in range(num_players) if scores[s] == max(scores)}


def _award_value(game: FarlightGame, seat: int, award: str) -> int:
    """R-END-1 recomputed from the card model, independently of the engine's helpers."""
    parts = game.cards.parts
    ship = game.ships[seat]
    if award == "Colonist":
        return sum(parts[p].biotech for p in game.ship_parts[seat])
    if award == "Commander":
        return game.crew[seat]
    if award == "Juggernaut":
        return len(game.ship_parts[seat])
    if award == "Researcher":
        return game.science[seat]
    if award == "Rocketeer":
        return sum(game.engine_values[r] for p in game.ship_parts[seat] for r in parts[p].engines)
    open_ = blocked = 0  # R-SHIP-1
    for (row, col), piece in ship.items():
        sides = set(Side) if piece < 0 else parts[piece].connectors
        for side in sides:
            dr, dc = side.offset
            neighbour = ship.get((row + dr, col + dc))
            if neighbour is None:
                open_ += 1
            elif side.opposite not in (set(Side) if neighbour < 0 else parts[neighbour].connectors):
                blocked += 1
    if award == "Potential":
        return open_
    assert award == "Efficiency"
    return -(open_ + blocked)  # fewest wins


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_final_scores_are_missions_awards_tokens(num_players: int) -> None:
    """R-END-1/2: scores() after the game = breakdown sum; awards and tokens recomputed here."""
    for seed in range(8):
        game = FarlightGame(num_players, seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            game.apply(eager(game, rng))
        breakdown = game.final_breakdown
        assert breakdown is not None and len(breakdown) == num_players
        assert len(game.awards_up) == 3 and set(game.awards_up) <= set(AWARDS)
        for seat in range(num_players):
            b = breakdown[seat]
            assert game.scores()[seat] == b["missions"] + b["awards"] + b["tokens"]
            assert b["tokens"] == math.ceil((game.crew[seat] + game.science[seat]) / 3)
            held = 0
            for award in game.awards_up:
                values = [_award_value(game, s, award) for s in range(num_players)]
                held += values[seat] == max(values)
            assert b["awards"] == 5 * held, f"seat {seat}: awards {b['awards']} != 5 x {held}"
            assert b["missions"] >= 0


def test_scores_during_the_game_are_mission_points() -> None:
    game = FarlightGame(3, seed=4)
    rng = random.Random(4)
    while not game.is_over:
        assert game.scores() == game.points
        game.apply(eager(game, rng))


# --------------------------------------------------------------------------- illegal actions
def test_illegal_tile_not_in_hand() -> None:
    game = FarlightGame(3, seed=0)
    game.apply(Bid(4, part(0)))
    assert game.current_player == 0  # two tiles in pass 1 (R-BID-1)
    assert_refused(game, Bid(4, part(1)))
    assert_refused(game, Bid(7, part(1)))
    assert_refused(game, Bid(-1, part(1)))


def test_illegal_bid_with_crew_when_crew_is_zero() -> None:
    """R-BID-3: a placement with crew needs crew; seat 0 spends its 3 crew, then tries again."""
    game = FarlightGame(2, seed=0)
    game.apply(Bid(0, part(0), crew=True))
    game.apply(Bid(1, part(0), crew=True))
    game.apply(Bid(0, fac("Hire")))
    game.apply(Bid(1, fac("Hire")))
    game.apply(Bid(2, part(1), crew=True))
    assert game.crew[0] == 0 and game.current_player == 0
    assert_refused(game, Bid(3, part(2), crew=True))
    game.apply(Bid(3, part(2)))  # the same tile without crew is fine


def test_illegal_bid_targets_that_do_not_exist() -> None:
    game = FarlightGame(2, seed=0)
    assert_refused(game, Bid(1, part(game.num_spaces)))  # 2 players: spaces 0..6 (R-SETUP-4)
    assert_refused(game, Bid(1, part(-1)))
    assert_refused(game, Bid(1, Target(TargetKind.FACILITY, len(FACILITIES))))
    assert_refused(game, Bid(1, stack(3)))


def test_illegal_bid_on_an_empty_mission_stack() -> None:
    """R-BID-2: only an available mission is a target; an exhausted stack has none."""
    data = json.loads(FarlightGame(3, seed=0).to_json())
    state = data["state"]
    state["missions_out"] += state["stacks"][1]
    state["stacks"][1] = []
    game = FarlightGame.from_json(json.dumps(data))
    check_invariants(game)
    assert_refused(game, Bid(2, stack(1)))
    assert Bid(2, stack(0)) in game.legal_actions()


def test_illegal_action_of_another_phase_during_bidding() -> None:
    game = FarlightGame(3, seed=0)
    name = game.cards.parts[game.spaces[0]].name
    mission = game.cards.missions[game.stacks[0][0]].name
    for action in (
        RefitStop(),
        SkipEngine(),
        ChooseEngine(1),
        SelectPart(name),
        Install(name, -1, 0),
        Discard(name),
        CompleteMission(mission),
        PassMission(mission),
    ):
        assert_refused(game, action)


@pytest.mark.parametrize(
    "junk", [None, 42, "bid 4 on Hire", ("Bid", 4), {"type": "Bid", "tile": 4}, [4, 0]]
)
def test_illegal_non_actions(junk: object) -> None:
    assert_refused(FarlightGame(2, seed=0), junk)


ODD_ACTIONS = {
    "crew-str": lambda: Bid(1, part(0), crew="yes"),
    "crew-2": lambda: Bid(1, part(0), crew=2),
    "crew-int-1": lambda: Bid(1, part(0), crew=1),
    "tile-bool": lambda: Bid(True, part(0)),
    "tile-float": lambda: Bid(0.7, part(0)),
    "tile-str": lambda: Bid("0", part(0)),
    "tile-nan": lambda: Bid(float("nan"), part(0)),
    "tile-none": lambda: Bid(None, part(0)),
    "kind-str": lambda: Bid(1, Target("part", 0)),
    "target-tuple": lambda: Bid(1, ("part", 0)),
    "index-bool": lambda: Bid(1, Target(TargetKind.PART, True)),
    "index-float": lambda: Bid(1, Target(TargetKind.PART, 0.0)),
    "rank-float": lambda: ChooseEngine(1.0),
    "row-str": lambda: Install("Proton Analyzer", "0", 1),
    "col-bool": lambda: Install("Proton Analyzer", 0, False),
    "part-int": lambda: SelectPart(3),
    "mission-none": lambda: PassMission(None),
}


@pytest.mark.parametrize("name", sorted(ODD_ACTIONS))
def test_an_oddly_typed_action_cannot_be_built(name: str) -> None:
    """Actions are what they claim to be: a field of the wrong type is a TypeError naming the
    action, the field and the value, never a silent cast."""
    with pytest.raises(
        TypeError, match=r"\.(tile|crew|target|kind|index|rank|row|col|part|mission)"
    ):
        ODD_ACTIONS[name]()


def test_numpy_integers_make_the_same_actions_and_save() -> None:
    """np.int64 from argmax/flatnonzero builds actions equal to the legal ones; they apply,
    are recorded as plain ints and save to JSON."""
    game = FarlightGame(2, seed=0)
    action = Bid(np.int64(1), Target(TargetKind.PART, np.int32(0)), np.bool_(True))
    assert action == Bid(1, part(0), True) and hash(action) == hash(Bid(1, part(0), True))
    assert type(action.tile) is int and type(action.target.index) is int
    assert type(action.crew) is bool
    game.apply(action)
    rng = random.Random(0)
    while not game.is_over:
        legal = game.legal_actions()
        chosen = rng.choice(legal)
        if isinstance(chosen, Install):
            chosen = Install(chosen.part, np.int64(chosen.row), np.int64(chosen.col))
            assert chosen in legal
        if isinstance(chosen, ChooseEngine):
            chosen = ChooseEngine(np.int16(chosen.rank))
        game.apply(chosen)
        if isinstance(chosen, Install):
            text = game.to_json()  # must not crash on numpy values
            assert FarlightGame.from_json(text).to_json() == text
    assert FarlightGame.replay(game.history, 2, 0).to_json() == game.to_json()


def _in_install_decision(game: FarlightGame) -> bool:
    return game.phase is Phase.INSTALL and any(isinstance(a, Install) for a in game.legal_actions())


def test_illegal_installs() -> None:
    game = find_state(_in_install_decision)
    legal = game.legal_actions()
    name = next(a.part for a in legal if isinstance(a, Install))
    half = game.config.grid_size // 2
    seat = game.current_player
    assert_refused(game, Install(name, 0, 0))  # the core's cell
    for cell in game.ships[seat]:
        assert_refused(game, Install(name, *cell))  # occupied
    assert_refused(game, Install(name, half + 1, 0))  # off the grid (R-INST-2)
    assert_refused(game, Install(name, 0, -half - 1))
    offered = {(a.row, a.col) for a in legal if isinstance(a, Install)}
    far = next(
        (r, c)
        for r in range(-half, half + 1)
        for c in range(-half, half + 1)
        if (r, c) not in offered and (r, c) not in game.ships[seat]
    )
    assert_refused(game, Install(name, *far))  # not linked to the ship (R-INST-3)
    other = next(p.name for p in game.cards.parts if p.name != name)
    row, col = next(iter(offered))
    assert_refused(game, Install(other, row, col))  # not the part being handled
    assert_refused(game, Discard(other))
    assert_refused(game, Bid(0, part(0)))  # bidding is over


def test_illegal_select_of_a_part_not_pending() -> None:
    game = find_state(
        lambda g: (
            g.phase is Phase.INSTALL and any(isinstance(a, SelectPart) for a in g.legal_actions())
        )
    )
    pending = {a.part for a in game.legal_actions()}
    other = next(p.name for p in game.cards.parts if p.name not in pending)
    assert_refused(game, SelectPart(other))
    some = next(iter(pending))
    assert_refused(game, Install(some, -1, 0))  # select first


def test_illegal_mission_decisions() -> None:
    game = find_state(lambda g: g.phase is Phase.MISSION)
    name = game.legal_actions()[0].mission
    other = next(m.name for m in game.cards.missions if m.name != name)
    assert_refused(game, CompleteMission(other))
    assert_refused(game, PassMission(other))
    assert_refused(game, Bid(0, stack(0)))
    assert_refused(game, RefitStop())


def test_illegal_engine_choices() -> None:
    game = find_state(lambda g: g.phase in (Phase.UPGRADE, Phase.OVERHAUL, Phase.ENGINEER), 2)
    seat = game.current_player
    own = {rank for rank, _ in game.engines(seat)}
    foreign = next(r for r in game.rank_part if r not in own)
    assert_refused(game, ChooseEngine(foreign))
    maxed = [rank for rank, value in game.engines(seat) if value == 6]
    for rank in maxed:
        assert_refused(game, ChooseEngine(rank))
    if game.phase is Phase.ENGINEER:
        assert_refused(game, SkipEngine())  # R-RES-5: Engineer always improves an engine


def test_illegal_refit_removal() -> None:
    game = find_state(lambda g: g.phase is Phase.REFIT, 2, games=400)
    seat = game.current_player
    mine = {game.cards.parts[p].name for p in game.ship_parts[seat]}
    other = next(p.name for p in game.cards.parts if p.name not in mine)
    assert_refused(game, RefitRemove(other))
    assert_refused(game, RefitRemove("Primary Core"))


def test_illegal_action_after_the_game_is_over() -> None:
    game = play_out(FarlightGame(2, seed=3))
    for action in (Bid(0, part(0)), RefitStop(), SkipEngine(), None):
        error = assert_refused(game, action)
        assert "over" in str(error)


def test_illegal_action_error_is_a_value_error() -> None:
    assert issubclass(IllegalActionError, ValueError)
    assert issubclass(ConfigError, ValueError)


# ------------------------------------------------------------------------------- bad configs
@pytest.mark.parametrize(
    "kwargs, field",
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 6}, "num_players"),
        ({"num_players": 0}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"num_players": "4"}, "num_players"),
        ({"num_players": 4.0}, "num_players"),
        ({"grid_size": 12}, "grid_size"),
        ({"grid_size": 1}, "grid_size"),
        ({"grid_size": -13}, "grid_size"),
        ({"grid_size": "13"}, "grid_size"),
        ({"grid_size": 43}, "grid_size"),  # MAX_GRID_SIZE is 41
        ({"grid_size": 10**400}, "grid_size"),
        ({"max_rounds": 0}, "max_rounds"),
        ({"max_rounds": -5}, "max_rounds"),
        ({"max_rounds": 2.5}, "max_rounds"),
        ({"max_rounds": 10_001}, "max_rounds"),  # MAX_ROUNDS is 10,000
        ({"card_set": 42}, "card_set"),
        ({"card_set": ["parts"]}, "card_set"),
        ({"seed": "seven"}, "seed"),
        ({"seed": 1.5}, "seed"),
        ({"seed": 2**128}, "seed"),
        ({"colour": "red"}, "colour"),
    ],
    ids=lambda v: v if isinstance(v, str) else repr(v),
)
def test_bad_config_raises_config_error(kwargs: dict, field: str) -> None:
    args = {"num_players": 3, **kwargs}
    with pytest.raises(ConfigError, match=field) as info:
        FarlightGame(**args)
    shown = repr(next(iter(kwargs.values())))
    if field != "card_set":
        assert shown in str(info.value) or str(next(iter(kwargs.values()))) in str(info.value)


def test_negative_seed_raises_config_error() -> None:
    """numpy refuses negative seeds; the user should hear it is the seed, as a ConfigError."""
    with pytest.raises(ConfigError, match="seed"):
        FarlightGame(3, seed=-1)


def test_non_bool_random_first_player_raises_config_error() -> None:
    """random_first_player="no" would silently mean True."""
    with pytest.raises(ConfigError, match="random_first_player"):
        FarlightGame(3, seed=0, random_first_player="no")  # type: ignore[arg-type]


def test_missing_card_file_raises_config_error(tmp_path) -> None:
    path = tmp_path / "no-such-cards.toml"
    with pytest.raises(ConfigError, match="no-such-cards.toml"):
        FarlightGame(3, seed=0, card_set=path)
    with pytest.raises(ConfigError, match="no-such-cards.toml"):
        FarlightGame(3, seed=0, card_set=str(path))


def test_malformed_card_file_raises_config_error(tmp_path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text('name = "mine"\n[[parts]\nname = ', encoding="utf-8")
    with pytest.raises(ConfigError, match="broken.toml"):
        FarlightGame(3, seed=0, card_set=broken)


def test_card_file_with_a_bad_field_names_card_and_field(tmp_path) -> None:
    from farlight_env.cards import card_set_to_dict

    data = card_set_to_dict(standard_card_set())
    data["parts"][5]["crew_cost"] = 9
    bad = tmp_path / "bad-field.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        FarlightGame(3, seed=0, card_set=bad)
    message = str(info.value)
    assert "bad-field.json" in message and "crew_cost" in message
    assert data["parts"][5]["name"] in message


def test_card_file_of_unknown_type_raises_config_error(tmp_path) -> None:
    odd = tmp_path / "cards.yaml"
    odd.write_text("name: x\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="cards.yaml"):
        FarlightGame(3, seed=0, card_set=odd)


def test_a_good_card_file_path_is_accepted(tmp_path) -> None:
    from farlight_env.cards import card_set_to_dict

    path = tmp_path / "copy.json"
    path.write_text(json.dumps(card_set_to_dict(standard_card_set())), encoding="utf-8")
    from_file = FarlightGame(3, seed=9, card_set=path)
    default = FarlightGame(3, seed=9)
    assert from_file.to_json() == default.to_json()
