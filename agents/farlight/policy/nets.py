"""The policy networks shared by training and loading: the flat `ObservationNet`, the
`StructuredNet` whose logits follow the action layout, and `PolicyNet`, the actor rebuilt
without SB3 from a policy file's config."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import torch
from torch import nn

from agents.farlight.policy.cache import (
    SHIP_IDS,
    DistinctShips,
    PooledCache,
    ShipEntry,
    ShipMapCache,
    distinct_rows,
    gather_rows,
    pool_maps,
)
from agents.farlight.policy.reach import ReachMaps, reach_layers, reach_maps
from agents.torch_threads import library_default
from farlight_env.encode.layout import DECISIONS
from farlight_env.game.config import Phase

ARCHITECTURES = ("flat", "structured")


class ObservationNet(nn.Module):
    """Features of a flat Farlight observation: a linear layer over everything but the ships,
    and a small shared CNN over each seat's ship planes, pooled to a fixed size."""

    def __init__(
        self,
        layout: Mapping[str, tuple[int, int, tuple[int, ...]]],
        embed: int = 128,
        ship_features: int = 16,
    ) -> None:
        library_default()  # one torch thread unless chosen (agents/torch_threads.py)
        super().__init__()
        self.layout = {
            name: (int(a), int(b), tuple(shape)) for name, (a, b, shape) in layout.items()
        }
        ships_start, ships_stop, ships_shape = self.layout["ships"]
        self.ships_slice = (ships_start, ships_stop)
        self.num_seats, self.channels, self.grid, _ = ships_shape
        flat = [
            i for name, (a, b, _) in self.layout.items() if name != "ships" for i in range(a, b)
        ]
        self.register_buffer("flat_index", torch.tensor(flat, dtype=torch.long), persistent=False)
        self.flat = nn.Sequential(nn.Linear(len(flat), embed), nn.ReLU())
        self.ship_cnn = nn.Sequential(
            nn.Conv2d(self.channels, ship_features, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(ship_features, ship_features, 3, padding=1),
            nn.ReLU(),
        )
        self.ship_features = ship_features
        #: Whether training may run the CNN at the cells ships reach only (`reach_maps`, for the
        #: CNN shape it knows): on a CPU the same maps and gradients up to float rounding in
        #: about half the time. False runs it dense (to time the two side by side).
        self.use_reach = True
        self.map_cache = ShipMapCache()
        self.pooled_cache = PooledCache()
        self.out_dim = embed + self.num_seats * ship_features * 2

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.features_and_ships(obs, with_maps=False)[0]  # (the flat arch: pooled only)

    def features_and_own_map(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The feature vector, and the CNN map of the observer's own ship (batch, C, row, col)."""
        features, ships = self.features_and_ships(obs)
        return features, ships.maps_of(ships.own)

    def features_and_ships(
        self, obs: torch.Tensor, with_maps: bool = True
    ) -> tuple[torch.Tensor, DistinctShips]:
        """The feature vector, and the CNN of the batch's distinct ship grids (their maps are
        None where not `with_maps` and a frozen CNN's cached features serve)."""
        flat = self.flat_features(obs.index_select(1, self.flat_index))
        ships = self.distinct_ships(obs, with_maps)
        return torch.cat([flat, ships.pooled.flatten(1)], dim=1), ships

    def flat_features(self, flat: torch.Tensor) -> torch.Tensor:
        """`self.flat(flat)`. In training, over the columns not zero in every row only: a
        minibatch leaves about three quarters of them zero (pending parts of absent seats,
        empty stacks), and those add exact zeros to the outputs and the weights' gradients
        (not to the observations' own gradient, so inputs that want one take every column)."""
        if not torch.is_grad_enabled() or flat.device.type != "cpu" or flat.requires_grad:
            return self.flat(flat)  # (a gradient for the inputs needs every column)
        linear = self.flat[0]
        used = flat.abs().amax(dim=0).nonzero().squeeze(1)
        weight = linear.weight.index_select(1, used)
        return self.flat[1](nn.functional.linear(flat.index_select(1, used), weight, linear.bias))

    def ship_features_and_own_map(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Mean- and max-pooled CNN features per seat, and seat 0's full map."""
        ships = self.distinct_ships(obs)
        return ships.pooled, ships.maps_of(ships.own)

    def _reach(self, planes: torch.Tensor) -> bool:
        """Whether to run the CNN on `planes` as `reach_maps`: training on a CPU (inference
        keeps its cache and its exact numbers; a GPU runs dense convolutions best; a gradient
        for the observations themselves, as saliency maps take, needs the dense CNN)."""
        return (
            self.use_reach
            and torch.is_grad_enabled()
            and not planes.requires_grad  # it computes no gradient for the input planes
            and planes.device.type == "cpu"
            and reach_layers(self.ship_cnn) is not None
        )

    def frozen(self) -> bool:
        """Whether the ship CNN is frozen (no parameter of it learns)."""
        return not any(p.requires_grad for p in self.ship_cnn.parameters())

    def distinct_ships(self, obs: torch.Tensor, with_maps: bool = True) -> DistinctShips:
        """The ship CNN run once per distinct ship grid of the batch, not once per seat.

        Ships change a few times a game and absent seats are all blank, so a PPO minibatch of
        256 two-player observations holds about 230 distinct grids among its 1280 seats: the
        same outputs (and gradients, summed over the copies) for well under half the work.
        Training with the CNN frozen and no maps asked for (no install decision in the batch)
        takes each grid's pooled features from `pooled_cache`: the CNN runs once per grid.
        """
        a, b = self.ships_slice
        batch = obs.shape[0]
        grids = obs[:, a:b].reshape(batch, self.num_seats, -1)  # a view of the observations
        ids = getattr(obs, SHIP_IDS, None)
        first, inverse = distinct_rows(grids, ids)
        planes = gather_rows(grids, first).view(-1, self.channels, self.grid, self.grid)
        maps: torch.Tensor | ReachMaps | None = None
        cached = not with_maps and torch.is_grad_enabled() and planes.device.type == "cpu"
        if cached and self.frozen():
            names = None if ids is None else ids.flatten().index_select(0, first)
            distinct = self.pooled_cache.pooled(self.ship_cnn, planes, names)
        elif self._reach(planes):
            maps = reach_maps(self.ship_cnn, planes)  # about half the time (policy/reach.py)
            distinct = maps.pooled()
        else:
            if torch.is_grad_enabled() or planes.device.type != "cpu":  # the cache keys CPU bytes
                # channels-last input: oneDNN's CPU convolutions run forward and backward ~1.4x
                # faster on these small grids (same outputs up to float rounding)
                maps = self.ship_cnn(planes.contiguous(memory_format=torch.channels_last))
            else:
                maps = self.map_cache.maps(self.ship_cnn, planes)
            distinct = pool_maps(maps)
        pooled = distinct.index_select(0, inverse).view(batch, self.num_seats, -1)
        return DistinctShips(pooled, maps, planes, inverse.view(batch, self.num_seats)[:, 0])


def set_one_at_a_time(net: nn.Module, on: bool) -> None:
    """Whether the ship-map caches of `net` compute the grids they miss one at a time
    (`ShipMapCache.one_at_a_time`): a played policy's moves then depend on the position alone,
    so one network can serve many games, in any order, as a copy per game would."""
    for module in net.modules():
        if isinstance(module, ObservationNet):
            module.map_cache.one_at_a_time = on


def set_ship_cnn_frozen(net: nn.Module, frozen: bool) -> None:
    """Freeze (or let learn) every ship CNN inside `net`, an SB3 policy or an RLlib module
    alike (`--ship-encoder`): a frozen CNN's pooled features come from `pooled_cache` in
    training (`ObservationNet.distinct_ships`)."""
    for module in net.modules():
        if isinstance(module, ObservationNet):
            module.ship_cnn.requires_grad_(not frozen)


class StructuredNet(nn.Module):
    """Actor-critic whose action logits follow the action layout instead of one flat layer.

    Bid logits come from one small network shared by all 19 targets, fed that target's own
    features (station part, facility, mission stack, bids on it); install logits come per cell
    from the observer's ship feature map and the selected part. The same weights therefore
    value every station space and every cell, which is what makes bidding and building learnable
    from a few thousand games. Other decisions read a shared trunk. `forward` -> (logits, value
    latent).
    """

    def __init__(
        self,
        layout: Mapping[str, tuple[int, int, tuple[int, ...]]],
        action_size: int,
        embed: int = 128,
        ship_features: int = 32,
        hidden: int = 256,
        vf: int = 128,
    ) -> None:
        super().__init__()
        self.observation = ObservationNet(layout, embed, ship_features)
        lay = self.observation.layout
        self.num_spaces, station_width = lay["station"][2]
        self.num_stacks = lay["missions"][2][0]
        self.num_targets, seats, bid_width = lay["bids"][2]
        self.num_facilities = self.num_targets - self.num_spaces - self.num_stacks
        self.num_tiles = lay["own_hand"][2][0]
        self.part_width = lay["pending"][2][2] - 1
        self.num_parts = lay["deck"][2][0] - 1
        bid_size = self.num_tiles * self.num_targets * 2  # tile x target x crew, as the codec
        rest_size = action_size - bid_size - self.observation.grid**2
        if rest_size <= self.num_parts:
            raise ValueError(f"action size {action_size} too small for this observation layout")
        mission_width = int(np.prod(lay["missions"][2][1:]))
        kinds = torch.zeros(self.num_targets, 3 + self.num_facilities)
        kinds[: self.num_spaces, 0] = 1.0
        for f in range(self.num_facilities):
            kinds[self.num_spaces + f, 1] = 1.0
            kinds[self.num_spaces + f, 3 + f] = 1.0
        kinds[self.num_spaces + self.num_facilities :, 2] = 1.0
        self.register_buffer("target_kinds", kinds, persistent=False)
        target_width = station_width + mission_width + seats * bid_width + kinds.shape[1]
        self.trunk = nn.Sequential(nn.Linear(self.observation.out_dim, hidden), nn.ReLU())
        self.bid_target = nn.Linear(target_width, hidden // 2)
        self.bid_context = nn.Linear(hidden, hidden // 2)
        self.bid_out = nn.Linear(hidden // 2, self.num_tiles * 2)
        cell_in = self.observation.ship_features + self.observation.channels
        self.cell = nn.Conv2d(cell_in, 64, 1)
        self.cell_context = nn.Linear(hidden + self.part_width, 64)
        self.cell_out = nn.Conv2d(64, 1, 1)
        self.rest = nn.Linear(hidden, rest_size)
        self.value = nn.Sequential(nn.Linear(self.observation.out_dim, vf), nn.ReLU())
        self.observation.map_cache.watched = (self.cell,)
        #: Column of the observation's one-hot `decision` field that marks an install decision.
        #: (None: a layout without the field, whose batches always run the head.)
        decision = lay.get("decision")
        self.install_flag = (
            None if decision is None else decision[0] + DECISIONS.index(Phase.INSTALL)
        )

    def _installing(self, obs: torch.Tensor) -> torch.Tensor | None:
        """Which rows are install decisions, the only kind whose legal actions include the
        install head's cells (their logits are 0 in other rows, whose masks exclude them, so a
        batch without one skips the head); None for a layout without the `decision` field."""
        if self.install_flag is None:
            return None
        return obs[:, self.install_flag]

    def _field(self, obs: torch.Tensor, name: str) -> torch.Tensor:
        a, b, shape = self.observation.layout[name]
        return obs[:, a:b].reshape(obs.shape[0], *shape)

    def _bid_logits(self, obs: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        batch, n = obs.shape[0], self.num_targets
        station = nn.functional.pad(self._field(obs, "station"), (0, 0, 0, n - self.num_spaces))
        missions = self._field(obs, "missions").reshape(batch, self.num_stacks, -1)
        missions = nn.functional.pad(missions, (0, 0, n - self.num_stacks, 0))
        bids = self._field(obs, "bids").reshape(batch, n, -1)
        kinds = self.target_kinds.expand(batch, -1, -1)
        targets = torch.cat([station, missions, bids, kinds], dim=2)
        z = torch.relu(self.bid_target(targets) + self.bid_context(context)[:, None, :])
        out = self.bid_out(z).reshape(batch, n, self.num_tiles, 2)  # target, tile, crew
        return out.permute(0, 2, 1, 3).reshape(batch, -1)  # codec order: tile, target, crew

    def _install_logits(
        self, obs: torch.Tensor, context: torch.Tensor, own_maps: torch.Tensor
    ) -> torch.Tensor:
        own_planes = self._field(obs, "ships")[:, 0]
        return self._cell_logits(obs, context, self.cell(torch.cat([own_maps, own_planes], dim=1)))

    def _distinct_install_logits(
        self, obs: torch.Tensor, context: torch.Tensor, ships: DistinctShips
    ) -> torch.Tensor:
        """`_install_logits` on cells as rows (grid, cell, channel), its context-free 1x1
        convolution computed once per distinct own ship, or once per row of the reach CNN's
        table (`DistinctShips.pointwise`): matrix products instead of a convolution over mixed
        memory formats."""
        cells = ships.pointwise(ships.own, self.cell)
        hidden = torch.relu(cells + self._cell_condition(obs, context)[:, None])
        return hidden @ self.cell_out.weight.flatten() + self.cell_out.bias

    def _cell_condition(self, obs: torch.Tensor, context: torch.Tensor) -> torch.Tensor:
        """What the install head adds to every cell's features: from the trunk's context and
        the part selected for installing (batch, 64)."""
        pending = self._field(obs, "pending")[:, 0]  # observer's won parts
        selected = (pending[:, :, :1] * pending[:, :, 1:]).sum(dim=1)
        return self.cell_context(torch.cat([context, selected], dim=1))

    def _cell_logits(
        self, obs: torch.Tensor, context: torch.Tensor, cells: torch.Tensor
    ) -> torch.Tensor:
        cond = self._cell_condition(obs, context)[:, :, None, None]
        hidden = torch.relu(cells + cond)
        # the 1x1 convolution `cell_out` as a weighted sum: half its cost in mkldnn
        weight = self.cell_out.weight.view(1, -1, 1, 1)
        return (hidden * weight).sum(dim=1).flatten(1) + self.cell_out.bias

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if not torch.is_grad_enabled() and obs.device.type == "cpu":
            return self._cached_forward(obs)
        installing = self._installing(obs)
        with_maps = installing is None or bool(installing.any())  # the install head's input
        features, ships = self.observation.features_and_ships(obs, with_maps)
        context = self.trunk(features)
        cells = self._install_rows(obs, context, ships, installing)
        return self._heads(obs, features, context, cells)

    def _heads(
        self, obs: torch.Tensor, features: torch.Tensor, context: torch.Tensor, cells: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits and value latent from the features, the trunk's `context` and the install
        head's cell logits."""
        rest = self.rest(context)
        logits = torch.cat(
            [
                self._bid_logits(obs, context),
                rest[:, : self.num_parts],
                cells,
                rest[:, self.num_parts :],
            ],
            dim=1,
        )
        return logits, self.value(features)

    def _install_rows(
        self,
        obs: torch.Tensor,
        context: torch.Tensor,
        ships: DistinctShips,
        installing: torch.Tensor | None,
    ) -> torch.Tensor:
        """The install head's cell logits for install decisions only (`installing`, as
        `_installing` gives it), 0 elsewhere (other decisions' masks exclude every cell): in a
        training minibatch about one row in seven installs, so the head runs on those rows
        alone."""
        if installing is None or bool(installing.all()):
            return self._distinct_install_logits(obs, context, ships)
        rows = installing.nonzero().squeeze(1)
        cells = obs.new_zeros(obs.shape[0], self.observation.grid**2)
        if len(rows) == 0:  # a batch of bids (the bidding sub-game's)
            return cells
        some = self._distinct_install_logits(
            obs.index_select(0, rows),
            context.index_select(0, rows),
            ships._replace(own=ships.own.index_select(0, rows)),
        )
        return cells.index_copy(0, rows, some)

    def _cached_forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Inference (a rollout step, a game move): the ship CNN's pooled features and the
        install head's 1x1 convolution come from the map cache for grids seen before, which
        at a batch of 2 halves the step. Per-grid operations as in `forward`."""
        o = self.observation
        a, b = o.ships_slice
        planes = obs[:, a:b].reshape(-1, o.channels, o.grid, o.grid)
        entries = o.map_cache.lookup(o.ship_cnn, planes)
        pooled = torch.stack([entry.pooled for entry in entries]).view(obs.shape[0], -1)
        features = torch.cat([o.flat(obs.index_select(1, o.flat_index)), pooled], dim=1)
        own = entries[:: o.num_seats]
        context = self.trunk(features)
        installing = self._installing(obs)
        if installing is not None and not bool(installing.any()):  # no install decision
            cells = obs.new_zeros(obs.shape[0], o.grid**2)
        else:
            cells = self._cached_install_logits(obs, context, own, planes[:: o.num_seats])
            if installing is not None:  # rows of other decisions: 0, as when the head is skipped
                cells = cells * installing[:, None]
        return self._heads(obs, features, context, cells)

    def _cached_install_logits(
        self, obs: torch.Tensor, context: torch.Tensor, own: list[ShipEntry], planes: torch.Tensor
    ) -> torch.Tensor:
        """`_install_logits`, the 1x1 convolution `cell` run once per own ship grid the cache
        has not seen (entries hold it, keyed with the CNN's and `cell`'s weights)."""
        missing = {id(entry): i for i, entry in enumerate(own) if entry.cells is None}
        if missing:
            rows = list(missing.values())
            maps = torch.stack([own[i].maps for i in rows])
            inputs = torch.cat([maps, planes[rows]], 1)
            if self.observation.map_cache.one_at_a_time:  # (see ShipMapCache.one_at_a_time)
                cells_of = torch.cat([self.cell(inputs[j : j + 1]) for j in range(len(rows))])
            else:
                cells_of = self.cell(inputs)
            for i, cells in zip(rows, cells_of, strict=True):
                own[i].cells = cells
        return self._cell_logits(obs, context, torch.stack([entry.cells for entry in own]))


class _Extractor(nn.Module):
    """Same attribute path as training's SB3 extractor: `features_extractor.net`."""

    def __init__(self, net: ObservationNet) -> None:
        super().__init__()
        self.net = net


class _Heads(nn.Module):
    """Same attribute path as training's structured heads: `mlp_extractor.net`."""

    def __init__(self, net: StructuredNet) -> None:
        super().__init__()
        self.net = net


class _MlpExtractor(nn.Module):
    def __init__(self, policy_net: nn.Sequential) -> None:
        super().__init__()
        self.policy_net = policy_net


def actor_layers(in_dim: int, hidden: list[int]) -> tuple[nn.Sequential, int]:
    """SB3's MlpExtractor policy branch: Linear + Tanh per hidden size."""
    layers: list[nn.Module] = []
    for size in hidden:
        layers += [nn.Linear(in_dim, size), nn.Tanh()]
        in_dim = size
    return nn.Sequential(*layers), in_dim


class PolicyNet(nn.Module):
    """The actor of a trained MaskablePPO policy, rebuilt without SB3."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        super().__init__()
        layout = {k: (v[0], v[1], tuple(v[2])) for k, v in config["layout"].items()}
        self.arch = config.get("arch", "flat")
        if self.arch not in ARCHITECTURES:
            raise ValueError(f"unknown architecture {self.arch!r}; expected one of {ARCHITECTURES}")
        if self.arch == "structured":
            self.mlp_extractor = _Heads(
                StructuredNet(
                    layout,
                    config["action_size"],
                    config["embed"],
                    config["ship_features"],
                    config["hidden"],
                    config["vf"],
                )
            )
            return
        net = ObservationNet(layout, config["embed"], config["ship_features"])
        self.features_extractor = _Extractor(net)
        policy_net, out = actor_layers(net.out_dim, list(config["pi"]))
        self.mlp_extractor = _MlpExtractor(policy_net)
        self.action_net = nn.Linear(out, config["action_size"])

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        if self.arch == "structured":
            return self.mlp_extractor.net(obs)[0]
        features = self.features_extractor.net(obs)
        return self.action_net(self.mlp_extractor.policy_net(features))
