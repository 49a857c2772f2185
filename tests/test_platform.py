"""The platform's game protocol (#50): the registry, every game's `State` contract (typed
refusals with the state unchanged, clones, saved states, replays, determinized copies that
keep what the seat knows), and the generic PettingZoo env, on Farlight and on a throw-away
game declared in a few dozen lines (tests/toy_game.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from pettingzoo.test import api_test

from agents.random_agent import RandomAgent
from evaluation.arena import play_episode
from farlight_env.declaration import FARLIGHT
from farlight_env.platform import GameError, IllegalMove, State, game_names, get_game, register
from farlight_env.platform import aec as platform_aec
from farlight_env.platform.registry import unregister
from tests.toy_game import DUEL


@pytest.fixture(autouse=True)
def duel_registered():
    register(DUEL, replace=True)
    yield
    unregister("duel")


GAMES = [("farlight", {"max_rounds": 2}), ("duel", {})]


def random_play(state: State, seed: int, steps: int = 10_000) -> list[State]:
    """The states a random legal game passes through (clones), the last one over or cut."""
    rng, seen = np.random.default_rng(seed), [state.clone()]
    while not state.is_over and len(seen) < steps:
        legal = state.legal_actions()
        state.apply_action(legal[rng.integers(len(legal))])
        seen.append(state.clone())
    return seen


def test_the_registry_knows_farlight_and_registered_games_and_names_them_in_errors() -> None:
    assert get_game("farlight") is FARLIGHT and get_game() is FARLIGHT
    assert game_names() == ["farlight", "duel"]
    with pytest.raises(GameError, match="unknown game 'chess'; the games are farlight, duel"):
        get_game("chess")
    with pytest.raises(GameError, match="already registered"):
        register(DUEL)


def test_options_are_checked_by_their_declaration_and_unknown_ones_named() -> None:
    assert FARLIGHT.checked_options({"grid_size": 7})["grid_size"] == 7
    with pytest.raises(GameError, match="grid_size"):
        FARLIGHT.checked_options({"grid_size": 8})
    with pytest.raises(GameError, match="duel has no option 'colour'; its options are stakes"):
        DUEL.checked_options({"colour": 1})
    with pytest.raises(GameError, match="duel option stakes='x'"):
        DUEL.checked_options({"stakes": "x"})
    with pytest.raises(GameError, match="is for 2-4 players, not 5"):
        DUEL.start(5)


@pytest.mark.parametrize(("name", "options"), GAMES)
@pytest.mark.parametrize("num_players", [2, 3])
def test_every_state_keeps_the_contract(name: str, options: dict, num_players: int) -> None:
    """Along a random game: the mask is the legal list; an illegal action is an IllegalMove
    and changes nothing; a clone is independent; a saved state loads back equal; the game
    replays from (players, seed, history); scores and winners at the end."""
    game = get_game(name)
    state = game.start(num_players, seed=7, options=options)
    assert isinstance(state, State)
    size = game.action_size(num_players, game.checked_options(options))
    for seen in random_play(state, seed=num_players):
        mask = seen.legal_mask()
        assert mask.dtype == np.int8 and mask.shape == (size,)
        assert list(np.flatnonzero(mask)) == seen.legal_actions()
        before = seen.to_json()
        illegal = [i for i in range(size) if not mask[i]][:1] + [size, -1]
        for action in illegal:
            with pytest.raises(IllegalMove):
                seen.apply_action(action)
            assert seen.to_json() == before
        loaded = game.load_state(before, game.checked_options(options))
        assert loaded.to_json() == before and loaded.history == seen.history
        if not seen.is_over:
            copy = seen.clone()
            copy.apply_action(copy.legal_actions()[0])
            assert seen.to_json() == before
    assert state.is_over and state.current_player is None and state.legal_actions() == []
    assert len(state.scores()) == num_players and state.winners()
    replayed = game.replay(num_players, 7, state.history, options)
    assert replayed.to_json() == state.to_json()
    with pytest.raises(GameError):
        game.load_state("{not json", game.checked_options(options))


@pytest.mark.parametrize(("name", "options"), GAMES)
def test_a_determinized_copy_looks_the_same_to_its_seat(name: str, options: dict) -> None:
    """What the seat observes of a determinized copy is what it observes of the real game:
    only facts hidden from it were drawn again."""
    game = get_game(name)
    state = game.start(3, seed=11, options=options)
    for k, seen in enumerate(random_play(state, seed=5)[:40:3]):
        seat = seen.current_player if seen.current_player is not None else 0
        drawn = seen.determinized(seat, np.random.default_rng(k))
        assert drawn.observation(seat).tobytes() == seen.observation(seat).tobytes()
        assert drawn.legal_actions() == seen.legal_actions()


def test_the_duels_hidden_cards_never_reach_another_seats_observation_or_view() -> None:
    state = DUEL.start(3, seed=0)
    for first, last in ((0, 2), (5, 0), (3, 5)):
        other = state.clone()
        other.cards = [first, state.cards[1], last]  # seat 1's own card as it is
        assert other.observation(1).tobytes() == state.observation(1).tobytes()
        assert other.view(1) == state.view(1)
        assert other.render_text(1) == state.render_text(1)


@pytest.mark.parametrize(("name", "options"), GAMES)
def test_the_generic_env_passes_pettingzoos_api_test(name: str, options: dict) -> None:
    api_test(platform_aec.env(name, num_players=2, **options), num_cycles=200)


def test_the_generic_env_plays_a_duel_with_the_projects_agents_and_loop() -> None:
    env = platform_aec.raw_env("duel", num_players=3)
    env.reset(seed=4)
    play_episode(env, [RandomAgent(seed=s) for s in range(3)])
    assert env.state.is_over and env.state.winners() and not env.agents
    assert env.state.history == DUEL.replay(3, None, env.state.history).history


def test_the_generic_env_rewards_each_winner_one_and_the_others_minus_one() -> None:
    env = platform_aec.raw_env("duel", num_players=3)
    env.reset(seed=4)
    for _ in range(3):
        env.step(1)  # everyone stays: the highest card wins
    winners = env.state.winners()
    assert 0 < len(winners) < 3
    expected = {f"player_{s}": 1.0 if s in winners else -1.0 for s in range(3)}
    assert env._cumulative_rewards == expected and all(env.terminations.values())


def test_an_illegal_action_ends_the_generic_env_at_minus_one_for_the_offender() -> None:
    env = platform_aec.raw_env("duel", num_players=2)
    env.reset(seed=0)
    env.step(7)
    assert all(env.terminations.values())
    assert env._cumulative_rewards == {"player_0": -1.0, "player_1": 0.0}
    assert env.infos["player_1"]["illegal_action"] == 0


def test_a_tournament_of_the_throw_away_game_plays_journals_resumes_and_rates(tmp_path) -> None:
    """The tournament (schedule, play, journal, ratings, files) written against the platform:
    a game declared in a test plays through it unchanged, its records replay, and a resume
    of its journal reads every game back through the game's own replay."""
    from evaluation.tournament import resume_tournament, run_tournament
    from evaluation.tournament.results import write_results
    from farlight_env.platform.records import verify_record

    out = tmp_path / "duel"
    result = run_tournament(
        ["random", "random"],
        num_players=2,
        games=6,
        seed=3,
        game="duel",
        progress=False,
        out_dir=out,
    )
    assert len(result.records) == 6 and {r["game"] for r in result.records} == {"duel"}
    for record in result.records:
        assert verify_record(record).winners() == record["winners"]
    assert sum(row.wins for row in result.summary) == pytest.approx(6.0)
    again = resume_tournament(out, progress=False)
    assert again.records == result.records
    files = write_results(result, tmp_path / "files")
    assert files["games"].read_text().count("\n") == 7


