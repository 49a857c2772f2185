"""The structured policy network (`--arch structured`): it round-trips through a policy file,
reads each bid target's own features, scores installs per cell in the codec's order, and
computes blank seats' ship features as the full convolution does."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from env_states import random_states

torch = pytest.importorskip("torch", reason="policies need the train extra (torch)")

from tiny_policies import tiny_config, write_payload  # noqa: E402

from agents.farlight.policy import (  # noqa: E402
    POLICY_FORMAT,
    POLICY_VERSION,
    PolicyAgent,
    PolicyNet,
    load_policy,
    save_policy,
    set_one_at_a_time,
)
from farlight_env import farlight_v0  # noqa: E402

torch.set_num_threads(1)

PLAYER_COUNTS = (2, 3, 4, 5)


def tiny_structured_config() -> dict:
    return {
        **tiny_config(),
        "name": "tiny-structured",
        "arch": "structured",
        "ship_features": 4,
        "hidden": 16,
        "vf": 8,
    }


def structured_net(seed: int = 0) -> tuple[PolicyNet, dict]:
    torch.manual_seed(seed)
    config = tiny_structured_config()
    return PolicyNet(config), config


def first_observation(num_players: int = 2, seed: int = 0) -> np.ndarray:
    env = farlight_v0.raw_env(num_players=num_players)
    env.reset(seed=seed)
    return env.observe(env.agent_selection)["observation"].copy()


def logits_of(net: PolicyNet, obs: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        return net(torch.as_tensor(obs, dtype=torch.float32)[None])[0].numpy()


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_structured_policy_round_trips_and_acts_legally(tmp_path: Path, num_players: int) -> None:
    net, config = structured_net()
    path = tmp_path / "structured.pt"
    save_policy(net.state_dict(), config, path)
    loaded, loaded_config = load_policy(path)
    assert loaded_config["arch"] == "structured"
    obs = first_observation(num_players)
    set_one_at_a_time(net, True)  # as a loaded policy computes ship maps
    np.testing.assert_array_equal(logits_of(loaded, obs), logits_of(net, obs))
    agent = PolicyAgent(path, seed=num_players)
    for obs, mask, info in random_states(num_players, seed=40 + num_players, every=11):
        assert mask[agent.act(obs, mask, info)] == 1


def test_unknown_architecture_is_refused_naming_the_choices(tmp_path: Path) -> None:
    net, config = structured_net()
    path = write_payload(
        tmp_path / "odd.pt",
        format=POLICY_FORMAT,
        version=POLICY_VERSION,
        config={**config, "arch": "transformer"},
        state_dict=net.state_dict(),
    )
    with pytest.raises(ValueError, match="'transformer'.*flat.*structured"):
        load_policy(path)


def test_structured_bid_logits_come_from_the_targets_own_features() -> None:
    """Two station spaces holding the same part with the same bids get the same logit for
    every tile and crew choice: one network values every target, indexed as the codec says."""
    from farlight_env.game import Bid, Target, TargetKind

    net, _config = structured_net(seed=3)
    env = farlight_v0.raw_env(num_players=2)
    env.reset(seed=5)
    obs = env.observe(env.agent_selection)["observation"].copy()
    layout = env.observation_layout()
    station_slice, station_shape = layout["station"]
    bids_slice, bids_shape = layout["bids"]
    station = obs[station_slice].reshape(station_shape)
    bids = obs[bids_slice].reshape(bids_shape)
    station[7] = station[2]
    bids[7] = bids[2]
    bids[2, 0, 0] = bids[7, 0, 0] = 0.2  # the observer has one tile on each
    logits = logits_of(net, obs)
    codec = env.codec
    differ = []
    for tile in range(5):
        for crew in (False, True):
            a = codec.encode(Bid(tile, Target(TargetKind.PART, 2), crew))
            b = codec.encode(Bid(tile, Target(TargetKind.PART, 7), crew))
            c = codec.encode(Bid(tile, Target(TargetKind.PART, 3), crew))
            assert logits[a] == pytest.approx(logits[b], abs=1e-6)
            differ.append(abs(logits[a] - logits[c]))
    assert max(differ) > 1e-4  # a space with another part is valued differently


def test_structured_install_logits_are_per_cell_in_codec_order() -> None:
    """With the shared context held fixed, drawing a part at one cell of the observer's ship
    changes only the install logits within the ship CNN's 5x5 receptive field around it, at
    the codec's indices: cells are read row-major, as the codec numbers them."""
    from farlight_env.game import Install

    net, config = structured_net(seed=4)
    structured = net.mlp_extractor.net
    env = farlight_v0.raw_env(num_players=2)
    env.reset(seed=6)
    obs = env.observe(env.agent_selection)["observation"].copy()
    ships_slice, ships_shape = env.observation_layout()["ships"]
    context = torch.randn(1, config["hidden"])

    def install_logits(observation: np.ndarray) -> np.ndarray:
        x = torch.as_tensor(observation, dtype=torch.float32)[None]
        with torch.no_grad():
            _features, own_map = structured.observation.features_and_own_map(x)
            return structured._install_logits(x, context, own_map)[0].numpy()

    before = install_logits(obs)
    ships = obs[ships_slice].reshape(ships_shape)
    half = ships_shape[-1] // 2
    row, col = 3, -4  # ship coordinates of the new part
    ships[0, :6, row + half, col + half] = 1.0
    after = install_logits(obs)
    part = env.game.cards.parts[0].name
    start = env.codec.blocks["install"].start
    changed = set()
    for r in range(-half, half + 1):
        for c in range(-half, half + 1):
            index = env.codec.encode(Install(part, r, c)) - start
            if abs(after[index] - before[index]) > 1e-7:
                changed.add((r, c))
    near = {(r, c) for r in range(row - 2, row + 3) for c in range(col - 2, col + 3)}
    assert (row, col) in changed
    assert changed <= near


def test_ship_features_of_empty_seats_match_the_full_convolution() -> None:
    """Skipping the CNN for absent seats is a pure speed-up: pooled features, the own-ship map
    and the gradients equal the plain per-seat convolution, for 2- and 5-player observations
    in one batch and for a batch with no ship at all."""
    net, _config = structured_net(seed=5)
    observation = net.mlp_extractor.net.observation
    seats, channels = observation.num_seats, observation.channels
    a, b = observation.ships_slice
    two, five = first_observation(2, 1), first_observation(5, 2)
    blank = np.zeros_like(two)
    assert (two[a:b].reshape(seats, -1).any(axis=1)).sum() == 2
    for rows in ([two, five], [blank]):
        batch = torch.as_tensor(np.stack(rows))
        ships = batch[:, a:b].reshape(len(rows) * seats, channels, 13, 13)
        maps = observation.ship_cnn(ships)
        full_pooled = torch.cat([maps.mean(dim=(2, 3)), maps.amax(dim=(2, 3))], dim=1)
        full_pooled = full_pooled.reshape(len(rows), seats, -1)
        full_own = maps.reshape(len(rows), seats, -1, 13, 13)[:, 0]
        pooled, own = observation.ship_features_and_own_map(batch)
        torch.testing.assert_close(pooled, full_pooled, rtol=1e-5, atol=1e-6)
        torch.testing.assert_close(own, full_own, rtol=1e-5, atol=1e-6)
        grads = []
        for p, o in ((pooled, own), (full_pooled, full_own)):
            net.zero_grad()
            (p.square().sum() + o.square().sum()).backward(retain_graph=True)
            grads.append(observation.ship_cnn[0].weight.grad.clone())
        torch.testing.assert_close(grads[0], grads[1], rtol=1e-4, atol=1e-5)
