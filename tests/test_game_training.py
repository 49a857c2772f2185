"""Training on a game other than Farlight (#50), on the throw-away duel (tests/toy_game.py):
`farlight train ppo --game duel` writes a run and a game policy file, `--resume DIR` continues
it, the file plays tournaments of its game only, a bad file is refused in one line, and the
trained policy beats random play."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
import torch  # noqa: E402

from agents import make  # noqa: E402
from agents.farlight.policy.file import SHIPPED_POLICY  # noqa: E402
from agents.game_policy.agent import GamePolicyAgent  # noqa: E402
from agents.game_policy.file import (  # noqa: E402
    GameNet,
    file_game,
    is_game_policy,
    load_game_policy,
    save_game_policy,
)
from farlight_env.platform import GameError, register  # noqa: E402
from farlight_env.platform.gym import PlatformSingleAgentEnv  # noqa: E402
from farlight_env.platform.registry import unregister  # noqa: E402
from tests.toy_game import DUEL  # noqa: E402
from training.checkpoints import CHECKPOINT, checkpoint_steps  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def duel():
    register(DUEL, replace=True)
    yield
    unregister("duel")


def _cli(site: Path, *args: str) -> subprocess.CompletedProcess:
    """`farlight ARGS` in a fresh process where an installed package declares the duel."""
    info = site / "duel_game-0.1.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: duel-game\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[farlight_env.games]\nduel = tests.toy_game:DUEL\n")
    path = os.pathsep.join([str(site), str(ROOT)])
    return subprocess.run(
        [sys.executable, "-m", "farlight_cli", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": path},
        timeout=300,
    )


def _metadata(players: int = 2, **changes) -> dict:
    return {
        "game": "duel",
        "game_version": 1,
        "player_counts": [players],
        "obs_size": 6 + 3 * players,
        "action_size": 2,
        "hidden": [8],
        **changes,
    }


def _saved(path: Path, players: int = 2, **changes) -> Path:
    """A small untrained duel policy file, written as training writes one."""
    config = _metadata(players, **changes)
    save_game_policy(GameNet(config).state_dict(), config, path)
    return path


# ------------------------------------------------------------------ the command line
@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """One duel run of 2,048 steps through the CLI: (site, run dir, its stdout)."""
    base = tmp_path_factory.mktemp("duel-run")
    out = base / "run"
    done = _cli(
        base / "site",
        "train", "ppo", "--game", "duel", "--players", "2", "--timesteps", "2048",
        "--seed", "3", "--out", str(out), "--no-progress",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return base / "site", out, done.stdout


def test_a_duel_run_writes_its_config_checkpoint_and_policy(run) -> None:
    _site, out, stdout = run
    assert stdout.strip() == f"duel: trained 2048 steps; policy: {out / 'policy.pt'}"
    config = json.loads((out / "run_config.json").read_text())
    assert config["game"] == "duel" and config["num_players"] == 2 and config["seed"] == 3
    assert checkpoint_steps(out / CHECKPOINT) == 2048
    assert (out / "logs" / "progress.csv").is_file()
    assert not list(out.glob("*.tmp"))  # written atomically: temp names renamed
    net, meta = load_game_policy(out / "policy.pt")
    assert meta["game"] == "duel" and meta["player_counts"] == [2] and meta["trained_steps"] == 2048
    assert (meta["obs_size"], meta["action_size"], meta["hidden"]) == (12, 2, [64, 64])


def test_resume_continues_to_the_total_and_a_finished_run_says_so(run, tmp_path) -> None:
    site, out, _stdout = run
    copy = tmp_path / "copy"
    copy.mkdir()
    for name in ("run_config.json", CHECKPOINT):
        (copy / name).write_bytes((out / name).read_bytes())
    more = _cli(site, "train", "ppo", "--resume", str(copy), "--timesteps", "2560", "--no-progress")
    assert more.returncode == 0, more.stderr
    assert "duel: trained 2560 steps" in more.stdout
    assert checkpoint_steps(copy / CHECKPOINT) == 2560
    assert load_game_policy(copy / "policy.pt")[1]["trained_steps"] == 2560
    again = _cli(site, "train", "ppo", "--resume", str(copy), "--no-progress")
    assert again.returncode == 0, again.stderr
    assert "nothing to train: the run is already at 2560 steps" in again.stdout
    fewer = _cli(site, "train", "ppo", "--resume", str(copy), "--timesteps", "100")
    assert fewer.returncode == 2
    assert fewer.stderr.strip().splitlines() == [
        f"farlight train ppo: error: the run in {copy} is already at 2,560 steps, more than "
        "--timesteps 100: give more to train on"
    ]


def test_the_policy_plays_a_duel_tournament_against_random(run, tmp_path) -> None:
    site, out, _stdout = run
    policy = str(out / "policy.pt")
    done = _cli(
        site, "tournament", "--game", "duel", "--agents", f"random,{policy}",
        "--games", "20", "--no-progress", "--out", str(tmp_path / "t"),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "2-player tournament, 20 games" in done.stdout and "policy" in done.stdout
    assert (tmp_path / "t" / "results.json").is_file()


@pytest.mark.parametrize(
    ("game", "agent", "message"),
    [
        ("farlight", "RUN", "agent RUN plays only duel; agents for farlight: ismcts, random or a "),
        ("duel", str(SHIPPED_POLICY), f"agent {SHIPPED_POLICY} plays only farlight; agents for "),
    ],
)
def test_a_policy_file_plays_only_its_own_game(run, game, agent, message) -> None:
    site, out, _stdout = run
    agent = agent.replace("RUN", str(out / "policy.pt"))
    message = message.replace("RUN", str(out / "policy.pt"))
    done = _cli(site, "tournament", "--game", game, "--agents", f"random,{agent}", "--games", "2")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("farlight tournament: error: " + message)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--learner-decisions", "bidding"], "--learner-decisions: Farlight's training options"),
        (["--grid-size", "7"], "--grid-size: Farlight's training options, not duel's"),
        (["--opponents", "heuristic"], "--opponents: agent heuristic does not play duel"),
        (["--players", "5"], "duel is for 2-4 players, not 5"),
        (["--game-option", "colour=1"], "duel has no option 'colour'; its options are stakes"),
    ],
)
def test_what_a_duel_run_cannot_honour_is_refused_in_one_line(tmp_path, args, message) -> None:
    out = tmp_path / "run"
    done = _cli(tmp_path / "site", "train", "ppo", "--game", "duel", "--out", str(out), *args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("farlight train ppo: error: " + message), lines
    assert not out.exists()


def test_a_tampered_policy_file_is_refused_in_one_line_by_the_cli(run, tmp_path) -> None:
    site, _out, _stdout = run
    bad = _saved(tmp_path / "bad.pt")
    payload = torch.load(bad, weights_only=True)
    payload["config"]["obs_size"] = 13  # the weights are for 12
    torch.save(payload, bad)
    done = _cli(site, "tournament", "--game", "duel", "--agents", f"random,{bad}", "--games", "2")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "policy_net.0.weight has shape (8, 12)" in lines[0], lines


# ------------------------------------------------------------------ the policy file
def test_a_saved_game_policy_loads_and_plays_deterministically(tmp_path, duel) -> None:
    path = _saved(tmp_path / "p.pt")
    assert is_game_policy(path) and not is_game_policy(SHIPPED_POLICY)
    assert file_game(path) == "duel" and file_game(SHIPPED_POLICY) == "farlight"
    agent = make(str(path), seed=1)
    assert isinstance(agent, GamePolicyAgent) and agent.game == "duel"
    observation, mask = np.zeros(12, dtype=np.float32), np.array([1, 1], dtype=np.int8)
    picks = {agent.act(observation, mask, {}) for _ in range(5)}
    assert len(picks) == 1 and picks <= {0, 1}
    assert agent.act(observation, np.array([0, 1], dtype=np.int8), {}) == 1  # masked


def _tamper(path: Path, change) -> Path:
    payload = torch.load(path, weights_only=True)
    change(payload)
    torch.save(payload, path)
    return path


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda p: p["config"].update(game="Duel!"), "`$.game`"),
        (lambda p: p["config"].update(obs_size=-1), "`$.obs_size`"),
        (lambda p: p["config"].update(hidden=[4096] * 8), "more than 50,000,000"),
        (lambda p: p["config"].update(colour="red"), "unknown field `colour`"),
        (lambda p: p["config"].pop("action_size"), "`action_size`"),
        (lambda p: p.update(version=2), "game policy version 2, expected 1"),
        (lambda p: p.update(extra=1), "holds format, version, config and state_dict"),
        (lambda p: p["state_dict"].pop("action_net.bias"), "does not match the config"),
        (
            lambda p: p["state_dict"].update({"action_net.bias": torch.tensor([1.0, np.nan])}),
            "finite floating-point",
        ),
    ],
)
def test_a_tampered_policy_file_is_refused_naming_the_field(tmp_path, change, message) -> None:
    path = _tamper(_saved(tmp_path / "p.pt"), change)
    with pytest.raises(ValueError) as caught:
        load_game_policy(path)
    text = str(caught.value)
    assert message in text and "\n" not in text and text.startswith(str(path))


def test_foreign_and_oversized_files_are_refused_in_one_line(tmp_path, monkeypatch) -> None:
    pickled = tmp_path / "code.pt"
    torch.save({"format": "farlight-game-policy", "x": pickle.dumps(len)}, pickled)
    (tmp_path / "text.pt").write_text("hello")
    torch.save({"format": "something-else"}, tmp_path / "other.pt")
    for path, message in [
        (SHIPPED_POLICY, "not a game policy (expected format 'farlight-game-policy')"),
        (tmp_path / "text.pt", "not a loadable policy file (not a PyTorch file)"),
        (tmp_path / "other.pt", "not a game policy"),
        (pickled, "game policy version None, expected 1"),
    ]:
        with pytest.raises(ValueError, match="^" + str(path)) as caught:
            load_game_policy(path)
        assert message in str(caught.value) and "\n" not in str(caught.value)
    import agents.game_policy.file as game_file

    monkeypatch.setattr(game_file, "MAX_POLICY_BYTES", 100)
    with pytest.raises(ValueError, match="larger than 100 bytes; not a policy file"):
        load_game_policy(_saved(tmp_path / "big.pt"))


def test_a_game_policy_refuses_another_game_or_size(tmp_path, duel) -> None:
    agent = GamePolicyAgent(_saved(tmp_path / "p.pt"))
    with pytest.raises(ValueError, match="a policy for duel, it cannot play farlight"):
        agent.check_game("farlight", 2)
    with pytest.raises(ValueError, match="a policy for duel with 2 players, not 3"):
        agent.check_game("duel", 3)
    with pytest.raises(ValueError, match="takes an observation of 12, got 15"):
        agent.act(np.zeros(15, dtype=np.float32), np.ones(2, dtype=np.int8), {})
    with pytest.raises(ValueError, match="takes an action mask of 2, got 3"):
        agent.act(np.zeros(12, dtype=np.float32), np.ones(3, dtype=np.int8), {})
    with pytest.raises(GameError, match="opponents\\[0\\]: .* with 2 players, not 3"):
        PlatformSingleAgentEnv("duel", num_players=3, opponents=str(tmp_path / "p.pt"))


# ------------------------------------------------------------------ it learns
def _win_share(agent, games: int, seed: int) -> float:
    """The policy's share of the wins (ties split) over `games` seat-rotated duels vs random."""
    won = 0.0
    for game in range(games):
        env = PlatformSingleAgentEnv("duel", learner_seat=game % 2, opponents="random")
        observation, _ = env.reset(seed=seed + game)
        done = False
        while not done:
            action = agent.act(observation, env.action_masks(), {})
            observation, _reward, done, _truncated, info = env.step(action)
        won += (info["learner_seat"] in info["winners"]) / len(info["winners"])
    return won / games


def test_the_trained_policy_beats_random_on_the_duel(tmp_path, duel) -> None:
    """6,144 steps (seed 0) take the file's policy well past random play's half of the wins."""
    from training.game_config import GamePPOConfig
    from training.sb3 import game_ppo

    config = GamePPOConfig(game="duel", total_steps=6_000, seed=0, run_dir=str(tmp_path / "r"))
    model = game_ppo.train(config, progress=False)
    assert model.num_timesteps == 6_144
    (tmp_path / "r" / "policy.pt").unlink()  # written again on demand from the checkpoint
    path = game_ppo.policy_from_checkpoint(tmp_path / "r")
    share = _win_share(make(str(path)), 400, seed=20_000)
    print(f"trained duel policy vs random: {share:.4f} of 400 seat-rotated games (seeds 20000+)")
    assert share > 0.6  # random play: 0.5