def test_an_installed_package_declares_a_game_through_the_entry_point(tmp_path, monkeypatch):
    """A distribution on the path whose entry point `farlight_env.games` names a declaration
    makes the game known by name, imported only when asked for; a wrong target is one line."""
    info = tmp_path / "duel_game-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: duel-game\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[farlight_env.games]\nduel = tests.toy_game:DUEL\nbroken = tests.toy_game:NOPE\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    unregister("duel")
    assert "duel" in game_names() and "broken" in game_names()
    assert game_names()[0] == "farlight"  # built-in first, as messages list them
    assert get_game("duel") is DUEL
    with pytest.raises(GameError, match=r"game 'broken' \(tests.toy_game:NOPE\) cannot be loaded"):
        get_game("broken")


def _cli_with_duel(tmp_path, *args: str, stdin: str | None = None, cwd=None):
    """`farlight ARGS` in a fresh process where an installed package declares the duel."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    info = tmp_path / "site" / "duel_game-0.1.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: duel-game\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[farlight_env.games]\nduel = tests.toy_game:DUEL\n")
    root = Path(__file__).resolve().parents[1]
    path = os.pathsep.join([str(tmp_path / "site"), str(root)])
    return subprocess.run(
        [sys.executable, "-m", "farlight_cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": path},
        input=stdin,
        cwd=cwd,
        timeout=300,
    )


def test_farlight_tournament_plays_an_installed_game_by_name(tmp_path) -> None:
    out = tmp_path / "out"
    common = ["--agents", "random,random", "--players", "2", "--games", "4", "--no-progress"]
    done = _cli_with_duel(tmp_path, "tournament", "--game", "duel", *common, "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "2-player tournament, 4 games, seed 0" in done.stdout
    assert "game: duel (its defaults)" in done.stdout and "rounds per game" not in done.stdout
    assert (out / "results.json").is_file() and (out / "games.csv").is_file()
    again = _cli_with_duel(tmp_path, "tournament", "--resume", str(out), "--no-progress")
    assert again.returncode == 0 and "resuming: 4 of 4 games already played" in again.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game-option", "colour=1"], "duel has no option 'colour'; its options are stakes"),
        (["--grid-size", "7"], "--grid-size: Farlight's options, not duel's (use --game-option)"),
        (["--players", "5"], "duel is for 2-4 players, not 5"),
    ],
)
def test_a_wrong_option_of_an_installed_game_is_one_line(tmp_path, args, message) -> None:
    done = _cli_with_duel(tmp_path, "tournament", "--game", "duel", "--games", "2", *args)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [f"farlight tournament: error: {message}"]


def test_farlight_replay_steps_through_an_installed_games_record(tmp_path) -> None:
    """A tournament's results.json of another game replays with `farlight replay --game N`:
    checked through the game's own replay, each decision named, the end and the winners."""
    out = tmp_path / "out"
    common = ["--agents", "random,random", "--players", "3", "--games", "2", "--no-progress"]
    played = _cli_with_duel(tmp_path, "tournament", "--game", "duel", *common, "--out", str(out))
    assert played.returncode == 0, played.stderr
    done = _cli_with_duel(tmp_path, "replay", str(out / "results.json"), "--game", "1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].endswith("Blind duel (a test's throw-away game), 3 recorded decisions")
    assert [line.split()[-2] for line in lines[2:5]] == ["P0", "P1", "P2"]
    assert lines[-1].startswith("winners: P")
    record_file = tmp_path / "one.json"
    import json

    games = json.loads((out / "results.json").read_text())["games"]
    games[1]["winners"] = [9]
    record_file.write_text(json.dumps(games[1]))
    bad = _cli_with_duel(tmp_path, "replay", str(record_file))
    assert bad.returncode == 2 and "does not replay" in bad.stderr


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"players": None}, "not a platform-record"),
        ({"game_seed": None}, "not a platform-record"),
        ({"players": ["random"]}, "1 players named for 2 seats"),
        ({"actions": [1, 1, 1]}, r"action 2 \(1\) of duel"),
    ],
)
def test_a_generic_record_that_is_not_whole_is_refused_by_name(change, message) -> None:
    """What replays a generic record (players, seed, actions) is checked before it is used:
    one GameError, never a KeyError or a replay from a seed drawn anew."""
    from farlight_env.platform.records import build_record, verify_record

    env = platform_aec.raw_env("duel", num_players=2)
    env.reset(seed=1)
    env.step(1)
    env.step(0)
    record = build_record(DUEL, env, ["random", "random"], 1, {"num_players": 2})
    assert verify_record(record).winners() == record["winners"]
    with pytest.raises(GameError, match=message):
        verify_record({**record, **change})


