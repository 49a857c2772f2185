"""The learner's speed-ups change no number that matters: the structured network run once per
distinct ship grid equals the plain per-seat network (outputs and gradients), the shipped
policy's action probabilities are those of the plain network, and the rollout step samples
exactly what sb3-contrib's masked distribution samples.
"""

from __future__ import annotations

import numpy as np
import pytest
from env_states import random_states

torch = pytest.importorskip("torch", reason="policies need the train extra (torch)")

from agents.farlight.policy import (  # noqa: E402 - after the importorskip above
    SHIPPED_POLICY,
    PolicyNet,
    StructuredNet,
    distinct_rows,
    load_policy,
    set_ship_cnn_frozen,
)
from agents.farlight.policy import cache as policy_module  # noqa: E402 - after the importorskip above
from farlight_env import farlight_v0  # noqa: E402

torch.set_num_threads(1)


def plain_forward(net: StructuredNet, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The structured network written out without any speed-up: the ship CNN on every seat of
    every observation, the install head's 1x1 convolutions as convolutions."""
    o = net.observation
    a, b = o.ships_slice
    batch = obs.shape[0]
    ships = obs[:, a:b].reshape(batch * o.num_seats, o.channels, o.grid, o.grid)
    maps = o.ship_cnn(ships)
    pooled = torch.cat([maps.mean(dim=(2, 3)), maps.amax(dim=(2, 3))], dim=1)
    flat = o.flat(obs.index_select(1, o.flat_index))
    features = torch.cat([flat, pooled.reshape(batch, -1)], dim=1)
    own_map = maps.reshape(batch, o.num_seats, *maps.shape[1:])[:, 0]
    context = net.trunk(features)
    rest = net.rest(context)
    pending = net._field(obs, "pending")[:, 0]
    selected = (pending[:, :, :1] * pending[:, :, 1:]).sum(dim=1)
    cells = net.cell(torch.cat([own_map, net._field(obs, "ships")[:, 0]], dim=1))
    cond = net.cell_context(torch.cat([context, selected], dim=1))[:, :, None, None]
    install = net.cell_out(torch.relu(cells + cond)).reshape(batch, -1)
    install = install * obs[:, net.install_flag][:, None]  # 0 outside install decisions
    logits = torch.cat(
        [
            net._bid_logits(obs, context),
            rest[:, : net.num_parts],
            install,
            rest[:, net.num_parts :],
        ],
        dim=1,
    )
    return logits, net.value(features)


def observations(seed: int) -> np.ndarray:
    """Real observations of 2- to 5-player games, many sharing ship grids."""
    rows = [
        obs
        for players in (2, 3, 5)
        for obs, _mask, _info in random_states(players, seed=seed + players, every=5)
    ]
    return np.stack(rows[:60])


def repeated_batch(seed: int) -> torch.Tensor:
    """A shuffled batch with repeated observations and one with no ship at all."""
    obs = observations(seed)
    rng = np.random.default_rng(seed)
    rows = np.concatenate([obs, obs[rng.integers(0, len(obs), 40)], np.zeros_like(obs[:1])])
    return torch.as_tensor(rows[rng.permutation(len(rows))])


def structured_net(seed: int) -> StructuredNet:
    torch.manual_seed(seed)
    fields = farlight_v0.raw_env(num_players=2).encoder.fields
    layout = {k: (f.start, f.start + f.size, f.shape) for k, f in fields.items()}
    size = farlight_v0.raw_env(num_players=2).codec.size
    return StructuredNet(layout, size, embed=16, ship_features=8, hidden=32, vf=16)


# ------------------------------------------------------------------------------ distinct rows
def test_distinct_rows_groups_equal_rows_exactly() -> None:
    rng = np.random.default_rng(0)
    base = rng.choice(
        [0.0, 1 / 6, 0.5, 1.0, 2.0], size=(30, 50), p=[0.9, 0.025, 0.025, 0.025, 0.025]
    )
    rows = torch.as_tensor(base[rng.integers(0, 30, 200)], dtype=torch.float32)
    first, inverse = distinct_rows(rows)
    assert torch.equal(rows[first][inverse], rows)
    assert len(first) == len(np.unique(rows.numpy(), axis=0))


@pytest.mark.parametrize("seed", range(12))
def test_distinct_rows_of_runs_group_exactly_with_each_groups_first_row(seed: int) -> None:
    """Runs of repeated rows (a minibatch of consecutive steps) group as rows compared one by
    one: one group per distinct row (equal rows hash alike wherever they sit in the batch),
    each represented by its earliest row."""
    rng = np.random.default_rng(seed)
    width = int(rng.integers(20, 3000))
    grids = rng.choice([0.0, 1.0, 0.5, 1 / 6], size=(6, width), p=[0.85, 0.05, 0.05, 0.05])
    picks = np.repeat(rng.integers(0, 6, (12, 3)), rng.integers(1, 5, 12), axis=0)
    rows = torch.as_tensor(grids[picks], dtype=torch.float32)  # (batch, seat, width), runs
    first, inverse = distinct_rows(rows)
    flat = rows.reshape(-1, width)
    assert torch.equal(flat[first][inverse], flat)
    assert len(first) == len(np.unique(flat.numpy(), axis=0))
    for group, row in enumerate(first.tolist()):
        members = (inverse == group).nonzero().flatten().tolist()
        assert row == min(members)


def colliding_weights(width: int, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    """A row projection that maps every row to one key."""
    return torch.zeros(width, dtype=dtype, device=device)


def test_distinct_rows_stays_exact_when_every_hash_collides(monkeypatch) -> None:
    """With a projection that maps every row to one key, rows are never wrongly merged."""
    monkeypatch.setattr(policy_module, "_row_hash_weights", colliding_weights)
    rows = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]])
    first, inverse = distinct_rows(rows)
    assert torch.equal(rows[first][inverse], rows)
    assert torch.equal(first, torch.arange(3))


