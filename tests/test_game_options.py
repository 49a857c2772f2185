"""A game option is declared once, in GameConfig, and every consumer derives from it.

The proof is an edit: a copy of the project gets one throw-away field in GameConfig and
nothing else, and the option is then a flag of `farlight play`, `tournament` and `train`,
an entry of the web's /api/options and a field of its new-game body, a key of training run
configs, and is stored in the records of games played with it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import farlight_env
from farlight_env.game.config import (
    GAME_OPTIONS,
    OFFERED_OPTIONS,
    OPTION_SPECS,
    ConfigError,
    GameConfig,
)
from farlight_env.game.options import OptionSpec, members, option_text

ROOT = Path(farlight_env.__file__).parent.parent
PACKAGES = ("farlight_env", "agents", "training", "farlight_cli", "farlight_web")
#: The one edit: a field declared in GameConfig, between max_rounds and random_first_player.
ANCHOR = "    random_first_player: bool = option("
NEW_OPTION = (
    '    practice_rounds: int = option(0, "test only", "rounds of practice first (a test\'s '
    'throw-away option)", low=0, high=9)\n'
)

CHECK = r"""
import json, subprocess, sys
from dataclasses import asdict
from pathlib import Path
from starlette.testclient import TestClient

out = Path(sys.argv[1])
def farlight(*args):
    return subprocess.run([sys.executable, "-m", "farlight_cli", *args], capture_output=True,
                          text=True, cwd=out)
found = {}
for command in (["play"], ["tournament"], ["random"], ["evaluate"], ["train", "ppo"]):
    shown = farlight(*command, "--help").stdout
    found[" ".join(command) + " --help"] = "--practice-rounds" in shown
bad = farlight("tournament", "--practice-rounds", "12")
found["refused"] = (bad.returncode, bad.stderr)
run = farlight("tournament", "--agents", "random,random", "--games", "1", "--max-rounds", "1",
               "--practice-rounds", "3", "--out", str(out / "t"), "--no-progress")
assert run.returncode == 0, run.stderr
results = json.loads((out / "t" / "results.json").read_text())
found["tournament record"] = results["games"][0]["config"]["practice_rounds"]
found["resume refuses it"] = farlight("tournament", "--resume", str(out / "t"),
                                      "--practice-rounds", "4").stderr.strip()

from farlight_web.app import make_app
client = TestClient(make_app(out / "web", allowed_hosts=["testserver"]))
options = client.get("/api/options").json()
found["/api/options"] = [o for o in options["game_options"] if o["name"] == "practice_rounds"]
found["/api/options default"] = options["practice_rounds"]
made = client.post("/api/games", json={"players": 2, "opponents": ["random"], "seed": 1,
                                        "practice_rounds": 2, "max_rounds": 1})
assert made.status_code < 300, made.text
found["web config"] = made.json()["config"]["practice_rounds"]
records = list((out / "web" / "games").glob("*.json"))
found["web record"] = json.loads(records[0].read_text())["config"]["practice_rounds"]
refused = client.post("/api/games", json={"players": 2, "practice_rounds": 10})
found["web refused"] = (refused.status_code, refused.json()["error"])

from farlight_cli.main import build_parser
from farlight_cli.config_flags import config_from_args
from training.farlight.config import PPOConfig
args = build_parser().parse_args(["train", "ppo", "--practice-rounds", "5"])
found["run config"] = asdict(config_from_args(args, PPOConfig))["practice_rounds"]
try:
    PPOConfig(practice_rounds=11)
