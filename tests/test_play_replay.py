"""`farlight play` and `farlight replay` end to end, with the person's input fed from a script."""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image
from processes import terminal_sigint
from test_engine_saved_state import BAD_VALUES, _leaves

from agents import registry
from agents.farlight.engine_agent import EngineAgent
from farlight_cli.main import main
from farlight_env.env.render_picture import RGB_SIZE
from farlight_env.game import Bid, FarlightGame, Phase, RuleOptions, Target, TargetKind
from farlight_env.records.record import (
    RecordError,
    build_record,
    load_record,
    replay_record,
    save_record,
    validate_record,
    verify_record,
)

PLAY = ["play", "--seat", "0", "--opponents", "random", "--max-rounds", "2", "--seed", "3"]
#: Answers any decision: "1" picks the first numbered option; a bid goes on part space 0 (letter
#: a) with the first tile still in hand, else on Hire (letter i in a 2-player game). Refused
#: lines just re-prompt.
SCRIPT = ("1\n" + "".join(f"{t}{tile}\n" for t in "ai" for tile in range(5))) * 200


def play(monkeypatch, capsys, args: list[str], stdin: str) -> tuple[int, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    status = main(args)
    return status, capsys.readouterr().out


@pytest.fixture(scope="module")
def tournament_results(tmp_path_factory) -> Path:
    from evaluation.tournament import run_tournament, write_results

    result = run_tournament(
        ["random", "heuristic"], num_players=2, games=2, seed=1, config={"max_rounds": 2},
        progress=False,
    )  # fmt: skip
    out = tmp_path_factory.mktemp("tournament")
    return write_results(result, out)["results"]


@pytest.fixture
def play_record(tmp_path, monkeypatch, capsys) -> Path:
    path = tmp_path / "game.json"
    status, _ = play(monkeypatch, capsys, [*PLAY, "--record", str(path)], SCRIPT)
    assert status == 0
    return path


# ------------------------------------------------------------------------------ play
def test_play_full_game_saves_a_record_that_replays_to_the_same_scores(
    tmp_path, monkeypatch, capsys
):
    path = tmp_path / "game.json"
    status, out = play(monkeypatch, capsys, [*PLAY, "--record", str(path)], SCRIPT)
    assert status == 0
    assert "GAME OVER" in out and "final scores:" in out
    assert f"game record saved to {path}" in out
    record = load_record(path)
    assert record["format"] == "farlight-record" and record["version"] == 1
    assert record["players"] == ["human", "random"]
    assert record["finished"] is True and record["env_seed"] == 3
    assert record["config"] == {
        "num_players": 2,
        "grid_size": 13,
        "max_rounds": 2,
        "rule_options": RuleOptions().to_dict(),  # every option in force is recorded
    }
    assert record["end_reason"] is not None and record["rounds"] <= 2
    states = replay_record(record)
    assert len(states) == len(record["actions"]) + 1
    assert states[-1].scores() == record["scores"] and states[-1].is_over
    assert states[-1].winners() == record["winners"]


def test_play_with_rules_records_and_replays_them(tmp_path, monkeypatch, capsys):
    """--rule NAME=VALUE: the game is played, recorded and replayed by those options."""
    path = tmp_path / "game.json"
    rules = ["--rule", "token_rounding=down", "--rule", "edge_connectors=blocked"]
    status, out = play(monkeypatch, capsys, [*PLAY, *rules, "--record", str(path)], SCRIPT)
    assert status == 0
    assert "rule options: token_rounding=down, edge_connectors=blocked" in out
    record = load_record(path)
    expected = RuleOptions(token_rounding="down", edge_connectors="blocked").to_dict()
    assert record["config"]["rule_options"] == expected
    assert verify_record(record).config.rule_options.to_dict() == expected


def test_play_shows_the_compact_board_and_readable_options(monkeypatch, capsys, tmp_path):
    _, out = play(monkeypatch, capsys, [*PLAY, "--record", str(tmp_path / "r.json")], SCRIPT)
    assert "Farlight · round 1/2 · bidding · P0 to act · first player P0 · you are P0" in out
    assert re.search(r"^P0\* crew\s+3 .* tiles 0 1 2 3 4", out, re.M)
    # bidding: every target has a fixed letter, two columns
    assert re.search(r"^ b \S.*\s i Hire \(\+3 crew\)", out, re.M)
    # other decisions: one numbered readable line each, beside the labelled ship
    assert re.search(r"^ [+-]\d\s.*\s 1\) install at \([+-]\d,[+-]\d\)$", out, re.M)
    assert "  You: bid 0 on part space 0 (" in out


def test_play_bid_letters_stay_the_same_while_bidding(monkeypatch, capsys, tmp_path):
    """Placing a tile renumbers nothing: the same letter names the same target all round."""
    path = tmp_path / "r.json"
    stdin = "a0\na1\na2+\nq\ny\n"
    _, out = play(monkeypatch, capsys, [*PLAY, "--record", str(path)], stdin)
    mine = re.findall(r"^  You: bid (\d)( \+crew)? on (.+)$", out, re.M)
    assert [(tile, crew) for tile, crew, _ in mine] == [("0", ""), ("1", ""), ("2", " +crew")]
    assert len({target for _, _, target in mine}) == 1
    assert mine[0][2].startswith("part space 0 (")


def test_play_never_shows_an_opponents_tile_value_while_bidding(monkeypatch, capsys, tmp_path):
    """Opponents' bids appear as '?' on the board and without values in the announcements."""
    _, out = play(monkeypatch, capsys, [*PLAY, "--record", str(tmp_path / "r.json")], SCRIPT)
    screens = out.split("\nFarlight · round ")[1:]
    bidding = [screen for screen in screens if screen.split(" · ")[1] == "bidding"]
    assert bidding
    shown = [tiles for screen in bidding for tiles in re.findall(r"P1:([^\] ]*)", screen)]
    assert shown, "the opponent placed tiles the board should show"
    assert all(re.fullmatch(r"[?+,]+", tiles) for tiles in shown), shown
    assert any("[P0:0" in screen for screen in bidding)  # the person's own values are shown
    assert not re.search(r"^\s+P1: bid", out, re.M)
    assert re.search(r"^\s+P1 placed a tile on ", out, re.M)
    # the values are told once bidding is over (all tiles flip, R-BID-5)
    assert "Bids revealed (all tiles flip):" in out


class FixedBidAgent(EngineAgent):
    """Bids every tile on Hire, in a fixed order of tile values; otherwise the first action."""

    name = "fixedbid"

    def __init__(self, order: tuple[int, ...], seed: int | None = None) -> None:
        super().__init__()
        self.order = order

    def choose(self, game: FarlightGame, seat: int):
        if game.phase is Phase.BIDDING:
            tile = next(t for t in self.order if t in game.hands[seat])
            return Bid(tile, Target(TargetKind.FACILITY, 1), False)
        return game.legal_actions()[0]


def test_play_screen_is_the_same_whatever_the_opponents_hidden_tiles(monkeypatch, capsys, tmp_path):
    """Two games differing only in the opponent's face-down tile values look identical to the
    person until the tiles flip."""
    monkeypatch.setattr(registry, "AGENT_NAMES", (*registry.AGENT_NAMES, "fixedbid"))
    outputs = []
    for order in ((4, 3, 2, 1, 0), (0, 1, 2, 3, 4)):
        factory = lambda order=order, **kw: FixedBidAgent(order, **kw)  # noqa: E731
        monkeypatch.setitem(registry.FACTORIES, "fixedbid", factory)
        args = ["play", "--opponents", "fixedbid", "--max-rounds", "1", "--seed", "11"]
        args += ["--record", str(tmp_path / "r.json")]
        status, out = play(monkeypatch, capsys, args, SCRIPT)
        assert status == 0
        outputs.append(out)
    marker = "Bids revealed"
    before = [out[: out.index(marker)] for out in outputs]
    assert before[0] == before[1]
    assert before[0].count("You: bid") == 5  # all five of the person's bids were on screen
    assert "P1:?,?" in before[0]
    assert outputs[0] != outputs[1]  # ... and the hidden values did differ


def test_play_quit_saves_the_partial_record(tmp_path, monkeypatch, capsys):
    path = tmp_path / "partial.json"
    stdin = "i0\ni1\nq\nn\nq\ny\n"  # the first q is taken back
    status, out = play(monkeypatch, capsys, [*PLAY, "--record", str(path)], stdin)
    assert status == 0
    assert out.count("Abandon this game? The record is saved. [y/N]") == 2
    assert "you quit" in out and f"game record saved to {path}" in out
    record = load_record(path)
    assert record["finished"] is False and record["winners"] == []
    assert len(record["actions"]) == 4  # two tiles from each seat
    game = verify_record(record)
    assert not game.is_over and game.phase is Phase.BIDDING


def test_play_end_of_input_quits_cleanly_and_saves(tmp_path, monkeypatch, capsys):
    path = tmp_path / "eof.json"
    status, out = play(monkeypatch, capsys, [*PLAY, "--record", str(path)], "i1\n")
    assert status == 0
    assert "end of input" in out
    assert len(load_record(path)["actions"]) == 1


def test_play_invalid_input_reprompts_naming_the_problem(tmp_path, monkeypatch, capsys):
    path = tmp_path / "bad.json"
    stdin = "abc\n9\nz1\na7\n\n/hire\n/zzz\n?\nb\nq\n"
    status, out = play(monkeypatch, capsys, [*PLAY, "--record", str(path)], stdin)
    assert status == 0
    assert "'abc': type a target letter and a tile" in out
    assert "'9': type a target letter and a tile" in out and "targets a-n" in out
    assert "'z1': type a target letter" in out
    assert "you have no tile 7 to place (your tiles: 0 1 2 3 4)" in out
    assert out.count("Your bid, P0:") == 2  # Enter shows the board again
    assert re.search(r"^\s+\d+\) bid 0 on Hire \(\+3 crew\)$", out, re.M)  # the /hire filter
    assert "no option contains 'zzz'" in out
    assert "c3+ puts a crew on it" in out.split("Your bid (? help): ?")[1]  # ? is help
    assert "STATION" in out and "PLAYERS" in out  # b: the full board
    assert load_record(path)["actions"] == []


def test_play_numbered_choices_refuse_what_is_not_an_option(tmp_path, monkeypatch, capsys):
    stdin = "a0\na1\na2\na3\na4\nabc\n0\n99\n1\nq\ny\n"
    args = ["play", "--opponents", "random", "--seed", "1", "--record", str(tmp_path / "r.json")]
    status, out = play(monkeypatch, capsys, args, stdin)
    assert status == 0
    assert re.search(r"'abc' is not a number: enter 1 to \d+", out)
    assert re.search(r"0 is out of range: enter 1 to \d+", out)
    assert re.search(r"99 is out of range: enter 1 to \d+", out)


def test_play_default_record_path_and_other_seat(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    args = ["play", "--seat", "1", "--opponents", "random", "--max-rounds", "1", "--seed", "8"]
    status, out = play(monkeypatch, capsys, args, SCRIPT)
    assert status == 0
    record = load_record(tmp_path / "farlight-game-8.json")
    assert record["players"] == ["random", "human"] and record["human_seat"] == 1
    assert "you are P1" in out and "you are P0" not in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--seat", "2"], "--seat: must be in 0..1"),
        (["--opponents", "nobody"], "unknown agent(s) nobody"),
        (["--opponents", "random,random", "--players", "4"], "2 agents for 3 opponent seats"),
        (["--players", "6"], "--players: must be in 2..5"),
    ],
)
def test_play_bad_arguments_exit_2_with_a_message(args, message, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    with pytest.raises(SystemExit) as exc:
        main(["play", *args])
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_play_console_script_with_piped_input(tmp_path):
    exe = shutil.which("farlight")
    command = [exe] if exe else [sys.executable, "-m", "farlight_cli"]
    args = ["play", "--opponents", "random", "--max-rounds", "1", "--seed", "5"]
    done = subprocess.run(
        [*command, *args], input=SCRIPT, capture_output=True, text=True, cwd=tmp_path,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    path = tmp_path / "farlight-game-5.json"
    assert f"game record saved to {path}" in done.stdout
    record = load_record(path)
    assert record["finished"] is True
    assert verify_record(record).scores() == record["scores"]


# ---------------------------------------------------------------------------- replay
def test_replay_of_a_play_record(play_record, capsys):
    record = load_record(play_record)
    assert main(["replay", str(play_record)]) == 0
    out = capsys.readouterr().out
    decisions = re.findall(r"^\[\s*\d+\] round \d+ \w+\s+P\d", out, re.M)
    assert len(decisions) == len(record["actions"])
    assert "seen as a spectator (no hidden tile values)" in out
    assert "── round 1 ──" in out and "── round 2 ──" in out and "── end ──" in out
    assert out.count("═══ Farlight · round") == 3  # each round start and the end
    assert "view: spectator (no tile values)" in out
    assert "placed a tile on" in out and not re.search(r"P\d: bid \d", out)
    scores = ", ".join(f"P{s} ({n}) {v}" for s, (n, v) in enumerate(
        zip(record["players"], record["scores"], strict=True)))  # fmt: skip
    assert f"final scores: {scores}" in out
    assert "the game ended in round 2" in out


def test_replay_viewer_seat_and_omniscient(play_record, capsys):
    assert main(["replay", str(play_record), "--viewer", "0"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"P0: bid \d", out) and not re.search(r"P1: bid \d", out)
    assert "view: P0" in out
    assert main(["replay", str(play_record), "--viewer", "all"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"P0: bid \d", out) and re.search(r"P1: bid \d", out)
    assert "ALL HIDDEN VALUES (omniscient replay view" in out
    assert "face-down awards:" in out
    assert main(["replay", str(play_record), "--viewer", "5"]) == 2
    assert "--viewer 5: this game has seats 0..1" in capsys.readouterr().err


def test_replay_step_waits_for_enter_and_eof_runs_to_the_end(play_record, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("\nb\n\nq\n"))
    assert main(["replay", str(play_record), "--step"]) == 0
    out = capsys.readouterr().out
    assert out.count("-- Enter: next decision") == 4
    assert "stopped after decision 3 of" in out
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n"))
    assert main(["replay", str(play_record), "--step"]) == 0
    out = capsys.readouterr().out
    assert out.count("-- Enter: next decision") == 2 and "── end ──" in out


def test_replay_a_tournament_game(tournament_results, capsys):
    payload = json.loads(tournament_results.read_text())
    assert main(["replay", str(tournament_results), "--game", "1"]) == 0
    out = capsys.readouterr().out
    record = payload["games"][1]
    assert f"players: P0 {record['players'][0]}, P1 {record['players'][1]}" in out
    assert "final scores:" in out
    assert load_record(tournament_results, game=1)["scores"] == record["scores"]
    assert main(["replay", str(tournament_results)]) == 2
    err = capsys.readouterr().err
    assert "choose one with --game N (available indices: 0-1)" in err
    assert main(["replay", str(tournament_results), "--game", "7"]) == 2
    assert "no game with index 7; available indices: 0-1" in capsys.readouterr().err


def test_replay_writes_png_frames(play_record, tmp_path, capsys):
    n = len(load_record(play_record)["actions"])
    folder = tmp_path / "frames"
    args = ["replay", str(play_record), "--frames", str(folder), "--every", "5", "--no-progress"]
    assert main(args) == 0
    files = sorted(folder.glob("*.png"))
    expected = 1 + n // 5 + (1 if n % 5 else 0)  # the start, every 5th action, the end
    assert len(files) == expected
    assert files[0].name == "frame_00000.png" and files[-1].name == f"frame_{n:05d}.png"
    for file in files:
        with Image.open(file) as image:
            assert image.format == "PNG" and image.size == RGB_SIZE
    assert f"wrote {expected} PNG frames to {folder}" in capsys.readouterr().out


def _corrupt(record: dict, kind: str) -> str:
    if kind == "json":
        return "{not json"
    if kind == "format":
        return json.dumps({**record, "format": "something-else"})
    if kind == "version":
        return json.dumps({**record, "version": 99})
    if kind == "scores":
        return json.dumps({**record, "scores": [s + 1 for s in record["scores"]]})
    if kind == "action":
        return json.dumps({**record, "actions": [{"type": "Teleport"}, *record["actions"]]})
    if kind == "illegal":
        return json.dumps({**record, "actions": record["actions"][1:]})
    if kind == "list":
        return "[1, 2]"
    if kind == "winners":
        return json.dumps({**record, "winners": 7})
    raise AssertionError(kind)


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("json", "not valid JSON"),
        ("format", "not a Farlight record ('format' is 'something-else'"),
        ("version", "unsupported record version 99; expected 1"),
        ("scores", "record does not replay: final scores"),
        ("action", "record does not replay: action 0"),
        ("illegal", "record does not replay:"),
        ("list", "expected a JSON object, got a list"),
        ("winners", "field 'winners' must be a list of seats, got 7"),
    ],
)
def test_replay_corrupt_record_gives_a_clear_error(kind, message, play_record, tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text(_corrupt(json.loads(play_record.read_text()), kind))
    assert main(["replay", str(bad)]) == 2
    captured = capsys.readouterr()
    assert "farlight replay: error:" in captured.err and message in captured.err
    assert "Traceback" not in captured.err
    with pytest.raises(RecordError):
        verify_record(load_record(bad))


def test_a_record_larger_than_the_bound_is_refused_unparsed(play_record, monkeypatch):
    from farlight_env.records import record as record_module

    size = play_record.stat().st_size
    monkeypatch.setattr(record_module, "MAX_RECORD_BYTES", size - 1)
    with pytest.raises(RecordError, match=f"larger than {size - 1} bytes; not a record file"):
        load_record(play_record)
    monkeypatch.setattr(record_module, "MAX_RECORD_BYTES", size)
    assert load_record(play_record)["format"] == "farlight-record"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), players=st.integers(2, 5), pick=st.integers(0, 2**32))
def test_a_corrupt_record_field_is_refused_or_replays(seed: int, players: int, pick: int) -> None:
    """Records come from others (uploads, shared results): one field of a real record
    corrupted at random is a RecordError or still replays, never another exception."""
    rng = random.Random(pick)  # every field equally likely (hypothesis favours first choices)
    game = FarlightGame(players, seed=seed, max_rounds=3)
    while not game.is_over:
        game.apply(rng.choice(game.legal_actions()))
    names = [f"p{s}" for s in range(players)]
    config = {"num_players": players, "max_rounds": 3}
    record = json.loads(json.dumps(build_record(game, names, seed, config)))
    verify_record(validate_record(record))  # intact, it replays
    key = rng.choice(sorted(record))
    path = rng.choice(_leaves(record[key], (key,)))
    parent = record
    for step in path[:-1]:
        parent = parent[step]
    parent[path[-1]] = rng.choice([*BAD_VALUES, -(10**6), "x" * 20])
    with contextlib.suppress(RecordError):  # refused, or it replays: nothing else
        verify_record(validate_record(record))


def test_replay_missing_file(tmp_path, capsys):
    assert main(["replay", str(tmp_path / "nope.json")]) == 2
    assert "nope.json: no such file" in capsys.readouterr().err


def _farlight(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "farlight_cli", *args], capture_output=True, text=True, timeout=120
    )