def test_distinct_rows_of_a_strided_seat_view_match_the_copied_rows(monkeypatch) -> None:
    """The (batch, seat, width) view of observations groups exactly as its rows copied out,
    and the check compared chunk by chunk still catches a wrong group in the last chunk."""
    obs = repeated_batch(6)
    o = structured_net(6).observation
    a, b = o.ships_slice
    view = obs[:, a:b].reshape(obs.shape[0], o.num_seats, -1)
    assert view.data_ptr() == obs[:, a:].data_ptr()  # not a copy
    copied = view.reshape(-1, view.shape[2]).clone()
    for fast, plain in zip(distinct_rows(view), distinct_rows(copied), strict=True):
        assert torch.equal(fast, plain)
    monkeypatch.setattr(policy_module, "CHECK_BYTES", 1)  # one observation per comparison
    monkeypatch.setattr(policy_module, "_row_hash_weights", colliding_weights)
    rows = torch.zeros(4, 2, 3)
    rows[3, 1, 2] = 1.0  # the only row unlike the others, in the last chunk
    first, inverse = distinct_rows(rows)
    assert torch.equal(first, torch.arange(8)) and torch.equal(inverse, torch.arange(8))


# ------------------------------------------------------------------------------ network
@pytest.mark.parametrize("seed", [1, 2])
def test_distinct_ship_network_equals_the_plain_network(seed: int) -> None:
    """Logits, values and every parameter's gradient, on a batch of repeated grids."""
    net = structured_net(seed)
    obs = repeated_batch(seed)
    installing = int(obs[:, net.install_flag].sum())
    assert 0 < installing < len(obs)  # the head runs on install rows only: both kinds here
    results = []
    for forward in (net.forward, lambda x: plain_forward(net, x)):
        net.zero_grad()
        logits, value = forward(obs)
        (logits.square().mean() + logits.amax(dim=1).sum() + value.square().sum()).backward()
        grads = {n: p.grad.clone() for n, p in net.named_parameters()}
        results.append((logits.detach(), value.detach(), grads))
    (fast_logits, fast_value, fast_grads), (logits, value, grads) = results
    torch.testing.assert_close(fast_logits, logits, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(fast_value, value, rtol=1e-5, atol=1e-5)
    assert fast_grads.keys() == grads.keys()
    for name, grad in grads.items():
        # sums over the batch run in another order: compare against the gradient's scale
        scale = float(grad.abs().max()) + 1e-12
        torch.testing.assert_close(fast_grads[name], grad, rtol=0, atol=1e-4 * scale, msg=name)


def test_inference_map_cache_follows_the_weights() -> None:
    """Without gradients, ship maps come from a cache: still the plain network's outputs, one
    observation at a time as in a rollout, and after an optimiser step or a weight load."""
    net = structured_net(3)
    obs = repeated_batch(3)
    optimiser = torch.optim.Adam(net.parameters(), lr=1e-2)
    for _round in range(3):
        with torch.no_grad():
            expected = plain_forward(net, obs)[0]
            for _twice in range(2):
                for start in range(0, len(obs), 2):
                    logits = net(obs[start : start + 2])[0]
                    torch.testing.assert_close(
                        logits, expected[start : start + 2], rtol=1e-5, atol=1e-5
                    )
        assert net.observation.map_cache.entries
        optimiser.zero_grad()
        net(obs)[0].square().mean().backward()
        optimiser.step()
    net.load_state_dict(structured_net(4).state_dict())
    with torch.no_grad():
        torch.testing.assert_close(net(obs)[0], plain_forward(net, obs)[0], rtol=1e-5, atol=1e-5)
        net.cell.weight.mul_(-2.0)  # only the install head's cached convolution changes
        torch.testing.assert_close(net(obs)[0], plain_forward(net, obs)[0], rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(net(obs)[1], plain_forward(net, obs)[1], rtol=1e-5, atol=1e-5)


def test_inference_cache_keys_grids_by_their_bytes() -> None:
    """Entries hold exactly one grid: equal grids share one, any differing value misses."""
    net = structured_net(5)
    obs = repeated_batch(5)
    o = net.observation
    a, b = o.ships_slice
    planes = obs[:, a:b].reshape(-1, o.channels, o.grid, o.grid)
    with torch.no_grad():
        net(obs)
        entries = o.map_cache.lookup(o.ship_cnn, planes)
        assert len(o.map_cache.entries) == len(np.unique(planes.flatten(1).numpy(), axis=0))
        changed = planes[:1].clone()
        changed[0, 0, 0, 0] += 1.0
        new = o.map_cache.lookup(o.ship_cnn, changed)[0]
    assert all(new is not entry for entry in entries)
    torch.testing.assert_close(new.maps, o.ship_cnn(changed)[0], rtol=1e-5, atol=1e-5)


def bid_rows(seed: int) -> torch.Tensor:
    """A batch of repeated grids without an install decision, as the bidding sub-game's."""
    net = structured_net(seed)
    obs = repeated_batch(seed)
    return obs[obs[:, net.install_flag] == 0]


@pytest.mark.parametrize("seed", [1, 2])
def test_frozen_ship_cnn_trains_the_rest_as_the_plain_network(seed: int) -> None:
    """--ship-encoder freeze: a batch without install decisions takes the CNN's pooled
    features from the cache; logits, values and the other parameters' gradients are the plain
    network's, and the CNN gets no gradient."""
    net = structured_net(seed)
    set_ship_cnn_frozen(net, True)
    obs = bid_rows(seed)
    results = []
    for forward in (net.forward, lambda x: plain_forward(net, x)):
        net.zero_grad()
        logits, value = forward(obs)
        (logits.square().mean() + logits.amax(dim=1).sum() + value.square().sum()).backward()
        grads = {n: p.grad.clone() for n, p in net.named_parameters() if p.grad is not None}
        results.append((logits.detach(), value.detach(), grads))
    assert net.observation.pooled_cache.entries  # the cached path ran
    (fast_logits, fast_value, fast_grads), (logits, value, grads) = results
    torch.testing.assert_close(fast_logits, logits, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(fast_value, value, rtol=1e-5, atol=1e-5)
    assert not any("ship_cnn" in name for name in fast_grads)
    for name, grad in grads.items():  # the skipped install head's are zeros in the plain one
        fast = fast_grads.get(name, torch.zeros_like(grad))
        scale = float(grad.abs().max()) + 1e-12
        torch.testing.assert_close(fast, grad, rtol=0, atol=1e-4 * scale, msg=name)


def test_frozen_ship_cnn_runs_once_per_grid_and_follows_its_weights() -> None:
    """The pooled cache computes each grid once while the CNN's weights stay, and afresh after
    they change (a weight load)."""
    net = structured_net(6)
    set_ship_cnn_frozen(net, True)
    obs = bid_rows(6)
    o = net.observation
    a, b = o.ships_slice
    distinct = len(np.unique(obs[:, a:b].reshape(-1, o.channels * o.grid**2).numpy(), axis=0))
    calls = []
    o.ship_cnn.register_forward_hook(lambda _m, inputs, _out: calls.append(len(inputs[0])))
    for start in range(0, len(obs), 16):  # minibatches, twice over (two epochs)
        net(obs[start : start + 16])
    for start in range(0, len(obs), 16):
        net(obs[start : start + 16])
    assert sum(calls) == distinct == len(o.pooled_cache.entries)
    net.load_state_dict(structured_net(7).state_dict())
    logits = net(obs)[0]
    assert sum(calls) == 2 * distinct
    torch.testing.assert_close(logits, plain_forward(net, obs)[0], rtol=1e-5, atol=1e-5)


def test_frozen_ship_cnn_keyed_by_a_buffers_grid_ids_gives_the_same_outputs() -> None:
    """With the rollout buffer's grid ids on a minibatch (`SHIP_IDS`) the pooled cache keys by
    them instead of hashing each grid: the same logits and values, one entry per id."""
    from agents.farlight.policy.cache import SHIP_IDS

    net = structured_net(9)
    set_ship_cnn_frozen(net, True)
    obs = bid_rows(9)
    o = net.observation
    a, b = o.ships_slice
    grids = obs[:, a:b].reshape(len(obs) * o.num_seats, -1).numpy()
    _unique, names = np.unique(grids, axis=0, return_inverse=True)
    named = obs.clone()
    setattr(named, SHIP_IDS, torch.as_tensor(names.reshape(len(obs), o.num_seats) + 1000))
    expected = plain_forward(net, obs)
    for batch in (named, obs):
        logits, value = net(batch)
        torch.testing.assert_close(logits, expected[0], rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(value, expected[1], rtol=1e-5, atol=1e-5)
    keys = o.pooled_cache.entries.keys()
    assert {k for k in keys if isinstance(k, int)} == set(range(1000, 1000 + len(_unique)))


def test_a_batch_with_installs_runs_the_frozen_cnn_for_its_maps() -> None:
    """The install head reads the CNN's maps: with an install decision in the batch the frozen
    CNN runs as usual (no gradient of its own), the outputs the plain network's."""
    net = structured_net(8)
    set_ship_cnn_frozen(net, True)
    obs = repeated_batch(8)
    logits, value = net(obs)
    expected = plain_forward(net, obs)
    torch.testing.assert_close(logits, expected[0], rtol=1e-5, atol=1e-5)
    assert not net.observation.pooled_cache.entries


def test_shipped_policy_gives_the_plain_networks_action_probabilities() -> None:
    net, _config = load_policy(SHIPPED_POLICY)
    assert isinstance(net, PolicyNet)
    structured = net.mlp_extractor.net
    for players in (2, 3, 4):
        states = list(random_states(players, seed=70 + players, every=3))
        obs = torch.as_tensor(np.stack([s[0] for s in states]))
        masks = torch.as_tensor(np.stack([s[1] for s in states])).bool()
        with torch.no_grad():
            fast = net(obs)
            plain = plain_forward(structured, obs)[0]
        for logits in (fast, plain):
            logits.masked_fill_(~masks, -torch.inf)
        torch.testing.assert_close(
            torch.softmax(fast, dim=1), torch.softmax(plain, dim=1), rtol=0, atol=1e-5
        )
        for obs_row, mask_row in zip(obs[:5], masks[:5], strict=True):  # one at a time, too
            with torch.no_grad():
                one = net(obs_row[None])[0].masked_fill(~mask_row, -torch.inf)
            row = int(np.flatnonzero((obs == obs_row).all(dim=1).numpy())[0])
            torch.testing.assert_close(
                torch.softmax(one, 0), torch.softmax(plain[row], 0), rtol=0, atol=1e-5
            )


# ------------------------------------------------------------------------------ rollout step
def small_policy(seed: int) -> object:
    """A small StructuredPolicy over the real observation and action spaces."""
    from farlight_env.env.single_agent import FarlightSingleAgentEnv
    from training.farlight.config import PPOConfig
    from training.farlight.sb3.policy import StructuredPolicy
    from training.farlight.sb3.ppo_model import observation_layout

    env = FarlightSingleAgentEnv(num_players=2)
    torch.manual_seed(seed)
    return StructuredPolicy(
        env.observation_space,
        env.action_space,
        lambda _progress: 3e-4,
        layout=observation_layout(PPOConfig()),
        embed=16,
        ship_features=8,
        hidden=32,
        vf=16,
    )


def test_rollout_step_draws_what_sb3_contribs_distribution_draws() -> None:
    """StructuredPolicy.forward gives bit for bit the actions, values and log-probabilities of
    MaskableActorCriticPolicy.forward from the same random state, sampled and deterministic."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    policy = small_policy(3)
    policy.set_training_mode(False)
    states = list(random_states(2, seed=5, every=4))[:12]
    for start in range(0, len(states) - 1, 2):
        obs = torch.as_tensor(np.stack([s[0] for s in states[start : start + 2]]))
        masks = np.stack([s[1] for s in states[start : start + 2]]).astype(bool)
        for deterministic in (False, True):
            outputs = []
            for forward in (
                policy.forward,
                lambda *a, **k: MaskableActorCriticPolicy.forward(policy, *a, **k),
            ):
                torch.manual_seed(start)
                with torch.no_grad():
                    outputs.append(forward(obs, deterministic=deterministic, action_masks=masks))
            for fast, reference in zip(*outputs, strict=True):
                assert torch.equal(fast, reference)


# ------------------------------------------------------------------------------ PPO update
def test_update_evaluates_actions_as_sb3_contribs_distribution_does() -> None:
    """StructuredPolicy.evaluate_actions: values, log-probabilities, entropies and every
    gradient of a PPO-like loss bit for bit those of MaskableActorCriticPolicy's."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    policy = small_policy(4)
    states = list(random_states(2, seed=8, every=3))[:24]
    obs = torch.as_tensor(np.stack([s[0] for s in states]))
    masks = np.stack([s[1] for s in states]).astype(np.float32)  # as the buffer stores them
    rng = np.random.default_rng(0)
    actions = torch.as_tensor([rng.choice(np.flatnonzero(m)) for m in masks]).float()
    results = []
    for evaluate in (
        policy.evaluate_actions,
        MaskableActorCriticPolicy.evaluate_actions.__get__(policy),
    ):
        policy.zero_grad()
        values, log_prob, entropy = evaluate(obs, actions.long().flatten(), masks)
        (values.square().mean() - log_prob.exp().mean() - 0.01 * entropy.mean()).backward()
        grads = [p.grad.clone() for p in policy.parameters() if p.grad is not None]
        results.append(([values, log_prob, entropy], grads))
    (fast, fast_grads), (reference, grads) = results
    for a, b in zip(fast, reference, strict=True):
        assert torch.equal(a, b)
    assert len(fast_grads) == len(grads) > 0
    for a, b in zip(fast_grads, grads, strict=True):
        assert torch.equal(a, b)


def fill(buffer: object, rng: np.random.Generator) -> None:
    """One rollout of random data, then returns and advantages."""
    from gymnasium import spaces

    assert isinstance(buffer.observation_space, spaces.Box)
    for _ in range(buffer.buffer_size):
        buffer.add(
            rng.random((buffer.n_envs, *buffer.obs_shape), dtype=np.float32),
            rng.integers(0, 5, (buffer.n_envs,)),
            rng.random(buffer.n_envs, dtype=np.float32),
            rng.random(buffer.n_envs) < 0.2,
            torch.as_tensor(rng.random(buffer.n_envs, dtype=np.float32)),
            torch.as_tensor(rng.random(buffer.n_envs, dtype=np.float32)),
            action_masks=rng.random((buffer.n_envs, 5)) < 0.7,
        )
    buffer.compute_returns_and_advantage(torch.zeros(buffer.n_envs), np.zeros(buffer.n_envs))


def test_env_major_buffer_gives_sb3_contribs_samples() -> None:
    """Over two rollouts (the storage is reused), every minibatch field equals the stock
    MaskableRolloutBuffer's for the same data and the same numpy random state."""
    from gymnasium import spaces
    from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer

    from training.farlight.sb3.policy import EnvMajorRolloutBuffer

    space, actions = spaces.Box(-1, 1, (7,), np.float32), spaces.Discrete(5)
    buffers = [
        cls(6, space, actions, "cpu", gae_lambda=0.95, gamma=0.99, n_envs=3)
        for cls in (EnvMajorRolloutBuffer, MaskableRolloutBuffer)
    ]
    for rollout in range(2):
        batches = []
        for buffer in buffers:
            buffer.reset()
            fill(buffer, np.random.default_rng(rollout))
            np.random.seed(rollout)
            batches.append([b for _ in range(2) for b in buffer.get(batch_size=4)])
        assert len(batches[0]) == len(batches[1]) == 10
        for fast, stock in zip(*batches, strict=True):
            for a, b in zip(fast, stock, strict=True):
                assert a.dtype == b.dtype
                assert torch.equal(a, b)


def test_chunked_order_is_a_shuffle_of_whole_runs_of_one_env() -> None:
    """Every index once; each run of `chunk` (an env's last run shorter) stays whole and in
    one environment; the order follows numpy's global generator, which SB3 seeds."""
    from training.farlight.sb3.policy import chunked_order

    np.random.seed(3)
    order = chunked_order(3, 10, 4)  # runs per env: steps 0-3, 4-7, 8-9
    assert sorted(order.tolist()) == list(range(30))
    runs, start = [], 0
    while start < len(order):
        length = 2 if order[start] % 10 == 8 else 4
        run = order[start : start + length].tolist()
        assert run == list(range(run[0], run[0] + length))
        assert run[0] // 10 == run[-1] // 10  # one environment (env-major: env * 10 + step)
        runs.append(run[0])
        start += length
    assert len(runs) == 9 and runs != sorted(runs)
    np.random.seed(3)
    assert chunked_order(3, 10, 4).tolist() == order.tolist()


def test_chunked_buffer_yields_the_rollouts_rows_in_runs() -> None:
    """With chunk > 1 the minibatches hold every row once, as runs of consecutive steps, and
    each sample's fields are that row's (the same data as the stock shuffle, regrouped)."""
    from gymnasium import spaces

    from training.farlight.sb3.policy import EnvMajorRolloutBuffer

    space, actions = spaces.Box(-1, 1, (7,), np.float32), spaces.Discrete(5)
    plain = EnvMajorRolloutBuffer(6, space, actions, "cpu", gae_lambda=0.95, gamma=0.99, n_envs=3)
    runs = EnvMajorRolloutBuffer(
        6, space, actions, "cpu", gae_lambda=0.95, gamma=0.99, n_envs=3, chunk=3
    )
    for buffer in (plain, runs):
        buffer.reset()
        fill(buffer, np.random.default_rng(0))
    np.random.seed(0)
    (everything,) = list(plain.get(batch_size=None))  # every row, in a shuffled order
    by_observation = {row.numpy().tobytes(): i for i, row in enumerate(everything.observations)}
    seen = []
    for batch in runs.get(batch_size=6):
        assert batch.observations.shape[0] == 6
        for k, obs in enumerate(batch.observations):
            i = by_observation[obs.numpy().tobytes()]
            for field_run, field_all in zip(batch, everything, strict=True):
                assert torch.equal(field_run[k], field_all[i])
            seen.append(i)
    assert sorted(seen) == list(range(18))
    flat = runs.observations.reshape(18, 7)  # env-major: row env * 6 + step
    firsts = [
        next(j for j in range(18) if np.array_equal(flat[j], batch.observations[0].numpy()))
        for batch in runs.get(batch_size=6)
    ]
    assert all(j % 3 == 0 for j in firsts)  # every minibatch starts a run


def fill_with_grids(buffer: object, rng: np.random.Generator, grids: np.ndarray) -> None:
    """One rollout (after a reset) of 3 envs whose 2 seats hold one of `grids` each, changing
    now and then, in columns 1-8; then returns and advantages."""
    buffer.reset()
    picks = np.zeros((3, 2), dtype=int)
    for _ in range(buffer.buffer_size):
        changes = rng.random((3, 2)) < 0.3  # each seat's grid changes now and then
        picks = np.where(changes, rng.integers(0, 4, (3, 2)), picks)
        obs = rng.random((3, 9), dtype=np.float32)
        obs[:, 1:] = grids[picks].reshape(3, 8)
        buffer.add(
            obs,
            rng.integers(0, 5, (3,)),
            rng.random(3, dtype=np.float32),
            np.zeros(3, dtype=bool),
            torch.zeros(3),
            torch.zeros(3),
            action_masks=np.ones((3, 5), dtype=bool),
        )
    buffer.compute_returns_and_advantage(torch.zeros(3), np.zeros(3))


def test_buffer_names_ship_grids_as_distinct_rows_would_group_them() -> None:
    """The buffer's per-rollout grid ids are exact (equal ids exactly for equal grids, across
    environments too), and grouping a minibatch by them gives each row the same first equal
    row as comparing the minibatch's rows, with single steps, runs of a few steps or of a whole
    rollout."""
    from gymnasium import spaces

    from agents.farlight.policy.cache import SHIP_IDS
    from training.farlight.sb3.policy import EnvMajorRolloutBuffer

    rng = np.random.default_rng(4)
    space, actions = spaces.Box(-1, 1, (9,), np.float32), spaces.Discrete(5)
    grids = rng.choice([0.0, 1.0], size=(4, 4), p=[0.7, 0.3]).astype(np.float32)
    for chunk in (1, 3, 8):
        buffer = EnvMajorRolloutBuffer(
            8, space, actions, "cpu", gae_lambda=0.95, gamma=0.99, n_envs=3,
            chunk=chunk, ships=(1, 9, 2),  # columns 1-8: 2 seats of 4
        )  # fmt: skip
        fill_with_grids(buffer, rng, grids)
        np.random.seed(chunk)
        names: dict[int, bytes] = {}
        for batch in buffer.get(batch_size=8):
            ids = getattr(batch.observations, SHIP_IDS)
            rows = batch.observations[:, 1:].reshape(len(ids), 2, 4)
            for name, row in zip(ids.flatten().tolist(), rows.reshape(-1, 4), strict=True):
                assert names.setdefault(name, row.numpy().tobytes()) == row.numpy().tobytes()
            first, inverse = distinct_rows(rows, ids)
            plain_first, plain_inverse = distinct_rows(rows.clone())
            assert torch.equal(first[inverse], plain_first[plain_inverse])
            assert sorted(first.tolist()) == sorted(plain_first.tolist())
        assert len(set(names.values())) == len(names) > 1  # one id per distinct grid
        first_rollout = set(names)
        fill_with_grids(buffer, rng, grids)  # the same grids again: ids not given before
        again = {
            i
            for batch in buffer.get(batch_size=8)
            for i in getattr(batch.observations, SHIP_IDS).flatten().tolist()
        }
        assert again and not again & first_rollout


def test_masked_log_probs_equal_torchs_logsumexp_bit_for_bit() -> None:
    """The masked log-sum-exp skips the exponentials of masked entries (exactly 0, and about 10x
    slower on a CPU) yet gives torch's values and gradients bit for bit, rows with no legal
    entry and rows of one included."""
    from training.farlight.sb3.policy import MASKED_LOGIT, masked_log_probs

    generator = torch.Generator().manual_seed(3)
    logits = torch.randn(64, 496, generator=generator) * 4
    masks = torch.rand(64, 496, generator=generator) < 0.2
    masks[0] = False  # no legal action
    masks[1] = False
    masks[1, 7] = True  # one
    results = []
    for plain in (False, True):
        x = logits.clone().requires_grad_(True)
        if plain:
            y = x - x.logsumexp(dim=-1, keepdim=True)
            y = torch.where(masks, y, y.new_tensor(MASKED_LOGIT))
            out = y - y.logsumexp(dim=-1, keepdim=True)
        else:
            out = masked_log_probs(x, masks)
        (
            out.gather(1, torch.arange(64)[:, None] % 496) * torch.linspace(-1, 1, 64)[:, None]
        ).sum().backward()
        results.append((out.detach(), x.grad))
    assert torch.equal(results[0][0], results[1][0])
    assert torch.equal(results[0][1], results[1][1])
