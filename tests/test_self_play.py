"""League self-play end to end on tiny budgets (`farlight train self-play`): snapshots joining
the pool, their ratings and results, resumes that keep the pool, and the PFSP weights that
draw opponents from it."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="training needs the train extra (torch, SB3)")
pytest.importorskip("sb3_contrib", reason="training needs the train extra (sb3-contrib)")

from PIL import Image  # noqa: E402 - after the importorskips above
from training_runs import (  # noqa: E402
    PLAYER_COUNTS,
    adam_steps,
    assert_acts_legally,
    csv_rows,
    tiny_league,
)

from agents.farlight.policy import PolicyAgent, load_policy  # noqa: E402
from training.checkpoints import CHECKPOINT, check_checkpoint  # noqa: E402
from training.farlight.config import PPOConfig, SelfPlayConfig  # noqa: E402
from training.farlight.sb3 import self_play, train_ppo  # noqa: E402
from training.sb3.run_files import RUN_CONFIG  # noqa: E402

torch.set_num_threads(1)


@pytest.fixture(scope="module")
def league_run(tmp_path_factory: pytest.TempPathFactory):
    run_dir = tmp_path_factory.mktemp("league") / "run"
    config = tiny_league(run_dir)
    model = self_play.train(config, progress=False)
    state = json.loads((run_dir / self_play.LEAGUE_STATE).read_text())
    return run_dir, config, model, state


def test_league_adds_a_snapshot_every_k_steps(league_run) -> None:
    run_dir, config, model, state = league_run
    assert model.num_timesteps == config.total_steps
    # entries are stored relative to the run directory, so a moved run still finds its pool
    snapshots = sorted(str(p.relative_to(run_dir)) for p in (run_dir / "pool").glob("*.pt"))
    assert len(snapshots) == config.total_steps // config.snapshot_every
    assert state["entries"] == [*config.baselines, *snapshots]
    assert [h["steps"] for h in state["history"]] == [256, 512]
    assert [h["snapshot"] for h in state["history"]] == snapshots


def test_league_rates_every_snapshot(league_run) -> None:
    _run_dir, _config, _model, state = league_run
    assert set(state["ratings"]) == set(state["entries"])
    for entry in state["history"]:
        assert entry["rating_sigma"] > 0
        assert entry["rating"] == pytest.approx(entry["rating_mu"] - 3 * entry["rating_sigma"])
        assert 0.0 <= entry["win_rate_vs_heuristic"] <= 1.0
    # history keeps each snapshot's rating when it joined; the table has the latest ratings
    last = state["history"][-1]
    assert state["ratings"][last["snapshot"]] == pytest.approx(
        [last["rating_mu"], last["rating_sigma"]]
    )


def test_league_tracks_results_per_entry(league_run) -> None:
    _run_dir, _config, _model, state = league_run
    assert state["stats"], "no finished episode was credited to a league entry"
    for entry, (wins, games) in state["stats"].items():
        assert entry in state["entries"]
        assert 0.0 <= wins <= games and games >= 1


def test_a_full_baseline_share_never_draws_a_snapshot(tmp_path: Path) -> None:
    """The share reaches the environments: at 1.0, snapshots join and are rated but the
    learner's opponents stay baselines."""
    run_dir = tmp_path / "league"
    config = tiny_league(run_dir, snapshot_every=128, baseline_share=1.0)
    self_play.train(config, progress=False)
    state = json.loads((run_dir / self_play.LEAGUE_STATE).read_text())
    snapshots = [e for e in state["entries"] if e.endswith(".pt")]
    assert len(snapshots) >= 2
    played = {entry for entry, (_wins, games) in state["stats"].items() if games}
    assert played and played <= set(config.baselines), played


def test_league_draws_a_learning_curve(league_run) -> None:
    run_dir, _config, _model, _state = league_run
    with Image.open(run_dir / "learning_curve.png") as image:
        image.verify()
    with Image.open(run_dir / "learning_curve.png") as image:
        assert image.size[0] > 100 and image.size[1] > 100