except ValueError as exc:
    found["run config refused"] = str(exc)
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def with_new_option(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Copy the project, add one field to GameConfig, and look for it everywhere."""
    copy = tmp_path_factory.mktemp("project")
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package,
            copy / package,
            ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", "*.c", "build"),
        )
    config = copy / "farlight_env" / "game" / "config.py"
    text = config.read_text()
    assert text.count(ANCHOR) == 1
    config.write_text(text.replace(ANCHOR, NEW_OPTION + ANCHOR))
    work = tmp_path_factory.mktemp("work")
    env = dict(os.environ, PYTHONPATH=str(copy))
    done = subprocess.run(
        [sys.executable, "-c", CHECK, str(work)],
        capture_output=True,
        text=True,
        cwd=work,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_new_option_is_a_flag_of_every_command_that_plays_games(with_new_option: dict) -> None:
    for command in ("play", "tournament", "random", "evaluate", "train ppo"):
        assert with_new_option[f"{command} --help"] is True, command
    status, message = with_new_option["refused"]
    assert status == 2
    assert "argument --practice-rounds: practice_rounds must be 0..9 (test only), got 12" in message


def test_a_new_option_is_stored_in_the_records_of_games_played_with_it(
    with_new_option: dict,
) -> None:
    assert with_new_option["tournament record"] == 3
    assert with_new_option["web record"] == 2 and with_new_option["web config"] == 2
    assert "drop --practice-rounds" in with_new_option["resume refuses it"]


def test_a_new_option_is_in_the_web_options_and_new_game_body(with_new_option: dict) -> None:
    assert with_new_option["/api/options"] == [
        {
            "name": "practice_rounds",
            "kind": "int",
            "default": 0,
            "rule": "test only",
            "help": "rounds of practice first (a test's throw-away option)",
            "flag": "--practice-rounds",
            "low": 0,
            "high": 9,
            "odd": False,
        }
    ]
    assert with_new_option["/api/options default"] == 0
    status, error = with_new_option["web refused"]
    assert status == 400 and error == "practice_rounds must be 0..9 (test only), got 10"


def test_a_new_option_is_a_field_of_training_run_configs(with_new_option: dict) -> None:
    assert with_new_option["run config"] == 5
    assert with_new_option["run config refused"] == (
        "--practice-rounds: practice_rounds must be 0..9 (test only), got 11"
    )


def test_every_option_is_declared_with_its_rule_and_help() -> None:
    for name in GAME_OPTIONS:
        spec = OPTION_SPECS[name]
        assert spec.rule and spec.help, name
    assert OFFERED_OPTIONS == ("grid_size", "max_rounds", "rule_options")


def test_validation_names_the_option_and_its_rule() -> None:
    with pytest.raises(ConfigError, match=r"max_rounds must be 1..10000 \(R-RESET-6\), got 0"):
        GameConfig.check_option("max_rounds", 0)
    assert GameConfig.check_option("rule_options", {"token_rounding": "down"}).token_rounding == (
        "down"
    )


def test_an_env_validates_its_game_options_once_and_hands_the_config_to_its_games(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from farlight_env.env.aec import raw_env
    from farlight_env.env.single_agent import FarlightSingleAgentEnv

    checked: list[GameConfig] = []
    validate = GameConfig.validate

    def counting_validate(self: GameConfig) -> None:
        checked.append(self)
        validate(self)

    monkeypatch.setattr(GameConfig, "validate", counting_validate)
    env = raw_env(num_players=3, grid_size=9, rule_options={"token_rounding": "down"})
    env.reset(seed=0)
    env.reset(seed=1)
    assert checked == [env.game_config]
    assert env.game.config is env.game_config
    assert env.config == env.game_config.as_dict()  # the plain view, derived

    checked.clear()
    single = FarlightSingleAgentEnv(num_players=2, max_rounds=3)
    single.reset(seed=0)
    assert len(checked) == 1 and single.aec.game.config is single.aec.game_config


def test_a_game_config_is_valid_from_its_construction() -> None:
    with pytest.raises(ConfigError, match=r"grid_size must be odd"):
        GameConfig(grid_size=4)
    config = GameConfig(num_players=3)
    with pytest.raises(ConfigError, match=r"max_rounds must be 1..10000"):
        dataclasses.replace(config, max_rounds=0)


def _candidates(spec: OptionSpec, default: object) -> list[object]:
    """Values of an option's own type, valid and not: its choices, both bools, an int's bounds
    and the integers just outside, and a string that is no choice."""
    kind = spec.kind(default)
    if kind == "choice":
        return [*spec.choices, "bogus"]
    if kind == "bool":
        return [True, False]
    low, high = spec.low, spec.high
    assert low is not None and high is not None
    return sorted({low - 1, low, low + 1, high - 1, high, high + 1, default})


def _text_surfaces(name: str, member: str | None) -> dict[str, Callable[[str], object]]:
    """How each text surface reads one value of option `name` (or of the group's `member`)."""
    from farlight_cli.farlight.game_flags import assignment, option_type

    if member is None:
        return {"cli": option_type(name)}

    def openspiel(text: str) -> object:
        pytest.importorskip("pyspiel")
        from farlight_env.openspiel import game_config

        params = {"players": 2, "grid_size": 13, "max_rounds": 50, "random_first_player": False}
        return getattr(game_config({**params, "rules": f"{member}:{text}"}).rule_options, member)

    return {"cli": lambda text: assignment(name)(f"{member}={text}")[1], "openspiel": openspiel}


def _json_surfaces(name: str, member: str | None) -> dict[str, Callable[[object], object]]:
    """How each JSON surface (the engine's options, the web's new-game body) takes one value."""
    import msgspec

    from farlight_web.farlight.schemas import NewGame, new_game_options

    def engine(value: object) -> object:
        given = {member: value} if member else value
        return _read(GameConfig.from_options(**{name: given}), name, member)

    def web(value: object) -> object:
        given = {member: value} if member else value
        body = msgspec.json.decode(msgspec.json.encode({name: given}), type=NewGame)
        return _read(GameConfig.from_options(**new_game_options(body)), name, member)

    return {"engine": engine, "web": web}


def _read(config: GameConfig, name: str, member: str | None) -> object:
    value = getattr(config, name)
    return getattr(value, member) if member else value


def _outcome(take: Callable[[object], object], value: object) -> tuple[str, object]:
    try:
        return "accepted", take(value)
    except (ValueError, TypeError, argparse.ArgumentTypeError, ConfigError) as exc:
        del exc
        return "refused", None


def _every_offered_value() -> list[tuple[str, str | None, object]]:
    cases = []
    for name in OFFERED_OPTIONS:
        spec, default = OPTION_SPECS[name], GameConfig.__dataclass_fields__[name].default
        if spec.group is None:
            cases += [(name, None, value) for value in _candidates(spec, default)]
            continue
        for member, (member_spec, member_default) in members(spec.group).items():
            cases += [(name, member, v) for v in _candidates(member_spec, member_default)]
    return cases


@pytest.mark.parametrize(("name", "member", "value"), _every_offered_value())
def test_every_surface_accepts_and_refuses_the_same_values(
    name: str, member: str | None, value: object
) -> None:
    """One declaration, one verdict: the CLI, OpenSpiel's parameters, the engine and the web's
    new-game body agree on every value of every offered option and rule option."""
    outcomes = {
        **{s: _outcome(t, option_text(value)) for s, t in _text_surfaces(name, member).items()},
        **{s: _outcome(t, value) for s, t in _json_surfaces(name, member).items()},
    }
    assert len(set(outcomes.values())) == 1, outcomes
    if outcomes["engine"][0] == "accepted":
        assert outcomes["engine"][1] == value


def test_a_value_of_the_wrong_type_is_refused_by_every_json_surface() -> None:
    for name, member, given in (
        ("grid_size", None, "13"),
        ("max_rounds", None, True),
        ("rule_options", "lone_zero_mission_chance", 1),
        ("rule_options", "token_rounding", 1),
    ):
        for surface, take in _json_surfaces(name, member).items():
            assert _outcome(take, given)[0] == "refused", (surface, name, member, given)


#: What consumers may not do: branch on the rule options as a case of their own.
BRANCHES = re.compile(r"isinstance\([^)]*RuleOptions|[!=]= *[\"']rule_options[\"']")


def test_no_consumer_branches_on_the_rule_options() -> None:
    """Rule options are an ordinary (group) option: only the game's declaration knows them."""
    allowed = {ROOT / "farlight_env" / "declaration.py"}
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for package in (*PACKAGES, "evaluation")
        for path in sorted((ROOT / package).rglob("*.py"))
        if path not in allowed and (ROOT / "farlight_env" / "game") not in path.parents
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if BRANCHES.search(line)
    ]
    assert found == []
