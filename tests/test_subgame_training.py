"""Training on a sub-game (docs/subgames.md): `--learner-decisions bidding --autopilot
heuristic` for `farlight train ppo`, `self-play` and `rllib`; the exported policy names its
sub-game and plays it; every mistake on the new options is one line and status 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="training needs the train extra (torch, SB3)")
pytest.importorskip("sb3_contrib", reason="training needs the train extra (sb3-contrib)")

import env_states  # noqa: E402

from agents import make  # noqa: E402
from agents.farlight.policy import PolicyAgent, load_policy, save_policy  # noqa: E402
from agents.farlight.subgame import decision_of  # noqa: E402
from training.farlight.config import PPOConfig, SelfPlayConfig, ship_encoder_frozen  # noqa: E402
from training.farlight.sb3 import self_play, train_ppo  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TINY = dict(n_steps=64, batch_size=32, n_epochs=1, n_envs=1, vec_env="dummy", torch_threads=1)
TINY |= dict(embed=8, ship_features=4, hidden=16, vf=[8])
SUBGAME = dict(learner_decisions=["bidding"], autopilot="heuristic")


def cli(*argv: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    return subprocess.run(
        [sys.executable, "-m", "farlight_cli", *argv],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.fixture(scope="module")
def bidding_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("bid") / "run"
    config = PPOConfig(
        run_dir=str(run),
        total_steps=192,
        checkpoint_every=64,
        eval_every=64,
        eval_games=2,
        eval_opponents=["heuristic"],
        **TINY,
        **SUBGAME,
    )
    train_ppo.train(config, progress=False)
    return run


def test_ppo_on_the_bidding_subgame_trains_and_says_so(bidding_run: Path) -> None:
    stored = json.loads((bidding_run / "run_config.json").read_text())
    assert stored["learner_decisions"] == ["bidding"] and stored["autopilot"] == "heuristic"
    _net, config = load_policy(bidding_run / "policy.pt")
    assert config["learner_decisions"] == "bidding" and config["autopilot"] == "heuristic"
    rows = (bidding_run / "logs" / "progress.csv").read_text()
    assert "eval/win_rate_vs_heuristic" in rows


def test_a_bidding_policy_bids_itself_and_lets_the_heuristic_do_the_rest(bidding_run: Path) -> None:
    agent = PolicyAgent(bidding_run / "policy.pt", seed=0)
    heuristic = make("heuristic", seed=0)
    plain = PolicyAgent(bidding_run / "policy.pt", seed=0)
    plain.autopilot = None  # the bare network, for comparison
    kinds = set()
    for obs, mask, info in env_states.random_states(2, seed=3, every=3):
        kind = decision_of(obs, info)
        kinds.add(kind)
        expected = plain if kind == "bidding" else heuristic
        assert agent.act(obs, mask, info) == expected.act(obs, mask, info), kind
    assert {"bidding", "install"} <= kinds


def test_a_policy_file_naming_a_bad_subgame_is_refused(bidding_run: Path, tmp_path: Path) -> None:
    payload = torch.load(bidding_run / "policy.pt", weights_only=True)
    for field, value, message in [
        ("learner_decisions", "bids", "unknown decision kind 'bids'"),
        ("autopilot", "../other.pt", "autopilot"),
        ("autopilot", "bidder", "plain agent name"),
    ]:
        path = tmp_path / f"{field}.pt"
        save_policy(payload["state_dict"], {**payload["config"], field: value}, path)
        with pytest.raises(ValueError, match=message):
            PolicyAgent(path)


def test_self_play_on_the_bidding_subgame(tmp_path: Path) -> None:
    config = SelfPlayConfig(
        run_dir=str(tmp_path / "league"),
        total_steps=128,
        snapshot_every=64,
        checkpoint_every=128,
        eval_games=1,
        rating_games=1,
        baselines=["heuristic"],
        **TINY,
        **SUBGAME,
    )
    self_play.train(config, progress=False)
    snapshots = sorted((tmp_path / "league" / "pool").glob("*.pt"))
    assert snapshots
    assert PolicyAgent(snapshots[0]).autopilot is not None  # snapshots play as the learner


def ship_cnn(state: dict) -> dict:
    return {name: value for name, value in state.items() if ".ship_cnn." in name}


@pytest.mark.parametrize(
    ("kinds", "warm", "setting", "frozen"),
    [
        (["bidding"], "init", "auto", True),
        (["bidding", "mission"], "bc", "auto", True),
        (["bidding"], "", "auto", False),  # a random CNN is not frozen unasked
        (["bidding", "install"], "init", "auto", False),  # the install head reads its maps
        (["all"], "init", "auto", False),
        (["bidding"], "init", "train", False),
        (["all"], "", "freeze", True),
    ],
)
def test_the_ship_encoder_freezes_where_no_learner_decision_reads_its_maps(
    kinds: list[str], warm: str, setting: str, frozen: bool
) -> None:
    config = PPOConfig(
        learner_decisions=kinds,
        init_from="x.pt" if warm == "init" else "",
        bc_games=10 if warm == "bc" else 0,
        ship_encoder=setting,
    )
    assert ship_encoder_frozen(config) is frozen


def test_a_warm_started_bidding_run_keeps_its_ship_cnn_and_trains_the_rest(
    bidding_run: Path, tmp_path: Path
) -> None:
    """`--ship-encoder auto` on the bidding sub-game from a trained policy: the CNN's weights
    leave the run as they came (also after the value warm-up unfreezes the actor), the rest
    learns."""
    start, _config = load_policy(bidding_run / "policy.pt")
    config = PPOConfig(
        run_dir=str(tmp_path / "run"),
        total_steps=192,
        checkpoint_every=0,
        eval_every=0,
        init_from=str(bidding_run / "policy.pt"),
        value_warmup_steps=64,
        **TINY,
        **SUBGAME,
    )
    model = train_ppo.train(config, progress=False)
    end, _config = load_policy(tmp_path / "run" / "policy.pt")
    before, after = start.state_dict(), end.state_dict()
    assert ship_cnn(before) and ship_cnn(before).keys() == ship_cnn(after).keys()
    for name, value in ship_cnn(before).items():
        assert torch.equal(after[name], value), name
    assert not torch.equal(
        after["mlp_extractor.net.bid_out.weight"], before["mlp_extractor.net.bid_out.weight"]
    )
    trainable = {n for n, p in model.policy.named_parameters() if p.requires_grad}
    assert trainable and not any(".ship_cnn." in name for name in trainable)


@pytest.mark.parametrize(
    ("command", "argv", "fragment"),
    [
        ("ppo", ["--learner-decisions", "bid"], "--learner-decisions: unknown decision kind 'bid'"),
        ("ppo", ["--autopilot", "nobody"], "--autopilot: unknown agent 'nobody'"),
        ("self-play", ["--learner-decisions", "all,mission"], "'all' cannot be combined"),
        ("self-play", ["--autopilot", "x.pt"], "--autopilot: unknown agent 'x.pt'"),
        ("rllib", ["--learner-decisions", "bidding,flying"], "unknown decision kind 'flying'"),
        ("rllib", ["--autopilot", "bidder"], "--autopilot: unknown agent 'bidder'"),
    ],
)
def test_mistakes_on_the_subgame_options_are_one_line_and_status_2(
    tmp_path: Path, command: str, argv: list[str], fragment: str
) -> None:
    run = tmp_path / "run"
    done = cli("train", command, "--run-dir", str(run), *argv, cwd=tmp_path, timeout=120)
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2, done
    assert len(lines) == 1 and fragment in lines[0] and "Traceback" not in done.stderr, lines
    assert not run.exists()


def test_the_rllib_league_env_asks_learner_seats_only_for_bids() -> None:
    pytest.importorskip("ray.rllib", reason="needs the rllib extra")
    from training.farlight.rllib.env import LeagueEnv

    env = LeagueEnv(
        {
            "num_players": 2,
            "baselines": ["heuristic"],
            "self_play_fraction": 0.5,
            "seed": 2,
            "subgame": {"learner_decisions": {"bidding"}, "autopilot": "heuristic"},
        }
    )
    rng = np.random.default_rng(0)
    for seed in range(3):
        obs, _ = env.reset(seed=seed)
        while True:
            ((agent, o),) = obs.items()
            assert env.aec.game.phase.value == "bidding" and agent in env.learners
            action = int(rng.choice(np.flatnonzero(o["action_mask"])))
            obs, _r, terminated, truncated, _ = env.step({agent: action})
            if terminated["__all__"] or truncated["__all__"]:
                break
        assert env.aec.game.is_over


@pytest.mark.slow
def test_rllib_trains_on_the_bidding_subgame(tmp_path: Path) -> None:
    pytest.importorskip("ray.rllib", reason="needs the rllib extra")
    run = tmp_path / "run"
    done = cli(
        "train", "rllib", "--run-dir", str(run), "--iterations", "1",
        "--learner-decisions", "bidding", "--autopilot", "heuristic",
        "--num-env-runners", "0", "--num-cpus", "1", "--train-batch-size", "128",
        "--minibatch-size", "64", "--num-epochs", "1", "--embed", "8", "--ship-features", "4",
        "--hidden", "16", "--vf", "8", "--eval-every", "1", "--eval-games", "2",
        "--no-progress", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    _net, config = load_policy(run / "policy.pt")
    assert config["learner_decisions"] == "bidding" and config["autopilot"] == "heuristic"


def test_rllib_warm_started_bidding_run_keeps_its_ship_cnn_and_trains_the_rest(
    bidding_run: Path, tmp_path: Path
) -> None:
    """`farlight train rllib --init-from` a policy file: the run starts from its actor, and on
    the bidding sub-game `--ship-encoder auto` keeps its ship CNN as it came while the bid head
    learns."""
    pytest.importorskip("ray.rllib", reason="needs the rllib extra")
    run = tmp_path / "run"
    start = bidding_run / "policy.pt"
    done = cli(
        "train", "rllib", "--run-dir", str(run), "--iterations", "2", "--init-from", str(start),
        "--learner-decisions", "bidding", "--autopilot", "heuristic",
        "--num-env-runners", "0", "--num-cpus", "1", "--train-batch-size", "128",
        "--minibatch-size", "64", "--num-epochs", "1", "--embed", "8", "--ship-features", "4",
        "--hidden", "16", "--vf", "8", "--eval-every", "0", "--no-progress", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    before = load_policy(start)[0].state_dict()
    after = load_policy(run / "policy.pt")[0].state_dict()
    assert ship_cnn(before) and ship_cnn(before).keys() == ship_cnn(after).keys()
    for name, value in ship_cnn(before).items():
        assert torch.equal(after[name], value), name
    bid_out = "mlp_extractor.net.bid_out.weight"
    assert not torch.equal(after[bid_out], before[bid_out])


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--init-from", "{start}"], "its network is not this run's (embed 8, not 128)"),
        (["--init-from", "start.zip"], "--init-from start.zip: expected a saved policy *.pt"),
        (["--init-from", "missing.pt"], "--init-from: no policy file at missing.pt"),
        (["--ship-encoder", "fast"], "--ship-encoder: invalid choice: 'fast'"),
    ],
)
def test_rllib_warm_start_mistakes_are_refused_before_ray_starts(
    bidding_run: Path, tmp_path: Path, argv: list[str], fragment: str
) -> None:
    pytest.importorskip("ray.rllib", reason="needs the rllib extra")
    run = tmp_path / "run"
    argv = [a.format(start=bidding_run / "policy.pt") for a in argv]
    done = cli("train", "rllib", "--run-dir", str(run), *argv, cwd=tmp_path, timeout=120)
    assert done.returncode == 2, done
    assert fragment in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) <= 2
    assert not run.exists()


# --------------------------------------------------------------------- the shipped bidder
def test_the_shipped_bidder_bids_with_its_network_and_plays_the_rest_as_the_heuristic() -> None:
    bidder = make("bidder", seed=0)
    assert bidder.name == "bidder" and bidder.config["learner_decisions"] == "bidding"
    heuristic = make("heuristic", seed=0)
    kinds = set()
    for obs, mask, info in env_states.random_states(3, seed=5, every=2):
        kind = decision_of(obs, info)
        kinds.add(kind)
        if kind != "bidding":
            assert bidder.act(obs, mask, info) == heuristic.act(obs, mask, info), kind
        else:
            assert bidder.act(obs, mask, info) == int(np.argmax(bidder.logits(obs, mask)))
    assert {"bidding", "install", "mission"} <= kinds


def test_the_shipped_bidder_beats_the_heuristic(tmp_path: Path) -> None:
    """A small seat-rotated match (the README has the 400-game figure)."""
    from evaluation.tournament import run_tournament

    result = run_tournament(["bidder", "heuristic"], num_players=2, games=40, seed=61)
    row = next(r for r in result.summary if r.agent == "bidder")
    assert row.win_rate > 0.7, row


def test_every_command_that_takes_agents_takes_bidder(tmp_path: Path) -> None:
    done = cli(
        "tournament", "--agents", "bidder,random", "--players", "2", "--games", "2",
        "--workers", "1", "--diagnostics", "--out", str(tmp_path / "t"), cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-1000:]
    assert "bidder" in done.stdout and "auction diagnostics" in done.stdout
    results = json.loads((tmp_path / "t" / "results.json").read_text())
    assert "bidder" in results["diagnostics"]