def test_league_writes_resumable_run_files(league_run) -> None:
    run_dir, config, _model, _state = league_run
    check_checkpoint(run_dir / CHECKPOINT)
    assert json.loads((run_dir / RUN_CONFIG).read_text()) == asdict(config)
    assert "league/snapshot_rating" in csv_rows(run_dir)[0]
    _net, saved = load_policy(run_dir / "policy.pt")
    assert saved["name"] == "league"


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_league_snapshots_act_legally(league_run, num_players: int) -> None:
    run_dir, _config, _model, _state = league_run
    for path in sorted((run_dir / "pool").glob("*.pt")):
        agent = PolicyAgent(path, seed=num_players)
        assert_acts_legally(agent, num_players, seed=400 + num_players)


def test_league_refuses_a_new_run_in_a_used_directory(league_run) -> None:
    run_dir, config, _model, _state = league_run
    with pytest.raises(train_ppo.RunError, match="--resume"):
        self_play.train(config, progress=False)


def test_three_player_league(tmp_path: Path) -> None:
    run_dir = tmp_path / "three"
    config = tiny_league(run_dir, num_players=3, total_steps=256, snapshot_every=128)
    model = self_play.train(config, progress=False)
    assert model.num_timesteps == 256
    state = json.loads((run_dir / self_play.LEAGUE_STATE).read_text())
    assert len(state["entries"]) == len(config.baselines) + 2
    assert [h["steps"] for h in state["history"]] == [128, 256]
    assert set(state["ratings"]) == set(state["entries"])
    agent = PolicyAgent(run_dir / state["history"][-1]["snapshot"])
    assert agent.config["num_players"] == 3
    assert_acts_legally(agent, 3, seed=5)


