"""TorchRL's own `PettingZooWrapper` (use_mask=True) on Farlight with `infos="numeric"`: its spec
check passes, masked play stays legal across game ends, and docs/interop/torchrl.md runs."""

from __future__ import annotations

import pytest
from doc_snippets import run_page

pytest.importorskip("torchrl", reason="needs the interop extra (torchrl)")

import torch  # noqa: E402
from torchrl.envs.libs.pettingzoo import PettingZooWrapper  # noqa: E402
from torchrl.envs.utils import MarlGroupMapType, check_env_specs  # noqa: E402

from farlight_env import farlight_v0  # noqa: E402
from farlight_env.env.infos import NUMERIC_INFO_KEYS  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested")


def wrapped(num_players: int, **kwargs) -> PettingZooWrapper:
    game = farlight_v0.env(num_players=num_players, infos="numeric")
    return PettingZooWrapper(env=game, use_mask=True, seed=num_players, **kwargs)


@pytest.mark.parametrize("num_players", [2, 5])
def test_check_env_specs_passes_with_numeric_infos(num_players: int) -> None:
    env = wrapped(num_players)
    check_env_specs(env)
    info = env.observation_spec["player_0", "info"]
    assert set(info.keys()) == set(NUMERIC_INFO_KEYS)
    assert info["scores"].shape[-1] == num_players


def test_a_masked_random_rollout_plays_legal_actions_across_game_ends() -> None:
    """The wrapper's random actions follow the acting seat's mask; the env would raise on an
    illegal one (illegal_action="raise"), so a rollout over two games is the check."""
    torch.manual_seed(0)
    env = wrapped(2, group_map=MarlGroupMapType.ALL_IN_ONE_GROUP)
    rollout = env.rollout(600, break_when_any_done=False)
    assert int(rollout["next", "done"].sum()) >= 1  # crossed at least one game end
    acting = rollout["agents", "mask"]
    assert bool((acting.sum(-1) == 1).all())
    chosen = rollout["agents", "action"].unsqueeze(-1)
    legal = rollout["agents", "action_mask"].gather(-1, chosen).squeeze(-1)
    assert bool(legal[acting].all())
    ends = rollout["next", "done"].squeeze(-1)
    info = rollout["next", "agents", "info"][ends]
    assert bool((info["end_reason"] >= 0).all()) and bool((info["winners"].sum(-1) >= 1).all())
    rewards = rollout["next", "agents", "reward"].squeeze(-1)
    assert bool((rewards[~ends] == 0).all()) and bool((rewards[ends] != 0).any())


def test_the_torchrl_page_runs() -> None:
    out = run_page("docs/interop/torchrl.md", expected_blocks=3)
    assert "{'agents': ['player_0', 'player_1', 'player_2']}" in out
    assert "SeatView 0" in out


def test_the_default_full_infos_are_what_torchrl_refuses() -> None:
    """Why the option exists (the page says so): TorchRL makes a tensor of every info, and the
    default infos carry each seat's view object."""
    with pytest.raises(RuntimeError, match="Could not infer dtype of SeatView"):
        PettingZooWrapper(env=farlight_v0.env(num_players=3), use_mask=True)
