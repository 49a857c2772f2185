"""`farlight train rllib`: league self-play on a local Ray instance. A run trains, is killed
(Ray dies with it), resumes from its checkpoint with the weights it saved, exports a policy
that `agents.make` loads and that plays full legal games at 2 and 4 players; a user's mistake
ends in one or two lines with status 2, before Ray starts."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from processes import alive

pytest.importorskip("torch", reason="the rllib extra needs torch")
pytest.importorskip("ray.rllib", reason="needs the rllib extra")

import torch  # noqa: E402

from agents import make  # noqa: E402
from evaluation.arena import play_episode  # noqa: E402
from farlight_env.env.aec import raw_env  # noqa: E402
from farlight_env.processes import descendants, start_time  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
TINY = [
    "--num-env-runners",
    "1",
    "--num-envs-per-env-runner",
    "2",
    "--num-cpus",
    "2",
    "--train-batch-size",
    "128",
    "--minibatch-size",
    "64",
    "--num-epochs",
    "1",
    "--embed",
    "8",
    "--ship-features",
    "4",
    "--hidden",
    "16",
    "--vf",
    "8",
    "--checkpoint-every",
    "1",
    "--snapshot-every",
    "1",
    "--eval-every",
    "2",
    "--eval-games",
    "2",
    "--no-progress",
]


def farlight(*argv: str, cwd: Path, **kw) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    return subprocess.Popen(
        [sys.executable, "-m", "farlight_cli", *argv],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


def finish(proc: subprocess.Popen, timeout: float = 240) -> tuple[int, str, str]:
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


def checkpointed(run: Path) -> int:
    """The iteration of the run's last complete checkpoint (0: none yet)."""
    with contextlib.suppress(OSError, ValueError, KeyError):
        return int(json.loads((run / "rllib_checkpoint" / "league.json").read_text())["iteration"])
    return 0


