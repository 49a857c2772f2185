"""Two aids for training against search (issue 11 item 3, issue 13 item 2): `ismcts@N` names a
search with its own budget wherever an agent name is taken, and `--value-warmup-steps` keeps a
warm-started actor frozen until the fresh critic has learnt its values."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agents.farlight.ismcts import ISMCTSAgent
from agents.registry import budget_spec, make, unknown_agents


@pytest.mark.parametrize(("name", "iterations"), [("ismcts@1", 1), ("ismcts@20", 20)])
def test_a_budget_name_builds_ismcts_with_that_budget(name: str, iterations: int) -> None:
    agent = make(name, seed=3)
    assert isinstance(agent, ISMCTSAgent)
    assert agent.iterations == iterations
    assert unknown_agents([name]) == []


def test_the_name_budget_wins_over_a_budget_given_for_plain_ismcts() -> None:
    assert make("ismcts@7", iterations=60).iterations == 7


@pytest.mark.parametrize(
    "name",
    [
        "ismcts@0",
        "ismcts@",
        "ismcts@x",
        "ismcts@007",
        "ismcts@-3",
        "heuristic@5",
        "ismcts@100001",
        "ismcts@ 5",
    ],
)
def test_malformed_budget_names_are_unknown_agents(name: str) -> None:
    assert budget_spec(name) is None
    assert unknown_agents([name]) == [name]
    with pytest.raises(ValueError, match="ismcts@N"):
        make(name)


def test_a_tournament_holds_two_budgets_apart() -> None:
    """Each budget is its own lineup entry, label and rating."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "farlight_cli",
            "tournament",
            "--agents",
            "ismcts@2,ismcts@5",
            "--players",
            "2",
            "--games",
            "2",
            "--seed",
            "3",
            "--no-progress",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    rows = [line.split()[0] for line in done.stdout.splitlines() if line.startswith("ismcts@")]
    assert sorted(rows) == ["ismcts@2", "ismcts@5"]


def test_a_malformed_budget_is_one_line_from_the_cli() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "farlight_cli",
            "tournament",
            "--agents",
            "ismcts@0,random",
            "--players",
            "2",
            "--games",
            "2",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "Traceback" not in done.stderr
    assert "ismcts@0" in done.stderr and len(done.stderr.strip().splitlines()) <= 2


# ----------------------------------------------------------------------------- value warm-up
torch = pytest.importorskip("torch", reason="training needs the train extra (torch, SB3)")
pytest.importorskip("sb3_contrib", reason="training needs the train extra (sb3-contrib)")

from agents.farlight.policy import SHIPPED_POLICY, load_policy  # noqa: E402
from training.farlight.config import PPOConfig, SelfPlayConfig  # noqa: E402
from training.farlight.sb3 import self_play, train_ppo  # noqa: E402
from training.farlight.sb3.callbacks import VALUE_PREFIXES  # noqa: E402


def small(cls: type, run_dir: Path, **overrides: object):
    settings = dict(
        run_dir=str(run_dir),
        total_steps=128,
        n_steps=64,
        batch_size=64,
        n_epochs=2,
        n_envs=1,
        vec_env="dummy",
        checkpoint_every=0,
        eval_every=0,
        eval_games=1,
        torch_threads=1,
        learning_rate=1e-3,
        init_from=str(SHIPPED_POLICY),
    )
    if cls is SelfPlayConfig:
        settings.update(snapshot_every=0, rating_games=0, baselines=["random"])
    else:
        settings.update(opponents=["random"], eval_opponents=["random"])
    settings.update(overrides)
    return cls(**settings)


def actor_moved(run_dir: Path) -> bool:
    trained, _ = load_policy(run_dir / "policy.pt")
    shipped, _ = load_policy(SHIPPED_POLICY)
    return any(
        not torch.equal(trained.state_dict()[name], tensor)
        for name, tensor in shipped.state_dict().items()
        if not name.startswith(VALUE_PREFIXES)
    )


@pytest.mark.parametrize("cls", [PPOConfig, SelfPlayConfig])
def test_during_the_warmup_the_actor_is_frozen(tmp_path: Path, cls: type) -> None:
    run_dir = tmp_path / "run"
    train = train_ppo.train if cls is PPOConfig else self_play.train
    train(small(cls, run_dir, value_warmup_steps=10_000), progress=False)
    assert not actor_moved(run_dir)


def test_after_the_warmup_the_actor_learns(tmp_path: Path) -> None:
    """Same run without a warm-up (and past one) does move the actor: the freeze is the cause."""
    run_dir = tmp_path / "run"
    train_ppo.train(small(PPOConfig, run_dir, value_warmup_steps=64), progress=False)
    assert actor_moved(run_dir)


def test_the_warmup_trains_the_value_head(tmp_path: Path) -> None:
    from training.checkpoints import read_checkpoint
    from training.farlight.sb3.ppo_model import build_model
    from training.farlight.sb3.train_ppo import build_env, warm_start

    config = small(PPOConfig, tmp_path / "run", value_warmup_steps=10_000)
    train_ppo.train(config, progress=False)
    _meta, weights = read_checkpoint(tmp_path / "run" / "checkpoint.zip")
    env = build_env(config)  # the same seed's model before any update
    try:
        untrained = build_model(config, env)
        warm_start(untrained, SHIPPED_POLICY)
    finally:
        env.close()
    before = untrained.policy.state_dict()
    value_keys = [k for k in before if k.startswith(VALUE_PREFIXES)]
    assert value_keys
    assert any(not torch.equal(weights["policy"][k], before[k]) for k in value_keys)
    actor_keys = [k for k in before if not k.startswith(VALUE_PREFIXES)]
    assert all(torch.equal(weights["policy"][k], before[k]) for k in actor_keys)


def test_a_negative_warmup_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="--value-warmup-steps must be an integer >= 0"):
        small(PPOConfig, tmp_path, value_warmup_steps=-1)
