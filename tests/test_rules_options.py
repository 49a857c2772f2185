"""Rule options (docs/rules.md, "Rule options"): each value of each option, from exact positions.

R-MIS-2 lone_zero_mission_chance, R-MIS-5 temp_biotech_lasts, R-END-2 token_rounding,
R-SHIP-1 edge_connectors; plus how options are given, refused, saved, recorded and replayed.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import numpy as np
import pytest
from scenarios import (
    SINK_MISSION,
    give,
    make_game,
    mission_stack,
    play_bids,
    set_first_player,
    set_stacks,
    sink_round,
    use_sink,
    win_parts,
)

from agents.farlight.heuristic import LONE_ZERO_SHARE, HeuristicAgent
from agents.farlight.ismcts import _projection
from farlight_env import farlight_v0
from farlight_env.encode.layout import PLAYER_FEATURES
from farlight_env.encode.observation import ObservationEncoder
from farlight_env.env.single_agent import FarlightSingleAgentEnv
from farlight_env.game import (
    Bid,
    CompleteMission,
    ConfigError,
    FarlightGame,
    Install,
    PassMission,
    Phase,
    RuleOptions,
)
from farlight_env.game.rules_options import LEGACY_RULE_OPTIONS, parse_rule_assignment
from farlight_env.platform.records import save_record
from farlight_env.records.record import build_record, load_record, verify_record

M0, M1 = mission_stack(0), mission_stack(1)
SINK = mission_stack(2)
LUNAR = "Lunar Relay Station"  # value 2, needs 1 science


def _lunar(first: int, **rule_options) -> FarlightGame:
    """3 players with 1 science each, Lunar Relay Station on top of stack 0."""
    game = make_game(3, rule_options=rule_options)
    set_stacks(game, [[LUNAR], ["Mars Elevator"], [SINK_MISSION]])
    set_first_player(game, first)
    for seat in range(3):
        give(game, seat, science=1)
    return game


def decide_all(game: FarlightGame, complete: set[int]) -> list[int]:
    """Answer every mission decision (complete for seats in `complete`); the seats asked."""
    asked = []
    while game.phase is Phase.MISSION:
        seat = game.current_player
        name = game.cards.missions[game.mission_being_resolved()].name
        asked.append(seat)
        game.apply(CompleteMission(name) if seat in complete else PassMission(name))
    return asked


# ============================================================================ R-MIS-2
def test_r_mis_2_lone_zero_asked_after_real_bidders_scores_half():
    """R-MIS-2 default: seat 0 (first player) bids a lone 0, seats 1 and 2 bid 1 and 3; the
    lone 0 is asked last and, completing after two others, scores ceil(2 / 2) = 1."""
    game = _lunar(first=0)
    play_bids(game, {0: [Bid(0, M0)], 1: [Bid(1, M0)], 2: [Bid(3, M0)]}, fill=SINK)
    assert decide_all(game, {0, 1, 2}) == [2, 1, 0]
    assert game.points == [1, 1, 2]
    assert game.science == [0, 0, 0]


def test_r_mis_2_lone_zero_first_to_complete_scores_full_value():
    """R-MIS-2/6 default: the real bidders pass; the lone 0 completes first for the full 2."""
    game = _lunar(first=0)
    play_bids(game, {0: [Bid(0, M0)], 1: [Bid(1, M0)], 2: [Bid(3, M0)]}, fill=SINK)
    assert decide_all(game, {0}) == [2, 1, 0]
    assert game.points == [2, 0, 0]
    assert game.stacks[0] == []  # completed: the mission left (R-MIS-8)


def test_r_mis_2_lone_zeros_asked_in_turn_order_from_the_first_player():
    """R-MIS-2 default: first player 1; lone zeros of seats 0 and 1 come after seat 2's real bid,
    in turn order (1 before 0), each scoring half after the first completer."""
    game = _lunar(first=1)
    play_bids(game, {0: [Bid(0, M0)], 1: [Bid(0, M0)], 2: [Bid(1, M0)]}, fill=SINK)
    assert decide_all(game, {0, 1, 2}) == [2, 1, 0]
    assert game.points == [1, 1, 2]


def test_r_mis_2_zero_tile_with_crew_is_a_real_bid():
    """R-MIS-2/R-BID-6: 0 + a crew is a bid of 1, ordered among real bids, not a lone 0."""
    game = _lunar(first=0)
    play_bids(game, {0: [Bid(0, M0)], 1: [Bid(0, M0, crew=True)]}, fill=SINK)
    assert decide_all(game, {0, 1}) == [1, 0]
    assert game.points == [1, 2, 0]


def test_r_mis_2_lone_zero_that_cannot_complete_passes_automatically():
    """R-MIS-2/3 default: a lone 0 without the science is not asked (its only option is pass)."""
    game = _lunar(first=0)
    give(game, 0, science=0)
    play_bids(game, {0: [Bid(0, M0)], 1: [Bid(1, M0)]}, fill=SINK)
    assert decide_all(game, {0, 1}) == [1]
    assert game.points == [0, 2, 0]


@pytest.mark.parametrize("lone_zero", [True, False])
def test_r_mis_2_heuristic_takes_a_lone_zero_ticket_when_it_pays(lone_zero):
    """R-MIS-2: with only its 0 tile left (no crew) and a rival's tile on a mission it can
    complete, the heuristic values a lone 0 there at half the mission only when the option is on;
    a lone 0 anywhere else wins nothing."""
    game = make_game(2, rule_options={"lone_zero_mission_chance": lone_zero})
    set_stacks(game, [[LUNAR], ["Mars Elevator"], [SINK_MISSION]])
    give(game, 0, crew=0, science=1)
    for seat, bid in [
        (0, Bid(1, SINK)), (0, Bid(2, SINK)), (1, Bid(4, M0)), (1, Bid(1, SINK)),
        (0, Bid(3, SINK)), (0, Bid(4, SINK)), (1, Bid(2, SINK)), (1, Bid(3, SINK)),
    ]:  # fmt: skip
        assert game.current_player == seat
        game.apply(bid)
    assert game.current_player == 0 and game.hands[0] == [0]
    agent = HeuristicAgent(seed=0)
    scores = {bid: score for score, bid in agent.score_bids(game, 0, game.legal_actions())}
    ticket = scores.pop(Bid(0, M0))
    assert max(scores.values()) < 0.01  # the 0 tile has no other use
    if lone_zero:
        assert ticket == pytest.approx(LONE_ZERO_SHARE * 2, abs=0.01)
        assert agent.choose(game, 0) == Bid(0, M0)
    else:
        assert ticket < 0.01


# ============================================================================ R-MIS-5
def _biotech_round(crew: int, lasts: str) -> FarlightGame:
    """Seat 0 bids on Hydroponic Supply Run (value 3, 2 bio-tech) and Colonist Training (value 5,
    1 bio-tech, 1 science) with no bio-tech on its ship; the first resolves first."""
    game = make_game(2, rule_options={"temp_biotech_lasts": lasts})
    set_stacks(game, [["Hydroponic Supply Run"], ["Colonist Training"], [SINK_MISSION]])
    give(game, 0, crew=crew, science=1)
    play_bids(game, {0: [Bid(1, M0), Bid(2, M1)]}, fill=SINK)
    game.apply(CompleteMission("Hydroponic Supply Run"))
    return game


def test_r_mis_5_temp_biotech_lost_once_its_mission_is_resolved_when_option_mission():
    """R-MIS-5 temp_biotech_lasts="mission": the 2 bought for the first mission are gone before
    the second, which must buy its own 1 (3 more crew)."""
    game = _biotech_round(crew=9, lasts="mission")
    assert game.mission_being_resolved() is not None
    assert game.temp_biotech == [0, 0] and game.crew[0] == 3
    game.apply(CompleteMission("Colonist Training"))
    assert game.crew[0] == 0 and game.points[0] == 3 + 5
    assert game.phase is Phase.BIDDING and game.temp_biotech == [0, 0]


@pytest.mark.parametrize(("lasts", "points", "crew"), [("round", 8, 2), ("mission", 3, 2)])
def test_r_mis_5_temp_biotech_lasts_decides_a_later_mission(lasts, points, crew):
    """R-MIS-5: with 8 crew, 6 buy 2 bio-tech for the first mission; the 2 left cannot buy more.
    round (default): the second mission uses them; mission: it cannot be completed."""
    game = _biotech_round(crew=8, lasts=lasts)
    if game.phase is Phase.MISSION:
        assert lasts == "round" and game.temp_biotech[0] == 2
        game.apply(CompleteMission("Colonist Training"))
    assert game.phase is Phase.BIDDING
    assert game.points[0] == points and game.crew[0] == crew


# ============================================================================ R-END-2
def _scored(crew: int, science: int, rounding: str) -> FarlightGame:
    game = make_game(2, max_rounds=1, rule_options={"token_rounding": rounding})
    game.awards_up = ["Juggernaut", "Colonist", "Rocketeer"]
    give(game, 0, crew=crew, science=science)
    sink_round(game, use_sink(game))
    assert game.is_over
    return game


@pytest.mark.parametrize(
    ("crew", "science", "down", "up"),
    [(0, 0, 0, 0), (1, 0, 0, 1), (2, 0, 0, 1), (3, 0, 1, 1), (4, 1, 1, 2), (5, 3, 2, 3)],
)
def test_r_end_2_token_rounding_down(crew, science, down, up):
    """R-END-2 token_rounding="down": one point per full 3 crew + science; "up" rounds up."""
    assert _scored(crew, science, "down").final_breakdown[0]["tokens"] == down
    assert _scored(crew, science, "up").final_breakdown[0]["tokens"] == up


def test_r_end_2_ismcts_projection_uses_the_engines_token_rule():
    """R-END-2: the search agent's evaluation counts tokens the way the game in hand does."""
    down = make_game(2, rule_options={"token_rounding": "down"})
    up = make_game(2)
    for game in (down, up):
        give(game, 0, crew=4, science=0)
    assert up.token_points(0) == 2 and down.token_points(0) == 1
    assert _projection(up, 0) - _projection(down, 0) == pytest.approx(1.0)