def session_members(sid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                stat = (entry / "stat").read_text()
                if int(stat.rsplit(")", 1)[1].split()[3]) == sid and alive(int(entry.name)):
                    found.add(int(entry.name))
    return found


@pytest.fixture(scope="module")
def killed_and_resumed(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Start a long run, SIGKILL it after its second checkpoint, resume it to 3 iterations."""
    root = tmp_path_factory.mktemp("rllib")
    run = root / "run"
    proc = farlight(
        "train",
        "rllib",
        "--run-dir",
        str(run),
        "--iterations",
        "1000",
        *TINY,
        cwd=root,
        start_new_session=True,
    )
    started: dict[int, str] = {}
    try:
        deadline = time.monotonic() + 180
        while checkpointed(run) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        assert checkpointed(run) >= 2, proc.stderr.read() if proc.poll() is not None else "slow"
        started = {p: start_time(p) for p in session_members(proc.pid) | descendants(proc.pid)}
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        left = lambda: {p for p, t in started.items() if alive(p) and start_time(p) == t}  # noqa: E731
        # the watchdog acts within seconds; 60 s leaves room for a CI machine under full load
        # (30 s failed once), far below the minute-plus Ray's agents linger without it
        deadline = time.monotonic() + 60
        while left() and time.monotonic() < deadline:
            time.sleep(0.1)
        leftover = left()
    finally:
        proc.stdout.close()
        proc.stderr.close()
        for pid in session_members(proc.pid) | {
            p for p, t in started.items() if start_time(p) == t
        }:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    killed_at = checkpointed(run)
    resumed = finish(
        farlight(
            "train",
            "rllib",
            "--run-dir",
            str(run),
            "--resume",
            "--iterations",
            str(killed_at + 1),
            "--no-progress",
            cwd=root,
        )
    )
    return {
        "run": run,
        "leftover": leftover,
        "started": started,
        "killed_at": killed_at,
        "resumed": resumed,
        "root": root,
    }


@pytest.mark.slow
def test_a_local_ray_instance_dies_with_a_killed_run(killed_and_resumed):
    started = killed_and_resumed["started"]
    names = " ".join(Path(f"/proc/{p}/cmdline").read_text() for p in started if alive(p))
    assert not killed_and_resumed["leftover"], names
    assert len(started) >= 3  # the driver, Ray's raylet and at least the env runner


@pytest.mark.slow
def test_a_killed_run_resumes_from_its_checkpoint(killed_and_resumed):
    run, killed_at = killed_and_resumed["run"], killed_and_resumed["killed_at"]
    code, out, err = killed_and_resumed["resumed"]
    assert code == 0, err
    assert f"trained {killed_at + 1} iterations" in out
    assert checkpointed(run) == killed_at + 1
    with (run / "logs" / "progress.csv").open() as fh:
        iterations = [int(float(r["time/iterations"])) for r in csv.DictReader(fh)]
    assert iterations == list(range(1, killed_at + 2))  # no stale or repeated rows
    league = json.loads((run / "rllib_checkpoint" / "league.json").read_text())
    assert league["snapshots"] and all((run / "league" / s).is_file() for s in league["snapshots"])
    assert (run / "learning_curve.png").stat().st_size > 0
    config = json.loads((run / "run_config.json").read_text())
    assert config["iterations"] == killed_at + 1 and config["hidden"] == 16


@pytest.mark.slow
def test_a_run_says_it_starts_ray_and_keeps_rays_chatter_in_its_folder(killed_and_resumed):
    """#48: the terminal shows one line while Ray starts, not RLlib's new-API-stack notice or
    the core worker's `E` line; what Ray printed is kept in RUN/ray.log."""
    run = killed_and_resumed["run"]
    _code, _out, err = killed_and_resumed["resumed"]
    assert "starting Ray (a local instance)" in err and str(run / "ray.log") in err
    assert "new API stack" not in err and "core_worker" not in err, err
    assert "WARNING" not in err and not re.search(r"^\[.* E ", err, re.M), err
    assert "core_worker" in (run / "ray.log").read_text()


@pytest.mark.slow
def test_resuming_restores_the_saved_weights(killed_and_resumed):
    """A resume with nothing left to train re-exports exactly the weights it restored."""
    run = killed_and_resumed["run"]
    before = torch.load(run / "policy.pt", weights_only=True)
    code, _out, err = finish(
        farlight(
            "train",
            "rllib",
            "--run-dir",
            str(run),
            "--resume",
            "--no-progress",
            cwd=killed_and_resumed["root"],
        )
    )
    assert code == 0, err
    after = torch.load(run / "policy.pt", weights_only=True)
    assert before["config"] == after["config"]
    assert before["state_dict"].keys() == after["state_dict"].keys()
    for name, tensor in before["state_dict"].items():
        assert torch.equal(tensor, after["state_dict"][name]), name


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 4])
def test_the_exported_policy_plays_full_legal_games(killed_and_resumed, players):
    """agents.make loads it; the env raises on an illegal action, so finishing proves legality."""
    path = killed_and_resumed["run"] / "policy.pt"
    for seed in range(2):
        env = raw_env(num_players=players)
        env.reset(seed=seed)
        seats = [make(str(path))] + [make("random", seed=s) for s in range(1, players)]
        seats[0] = make(str(path), deterministic=False, seed=seed)  # sampled: all of its mass
        play_episode(env, seats)
        assert env.game.is_over or all(env.truncations.values())
    agent = make(str(path))
    assert agent.config["trainer"] == "rllib" and agent.config["arch"] == "structured"


@pytest.mark.slow
def test_the_masked_module_gives_illegal_actions_no_probability(killed_and_resumed):
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModule

    module_dir = (
        killed_and_resumed["run"] / "rllib_checkpoint/learner_group/learner/rl_module/shared"
    )
    module = RLModule.from_checkpoint(str(module_dir))
    env = raw_env(num_players=3)
    env.reset(seed=4)
    obs = env.observe(env.agent_selection)
    batch = {Columns.OBS: {k: torch.as_tensor(v)[None] for k, v in obs.items()}}
    logits = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS][0]
    probs = torch.softmax(logits, 0).detach().numpy()
    assert probs[obs["action_mask"] == 0].max() == 0.0
    assert np.isclose(probs[obs["action_mask"] == 1].sum(), 1.0)


