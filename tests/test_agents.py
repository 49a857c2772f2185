"""Agents: legal actions everywhere, whole games, the registry, determinism, no peeking.

Every baseline must return an index whose mask bit is set at any state of any 2–5 player
game; search must decide on what its seat may know only (DESIGN: search with hidden
information resampled); the heuristic must play as its docstring promises.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

import numpy as np
import pytest
from scenarios import (
    give,
    install_directly,
    make_game,
    mission_stack,
    play_bids,
    run_until,
    set_stacks,
    use_sink,
    win_parts,
)
from test_hidden import board_tiles, with_other_hidden_facts

import agents
from agents import AGENT_NAMES, Agent, EngineAgent, make
from farlight_env import farlight_v0
from farlight_env.encode.codec import ActionCodec
from farlight_env.encode.observation import ObservationEncoder
from farlight_env.game import (
    Action,
    Bid,
    ChooseEngine,
    CompleteMission,
    FarlightGame,
    Install,
    Phase,
    RefitStop,
    SelectPart,
)
from farlight_env.game.hidden import PlayerView

PLAYER_COUNTS = (2, 3, 4, 5)
#: Keyword arguments that keep every agent quick in tests (search: a tiny fixed budget).
FAST = {"random": {}, "heuristic": {}, "ismcts": {"iterations": 4}}
#: Every kind of decision a player can face.
KINDS = (
    "bidding",
    "refit",
    "engineer",
    "install-select",
    "install-place",
    "upgrade",
    "overhaul",
    "mission",
)

_CODECS: dict[tuple[int, int], tuple[ActionCodec, ObservationEncoder]] = {}


# ------------------------------------------------------------------------------ helpers
def tools(game: FarlightGame) -> tuple[ActionCodec, ObservationEncoder]:
    key = (id(game.cards), game.config.grid_size)
    if key not in _CODECS:
        _CODECS[key] = (
            ActionCodec(game.cards, game.config.grid_size),
            ObservationEncoder(game.cards, game.config.grid_size),
        )
    return _CODECS[key]


def kind(game: FarlightGame) -> str:
    if game.phase is Phase.INSTALL:
        selecting = isinstance(game.legal_actions()[0], SelectPart)
        return "install-select" if selecting else "install-place"
    return game.phase.value


def act(agent: Agent, game: FarlightGame) -> int:
    """The index `agent` picks for the current player, called as env loops call it."""
    seat = game.current_player
    assert seat is not None
    codec, encoder = tools(game)
    info = {"phase": game.phase.value, "seat": seat, "view": PlayerView(game, seat)}
    return agent.act(encoder.encode(game, seat), codec.mask(game), info)


def assert_legal_in_every_kind(agent: Agent, by_kind: dict[str, list[FarlightGame]]) -> None:
    """Two positions of each kind of decision: a legal index, and the game shown unchanged."""
    for k, games in by_kind.items():
        for game in games[:: max(1, len(games) // 2)][:2]:
            before = game.to_json()
            index = act(agent, game)
            assert isinstance(index, int)
            assert tools(game)[0].mask(game)[index] == 1, f"{agent.name}: illegal index in {k}"
            assert game.to_json() == before, f"{agent.name} changed the game it was shown"


def decide(agent: Agent, game: FarlightGame) -> Action:
    return tools(game)[0].decode(act(agent, game), game)


def random_states(num_players: int, seed: int) -> Iterator[FarlightGame]:
    """A copy of the game at every decision of one seeded random legal game."""
    game = FarlightGame(num_players, seed=seed)
    rng = np.random.default_rng(seed)
    while not game.is_over:
        yield game.clone()
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])


def random_play_states() -> dict[int, dict[str, list[FarlightGame]]]:
    """Random-play states per player count and decision kind (3 games per player count)."""
    out: dict[int, dict[str, list[FarlightGame]]] = {}
    for n in PLAYER_COUNTS:
        by_kind: dict[str, list[FarlightGame]] = defaultdict(list)
        for seed in (0, 1, 2):
            for game in random_states(n, seed):
                by_kind[kind(game)].append(game)
        out[n] = dict(by_kind)
    return out


@pytest.fixture(scope="module")
def states() -> dict[int, dict[str, list[FarlightGame]]]:
    return random_play_states()


def play_env_game(
    lineup: list[Agent], seed: int, **config: object
) -> tuple[FarlightGame, list[int]]:
    """A whole game through the wrapped PettingZoo env; returns the game and indices played."""
    env = farlight_v0.env(num_players=len(lineup), **config)
    env.reset(seed=seed)
    played = []
    for name in env.agent_iter():
        obs, _reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        view = env.unwrapped.player_view(name)
        index = lineup[view.seat].act(
            obs["observation"], obs["action_mask"], {**info, "view": view}
        )
        assert obs["action_mask"][index] == 1
        played.append(int(index))
        env.step(index)
    game = env.unwrapped.game
    assert game.is_over
    return game, played


def fresh(name: str, seed: int = 0) -> Agent:
    return make(name, seed=seed, **FAST[name])


# ------------------------------------------------------------------------------ legality
def test_random_play_reaches_every_kind_of_decision(states) -> None:
    seen = {k for by_kind in states.values() for k in by_kind}
    assert set(KINDS) <= seen, f"never reached: {set(KINDS) - seen}"
    for n in PLAYER_COUNTS:
        assert len(states[n]["bidding"]) > 50


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_agent_returns_a_legal_index_at_every_state(states, name: str, num_players: int) -> None:
    agent = fresh(name, seed=num_players)
    checked = 0
    for games in states[num_players].values():
        for game in games:
            index = act(agent, game)
            assert isinstance(index, int)
            assert tools(game)[0].mask(game)[index] == 1, (
                f"{name} chose illegal index {index} in {kind(game)}"
            )
            checked += 1
    assert checked > 150


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_ismcts_returns_a_legal_index_in_every_kind_of_decision(states, num_players: int) -> None:
    assert_legal_in_every_kind(fresh("ismcts", seed=num_players), states[num_players])


def test_ismcts_with_a_time_budget_returns_a_legal_index(states) -> None:
    game = states[4]["bidding"][3]
    index = act(make("ismcts", seed=0, seconds=0.05), game)
    assert tools(game)[0].mask(game)[index] == 1


# ------------------------------------------------------------------------------ whole games
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
@pytest.mark.parametrize("name", ["random", "heuristic"])
def test_agent_in_every_seat_finishes_a_game(name: str, num_players: int) -> None:
    lineup = [make(name, seed=s) for s in range(num_players)]
    game, played = play_env_game(lineup, seed=num_players)
    assert game.end_reason is not None and game.winners()
    assert len(played) >= len(game.history)


def test_ismcts_in_every_seat_finishes_a_short_game() -> None:
    lineup = [fresh("ismcts", seed=s) for s in range(2)]
    game, _ = play_env_game(lineup, seed=1, max_rounds=2)
    assert game.is_over and game.round <= 2


# ------------------------------------------------------------------------------ registry
@pytest.mark.parametrize("name", ["random", "heuristic", "ismcts"])
def test_make_builds_each_registered_agent(name: str) -> None:
    agent = make(name, seed=3)
    assert agent.name == name
    assert isinstance(agent, Agent)
    agent.reset()


def test_registry_names() -> None:
    assert {"random", "heuristic", "ismcts"} <= set(AGENT_NAMES)
    assert agents.make is make


def test_make_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown agent 'alphazero'") as info:
        make("alphazero")
    for name in AGENT_NAMES:
        assert name in str(info.value)


def test_ismcts_rejects_a_bad_budget() -> None:
    with pytest.raises(ValueError, match="iterations"):
        make("ismcts", iterations=0)
    with pytest.raises(ValueError, match="seconds"):
        make("ismcts", seconds=0)


@pytest.mark.parametrize("name", ["heuristic", "ismcts"])
@pytest.mark.parametrize("info", [{}, {"view": "not a view"}, {"seat": 0}])
def test_engine_agents_need_a_player_view(name: str, info: dict) -> None:
    game = FarlightGame(2, seed=0)
    codec, encoder = tools(game)
    agent = fresh(name)
    with pytest.raises(ValueError, match=r"info\['view'\]"):
        agent.act(encoder.encode(game, 0), codec.mask(game), info)


def test_engine_agent_base_act_without_view_raises() -> None:
    game = FarlightGame(2, seed=0)
    codec, encoder = tools(game)
    with pytest.raises(ValueError, match="PlayerView"):
        EngineAgent().act(encoder.encode(game, 0), codec.mask(game), {})


# ------------------------------------------------------------------------------ determinism
def test_heuristic_same_seed_same_game() -> None:
    runs = [play_env_game([make("heuristic", seed=s) for s in range(3)], seed=9) for _ in "ab"]
    (game_a, played_a), (game_b, played_b) = runs
    assert played_a == played_b
    assert game_a.to_json() == game_b.to_json()


def test_ismcts_same_seed_same_game() -> None:
    runs = [play_env_game([fresh("ismcts", s) for s in range(2)], 4, max_rounds=2) for _ in "ab"]
    (game_a, played_a), (game_b, played_b) = runs
    assert played_a == played_b
    assert game_a.to_json() == game_b.to_json()


def test_ismcts_reset_restarts_its_seeded_search(states) -> None:
    game = states[3]["bidding"][7]
    agent = fresh("ismcts", seed=5)
    first = act(agent, game)
    agent.reset()
    assert act(agent, game) == first


# ------------------------------------------------------------------------------ hidden info
def bidding_states_with_hidden_tiles(states, count: int) -> list[FarlightGame]:
    """Bidding states where some opponent of the player to act has face-down tiles out."""
    found = []
    for n in (2, 3, 4):
        for game in states[n]["bidding"]:
            seat = game.current_player
            if any(board_tiles(game, q) for q in range(n) if q != seat):
                found.append(game)
    step = max(1, len(found) // count)
    return found[::step][:count]


@pytest.mark.parametrize("name", ["ismcts", "heuristic"])
def test_decision_is_blind_to_hidden_facts(states, name: str) -> None:
    """R-BID-5, R-SETUP-2: only public facts may steer a decision (fresh, same-seed agents)."""
    rng = np.random.default_rng(0)
    chosen = set()
    for game in bidding_states_with_hidden_tiles(states, count=6):
        seat = game.current_player
        other = with_other_hidden_facts(game, seat, rng)
        assert any(board_tiles(game, q) != board_tiles(other, q) for q in range(game.num_players))
        encoder = tools(game)[1]
        assert np.array_equal(encoder.encode(game, seat), encoder.encode(other, seat))
        a = act(fresh(name, seed=11), game)
        b = act(fresh(name, seed=11), other)
        assert a == b, (
            f"{name} at {game.num_players}p round {game.round}: decision {a} became {b} when "
            "only hidden facts changed"
        )
        chosen.add(a)
    assert len(chosen) > 1  # the states are not all alike


@pytest.mark.parametrize("name", ["ismcts", "heuristic"])
def test_decision_can_follow_a_visible_change(states, name: str) -> None:
    """The converse, so that the blindness test can fail: visible facts do steer decisions."""
    changed = 0
    for game in bidding_states_with_hidden_tiles(states, count=6):
        seat = game.current_player
        richer = game.clone()
        give(richer, seat, crew=game.crew[seat] + 6, science=game.science[seat] + 6)
        changed += act(fresh(name, seed=11), game) != act(fresh(name, seed=11), richer)
    assert changed > 0, f"{name} ignored 6 more crew and science in every state"


# ------------------------------------------------------------------------------ heuristic play
def test_heuristic_never_refits(states) -> None:
    agent = make("heuristic", seed=0)
    seen = 0
    for n in PLAYER_COUNTS:
        for game in states[n].get("refit", []):
            assert decide(agent, game) == RefitStop()
            seen += 1
    assert seen > 5


def test_heuristic_completes_a_mission_it_can_when_first(states) -> None:
    agent = make("heuristic", seed=0)
    seen = 0
    for n in PLAYER_COUNTS:
        for game in states[n].get("mission", []):
            complete = [a for a in game.legal_actions() if isinstance(a, CompleteMission)]
            if complete and game._completers == 0:
                assert decide(agent, game) == complete[0]
                seen += 1
    assert seen > 0, "random play gave no completable mission to check"


def test_heuristic_overhauls_its_lowest_engine_in_random_play(states) -> None:
    agent = make("heuristic", seed=0)
    seen = 0
    for n in PLAYER_COUNTS:
        for game in states[n].get("overhaul", []):
            choice = decide(agent, game)
            assert isinstance(choice, ChooseEngine)
            offered = [a.rank for a in game.legal_actions() if isinstance(a, ChooseEngine)]
            lowest = min(game.engine_values[r] for r in offered)
            assert game.engine_values[choice.rank] == lowest
            seen += 1
    assert seen > 0


@pytest.mark.parametrize(
    ("mission", "science", "crew"),
    [
        ("Lunar Relay Station", 1, 3),  # 1 science: cheap
        ("Hydroponic Supply Run", 0, 6),  # 2 temporary bio-tech for all 6 crew (R-MIS-5)
    ],
)
def test_heuristic_completes_when_first_scenario(mission: str, science: int, crew: int) -> None:
    game = make_game(2, seed=0)
    set_stacks(
        game,
        [
            ["Lunar Relay Station", "Interstellar Ark"],
            ["Hydroponic Supply Run", "Deep Space Observatory"],
            ["Alpha Centauri Expedition"],
        ],
    )
    give(game, 0, science=science, crew=crew)
    stack = 0 if mission == "Lunar Relay Station" else 1
    play_bids(
        game,
        {0: [Bid(4, mission_stack(stack))], 1: [Bid(1, mission_stack(stack))]},
        fill=mission_stack(2),
    )
    run_until(game, Phase.MISSION)
    assert game.current_player == 0
    assert game.cards.missions[game.mission_being_resolved()].name == mission
    assert decide(make("heuristic", seed=0), game) == CompleteMission(mission)


def test_heuristic_overhauls_its_lowest_engine() -> None:
    game = make_game(2, seed=0)
    install_directly(game, 0, "Ion Drive", (0, 1), dice=2)  # rank 3 at 2
    install_directly(game, 0, "Hall Effect Booster", (-1, 0), dice=5)  # rank 5 at 5
    win_parts(game, {0: ["Retrofit Gantry"]}, fill=use_sink(game))  # one-time overhaul icon

    def install_first(g: FarlightGame) -> Action:
        return next(a for a in g.legal_actions() if isinstance(a, Install))

    run_until(game, Phase.OVERHAUL, policy=install_first)
    assert game.current_player == 0
    assert decide(make("heuristic", seed=0), game) == ChooseEngine(3)


def test_heuristic_installs_where_connectors_link_not_where_they_block() -> None:
    """Machine Shop (left, right) fits at (-1,1), blocking Terrarium's up connector, or at
    (0,-1), linking the core's left connector and blocking nothing: it must take (0,-1)."""
    game = make_game(2, seed=0)
    install_directly(game, 0, "Sensor Mast", (-1, 0))  # down, right
    install_directly(game, 0, "Terrarium Module", (0, 1))  # left, up
    win_parts(game, {0: ["Machine Shop"]}, fill=use_sink(game))
    assert game.phase is Phase.INSTALL and game.current_player == 0
    cells = {(a.row, a.col) for a in game.legal_actions() if isinstance(a, Install)}
    assert cells == {(-1, 1), (0, -1)}
    assert decide(make("heuristic", seed=0), game) == Install("Machine Shop", 0, -1)


def test_heuristic_installs_rather_than_discards() -> None:
    game = make_game(2, seed=0)
    win_parts(game, {0: ["Machine Shop"]}, fill=use_sink(game))
    assert isinstance(decide(make("heuristic", seed=0), game), Install)