def test_farlight_evaluate_runs_the_throw_away_games_own_protocol_and_resumes(tmp_path) -> None:
    """The evaluation protocol is the game's declaration's (Game.benchmark): the duel's cells,
    seeds and opponents, journalled, resumed to the same scorecard, rated and plotted."""
    from evaluation import evaluate
    from evaluation.eval_v1 import cells, resume_evaluation, write_scorecard

    out = tmp_path / "eval"
    card = evaluate("random", game="duel", progress=False, out_dir=out)
    assert card["protocol"] == "duel-eval-v1" and card["game_name"] == "duel"
    assert card["card_set_hash"] is None and card["rule_options"] == {}
    assert card["game"] == {"stakes": 1} and card["standard_game"]
    plan = cells(benchmark=DUEL.benchmark)
    assert [(c.players, c.opponent, c.games, c.seed) for c in plan] == [
        (2, "random", 6, 7020),
        (3, "random", 6, 7030),
    ]
    assert card["seeds"]["cells"] == [7020, 7030] and card["games"] == 12
    assert sum(cell["wins"] for cell in card["cells"]) > 0
    assert set(card["reference_ratings"]) == {"random"} and "diagnostics" not in card
    assert resume_evaluation(out)["cells"] == card["cells"]
    assert set(write_scorecard(card, out)) == {"json", "plot"}
    nonstandard = evaluate("random", game="duel", quick=True, config={"stakes": 2}, progress=False)
    assert not nonstandard["standard_game"] and nonstandard["game"] == {"stakes": 2}


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"protocol": "farlight-eval-v1"}, "unknown protocol 'farlight-eval-v1' for duel"),
        ({"sealed": True}, "duel cannot be played sealed"),
        ({"config": {"colour": 1}}, "duel has no option 'colour'"),
    ],
)
def test_an_evaluation_the_duel_cannot_have_is_refused_before_game_0(kwargs, message) -> None:
    from evaluation import evaluate

    with pytest.raises(ValueError, match=message):
        evaluate("random", game="duel", quick=True, progress=False, **kwargs)