def test_replay_shows_the_seed_the_player_typed(play_record):
    """A game played with --seed 3 replays as "seed 3" (it showed only the engine's seed,
    789974133212406139, which no player ever typed)."""
    record = load_record(play_record)
    done = _farlight("replay", str(play_record))
    assert done.returncode == 0, done.stderr
    header = done.stdout.split("── round 1 ──")[0]
    assert re.search(r"; seed 3$", header, re.M), header
    assert str(record["game_seed"]) not in header


@pytest.mark.parametrize("kind", ["file", "below a file"])
def test_replay_frames_into_a_file_is_one_line_before_anything(kind, play_record, tmp_path):
    """--frames /etc/passwd printed the header, then a raw "[Errno 17] File exists"."""
    file = tmp_path / "notes.txt"
    file.write_text("mine\n")
    frames = file if kind == "file" else file / "frames"
    done = _farlight("replay", str(play_record), "--frames", str(frames))
    assert done.returncode == 2 and done.stdout == "", done.stdout
    assert "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        f"farlight replay: error: --frames {frames}: "
        + (
            "exists and is not a directory"
            if kind == "file"
            else "cannot write there (Not a directory)"
        )
    ]
    assert file.read_text() == "mine\n"


# ---------------------------------------------------------------------------- record
def test_save_record_is_atomic_and_round_trips(play_record, tmp_path):
    record = load_record(play_record)
    target = tmp_path / "sub" / "copy.json"
    target.parent.mkdir()
    target.write_text("old contents")
    assert save_record(record, target) == target
    assert load_record(target) == record
    assert [p.name for p in target.parent.iterdir()] == ["copy.json"]  # no temp file left


