"""The ship CNN computed only where ships reach (`agents/farlight/policy/reach.py`) is the dense
CNN: the same maps, pooled features and parameter gradients up to float rounding, on real ship
grids and on grids that press against the edges, with `amax`'s even split of a tied maximum's
gradient kept; any other CNN shape runs dense.
"""

from __future__ import annotations

import numpy as np
import pytest
from env_states import random_states

torch = pytest.importorskip("torch", reason="policies need the train extra (torch)")

from torch import nn  # noqa: E402 - after the importorskip above

from agents.farlight.policy import pool_maps  # noqa: E402
from agents.farlight.policy.nets import ObservationNet  # noqa: E402
from agents.farlight.policy.reach import _GatherSum, _PoolRows, reach_layers, reach_maps  # noqa: E402
from farlight_env import farlight_v0  # noqa: E402

torch.set_num_threads(1)
CHANNELS, GRID = 17, 13


def ship_cnn(seed: int, features: int = 8, dtype: torch.dtype = torch.float64) -> nn.Sequential:
    """The observation net's CNN shape, with biases of both signs (so some channels of the blank
    grid are clipped to 0 and some are not)."""
    torch.manual_seed(seed)
    cnn = nn.Sequential(
        nn.Conv2d(CHANNELS, features, 3, padding=1),
        nn.ReLU(),
        nn.Conv2d(features, features, 3, padding=1),
        nn.ReLU(),
    ).to(dtype)
    with torch.no_grad():
        for conv in (cnn[0], cnn[2]):
            conv.bias.uniform_(-0.3, 0.3)
    return cnn


