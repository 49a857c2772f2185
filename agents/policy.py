"""Trained policies: the network shared with training, saving, and a loading Agent.

A policy file is a plain `torch.save` of a dict (format tag, config, state dict of tensors),
read back with `torch.load(..., weights_only=True)` only: no pickled code ever runs. Needs torch
(the `train` extra); the rest of the project does not.

Building a network or loading a policy sets torch to one math thread, once per process, unless
OMP_NUM_THREADS, MKL_NUM_THREADS or FARLIGHT_TORCH_THREADS is set or the count was already
changed (agents/torch_threads.py; FARLIGHT_TORCH_THREADS=0 leaves torch alone).
"""

from __future__ import annotations

import functools
import math
import pickle
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, NamedTuple

import msgspec
import numpy as np
import torch
from torch import nn

from agents.files import check_torch_archive
from agents.torch_threads import library_default

POLICY_FORMAT = "farlight-policy"
POLICY_VERSION = 1
#: State-dict prefixes of SB3's actor that a saved policy keeps. The flat architecture's critic
#: is dropped; the structured network's small value layer lives inside it and is kept.
ACTOR_PREFIXES = (
    "features_extractor.",
    "mlp_extractor.policy_net.",
    "mlp_extractor.net.",
    "action_net.",
)
ARCHITECTURES = ("flat", "structured")
SHIPPED_POLICY = Path(__file__).with_name("data") / "ppo.pt"
#: Bounds on what a policy file may ask for: the shipped policy has 0.5 M parameters in a
#: 2 MB file; a file asking for more than MAX_PARAMETERS is refused before anything is built.
MAX_POLICY_BYTES = 256 << 20
MAX_PARAMETERS = 50_000_000
MAX_WIDTH = 4096
MAX_OBSERVATION = 1_000_000
MAX_ACTIONS = 100_000
Width = Annotated[int, msgspec.Meta(ge=1, le=MAX_WIDTH)]
Index = Annotated[int, msgspec.Meta(ge=0, le=MAX_OBSERVATION)]


#: Seed of the fixed random projection that hashes ship grids (not the training RNG's).
ROW_HASH_SEED = 20_251_123


@functools.cache
def _row_hash_weights(width: int, dtype: torch.dtype) -> torch.Tensor:
    generator = torch.Generator().manual_seed(ROW_HASH_SEED)
    return (torch.rand(width, generator=generator, dtype=torch.float64) + 0.5).to(dtype)


#: Bytes of rows compared at a time when checking groups (temporaries stay in cache).
CHECK_BYTES = 1 << 20