# ============================================================================ R-SHIP-1
def _edge_ship(edge: str) -> FarlightGame:
    """Grid 3x3: Hydroponics Garden (up, down) installed above the core; its up points off-grid."""
    game = make_game(2, grid_size=3, rule_options={"edge_connectors": edge})
    win_parts(game, {0: ["Hydroponics Garden"]}, fill=use_sink(game))
    game.apply(Install("Hydroponics Garden", -1, 0))
    return game


def test_r_ship_1_edge_connectors_blocked():
    """R-SHIP-1 edge_connectors="blocked": the off-grid connector is blocked, so Potential drops
    and Efficiency (open + blocked) is unchanged (R-END-1)."""
    game = _edge_ship("blocked")
    assert game.connectors(0) == (3, 2, 1)
    assert game.award_value(0, "Potential") == 3
    assert game.award_value(0, "Efficiency") == 4


def test_r_ship_1_edge_connectors_open_by_default():
    """R-SHIP-1 edge_connectors="open" (default): the off-grid connector is open."""
    game = _edge_ship("open")
    assert game.connectors(0) == (4, 2, 0)
    assert game.award_value(0, "Potential") == 4


def test_r_ship_1_edge_option_reaches_the_encoder_and_the_heuristic():
    """R-SHIP-1: the observation's connector counts and the heuristic's install choice follow
    the game's edge_connectors, through the engine's one counting function."""
    games = {edge: _edge_ship(edge) for edge in ("open", "blocked")}
    encoder = ObservationEncoder(games["open"].cards, 3)
    rows = {}
    for edge, game in games.items():
        players = encoder.encode(game, 0)[encoder.layout()["players"][0]]
        table = players.reshape(encoder.layout()["players"][1])
        rows[edge] = table[0, [PLAYER_FEATURES.index(f) for f in PLAYER_FEATURES[-3:-1]]]
    assert rows["open"][1] == 0 and rows["blocked"][1] > 0  # blocked_connectors
    assert rows["open"][0] > rows["blocked"][0]  # open_connectors
    install = Install("Hydroponics Garden", 1, 0)  # would point off-grid downwards
    quality = {e: HeuristicAgent()._placement_quality(g, 1, install) for e, g in games.items()}
    assert quality["blocked"] < quality["open"]