def test_save_record_failure_leaves_the_old_file(tmp_path):
    target = tmp_path / "keep.json"
    target.write_text("old contents")
    with pytest.raises(TypeError):
        save_record({"not serialisable": object()}, target)
    assert target.read_text() == "old contents"
    assert [p.name for p in tmp_path.iterdir()] == ["keep.json"]


def test_load_record_game_index_applies_to_tournaments_only(play_record):
    with pytest.raises(RecordError, match="applies to tournament results files"):
        load_record(play_record, game=3)


# ---------------------------------------------------------------------- the 80x24 screen
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_play_screen_fits_80_by_24_at_every_decision(num_players):
    """Every screen the person sees (board, options and prompt) fits a standard terminal."""
    import numpy as np

    from farlight_cli.farlight.play import Session

    rng = np.random.default_rng(num_players)
    checked = set()
    for seed in range(3):
        session = Session(
            ["human"] + ["random"] * (num_players - 1), 0, seed, {"max_rounds": 12}, {}
        )
        env = session.env
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _reward, terminated, truncated, _info = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            mask = obs["action_mask"]
            if env.agent_name_mapping[agent] == 0:
                screen = session.screen(session.options(mask))
                assert len(screen) + 1 <= 24, "\n".join(screen)  # + the prompt line
                assert max(len(line) for line in screen) <= 80, "\n".join(screen)
                checked.add(session.game.phase)
            legal = np.flatnonzero(mask)
            env.step(int(legal[rng.integers(len(legal))]))
    assert Phase.BIDDING in checked and Phase.INSTALL in checked


