"""One policy for every player count (issue 13 item 2): --player-counts gives each training
environment its own seat count, evaluations and league ratings cover every count, and
--init-from accepts a saved policy (its actor; the value head starts fresh)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="training needs the train extra (torch, SB3)")
pytest.importorskip("sb3_contrib", reason="training needs the train extra (sb3-contrib)")

from agents.farlight.policy import SHIPPED_POLICY, PolicyAgent, load_policy  # noqa: E402
from training.farlight.config import (  # noqa: E402
    PPOConfig,
    SelfPlayConfig,
    env_player_counts,
    eval_player_counts,
)
from training.farlight.envs import make_env_fn  # noqa: E402
from training.farlight.sb3 import self_play, train_ppo  # noqa: E402
from training.farlight.sb3.ppo_model import build_model  # noqa: E402
from training.farlight.sb3.train_ppo import build_env, warm_start  # noqa: E402
from training.sb3.runs import RunError  # noqa: E402

torch.set_num_threads(1)


def small(cls: type, run_dir: Path, **overrides: object):
    settings = dict(
        run_dir=str(run_dir),
        total_steps=256,
        n_steps=64,
        batch_size=64,
        n_epochs=1,
        n_envs=4,
        vec_env="dummy",
        checkpoint_every=256,
        eval_every=256,
        eval_games=1,
        torch_threads=1,
        player_counts=[2, 3, 4, 5],
    )
    if cls is SelfPlayConfig:
        settings.update(snapshot_every=256, rating_games=4, baselines=["random"])
        settings.pop("eval_every")
    else:
        settings.update(opponents=["random"], eval_opponents=["random"])
    settings.update(overrides)
    return cls(**settings)


def test_player_counts_cycle_over_the_environments(tmp_path: Path) -> None:
    config = small(PPOConfig, tmp_path, n_envs=6, player_counts=[2, 3, 5])
    assert env_player_counts(config) == [2, 3, 5, 2, 3, 5]
    assert eval_player_counts(config) == [2, 3, 5]
    envs = [make_env_fn(config, rank)() for rank in range(6)]
    assert [env.num_players for env in envs] == [2, 3, 5, 2, 3, 5]
    assert [len(env.aec.possible_agents) for env in envs] == [2, 3, 5, 2, 3, 5]


def test_without_player_counts_every_environment_has_num_players(tmp_path: Path) -> None:
    config = small(PPOConfig, tmp_path, player_counts=[], num_players=3)
    assert env_player_counts(config) == [3, 3, 3, 3]
    assert eval_player_counts(config) == [3]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"player_counts": [2, 6]}, "--player-counts must be seat counts 2..5"),
        ({"player_counts": [1]}, "--player-counts must be seat counts 2..5"),
        ({"player_counts": [2, 3, 4, 5], "n_envs": 2}, "fewer than the 4 --player-counts"),
        ({"opponents": ["random", "heuristic"]}, "give one agent when --player-counts"),
    ],
)
def test_unsound_player_counts_are_refused(tmp_path: Path, overrides: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        small(PPOConfig, tmp_path, **overrides)


def test_ppo_run_evaluates_and_records_every_count(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    train_ppo.train(small(PPOConfig, run_dir, total_steps=512), progress=False)
    header = (run_dir / "logs" / "progress.csv").read_text().splitlines()[0].split(",")
    for seats in (2, 3, 4, 5):
        assert f"eval/win_rate_vs_random_{seats}p" in header
    _net, config = load_policy(run_dir / "policy.pt")
    assert config["player_counts"] == [2, 3, 4, 5]
    stored = json.loads((run_dir / "run_config.json").read_text())
    assert stored["player_counts"] == [2, 3, 4, 5]


def test_league_over_player_counts_rates_and_evaluates_each(tmp_path: Path) -> None:
    run_dir = tmp_path / "league"
    self_play.train(small(SelfPlayConfig, run_dir), progress=False)
    state = json.loads((run_dir / self_play.LEAGUE_STATE).read_text())
    last = state["history"][-1]
    rates = [last[f"win_rate_vs_heuristic_{n}p"] for n in (2, 3, 4, 5)]
    assert last["win_rate_vs_heuristic"] == pytest.approx(sum(rates) / 4)
    snapshot = PolicyAgent(run_dir / last["snapshot"])
    assert snapshot.config["player_counts"] == [2, 3, 4, 5]


def test_init_from_a_policy_file_copies_its_actor(tmp_path: Path) -> None:
    config = small(PPOConfig, tmp_path / "run", player_counts=[], n_envs=1)
    env = build_env(config)
    try:
        model = build_model(config, env)
        value_before = {
            k: v.clone() for k, v in model.policy.state_dict().items() if k.startswith("value_net.")
        }
        warm_start(model, SHIPPED_POLICY)
    finally:
        env.close()
    shipped, _ = load_policy(SHIPPED_POLICY)
    weights = model.policy.state_dict()
    for name, tensor in shipped.state_dict().items():
        assert torch.equal(weights[name], tensor), name
    for name, tensor in value_before.items():  # the value head is the run's own
        assert torch.equal(weights[name], tensor), name


def test_init_from_a_policy_of_another_network_is_refused(tmp_path: Path) -> None:
    config = small(
        PPOConfig,
        tmp_path / "run",
        player_counts=[],
        n_envs=1,
        hidden=64,
        init_from=str(SHIPPED_POLICY),
    )
    with pytest.raises(RunError, match="does not match this run's"):
        train_ppo.train(config, progress=False)
    assert not (tmp_path / "run" / "checkpoint.zip").exists()


def test_init_from_a_corrupt_policy_file_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a policy")
    config = small(PPOConfig, tmp_path / "run", player_counts=[], init_from=str(bad))
    with pytest.raises(RunError, match="not a loadable policy file"):
        train_ppo.train(config, progress=False)
    assert not (tmp_path / "run").exists()


def test_league_starts_from_init_from(tmp_path: Path) -> None:
    """Self-play used to ignore --init-from; its first snapshot now starts from the policy."""
    run_dir = tmp_path / "league"
    config = small(
        SelfPlayConfig,
        run_dir,
        player_counts=[],
        n_envs=1,
        total_steps=64,
        snapshot_every=0,
        learning_rate=1e-12,
        init_from=str(SHIPPED_POLICY),
    )
    self_play.train(config, progress=False)
    trained, _ = load_policy(run_dir / "policy.pt")
    shipped, _ = load_policy(SHIPPED_POLICY)
    for name, tensor in shipped.state_dict().items():
        assert torch.allclose(trained.state_dict()[name], tensor, atol=1e-6), name