# ============================================================================ options API
ALL_OPTIONS = [
    dict(zip(RuleOptions.names(), values, strict=True))
    for values in itertools.product(
        (True, False), ("round", "mission"), ("up", "down"), ("open", "blocked")
    )
]


def test_defaults_are_the_rulebooks_literal_reading():
    """Defaults (docs/rules.md): lone 0 may complete, round bio-tech, tokens up, edges open."""
    assert RuleOptions().to_dict() == {
        "lone_zero_mission_chance": True,
        "temp_biotech_lasts": "round",
        "token_rounding": "up",
        "edge_connectors": "open",
    }
    assert make_game(2).config.rule_options == RuleOptions()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"lone_zero": True}, "valid options: lone_zero_mission_chance, temp_biotech_lasts"),
        ({"token_rounding": "nearest"}, "must be one of 'up', 'down'"),
        ({"lone_zero_mission_chance": 1}, "must be one of True, False"),
        ({"edge_connectors": None}, "must be one of 'open', 'blocked'"),
        (["token_rounding"], "must be a mapping"),
    ],
)
def test_bad_options_are_refused_listing_the_valid_ones(options, message):
    with pytest.raises(ConfigError, match=message):
        FarlightGame(2, seed=0, rule_options=options)
    with pytest.raises(ConfigError, match=message):
        farlight_v0.env(num_players=2, rule_options=options)
    with pytest.raises(ConfigError, match=message):
        FarlightSingleAgentEnv(num_players=2, rule_options=options)