def test_play_ship_legend_names_every_part_in_full_and_fits_the_width():
    """The legend under the ship map once cut names to 10 characters ('A Quantum …')."""
    import numpy as np

    from farlight_cli.farlight import board

    game = FarlightGame(2, seed=11)
    rng = np.random.default_rng(11)
    while len(game.ship_parts[0]) < 6 and not game.is_over:
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
    names = [game.cards.parts[p].name for p in game.ship_parts[0]]
    assert len(names) >= 4
    legend = board.ship_legend(game, 0)
    text = "  ".join(legend)
    for letter, name in zip("ABCDEFGHIJ", names, strict=False):
        shown = f"{letter} {name}"
        assert (
            shown if len(shown) <= board.LEGEND_NAME else shown[: board.LEGEND_NAME - 1]
        ) in text
    assert all(len(line) <= board.WIDTH for line in legend)
    assert len(legend) < len(names)  # several to a line


def test_play_intro_and_help_lines_fit_80_columns(tmp_path, monkeypatch, capsys):
    path = tmp_path / "game.json"
    status, out = play(monkeypatch, capsys, [*PLAY, "--record", str(path)], "?\n1\n" + SCRIPT)
    assert status == 0
    start = out.split("── round 1 ──")[0]
    assert "At each of your decisions" in start
    helped = out.split("(? help): ?\n")[1].splitlines()[:2]  # the answer is echoed
    assert "c3" in helped[0] and "q: quit" in helped[1]
    assert all(len(line) <= 80 for line in start.splitlines() + helped), start