def test_farlight_evaluate_plays_an_installed_game_by_name_and_resumes(tmp_path) -> None:
    out = tmp_path / "eval"
    done = _cli_with_duel(
        tmp_path, "evaluate", "random", "--game", "duel", "--no-progress", "--out", str(out)
    )
    assert done.returncode == 0, done.stderr
    assert "duel-eval-v1 scorecard of random" in done.stdout
    assert "rating (OpenSkill vs random)" in done.stdout and "game: " not in done.stdout
    again = _cli_with_duel(tmp_path, "evaluate", "--resume", str(out), "--no-progress")
    assert again.returncode == 0, again.stderr
    assert json.loads((out / "scorecard.json").read_text())["game_name"] == "duel"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--game", "chess"], "unknown game 'chess'"),
        (["--game", "duel", "--protocol", "v2"], "farlight-eval-v2 is Farlight's"),
        (["--game", "duel", "--sealed"], "--sealed: duel cannot be played sealed"),
        (["--game", "duel", "--grid-size", "7"], "Farlight's options, not duel's"),
        (["--game", "duel", "--game-option", "stakes=many"], "stakes"),
        (["--game-option", "stakes=2"], "--game-option is for another --game"),
    ],
)
def test_an_evaluation_of_an_installed_game_that_cannot_run_is_one_line(tmp_path, args, message):
    done = _cli_with_duel(tmp_path, "evaluate", "random", "--quick", "--no-progress", *args)
    assert done.returncode == 2, done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("farlight evaluate: error: "), lines
    assert message in lines[0]


def _play_duel(tmp_path, stdin: str, *args: str):
    """`farlight play --game duel ARGS` with `stdin` typed, in `tmp_path`."""
    return _cli_with_duel(tmp_path, "play", "--game", "duel", *args, stdin=stdin, cwd=tmp_path)


def test_farlight_play_plays_an_installed_game_and_saves_a_record_that_replays(tmp_path) -> None:
    """A person at seat 1 of a 3-player duel against random and ismcts: the board as the seat
    sees it, numbered actions, a typo asked again, the end, a record `farlight replay` checks."""
    done = _play_duel(
        tmp_path, "9\n2\n", "--seat", "1", "--opponents", "random,ismcts@20", "--seed", "4"
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("Blind duel (a test's throw-away game): 3 players (P0 random, P1 you, ")
    assert "  1. fold\n  2. stay\n" in out and "type a number from 1 to 2" in out
    assert "  P0 has played" in out and "  P2 has played" in out
    record = tmp_path / "duel-game-4.json"
    assert f"game record saved to {record}" in out
    data = json.loads(record.read_text())
    assert data["players"] == ["random", "human", "ismcts@20"] and data["actions"][1] == 1
    assert data["human_seat"] == 1
    replayed = _cli_with_duel(tmp_path, "replay", str(record))
    assert replayed.returncode == 0, replayed.stderr
    # what seat 1 saw before acting hides the others' cards
    before = out.split("Your choice")[0]
    assert "cards ['?', " in before and ", '?']" in before


def test_farlight_play_of_another_game_quits_without_a_record(tmp_path) -> None:
    done = _play_duel(tmp_path, "q\n", "--seed", "4")
    assert done.returncode == 0, done.stderr
    assert "you quit: the game stops here; no record is saved" in done.stdout
    assert not list(tmp_path.glob("duel-game-*.json"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--opponents", "heuristic"], "agent heuristic plays only farlight; agents for duel: "),
        (["--players", "5"], "argument --players: must be in 2..4, got 5"),
        (["--rule", "token_rounding=down"], "--rule: Farlight's options, not duel's"),
    ],
)
def test_farlight_play_of_another_game_refuses_in_one_line(tmp_path, args, message) -> None:
    done = _play_duel(tmp_path, "", *args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()  # a usage error adds "(see 'farlight play --help')"
    assert len(lines) <= 2 and lines[0].startswith("farlight play: error: " + message), lines