def test_parse_rule_assignment_types_values():
    assert parse_rule_assignment("lone_zero_mission_chance=False") == (
        "lone_zero_mission_chance",
        False,
    )
    assert parse_rule_assignment(" token_rounding = DOWN ") == ("token_rounding", "down")
    with pytest.raises(ValueError, match="expected NAME=VALUE"):
        parse_rule_assignment("token_rounding")


@pytest.mark.parametrize("options", ALL_OPTIONS, ids=lambda o: "-".join(map(str, o.values())))
def test_every_option_round_trips_through_json_and_records(options):
    """Options in force are saved by to_json and records, and replay uses them."""
    game = FarlightGame(2, seed=5, rule_options=options)
    rng = np.random.default_rng(5)
    while not game.is_over:
        legal = game.legal_actions()
        game.apply(legal[int(rng.integers(len(legal)))])
    restored = FarlightGame.from_json(game.to_json())
    assert restored.config.rule_options.to_dict() == options
    assert restored.to_json() == game.to_json()
    record = build_record(game, ["random", "random"], None, {"num_players": 2})
    assert record["config"]["rule_options"] == options
    assert verify_record(json.loads(json.dumps(record))).config.rule_options.to_dict() == options


def test_files_saved_before_options_replay_under_the_legacy_reading(tmp_path):
    """A saved game or record without rule_options was played with no lone-0 chance."""
    game = FarlightGame(2, seed=3, rule_options=LEGACY_RULE_OPTIONS)
    data = json.loads(game.to_json())
    del data["config"]["rule_options"]
    assert FarlightGame.from_json(json.dumps(data)).config.rule_options == LEGACY_RULE_OPTIONS
    record = build_record(game, ["a", "b"], None, {"num_players": 2})
    del record["config"]["rule_options"]
    save_record(record, tmp_path / "old.json")
    loaded = load_record(tmp_path / "old.json")
    assert verify_record(loaded).config.rule_options == LEGACY_RULE_OPTIONS