def test_every_line_farlight_play_prints_fits_80_columns(tmp_path):
    """docs/cli.md says play fits 80x24: bid results, automatic discards and the hint for a
    bad bid ran past 80 columns, wrapping mid-word, and the board said "1 tiles". (The record's
    path is printed whole, to be copied: here it is short.)"""
    transcripts = []
    for players, seed in ((2, ["--seed", "3"]), (5, [])):  # unseeded: a 39-digit seed at the end
        done = subprocess.run(
            [sys.executable, "-m", "farlight_cli", "play", "--opponents", "random"]
            + ["--players", str(players), "--max-rounds", "3", *seed, "--record", "game.json"],
            input="b\n1\n" + SCRIPT,  # the full board, then a bid that is not one
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        transcripts.append(done.stdout)
    out = "".join(transcripts)
    too_long = [line for line in out.splitlines() if len(line) > 80]
    assert not too_long, "\n".join(too_long)
    assert "'1': type a target letter" in out and "Bids revealed" in out
    assert "· 1 tile ·" in out and not re.search(r"\b1 tiles\b", out)
    assert "(play the same deal again with --seed" in out


def test_play_ctrl_c_saves_and_prints_one_line(tmp_path):
    import os
    import signal
    import time

    path = tmp_path / "interrupted.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "farlight_cli", *PLAY, "--record", str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        preexec_fn=terminal_sigint,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("a0\n")
    proc.stdin.flush()
    while "You: bid 0" not in proc.stdout.readline():
        pass
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "Traceback" not in err
    assert [line for line in err.splitlines() if line.strip()] == [
        f"farlight play: interrupted; game record saved to {path}"
    ]
    assert len(load_record(path)["actions"]) >= 1


def test_replay_step_says_what_it_expects(play_record, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("x\nq\n"))
    assert main(["replay", str(play_record), "--step"]) == 0
    out = capsys.readouterr().out
    assert "'x'? Press Enter for the next decision, b for the board, q to stop" in out
    assert "stopped after decision 1 of" in out


def test_r_ben_3_the_overhaul_choice_says_it_sets_the_engine_to_6() -> None:
    """In the terminal an overhaul option reads 'engine #N (now V): the overhaul sets it to 6'
    (issue #26): it used to read like an upgrade's 'engine #N (now V)'."""
    from farlight_cli.farlight.text import action_text
    from farlight_env.encode.codec import ActionCodec
    from farlight_env.game import ChooseEngine

    for seed in range(200):
        game = FarlightGame(3, seed=seed)
        rng = random.Random(seed)
        while not game.is_over and game.phase is not Phase.OVERHAUL:
            game.apply(rng.choice(game.legal_actions()))
        if game.phase is Phase.OVERHAUL:
            break
    choices = [a for a in game.legal_actions() if isinstance(a, ChooseEngine)]
    codec = ActionCodec(game.cards, game.config.grid_size)
    assert choices, "an overhaul decision offers engines"
    for action in choices:
        value = game.engine_values[action.rank]
        expected = f"engine #{action.rank} (now {value}): the overhaul sets it to 6"
        assert action_text(game, action) == expected
        assert codec.describe(codec.encode(action), game) == expected


@pytest.mark.parametrize("phase", [Phase.ENGINEER, Phase.UPGRADE])
def test_r_res_5_r_ben_3_engineer_and_upgrade_choices_say_plus_one(phase: Phase) -> None:
    """The Engineer facility (R-RES-5) and an upgrade icon (R-BEN-3) add 1 to one engine: each
    choice reads 'engine #N (now V): +1 makes it V+1', in the terminal and the codec."""
    from farlight_cli.farlight.text import action_text
    from farlight_env.encode.codec import ActionCodec
    from farlight_env.game import ChooseEngine

    for seed in range(300):
        game = FarlightGame(3, seed=seed)
        rng = random.Random(seed)
        while not game.is_over and game.phase is not phase:
            game.apply(rng.choice(game.legal_actions()))
        if game.phase is phase:
            break
    choices = [a for a in game.legal_actions() if isinstance(a, ChooseEngine)]
    codec = ActionCodec(game.cards, game.config.grid_size)
    assert choices, f"a {phase.name} decision offers engines"
    for action in choices:
        value = game.engine_values[action.rank]
        expected = f"engine #{action.rank} (now {value}): +1 makes it {value + 1}"
        assert action_text(game, action) == expected
        assert codec.describe(codec.encode(action), game) == expected


def test_play_help_explains_letter_and_tile_bids() -> None:
    """`farlight play --help` says how to bid, as docs/cli.md does (issue #26)."""
    import os
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "farlight_cli", "play", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "80"},
    )
    text = " ".join(done.stdout.split())
    assert done.returncode == 0
    assert "A bid is a target letter and a tile: c3 puts tile 3 on target c" in text
    assert "c3+ puts a crew on it too" in text
    assert "Other decisions are numbered" in text and "b shows the full board" in text
