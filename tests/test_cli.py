"""The `farlight` command line end to end, on tiny budgets."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from farlight_cli.main import main
from farlight_env import __version__
from farlight_env.measure import timing
from farlight_env.tools.rules_page import Decision, decisions, rules_path

STATS_COLUMNS = ("players", "games", "rounds mean", "median", "end:climactic", "score mean")
STATS_COLUMNS += ("winner score", "shared wins", "actions/game")
BENCH_COLUMNS = ("players", "games", "actions", "seconds", "actions/s", "games/s")


def _data_rows(table_text: str, first_col: str = "players") -> list[str]:
    """Lines of the first table after its header and rule."""
    lines = table_text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.split()[:1] == [first_col])
    rows = []
    for line in lines[start + 2 :]:
        if not line.strip():
            break
        rows.append(line)
    return rows


def test_random_prints_statistics_table(capsys):
    assert main(["random", "--players", "2", "--games", "2", "--seed", "0", "--no-progress"]) == 0
    out = capsys.readouterr().out
    for col in STATS_COLUMNS:
        assert col in out
    assert "seeds 0..1" in out
    assert "seat 0" in out and "seat 1" in out
    rows = _data_rows(out)
    assert len(rows) == 1 and rows[0].split()[:2] == ["2", "2"]


def test_random_several_player_counts_one_row_each(capsys):
    args = ["random", "--players", "3,5", "--games", "1", "--seed", "4", "--no-progress"]
    assert main(args) == 0
    rows = _data_rows(capsys.readouterr().out)
    assert [r.split()[0] for r in rows] == ["3", "5"]


def test_random_with_round_cap(capsys):
    args = ["random", "--players", "4", "--games", "2", "--max-rounds", "1", "--no-progress"]
    assert main(args) == 0
    rows = _data_rows(capsys.readouterr().out)
    # rounds mean, median, min, max all at most the cap
    assert all(float(x) <= 1 for x in rows[0].split()[2:6])


def test_random_is_reproducible(capsys):
    args = ["random", "--players", "3", "--games", "2", "--seed", "9", "--no-progress"]
    main(args)
    first = capsys.readouterr().out
    main(args)
    assert capsys.readouterr().out == first


def test_random_shows_progress_bar_on_stderr(capsys):
    assert main(["random", "--players", "2", "--games", "1"]) == 0
    captured = capsys.readouterr()
    assert "rounds mean" in captured.out
    assert "game" in captured.err  # tqdm's bar, on stderr


def test_bench_engine_by_games(capsys):
    args = ["bench", "--engine", "--players", "2,3", "--games", "1", "--no-progress"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("machine: ")
    assert "cores" in out and "Python" in out
    for col in BENCH_COLUMNS:
        assert col in out
    rows = _data_rows(out)
    assert [r.split()[:2] for r in rows] == [["2", "1"], ["3", "1"]]


def test_bench_engine_by_time_budget(capsys):
    assert main(["bench", "--players", "4", "--seconds", "0.05", "--no-progress"]) == 0
    rows = _data_rows(capsys.readouterr().out)
    assert len(rows) == 1 and int(rows[0].split()[1]) >= 1  # whole games, at least one


def test_bench_result_rates():
    r = timing.BenchResult(num_players=2, games=4, actions=1000, seconds=2.0)
    assert r.actions_per_s == 500 and r.games_per_s == 2


def test_rules_prints_path_and_decisions(capsys):
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    assert "rules.md" in out
    if rules_path().is_file():
        found = decisions(rules_path().read_text(encoding="utf-8"))
        assert found, "docs/rules.md should list the project's interpretations"
        assert str(rules_path()) in out
        assert f"{len(found)} [decision]s" in out
        assert f"{len(found)}. " in out
    else:
        assert "source repository" in out


def test_decisions_from_an_interpretations_section():
    text = """# Rules
## Bidding
1. Not a decision, just a rule (R-BID-1).

## Interpretations

### Settled points
1. **First player (R-SETUP-6):** seat 0 by default.
   *Reason:* reproducible games.
2. **Upgrades first (R-BEN-3):** *Reason:* the rulebook gives no order.

### Engine-level choices
3. **Coordinates.** `(row, col)`, up is row - 1.

## Glossary
- Crew: people.
"""
    assert decisions(text) == [
        Decision("R-SETUP-6", "First player (R-SETUP-6): seat 0 by default.", "Settled points"),
        Decision(
            "R-BEN-3",
            "Upgrades first (R-BEN-3): Reason: the rulebook gives no order.",
            "Settled points",
        ),
        Decision("", "Coordinates. (row, col), up is row - 1.", "Engine-level choices"),
    ]


def test_decisions_marked_inline_as_in_the_specification():
    text = """# Rules
Points marked **[decision]** are interpretations.
## Setup (R-SETUP)
- R-SETUP-1 Each player starts with 3 crew.
- R-SETUP-6 **[decision]** First player: seat 0 by default;
  a config option may draw it at random.