# ----------------------------------------------------------------------------- user mistakes
def one_clear_error(argv: list[str], *fragments: str, cwd: Path) -> float:
    start = time.monotonic()
    code, out, err = finish(farlight("train", "rllib", *argv, cwd=cwd), timeout=60)
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2, (code, out, err)
    assert 1 <= len(lines) <= 2 and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in err, err
    return time.monotonic() - start


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (["--num-players", "7"], ["--num-players must be 2..5"]),
        (["--iterations", "0"], ["--iterations must be an integer >= 1"]),
        (["--minibatch-size", "500", "--train-batch-size", "100"], ["--minibatch-size 500"]),
        (["--self-play-fraction", "1.5"], ["--self-play-fraction"]),
        (["--baselines", "nobody"], ["--baselines", "unknown agent 'nobody'"]),
        (["--num-cpus", "1", "--num-env-runners", "3"], ["need 3 CPUs", "--num-cpus"]),
        (["--address", "not an address"], ["--address must be auto, HOST:PORT"]),
        (["--resume"], ["no run_config.json"]),
    ],
)
def test_user_mistakes_get_one_or_two_lines_and_status_2(tmp_path, argv, fragments):
    one_clear_error(["--run-dir", str(tmp_path / "run"), *argv], *fragments, cwd=tmp_path)
    assert not (tmp_path / "run").exists()  # nothing half-written


def test_an_unreachable_cluster_is_refused_quickly(tmp_path):
    with contextlib.closing(__import__("socket").socket()) as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again below: nobody listens there
    seconds = one_clear_error(
        ["--run-dir", str(tmp_path / "run"), "--address", f"ray://127.0.0.1:{port}"],
        "no Ray cluster reachable",
        cwd=tmp_path,
    )
    assert seconds < 30