def distinct_rows(rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(first, inverse) with rows == rows[first][inverse], first holding one index per distinct
    row. Rows are grouped by a random projection (float32, else float64 if two rows collide)
    and every group is checked, so the result is exact whatever the values. `rows` is (n, width)
    or (batch, seat, width), read as batch * seat rows: a strided view of the observations'
    ship planes is neither copied nor gathered whole."""
    table = rows.detach() if rows.dim() == 3 else rows.detach()[:, None]
    count = table.shape[0] * table.shape[1]
    with torch.no_grad():
        for dtype in (torch.float32, torch.float64):
            weights = _row_hash_weights(table.shape[2], dtype)
            keys = torch.stack(
                [torch.mv(table[:, s].to(dtype), weights) for s in range(table.shape[1])], dim=1
            ).flatten()
            unique, inverse = torch.unique(keys, return_inverse=True)
            first = torch.full((int(unique.shape[0]),), count, dtype=torch.long)
            first.scatter_reduce_(0, inverse, torch.arange(count), reduce="amin")
            if _rows_equal(table, first[inverse]):
                return first, inverse
    every = torch.arange(count)
    return every, every


def _rows_equal(table: torch.Tensor, source: torch.Tensor) -> bool:
    """Whether row i of `table` (batch, seat, width) equals row source[i], i < batch * seat,
    compared a few hundred kB at a time."""
    seats, width = table.shape[1], table.shape[2]
    step = max(1, CHECK_BYTES // (seats * width * table.element_size()))
    source = source.view(-1, seats)
    for start in range(0, table.shape[0], step):
        rows = source[start : start + step].flatten()
        if not torch.equal(
            table[start : start + step], gather_rows(table, rows).view(-1, seats, width)
        ):
            return False
    return True


def gather_rows(table: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
    """Rows `rows` of `table` (batch, seat, width) read as batch * seat rows: (len(rows), width)."""
    seats = table.shape[1]
    return table[torch.div(rows, seats, rounding_mode="floor"), rows % seats]


class DistinctShips(NamedTuple):
    """The ship CNN over a batch's distinct grids: `pooled` (batch, seat, 2C) per seat, the
    distinct grids' `maps` (n, C, row, col) and input `planes`, and `own`, each observation's
    row of seat 0 (the observer) among them."""

    pooled: torch.Tensor
    maps: torch.Tensor
    planes: torch.Tensor
    own: torch.Tensor


class ShipEntry:
    """What inference keeps of one ship grid: its CNN `maps` (C, row, col), their mean- and
    max-pooled `pooled` (2C,), and `cells`, the install head's context-free 1x1 convolution of
    the grid as the observer's own ship (filled by StructuredNet when first needed)."""

    __slots__ = ("cells", "maps", "pooled")

    def __init__(self, maps: torch.Tensor, pooled: torch.Tensor) -> None:
        self.maps = maps
        self.pooled = pooled
        self.cells: torch.Tensor | None = None


def pool_maps(maps: torch.Tensor) -> torch.Tensor:
    """Mean- and max-pooled features of CNN maps (n, C, row, col) -> (n, 2C)."""
    return torch.cat([maps.mean(dim=(2, 3)), maps.amax(dim=(2, 3))], dim=1)


class ShipMapCache:
    """Ship CNN results of the grids seen since the weights last changed, for inference (no
    gradients): in a rollout, most ships of a step are those of the step before. Grids are
    keyed by their bytes, so a hit is an exact match."""

    #: Entries kept at most (about 65 kB each at 32 features; a rollout of 2 x 512 steps sees
    #: about 400 grids); then the cache starts afresh.
    LIMIT = 512

    def __init__(self) -> None:
        self.stamp: tuple[tuple[int, int], ...] = ()
        self.entries: dict[bytes, ShipEntry] = {}
        #: Modules besides the CNN whose outputs entries hold (StructuredNet's `cell`).
        self.watched: tuple[nn.Module, ...] = ()

    def lookup(self, cnn: nn.Module, planes: torch.Tensor) -> list[ShipEntry]:
        """One entry per grid of `planes` (n, C, row, col); the CNN runs only on grids not seen
        with these weights. An in-place update or a new tensor changes a parameter's (address,
        version) stamp and clears the cache."""
        stamp = tuple(
            (p.data_ptr(), p._version) for m in (cnn, *self.watched) for p in m.parameters()
        )
        if stamp != self.stamp or len(self.entries) > self.LIMIT:
            self.stamp, self.entries = stamp, {}
        keys = [row.tobytes() for row in planes.detach().flatten(1).numpy()]
        get = self.entries.get
        missing = {key: i for i, key in enumerate(keys) if get(key) is None}
        if missing:
            maps = cnn(planes[list(missing.values())])
            for key, grid_maps, pooled in zip(missing, maps, pool_maps(maps), strict=True):
                self.entries[key] = ShipEntry(grid_maps, pooled)
        return [self.entries[key] for key in keys]

    def maps(self, cnn: nn.Module, planes: torch.Tensor) -> torch.Tensor:
        """cnn(planes), computed only for grids not seen with these weights."""
        return torch.stack([entry.maps for entry in self.lookup(cnn, planes)])


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
        self.map_cache = ShipMapCache()
        self.out_dim = embed + self.num_seats * ship_features * 2

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.features_and_own_map(obs)[0]

    def features_and_own_map(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The feature vector, and the CNN map of the observer's own ship (batch, C, row, col)."""
        features, ships = self.features_and_ships(obs)
        return features, ships.maps.index_select(0, ships.own)

    def features_and_ships(self, obs: torch.Tensor) -> tuple[torch.Tensor, DistinctShips]:
        """The feature vector, and the CNN of the batch's distinct ship grids."""
        flat = self.flat(obs.index_select(1, self.flat_index))
        ships = self.distinct_ships(obs)
        return torch.cat([flat, ships.pooled.flatten(1)], dim=1), ships

    def ship_features_and_own_map(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Mean- and max-pooled CNN features per seat, and seat 0's full map."""
        ships = self.distinct_ships(obs)
        return ships.pooled, ships.maps.index_select(0, ships.own)

    def distinct_ships(self, obs: torch.Tensor) -> DistinctShips:
        """The ship CNN run once per distinct ship grid of the batch, not once per seat.

        Ships change a few times a game and absent seats are all blank, so a PPO minibatch of
        256 two-player observations holds about 230 distinct grids among its 1280 seats: the
        same outputs (and gradients, summed over the copies) for well under half the work.
        """
        a, b = self.ships_slice
        batch = obs.shape[0]
        grids = obs[:, a:b].reshape(batch, self.num_seats, -1)  # a view of the observations
        first, inverse = distinct_rows(grids)
        planes = gather_rows(grids, first).view(-1, self.channels, self.grid, self.grid)
        if torch.is_grad_enabled():
            maps = self.ship_cnn(planes)
        else:
            maps = self.map_cache.maps(self.ship_cnn, planes)
        pooled = pool_maps(maps).index_select(0, inverse).view(batch, self.num_seats, -1)
        return DistinctShips(pooled, maps, planes, inverse.view(batch, self.num_seats)[:, 0])


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
        """`_install_logits`, its context-free 1x1 convolution run once per distinct own ship."""
        own, inverse = torch.unique(ships.own, return_inverse=True)
        inputs = torch.cat([ships.maps.index_select(0, own), ships.planes.index_select(0, own)], 1)
        return self._cell_logits(obs, context, self.cell(inputs).index_select(0, inverse))

    def _cell_logits(
        self, obs: torch.Tensor, context: torch.Tensor, cells: torch.Tensor
    ) -> torch.Tensor:
        pending = self._field(obs, "pending")[:, 0]  # observer's won parts
        selected = (pending[:, :, :1] * pending[:, :, 1:]).sum(dim=1)
        cond = self.cell_context(torch.cat([context, selected], dim=1))[:, :, None, None]
        hidden = torch.relu(cells + cond)
        # the 1x1 convolution `cell_out` as a weighted sum: half its cost in mkldnn
        weight = self.cell_out.weight.view(1, -1, 1, 1)
        return (hidden * weight).sum(dim=1).flatten(1) + self.cell_out.bias

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if not torch.is_grad_enabled() and obs.device.type == "cpu":
            return self._cached_forward(obs)
        features, ships = self.observation.features_and_ships(obs)
        return self._heads(obs, features, self._distinct_install_logits, ships)

    def _heads(
        self, obs: torch.Tensor, features: torch.Tensor, install: Any, *args: Any
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits and value latent from the features; `install(obs, context, *args)` gives
        the install logits."""
        context = self.trunk(features)
        rest = self.rest(context)
        logits = torch.cat(
            [
                self._bid_logits(obs, context),
                rest[:, : self.num_parts],
                install(obs, context, *args),
                rest[:, self.num_parts :],
            ],
            dim=1,
        )
        return logits, self.value(features)

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
        return self._heads(obs, features, self._cached_install_logits, own, planes[:: o.num_seats])

    def _cached_install_logits(
        self, obs: torch.Tensor, context: torch.Tensor, own: list[ShipEntry], planes: torch.Tensor
    ) -> torch.Tensor:
        """`_install_logits`, the 1x1 convolution `cell` run once per own ship grid the cache
        has not seen (entries hold it, keyed with the CNN's and `cell`'s weights)."""
        missing = {id(entry): i for i, entry in enumerate(own) if entry.cells is None}
        if missing:
            rows = list(missing.values())
            maps = torch.stack([own[i].maps for i in rows])
            for i, cells in zip(rows, self.cell(torch.cat([maps, planes[rows]], 1)), strict=True):
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


def save_policy(
    state_dict: Mapping[str, torch.Tensor], config: Mapping[str, Any], path: Path
) -> None:
    """Write the actor's weights and config atomically (temp file, then rename)."""
    actor = {
        k: v.detach().cpu().clone() for k, v in state_dict.items() if k.startswith(ACTOR_PREFIXES)
    }
    payload = {
        "format": POLICY_FORMAT,
        "version": POLICY_VERSION,
        "config": dict(config),
        "state_dict": actor,
    }
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(payload, tmp)
    tmp.replace(path)


class PolicyConfig(msgspec.Struct):
    """What a policy file must say about its network; unknown keys (provenance such as
    trained_steps or opponents) are kept but not used to build anything."""

    layout: dict[str, tuple[Index, Index, Annotated[list[Width], msgspec.Meta(max_length=4)]]]
    obs_size: Annotated[int, msgspec.Meta(ge=1, le=MAX_OBSERVATION)]
    action_size: Annotated[int, msgspec.Meta(ge=1, le=MAX_ACTIONS)]
    embed: Width
    ship_features: Width
    arch: Literal["flat", "structured"] = "flat"
    hidden: Width = 256
    vf: Width = 128
    pi: Annotated[list[Width], msgspec.Meta(max_length=8)] = msgspec.field(default_factory=list)
    name: Annotated[str, msgspec.Meta(max_length=200)] = "policy"


def _check_layout(config: PolicyConfig) -> None:
    """Every field's slice lies inside the observation and matches its shape."""
    if len(config.layout) > 64:
        raise ValueError("layout has more than 64 fields")
    for name, (start, stop, shape) in config.layout.items():
        if not 0 <= start < stop <= config.obs_size or math.prod(shape) != stop - start:
            raise ValueError(
                f"layout field {name!r} ({start}:{stop}, shape {shape}) does not fit an "
                f"observation of {config.obs_size}"
            )
    missing = {"ships", "station", "missions", "bids", "own_hand", "pending", "deck"} - set(
        config.layout
    )
    if missing:
        raise ValueError(f"layout lacks {sorted(missing)}")
    if len(config.layout["ships"][2]) != 4:
        raise ValueError("layout field 'ships' must have 4 dimensions (seat, plane, row, col)")


def validated_config(raw: Any) -> dict[str, Any]:
    """The network fields of a file's policy config (defaults filled in), every field type-
    and range-checked (ValueError)."""
    arch = raw.get("arch", "flat") if isinstance(raw, dict) else None
    if isinstance(arch, str) and arch not in ARCHITECTURES:
        raise ValueError(f"unknown architecture {arch!r}; expected one of {ARCHITECTURES}")
    try:
        config = msgspec.convert(raw, PolicyConfig)
    except msgspec.ValidationError as exc:
        raise ValueError(f"bad policy config: {exc}") from exc
    _check_layout(config)
    return msgspec.to_builtins(config)


def parameter_count(config: Mapping[str, Any]) -> int:
    """Parameters the config's network would have, counted without allocating them."""
    with torch.device("meta"):
        return sum(p.numel() for p in PolicyNet(config).parameters())


#: How every file torch.save writes (a zip archive) begins.
ZIP_MAGIC = b"PK\x03\x04"


def _load_failure(exc: Exception) -> str:
    """Why torch could not load a file, in a few words. Never torch's own advice for an
    unpickling refusal, which suggests weights_only=False: a policy file never needs it."""
    if isinstance(exc, pickle.UnpicklingError):
        return "it holds more than tensors and plain values, the only kind loaded"
    if isinstance(exc, EOFError):
        return "the file is cut short"
    first = str(exc).split(". ")[0].splitlines()[0] if str(exc) else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def load_policy(path: str | Path) -> tuple[PolicyNet, dict[str, Any]]:
    """Load a saved policy; a foreign, corrupt or oversized file raises ValueError saying what
    is wrong. The file is at most MAX_POLICY_BYTES, its network at most MAX_PARAMETERS."""
    library_default()  # one torch thread unless chosen (agents/torch_threads.py)
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no policy file at {path}")
    if path.stat().st_size > MAX_POLICY_BYTES:
        raise ValueError(f"{path}: larger than {MAX_POLICY_BYTES} bytes; not a policy file")
    with path.open("rb") as fh:
        if fh.read(len(ZIP_MAGIC)) != ZIP_MAGIC:
            raise ValueError(
                f"{path}: not a loadable policy file (not a PyTorch file: policy files are "
                "the policy.pt that farlight train writes)"
            )
    try:
        check_torch_archive(path, MAX_POLICY_BYTES)
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - torch raises many kinds on bad files
        raise ValueError(f"{path}: not a loadable policy file ({_load_failure(exc)})") from exc
    if not isinstance(payload, dict) or payload.get("format") != POLICY_FORMAT:
        raise ValueError(f"{path}: not a Farlight policy (expected format {POLICY_FORMAT!r})")
    if payload.get("version") != POLICY_VERSION:
        raise ValueError(
            f"{path}: policy version {payload.get('version')!r}, expected {POLICY_VERSION}"
        )
    config = payload.get("config")
    try:
        network = validated_config(config)
        count = parameter_count(network)
        if count > MAX_PARAMETERS:
            raise ValueError(f"its network has {count:,} parameters, more than {MAX_PARAMETERS:,}")
        net = PolicyNet(network)
    except (KeyError, TypeError, ValueError, IndexError, RuntimeError) as exc:
        raise ValueError(f"{path}: {exc}") from exc
    state = payload.get("state_dict")
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()):
        raise ValueError(f"{path}: state_dict must map names to tensors")
    try:
        net.load_state_dict(state, strict=True)
    except (RuntimeError, KeyError, TypeError) as exc:
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise ValueError(f"{path}: weights do not match the policy config: {first}") from exc
    net.eval()
    return net, config


class PolicyAgent:
    """Plays a saved policy: the most probable legal action (or a sample, if stochastic)."""

    def __init__(
        self, path: str | Path = SHIPPED_POLICY, seed: int | None = None, deterministic: bool = True
    ) -> None:
        self.path = Path(path)
        self.net, self.config = load_policy(self.path)
        self.name = str(self.config.get("name", self.path.stem))
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)

    def reset(self) -> None:
        """Stateless between games."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        logits = self.logits(observation, action_mask)
        if self.deterministic:
            return int(np.argmax(logits))
        probs = np.exp(logits - logits.max())
        probs /= probs.sum()
        return int(self.rng.choice(len(probs), p=probs))

    def logits(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The network's logits for one position, illegal actions at -inf (float64)."""
        self._check_shapes(len(observation), len(action_mask))
        with torch.no_grad():
            logits = self.net(torch.as_tensor(observation, dtype=torch.float32)[None])[0]
        logits = logits.numpy().astype(np.float64)
        logits[np.asarray(action_mask) == 0] = -np.inf
        return logits

    def best_moves(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """The favourite legal action of each row, in one network call (search play-outs)."""
        self._check_shapes(observations.shape[1], action_masks.shape[1])
        with torch.no_grad():
            logits = self.net(torch.as_tensor(observations, dtype=torch.float32)).numpy()
        return np.where(action_masks != 0, logits, -np.inf).argmax(axis=1)

    def _check_shapes(self, observation_size: int, actions: int) -> None:
        size = self.config["action_size"]
        if actions != size or observation_size != self.config["obs_size"]:
            raise ValueError(
                f"policy {self.path.name} expects observations of {self.config['obs_size']} and "
                f"{size} actions; got {observation_size} and {actions} (another card "
                "set or grid size?)"
            )