def test_a_corrupt_saved_option_is_refused():
    data = json.loads(FarlightGame(2, seed=3).to_json())
    data["config"]["rule_options"]["token_rounding"] = "sideways"
    with pytest.raises(ValueError, match="saved game.*token_rounding"):
        FarlightGame.from_json(json.dumps(data))


def test_observation_layout_does_not_change_with_options():
    """One network serves every variant: same spaces, same layout."""
    plain = farlight_v0.raw_env(num_players=2)
    other = farlight_v0.raw_env(num_players=2, rule_options=ALL_OPTIONS[-1])
    assert other.observation_layout() == plain.observation_layout()
    assert other.observation_space("player_0") == plain.observation_space("player_0")
    other.reset(seed=1)
    assert other.game.config.rule_options.to_dict() == ALL_OPTIONS[-1]


def test_gymnasium_env_passes_options_to_the_game():
    env = FarlightSingleAgentEnv(num_players=2, rule_options={"token_rounding": "down"})
    env.reset(seed=0)
    assert env.aec.game.config.rule_options.token_rounding == "down"


def test_tournament_records_and_results_hold_the_options(tmp_path):
    from evaluation.tournament import run_tournament, write_results

    rules = {"token_rounding": "down", "edge_connectors": "blocked"}
    result = run_tournament(
        ["random", "heuristic"],
        num_players=2,
        games=2,
        seed=1,
        config={"rule_options": rules},
        progress=False,
    )
    expected = RuleOptions.from_mapping(rules).to_dict()
    for record in result.records:
        assert record["config"]["rule_options"] == expected
    paths = write_results(result, tmp_path)
    payload = json.loads(paths["results"].read_text())
    assert payload["rule_options"] == expected
    final = verify_record(load_record(paths["results"], game=1))
    assert final.config.rule_options.to_dict() == expected


def test_farlight_rules_lists_the_options_with_defaults():
    proc = subprocess.run(
        [sys.executable, "-m", "farlight_cli", "rules"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    for line in (
        "lone_zero_mission_chance=true|false  [R-MIS-2]",
        "temp_biotech_lasts=round|mission  [R-MIS-5]",
        "token_rounding=up|down  [R-END-2]",
        "edge_connectors=open|blocked  [R-SHIP-1]",
    ):
        assert line in proc.stdout


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ("tokens=down", "unknown rule option 'tokens'; valid options: lone_zero_mission_chance"),
        ("token_rounding=even", "must be one of 'up', 'down', got 'even'"),
        ("token_rounding", "expected NAME=VALUE"),
    ],
)
@pytest.mark.parametrize("command", ["random", "tournament", "play"])
def test_cli_refuses_a_bad_rule_with_status_2(command, rule, message):
    proc = subprocess.run(
        [sys.executable, "-m", "farlight_cli", command, "--rule", rule],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert message in proc.stderr and "Traceback" not in proc.stderr


def test_cli_tournament_plays_with_rules_and_saves_them(tmp_path):
    cmd = [sys.executable, "-m", "farlight_cli", "tournament", "--agents", "random,heuristic"]
    cmd += ["--games", "2", "--seed", "0", "--no-progress", "--out", str(tmp_path)]
    cmd += ["--rule", "lone_zero_mission_chance=false", "--rule", "token_rounding=down"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "lone_zero_mission_chance=False, token_rounding=down" in proc.stdout
    payload = json.loads((tmp_path / "results.json").read_text())
    assert payload["rule_options"]["lone_zero_mission_chance"] is False
    replay = subprocess.run(
        [sys.executable, "-m", "farlight_cli", "replay", str(tmp_path / "results.json")]
        + ["--game", "0", "--no-progress"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert replay.returncode == 0, replay.stderr
    assert "token_rounding=down" in replay.stdout