def test_an_existing_run_is_not_overwritten(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    (run / "run_config.json").write_text("{}")
    one_clear_error(["--run-dir", str(run)], "already holds a run", cwd=tmp_path)
    assert (run / "run_config.json").read_text() == "{}"


# ----------------------------------------------------------------------------- the env adapter
def play_league_game(env, seed: int) -> list[tuple[str, bytes]]:
    """Random legal moves for the learner seats; checks each observation against the AEC
    env's own for that seat, and returns the trajectory (seat, observation bytes)."""
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    trajectory = []
    while True:
        ((agent, o),) = obs.items()
        assert agent in env.learners and agent == env.aec.agent_selection
        reference = env.aec.observe(agent)
        assert np.array_equal(o["observation"], reference["observation"])
        assert np.array_equal(o["action_mask"], reference["action_mask"])
        trajectory.append((agent, o["observation"].tobytes()))
        obs, rewards, terminated, truncated, _ = env.step(
            {agent: int(rng.choice(np.flatnonzero(o["action_mask"])))}
        )
        if terminated["__all__"] or truncated["__all__"]:
            assert set(obs) == set(rewards) == env.moved <= env.learners
            assert rewards == {a: float(env.aec.rewards[a]) for a in obs}
            return trajectory
        assert set(obs) <= env.learners


@pytest.mark.parametrize("fraction", [0.0, 1.0])
def test_the_league_env_shows_learner_seats_only_what_the_aec_env_shows(fraction):
    """Its observations are the PettingZoo env's (whose hidden-information tests cover them),
    league opponents move in between, and the same seed replays the same game."""
    from training.farlight.rllib.env import LeagueEnv

    config = {"num_players": 3, "baselines": ["random", "heuristic"], "seed": 5}
    env = LeagueEnv({**config, "self_play_fraction": fraction})
    first = play_league_game(env, seed=11)
    assert len(env.learners) == (3 if fraction == 1.0 else 1)
    again = LeagueEnv({**config, "self_play_fraction": fraction})
    assert play_league_game(again, seed=11) == first


def test_every_game_of_every_env_runner_deals_its_own_games():
    """RLlib seeds each game's first reset with the run's seed + the runner's index + the
    game's place in its runner, so runner 1's second game and runner 2's first get one seed;
    their deals still differ (the runner's index is in the env's base)."""
    from ray.rllib.env.env_context import EnvContext

    from training.farlight.rllib.env import LeagueEnv

    config = {"num_players": 2, "baselines": ["random"], "seed": 7}
    deals = {}
    for worker, place in ((0, 0), (1, 0), (1, 1), (2, 0), (2, 1)):
        env = LeagueEnv(EnvContext(config, worker_index=worker))
        env.reset(seed=7 + worker + place)  # as RLlib's vector env seeds its games
        deals[worker, place] = [env.aec.game.seed]
        for _ in range(2):
            env.reset()
            deals[worker, place].append(env.aec.game.seed)
    seeds = [seed for games in deals.values() for seed in games]
    assert len(set(seeds)) == len(seeds), deals


def test_league_snapshots_play_from_their_bytes():
    """A snapshot shipped as policy-file bytes is loaded and plays its seat."""
    from agents.farlight.policy import SHIPPED_POLICY
    from training.farlight.rllib.env import LeagueEnv

    env = LeagueEnv({"num_players": 2, "baselines": [], "self_play_fraction": 0.0, "seed": 1})
    env.set_league([("snapshot_000001.pt", SHIPPED_POLICY.read_bytes())])
    play_league_game(env, seed=3)
    (opponent,) = env.scripted.values()
    assert opponent.path.read_bytes() == SHIPPED_POLICY.read_bytes()


def test_rllib_resume_hides_tensorboard_events_logged_after_its_checkpoint(
    tmp_path: Path,
) -> None:
    """RunLog (progress.csv and TensorBoard) keeps each step once across a resume from 256."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    from training.farlight.rllib.self_play import STEP, RunLog

    first = RunLog(tmp_path, None)
    for step in (128, 256, 384):
        first.write({STEP: step, "learner/entropy": 0.0})
    first.close()
    time.sleep(1.1)  # a new process's event file: tensorboardX names them by the second
    resumed = RunLog(tmp_path, 256)
    for step in (384, 512):
        resumed.write({STEP: step, "learner/entropy": 1.0})
    resumed.close()
    events = EventAccumulator(str(tmp_path / "logs"))
    events.Reload()
    scalars = events.Scalars("learner/entropy")
    assert [(e.step, e.value) for e in scalars] == [(128, 0), (256, 0), (384, 1), (512, 1)]
    with (tmp_path / "logs" / "progress.csv").open(newline="") as fh:
        assert [float(r[STEP]) for r in csv.DictReader(fh)] == [128, 256, 384, 512]


def test_a_resumed_run_seeds_its_runners_and_games_anew() -> None:
    """A resume restores weights and counters, not the env runners' generators: built from
    the run's seed again, it would replay the deals the run began with (`stream_seed`)."""
    from training.farlight.rllib.config import RLlibConfig
    from training.farlight.rllib.env import LeagueEnv
    from training.farlight.rllib.self_play import algorithm_config
    from training.run_config import stream_seed

    config = RLlibConfig(baselines=["random"])
    later = stream_seed(config.seed, 4096)
    fresh, resumed = algorithm_config(config), algorithm_config(config, later)
    assert fresh.seed == fresh.env_config["seed"] == config.seed
    assert resumed.seed == resumed.env_config["seed"] == later != config.seed

    def first_deals(env_config: dict) -> list[int]:
        env, deals = LeagueEnv(env_config), []
        for _ in range(3):
            env.reset()
            deals.append(env.aec.game.seed)
        return deals

    assert first_deals(fresh.env_config) == first_deals(fresh.env_config)
    assert not set(first_deals(fresh.env_config)) & set(first_deals(resumed.env_config))