def real_grids(dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """The distinct ship grids of random 2- and 4-player games, the blank grid among them."""
    layout = farlight_v0.raw_env(num_players=2).observation_layout()["ships"][0]
    grids = {}
    for players, seed in ((2, 3), (4, 5)):
        for obs, _mask, _info in random_states(players, seed=seed, every=3):
            for grid in obs[layout].reshape(-1, CHANNELS, GRID, GRID):
                grids[grid.tobytes()] = grid
    return torch.as_tensor(np.stack(list(grids.values())), dtype=dtype)


def edge_grids(seed: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """Random sparse grids with parts in corners and along every edge, one full grid, one
    blank grid and one with a single occupied cell."""
    rng = np.random.default_rng(seed)
    grids = np.zeros((12, CHANNELS, GRID, GRID))
    for grid in grids[:8]:
        for _ in range(rng.integers(1, 12)):
            row, col = rng.choice([0, GRID - 1, *range(GRID)], size=2)
            grid[rng.integers(0, CHANNELS, 3), row, col] = rng.choice([1.0, 0.5, 1 / 6])
    grids[8] = rng.choice([0.0, 1.0], size=(CHANNELS, GRID, GRID))
    grids[10, 4, 6, 6] = 1.0
    grids[11, 0, 0, GRID - 1] = -0.5  # negative inputs count as non-zero as well
    return torch.as_tensor(grids, dtype=dtype)


def losses(maps: torch.Tensor, pooled: torch.Tensor, seed: int) -> torch.Tensor:
    """A loss reading every map cell and every pooled feature, with fixed random weights."""
    generator = torch.Generator().manual_seed(seed)
    on_maps = torch.randn(maps.shape, generator=generator, dtype=maps.dtype)
    on_pooled = torch.randn(pooled.shape, generator=generator, dtype=maps.dtype)
    return (maps * on_maps).sum() + (pooled * on_pooled).sum()


def gradients(cnn: nn.Module, loss: torch.Tensor) -> list[torch.Tensor]:
    cnn.zero_grad()
    loss.backward()
    return [p.grad.clone() for p in cnn.parameters()]


@pytest.mark.parametrize("grids", ["real", "edges"])
@pytest.mark.parametrize("seed", range(3))
def test_reach_maps_equal_the_dense_cnn_with_gradients(grids: str, seed: int) -> None:
    planes = real_grids() if grids == "real" else edge_grids(seed)
    cnn = ship_cnn(seed)
    dense = cnn(planes)
    expected = gradients(cnn, losses(dense, pool_maps(dense), seed))
    reach = reach_maps(cnn, planes)
    everything = torch.arange(len(planes))
    maps, pooled = reach.select(everything), reach.pooled()
    torch.testing.assert_close(maps, dense, rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(pooled, pool_maps(dense), rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(reach.rows_of(everything), dense.permute(0, 2, 3, 1).flatten(1, 2))
    for got, want in zip(gradients(cnn, losses(maps, pooled, seed)), expected, strict=True):
        torch.testing.assert_close(got, want, rtol=1e-10, atol=1e-12)


def test_reach_maps_in_float32_match_the_dense_cnn_to_rounding() -> None:
    planes = real_grids(torch.float32)
    cnn = ship_cnn(7, features=32, dtype=torch.float32)
    dense = cnn(planes)
    reach = reach_maps(cnn, planes)
    torch.testing.assert_close(reach.select(torch.arange(len(planes))), dense)
    torch.testing.assert_close(reach.pooled(), pool_maps(dense))


def test_reach_maps_of_only_blank_grids_are_the_blank_map() -> None:
    cnn = ship_cnn(1)
    planes = torch.zeros(3, CHANNELS, GRID, GRID, dtype=torch.float64)
    reach = reach_maps(cnn, planes)
    assert len(reach.computed) == 0
    torch.testing.assert_close(reach.select(torch.arange(3)), cnn(planes), rtol=0, atol=1e-15)


def test_a_tied_maximum_splits_its_gradient_as_amax_does() -> None:
    """Blank cells tie exactly (and relu's zeros do): the max's gradient goes to every tied cell
    in equal shares, as `amax`'s backward sends it, and each cell adds its mean share."""
    # 2 grids of 4 cells, 2 channels; computed cells: grid 0 cell 1, grid 1 cell 2 (flat 1, 6)
    computed = torch.tensor([1, 6])
    blank = [[3.0, 0.0], [3.0, 0.0], [1.0, 2.0], [3.0, 2.0]]
    table = torch.tensor([[3.0, 1.0], [0.0, 2.0], *blank], dtype=torch.float64)
    table.requires_grad_()
    rows = torch.tensor([[2, 0, 4, 5], [2, 3, 1, 5]])
    weights = torch.arange(8.0, dtype=torch.float64).view(2, 4)
    cells = table.index_select(0, rows.flatten()).view(2, 4, 2)
    plain = torch.cat([cells.mean(dim=1), cells.amax(dim=1)], dim=1)
    (want,) = torch.autograd.grad((plain * weights).sum(), table)
    pooled = _PoolRows.apply(table, rows, computed)
    torch.testing.assert_close(pooled, plain, rtol=0, atol=0)
    (got,) = torch.autograd.grad((pooled * weights).sum(), table)
    torch.testing.assert_close(got, want, rtol=0, atol=1e-15)


def test_gather_sum_gradients_pass_gradcheck() -> None:
    """A table of 5 rows x 3 taps: rows 0-2 are cells, each entry read by at most one output
    (as a cell's tap feeds one neighbour), row 3 the blank cell, read by many, row 4 the
    padding row (never read here: its contributions are zeros, whatever their gradient)."""
    reads = [[0, 1, 3], [1, 3, 3], [3, 0, 2], [3, 3, 3]]
    index = torch.tensor(reads) * 3 + torch.arange(3)
    back = torch.full((15,), len(reads))  # each entry's reader, else the zero row
    for out, rows in enumerate(reads):
        for tap, row in enumerate(rows):
            if row != 3:
                back[row * 3 + tap] = out
    generator = torch.Generator().manual_seed(0)
    table = torch.randn(15, 4, generator=generator, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda t: _GatherSum.apply(t, index, back, 3), (table,))


def test_other_cnn_shapes_run_dense() -> None:
    def cnn(first: nn.Module, act: nn.Module, *more: nn.Module) -> nn.Sequential:
        return nn.Sequential(first, act, nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(), *more)

    assert reach_layers(ship_cnn(0)) is not None
    others = [
        cnn(nn.Conv2d(CHANNELS, 8, 5, padding=2), nn.ReLU()),  # reaches further
        cnn(nn.Conv2d(CHANNELS, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1)),
        cnn(nn.Conv2d(CHANNELS, 8, 3, padding=1, bias=False), nn.ReLU()),
        cnn(nn.Conv2d(CHANNELS, 8, 3, padding=1), nn.Tanh()),
        cnn(nn.Conv2d(CHANNELS, 8, 3, padding=1, padding_mode="circular"), nn.ReLU()),
    ]
    for other in others:
        assert reach_layers(other) is None
        with pytest.raises(ValueError, match="reach_maps needs"):
            reach_maps(other, torch.zeros(1, CHANNELS, GRID, GRID))


def test_the_observation_net_trains_the_same_with_and_without_reach() -> None:
    env = farlight_v0.raw_env(num_players=3)
    layout = {k: (f.start, f.start + f.size, f.shape) for k, f in env.encoder.fields.items()}
    torch.manual_seed(3)
    net = ObservationNet(layout, embed=16, ship_features=8)
    obs = torch.as_tensor(np.stack([o for o, _m, _i in random_states(3, seed=9, every=4)][:40]))
    results = []
    for use_reach in (True, False):
        net.use_reach = use_reach
        net.zero_grad()
        features, own = net.features_and_own_map(obs)
        (features.square().sum() + own.sum()).backward()
        results.append([features, own, *(p.grad.clone() for p in net.parameters())])
    for got, want in zip(*results, strict=True):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("seed", range(2))
def test_pointwise_convolution_on_reach_maps_equals_it_on_dense_maps(seed: int) -> None:
    """The install head's 1x1 convolution over [maps; planes], computed once per table row."""
    planes = edge_grids(seed) if seed else real_grids()
    cnn = ship_cnn(seed)
    torch.manual_seed(seed)
    conv = nn.Conv2d(8 + CHANNELS, 6, 1).to(torch.float64)
    grids = torch.tensor([0, 2, 2, len(planes) - 1, 1])  # repeats, as observations share ships
    dense = conv(torch.cat([cnn(planes), planes], dim=1))[grids]
    dense = dense.permute(0, 2, 3, 1).flatten(1, 2)
    expected = gradients(conv, (dense * dense.detach().sign()).sum())
    got = reach_maps(cnn, planes).pointwise(grids, conv)
    torch.testing.assert_close(got, dense, rtol=1e-12, atol=1e-12)
    for mine, want in zip(
        gradients(conv, (got * dense.detach().sign()).sum()), expected, strict=True
    ):
        torch.testing.assert_close(mine, want, rtol=1e-10, atol=1e-12)


def test_the_structured_net_trains_the_same_with_and_without_reach() -> None:
    """Logits, values and every gradient, on batches mixing install and other decisions."""
    from agents.farlight.policy import StructuredNet

    env = farlight_v0.raw_env(num_players=2)
    layout = {k: (f.start, f.start + f.size, f.shape) for k, f in env.encoder.fields.items()}
    torch.manual_seed(5)
    net = StructuredNet(layout, env.codec.size, embed=16, ship_features=8, hidden=32, vf=16)
    rows = [o for players in (2, 4) for o, _m, _i in random_states(players, seed=players, every=2)]
    obs = torch.as_tensor(np.stack(rows[:120]))
    assert 0 < float(obs[:, net.install_flag].sum()) < len(obs)
    results = []
    for use_reach in (True, False):
        net.observation.use_reach = use_reach
        net.zero_grad()
        logits, value = net(obs)
        (logits.tanh().sum() + value.square().sum()).backward()
        results.append([logits, value, *(p.grad.clone() for p in net.parameters())])
    for got, want in zip(*results, strict=True):
        torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)


def test_a_gradient_for_the_observations_is_the_dense_networks() -> None:
    """Saliency maps differentiate the observations themselves: the speed-ups that give no
    gradient to the inputs (reach, the flat layer's zero columns) step aside for them."""
    from agents.farlight.policy import StructuredNet

    env = farlight_v0.raw_env(num_players=2)
    layout = {k: (f.start, f.start + f.size, f.shape) for k, f in env.encoder.fields.items()}
    torch.manual_seed(8)
    net = StructuredNet(layout, env.codec.size, embed=16, ship_features=8, hidden=32, vf=16)
    rows = [o for o, _m, _i in random_states(2, seed=4, every=5)][:30]
    grads = []
    for use_reach in (True, False):
        net.observation.use_reach = use_reach
        obs = torch.as_tensor(np.stack(rows)).requires_grad_()
        logits, value = net(obs)
        (logits.tanh().sum() + value.sum()).backward()
        grads.append(obs.grad)
    assert grads[0].abs().sum() > 0
    torch.testing.assert_close(grads[0], grads[1])