- R-INST-2 A ship lives on a grid. **[decision]** The grid is bounded.
"""
    assert decisions(text) == [
        Decision(
            "R-SETUP-6",
            "R-SETUP-6 [decision] First player: seat 0 by default; a config option may draw it "
            "at random.",
            "Setup (R-SETUP)",
        ),
        Decision(
            "R-INST-2",
            "R-INST-2 A ship lives on a grid. [decision] The grid is bounded.",
            "Setup (R-SETUP)",
        ),
    ]


@pytest.mark.parametrize(
    ("argv", "flag", "detail"),
    [
        (["random", "--players", "6"], "--players", "2..5"),
        (["random", "--players", "1"], "--players", "2..5"),
        (["random", "--players", "four"], "--players", "2..5"),
        (["random", "--games", "0"], "--games", "positive"),
        (["random", "--seed", "-1"], "--seed", ">= 0"),
        (["random", "--max-rounds", "0"], "--max-rounds", "1..10000"),
        (["random", "--grid-size", "4"], "--grid-size", "odd"),
        (["random", "--card-set", "no/such/cards.toml"], "--card-set", "no such file"),
        (["tournament", "--card-set", "no/such/cards.toml"], "--card-set", "no such file"),
        (["play", "--grid-size", "x"], "--grid-size", "integer"),
        (["bench", "--max-rounds", "-2"], "--max-rounds", "1..10000"),
        (["bench", "--players", "2,9"], "--players", "2..5"),
        (["bench", "--seconds", "-1"], "--seconds", "positive"),
        (["bench", "--seconds", "1", "--games", "2"], "--games", "not allowed"),
        (["random", "--bogus"], "--bogus", "unrecognized"),
        (["fly"], "fly", "invalid choice"),
        ([], "COMMAND", "required"),
    ],
)
def test_bad_arguments_exit_2_naming_the_flag(capsys, argv, flag, detail):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert flag in err and detail in err


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert __version__ in capsys.readouterr().out


def _console_script() -> str:
    """The installed `farlight` script: beside this interpreter, else on PATH."""
    beside = Path(sys.executable).with_name("farlight")
    found = str(beside) if beside.is_file() else shutil.which("farlight")
    assert found, "the `farlight` console script is not installed: run pip install -e ."
    return found


def test_console_script_is_installed_and_runs():
    exe = _console_script()
    args = ["random", "--players", "2", "--games", "1", "--seed", "3", "--no-progress"]
    proc = subprocess.run([exe, *args], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    for col in STATS_COLUMNS:
        assert col in proc.stdout
    bad = subprocess.run([exe, "random", "--players", "7"], capture_output=True, text=True)
    assert bad.returncode == 2
    assert "--players" in bad.stderr and "2..5" in bad.stderr


def test_runs_as_module():
    cmd = [sys.executable, "-m", "farlight_cli", "bench", "--engine-only", "--players", "2"]
    proc = subprocess.run(
        [*cmd, "--games", "1", "--no-progress"], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert "machine: " in proc.stdout and "actions/s" in proc.stdout


@pytest.mark.slow
def test_bench_search_and_training_figures(monkeypatch):
    """The two figures a full `farlight bench` adds (the training run shortened here)."""
    from farlight_cli.farlight import bench as bench_cmd

    args = argparse.Namespace(seed=0)
    assert re.fullmatch(
        r"ismcts: iterations per CPU-second \(12 positions each, 60 per decision\): "
        r"[\d,]+ at 2 players, [\d,]+ at 4 players",
        bench_cmd.ismcts_figure(args),
    )
    monkeypatch.setattr(bench_cmd, "TRAIN_STEPS", 256)
    assert re.fullmatch(
        r"training: MaskablePPO, 256 learner steps \(2 players, 1 env\): "
        r"[\d,]+ steps/s wall, [\d,]+ per process CPU-second",
        bench_cmd.train_figure(args),
    )


NON_TRAINING = (
    "random",
    "bench",
    "rules",
    "tournament",
    "dataset",
    "play",
    "replay",
    "evaluate",
    "serve",
    "docs",
)
TRAINING = ("train ppo", "train self-play", "train rllib")
#: Commands that train but are not `farlight train KIND` (a best response: issue #29).
OTHER_TRAINING = ("exploit",)


def _subparsers(
    parser: argparse.ArgumentParser | None = None,
) -> dict[str, argparse.ArgumentParser]:
    from farlight_cli.main import build_parser

    parser = parser or build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def _parser_of(command: str) -> argparse.ArgumentParser:
    """The parser of `farlight COMMAND` ("train ppo": a subcommand's subcommand)."""
    parser = None
    for word in command.split():
        parser = _subparsers(parser)[word]
    assert parser is not None
    return parser


def test_every_subcommand_is_checked_for_its_help():
    from farlight_cli.main import build_parser

    top = _subparsers(build_parser())
    assert set(top) == {*NON_TRAINING, *OTHER_TRAINING, "train"}
    assert {f"train {kind}" for kind in _subparsers(top["train"])} == set(TRAINING)


@pytest.mark.parametrize("command", NON_TRAINING + OTHER_TRAINING + TRAINING)
def test_help_shows_every_default_and_choice_as_typed(command, monkeypatch):
    from farlight_cli.main import HelpFormatter

    monkeypatch.setenv("COLUMNS", "80")
    parser = _parser_of(command)
    text = parser.format_help()
    assert max(len(line) for line in text.splitlines()) <= 80, "help fits an 80-column terminal"
    assert "%%" not in text and "['" not in text and "None" not in text
    assert "{}" not in text, "a value as typed, not a Python repr"
    formatter = HelpFormatter(parser.prog)
    for action in parser._actions:
        if not action.option_strings or action.nargs == 0:
            continue  # positionals and on/off flags have no default to show
        shown = formatter._get_help_string(action) or ""
        assert "default" in shown, f"{command} {action.option_strings[0]}: {shown!r}"
        if action.choices:
            assert "{" + ",".join(action.choices) + "}" in text


def test_help_lists_read_as_typed(capsys):
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    out = capsys.readouterr().out
    assert "(default: 2,3,4,5)" in " ".join(out.split())


def _torch_threads() -> int | None:
    torch = sys.modules.get("torch")
    return None if torch is None else torch.get_num_threads()


@pytest.mark.parametrize(("chosen", "expected"), [(None, "1"), ("3", "3")])
def test_game_loop_commands_run_torch_on_one_thread_unless_chosen(
    monkeypatch, capsys, chosen, expected
):
    """A one-worker tournament plays in this process: one math thread keeps small network
    calls fast beside other busy processes; a user's OMP_NUM_THREADS is left as set."""
    threads = _torch_threads()
    monkeypatch.setenv("OMP_NUM_THREADS", "9")
    if chosen is None:
        monkeypatch.delenv("OMP_NUM_THREADS")
    else:
        monkeypatch.setenv("OMP_NUM_THREADS", chosen)
    args = ["tournament", "--agents", "random,random", "--players", "2", "--games", "2"]
    try:
        assert main([*args, "--workers", "1", "--no-progress"]) == 0
        assert os.environ["OMP_NUM_THREADS"] == expected
        if threads is not None and chosen is None:
            assert _torch_threads() == 1
    finally:
        if threads is not None:
            sys.modules["torch"].set_num_threads(threads)
    capsys.readouterr()


def test_other_commands_leave_the_thread_count_alone(monkeypatch, capsys):
    monkeypatch.setenv("OMP_NUM_THREADS", "9")
    monkeypatch.delenv("OMP_NUM_THREADS")
    assert main(["random", "--players", "2", "--games", "1", "--no-progress"]) == 0
    assert "OMP_NUM_THREADS" not in os.environ
    capsys.readouterr()


#: A list of agent names in a help text: "random, heuristic, ismcts, ... or a saved policy".
AGENT_LIST = re.compile(r"((?:[\w@]+, )+[\w@]+),? (?:or|and) (?:the path of )?a saved policy")
#: The agents a help text says need the train extra: "ppo, rollout, bidder and *.pt need ...".
TRAIN_LIST = re.compile(
    r"((?:[\w@*.]+, )*[\w@*.]+ and [\w@*.]+) (?:and saved policies )?needs? the train extra"
)


@pytest.mark.parametrize("command", ["", *NON_TRAINING, *OTHER_TRAINING, *TRAINING])
def test_every_help_lists_the_registrys_agents(command):
    """Hand-written lists went stale: "ppo, rollout and *.pt need the train extra" left out
    bidder. Each list of agents in a help text is the registry's, and so is each list of those
    that need torch."""
    from agents.registry import AGENT_NAMES, needs_torch
    from farlight_cli.main import build_parser

    parser = _parser_of(command) if command else build_parser()
    text = " ".join(parser.format_help().split())
    for names in AGENT_LIST.findall(text):
        listed = set(names.split(", ")) - {"ismcts@N"}
        assert listed == set(AGENT_NAMES), f"{command}: {names}"
    for names in TRAIN_LIST.findall(text):
        listed = set(re.split(r", | and ", names)) - {"*.pt"}
        assert listed == {n for n in AGENT_NAMES if needs_torch(n)}, f"{command}: {names}"


def test_train_help_names_every_kind_and_autopilot_takes_a_name():
    """`farlight --help` said "train a MaskablePPO agent" (rllib is not one); --autopilot
    showed a PATH although a file is refused there."""
    from farlight_cli.main import build_parser

    top = " ".join(build_parser().format_help().split())
    assert "MaskablePPO" in top and "RLlib" in top and "self-play" in top
    for kind in ("ppo", "self-play", "rllib"):
        assert "--autopilot NAME" in _parser_of(f"train {kind}").format_help()