def test_league_resume_keeps_the_pool_and_adds_to_it(tmp_path: Path) -> None:
    run_dir = tmp_path / "league"
    first = self_play.train(tiny_league(run_dir, total_steps=256), progress=False)
    assert first.num_timesteps == 256
    before = json.loads((run_dir / self_play.LEAGUE_STATE).read_text())
    assert len(before["entries"]) == 3
    model = self_play.train(
        SelfPlayConfig(run_dir=str(run_dir), total_steps=512), resume=True, progress=False
    )
    assert model.num_timesteps == 512
    assert model.n_steps == 128  # the stored configuration, not the defaults passed
    after = json.loads((run_dir / self_play.LEAGUE_STATE).read_text())
    assert after["entries"][: len(before["entries"])] == before["entries"]
    assert len(after["entries"]) == len(before["entries"]) + 1
    assert after["history"][: len(before["history"])] == before["history"]
    assert [h["steps"] for h in after["history"]] == [256, 512]
    for name, (wins, games) in before["stats"].items():
        assert after["stats"][name][1] >= games and after["stats"][name][0] >= wins
    assert adam_steps(model) == {512 // 128 * (128 // 64)}  # optimiser state carried over


def test_league_entries_survive_a_change_of_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run started with a relative --run-dir and resumed from elsewhere (or moved) must
    still find its pool: league.json entries may not depend on the working directory."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    monkeypatch.chdir(tmp_path / "a")
    self_play.train(tiny_league(Path("runs/league"), total_steps=128), progress=False)
    monkeypatch.chdir(tmp_path / "b")
    run_dir = tmp_path / "a" / "runs" / "league"
    model = self_play.train(
        SelfPlayConfig(run_dir=str(run_dir), total_steps=256), resume=True, progress=False
    )
    assert model.num_timesteps == 256
    state = json.loads((run_dir / self_play.LEAGUE_STATE).read_text())
    missing = [e for e in state["entries"] if e.endswith(".pt") and not (run_dir / e).is_file()]
    assert not missing, f"pool entries not found from {Path.cwd()}: {missing}"


def test_league_resume_refuses_a_missing_league_state(tmp_path: Path) -> None:
    run_dir = tmp_path / "league"
    self_play.train(tiny_league(run_dir, total_steps=128, snapshot_every=128), progress=False)
    (run_dir / self_play.LEAGUE_STATE).write_text("{broken")
    with pytest.raises(ValueError, match="league state"):
        self_play.train(tiny_league(run_dir, snapshot_every=128), resume=True, progress=False)


def test_ppo_resume_of_a_self_play_run_is_refused_clearly(league_run) -> None:
    """`farlight train ppo --resume` pointed at a league directory: a ValueError naming the
    run config, not PPOConfig's TypeError about an unexpected keyword 'baselines'."""
    run_dir = league_run[0]
    with pytest.raises(ValueError, match=RUN_CONFIG):
        train_ppo.train(PPOConfig(run_dir=str(run_dir)), resume=True, progress=False)


# ------------------------------------------------------------------------------ PFSP weights
def test_pfsp_weights_exact_values() -> None:
    stats = {"strong": [0.0, 2.0], "weak": [3.0, 4.0]}
    weights = self_play.pfsp_weights(stats, ["strong", "weak", "new"], power=2.0)
    # smoothed learner win rates 1/4, 2/3 and (unplayed) 1/2; weights (1 - rate)^2
    raw = [(3 / 4) ** 2, (1 / 3) ** 2, (1 / 2) ** 2]
    assert weights == pytest.approx([w / sum(raw) for w in raw])
    assert weights == pytest.approx([81 / 133, 16 / 133, 36 / 133])


def test_pfsp_weights_favour_the_entries_the_learner_beats_least() -> None:
    stats = {"a": [1.0, 10.0], "b": [5.0, 10.0], "c": [9.0, 10.0]}
    weights = self_play.pfsp_weights(stats, ["c", "b", "a"], power=2.0)
    assert weights[0] < weights[1] < weights[2]
    assert sum(weights) == pytest.approx(1.0)


def test_pfsp_weights_unplayed_entries_are_a_coin_flip() -> None:
    weights = self_play.pfsp_weights({}, ["x", "y", "z"], power=3.0)
    assert weights == pytest.approx([1 / 3] * 3)
    mixed = self_play.pfsp_weights({"x": [0.0, 0.0]}, ["x", "y"], power=1.0)
    assert mixed == pytest.approx([0.5, 0.5])


def test_a_baseline_share_keeps_the_baselines_drawn_that_often() -> None:
    """The learner beats the heuristic 90% of the time: by PFSP alone it would hardly meet it
    once snapshots exist; a share of 0.5 keeps it in half the draws, PFSP within each group."""
    stats = {"heuristic": [90.0, 100.0], "random": [99.0, 100.0], "s1": [5.0, 10.0]}
    entries = ["heuristic", "random", "s1", "s2"]
    plain = self_play.pfsp_weights(stats, entries, 2.0)
    assert plain[0] + plain[1] < 0.05
    weights = self_play.pfsp_weights(stats, entries, 2.0, ["heuristic", "random"], 0.5)
    assert sum(weights) == pytest.approx(1.0)
    assert weights[0] + weights[1] == pytest.approx(0.5)
    assert weights[0] / weights[1] == pytest.approx(plain[0] / plain[1])
    assert weights[2] / weights[3] == pytest.approx(plain[2] / plain[3])
    only = self_play.pfsp_weights(stats, entries, 2.0, ["heuristic", "random"], 1.0)
    assert only[2:] == [0.0, 0.0]


def test_a_baseline_share_waits_for_the_first_snapshot() -> None:
    """With only baselines (or no baseline) in the league the share has nothing to split."""
    stats = {"heuristic": [90.0, 100.0]}
    alone = self_play.pfsp_weights(
        stats, ["heuristic", "random"], 2.0, ["heuristic", "random"], 0.3
    )
    assert alone == pytest.approx(self_play.pfsp_weights(stats, ["heuristic", "random"], 2.0))


def test_baseline_share_outside_zero_to_one_is_refused() -> None:
    from training.farlight.config import SelfPlayConfig

    assert SelfPlayConfig(baseline_share=0.5).baseline_share == 0.5
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match=r"--baseline-share must be a number in \[0.0, 1.0\]"):
            SelfPlayConfig(baseline_share=bad)


def test_pfsp_weights_never_drop_an_entry() -> None:
    weights = self_play.pfsp_weights({"beaten": [100.0, 100.0]}, ["beaten", "new"], power=2.0)
    floor = 1e-3
    assert weights[0] == pytest.approx(floor / (floor + 0.25))
    assert weights[0] > 0


def test_self_play_with_subprocess_envs_learns_what_in_process_envs_learn(tmp_path: Path) -> None:
    """League self-play hands observations over in shared memory (training/farlight/sb3/vec_env.py):
    the
    same seed gives the same network with worker processes as with in-process envs."""
    weights = {}
    for vec_env in ("subproc", "dummy"):
        config = tiny_league(tmp_path / vec_env, n_envs=2, vec_env=vec_env, total_steps=512)
        model = self_play.train(config, progress=False)
        weights[vec_env] = [p.detach().clone() for p in model.policy.parameters()]
    assert all(torch.equal(a, b) for a, b in zip(*weights.values(), strict=True))
