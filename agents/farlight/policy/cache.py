"""Ship-grid caching for the policy networks: distinct rows of a batch (exact, by a random
projection checked row by row) and the inference cache of ship CNN maps."""

from __future__ import annotations

import functools
import hashlib
from typing import NamedTuple

import torch
from torch import nn

from agents.farlight.policy.reach import ReachMaps

#: Seed of the fixed random projection that hashes ship grids (not the training RNG's).
ROW_HASH_SEED = 20_251_123


@functools.cache
def _row_hash_weights(width: int, dtype: torch.dtype, device: torch.device) -> torch.Tensor:
    generator = torch.Generator().manual_seed(ROW_HASH_SEED)
    weights = torch.rand(width, generator=generator, dtype=torch.float64) + 0.5
    return weights.to(device=device, dtype=dtype)


#: Bytes of rows compared at a time when checking groups (temporaries stay in cache).
CHECK_BYTES = 1 << 20


#: Attribute a minibatch's observations may carry (training.farlight.sb3.policy's buffer sets it): a
#: (batch, seat) int64 tensor naming each seat's ship grid, equal ids exactly for equal grids,
#: and never one id for two grids within a run (each rollout takes ids not given before).
SHIP_IDS = "ship_ids"


def distinct_rows(
    rows: torch.Tensor, ids: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """(first, inverse) with rows == rows[first][inverse], first holding one index per distinct
    row (its first occurrence). Rows are grouped by a random projection (float32, else float64
    if two rows collide) and every group is checked, so the result is exact whatever the values.
    `rows` is (n, width) or (batch, seat, width), read as batch * seat rows: a strided view of
    the observations' ship planes is neither copied nor gathered whole. A row equal to the same
    seat's row one observation before joins that row's group without hashing: consecutive steps
    of one game repeat most ships. `ids` (batch, seat), if given, names the rows exactly (equal
    ids for equal rows, as the buffer finds them once per rollout): they are grouped by id."""
    if ids is not None:
        return _distinct_ids(ids.flatten())
    table = rows.detach() if rows.dim() == 3 else rows.detach()[:, None]
    batch, seats = table.shape[0], table.shape[1]
    count = batch * seats
    device = table.device
    with torch.no_grad():
        head = _run_heads(table)  # each row's earliest equal row in its seat's run
        heads = torch.unique(head)  # sorted: the first row of each run
        head_rows = gather_rows(table, heads).view(len(heads), 1, -1)
        for dtype in (torch.float32, torch.float64):
            weights = _row_hash_weights(table.shape[2], dtype, device)
            # a product and a sum along each row: equal rows get equal keys (`torch.mv` rounds
            # rows differently by their place in the matrix and split half the batches)
            keys = (head_rows[:, 0].to(dtype) * weights).sum(dim=1)
            unique, inverse = torch.unique(keys, return_inverse=True)
            first = _first_rows(inverse, heads, len(unique), count)
            if _rows_equal(head_rows, torch.searchsorted(heads, first[inverse])):
                # a group's first row heads a run, so these equal grouping every row alone
                return first, inverse[torch.searchsorted(heads, head)]
    every = torch.arange(count, device=device)
    return every, every


def _distinct_ids(ids: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """`distinct_rows` of rows named by `ids` (equal ids, equal rows)."""
    unique, inverse = torch.unique(ids, return_inverse=True)
    rows = torch.arange(ids.shape[0], device=ids.device)
    return _first_rows(inverse, rows, len(unique), ids.shape[0]), inverse


def _first_rows(groups: torch.Tensor, rows: torch.Tensor, count: int, end: int) -> torch.Tensor:
    """For each of `count` groups, the smallest of `rows` whose entry of `groups` names it
    (`end` for a group none names)."""
    first = torch.full((count,), end, dtype=torch.long, device=rows.device)
    return first.scatter_reduce_(0, groups, rows, reduce="amin")


def _run_heads(table: torch.Tensor) -> torch.Tensor:
    """For each of the batch * seat rows, the row that starts its run: the earliest row of the
    same seat from which every observation up to this one holds an equal row."""
    batch, seats = table.shape[0], table.shape[1]
    start = torch.ones(batch, seats, dtype=torch.bool, device=table.device)
    if batch > 1:
        start[1:] = ~(table[1:] == table[:-1]).all(dim=2)
    index = torch.arange(batch * seats, device=table.device).view(batch, seats)
    return torch.where(start, index, 0).cummax(dim=0).values.flatten()


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
    distinct grids' `maps` (n, C, row, col; or held compactly, `reach.ReachMaps`; None when
    not computed) and input `planes`, and `own`, each observation's row of seat 0 (the
    observer) among them."""

    pooled: torch.Tensor
    maps: torch.Tensor | ReachMaps | None
    planes: torch.Tensor
    own: torch.Tensor

    def maps_of(self, grids: torch.Tensor) -> torch.Tensor:
        """The maps (len(grids), C, row, col) of distinct grids `grids`."""
        if isinstance(self.maps, ReachMaps):
            return self.maps.select(grids)
        assert self.maps is not None, "maps were not computed for this batch"
        return self.maps.index_select(0, grids)

    def pointwise(self, grids: torch.Tensor, conv: nn.Conv2d) -> torch.Tensor:
        """A 1x1 convolution `conv` over [maps; planes] at every cell of distinct grids `grids`
        (repeats allowed): (len(grids), row * col, out), cells as rows."""
        if isinstance(self.maps, ReachMaps):
            return self.maps.pointwise(grids, conv)
        assert self.maps is not None, "maps were not computed for this batch"
        unique, inverse = torch.unique(grids, return_inverse=True)
        planes = self.planes.index_select(0, unique)
        planes = planes.permute(0, 2, 3, 1).reshape(len(unique), -1, planes.shape[1])
        inputs = torch.cat([self.rows_of(unique), planes], dim=2)
        cells = nn.functional.linear(inputs, conv.weight.flatten(1), conv.bias)
        return cells.index_select(0, inverse)

    def rows_of(self, grids: torch.Tensor) -> torch.Tensor:
        """The same maps as rows, one per cell in row-major order: (len(grids), row * col, C)."""
        if isinstance(self.maps, ReachMaps):
            return self.maps.rows_of(grids)
        assert self.maps is not None, "maps were not computed for this batch"
        maps = self.maps.index_select(0, grids)
        return maps.permute(0, 2, 3, 1).reshape(len(grids), -1, maps.shape[1])


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
        #: Whether grids the cache misses are computed one at a time, so that an entry depends
        #: on its grid alone: oneDNN rounds a grid's convolution differently in a batch of one
        #: than among others, so batched misses make a network's outputs depend on which grids
        #: it met before. Played policies (`load_policy`) set it, so one network may serve many
        #: games; training's rollouts and the rollout agent's play-outs batch them (faster).
        self.one_at_a_time = False

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
            rows = list(missing.values())
            if self.one_at_a_time:
                maps = torch.cat([cnn(planes[i : i + 1]) for i in rows])
            else:
                maps = cnn(planes[rows])
            for key, grid_maps, pooled in zip(missing, maps, pool_maps(maps), strict=True):
                self.entries[key] = ShipEntry(grid_maps, pooled)
        return [self.entries[key] for key in keys]

    def maps(self, cnn: nn.Module, planes: torch.Tensor) -> torch.Tensor:
        """cnn(planes), computed only for grids not seen with these weights."""
        return torch.stack([entry.maps for entry in self.lookup(cnn, planes)])


class PooledCache:
    """Pooled ship CNN features of the grids seen since the CNN's weights last changed, for
    training with the CNN frozen (`ObservationNet.distinct_ships`): each grid's CNN runs once,
    not once per minibatch and epoch. Grids are keyed by the ids a rollout buffer gave them
    (`SHIP_IDS`, unique within a run), else by a 128-bit BLAKE2 digest of their bytes (a full
    key would be a 13 kB grid; entries here are 0.25 kB)."""

    #: Entries kept at most (about 0.4 kB each with the key); then the cache starts afresh.
    LIMIT = 1 << 15

    def __init__(self) -> None:
        self.stamp: tuple[tuple[int, int], ...] = ()
        self.entries: dict[int | bytes, torch.Tensor] = {}

    def pooled(
        self, cnn: nn.Module, planes: torch.Tensor, names: torch.Tensor | None = None
    ) -> torch.Tensor:
        """pool_maps(cnn(planes)) for CPU `planes` (n, C, row, col), without a gradient; the CNN
        runs only on grids not seen with these weights. `names` (n,), if given, are the grids'
        run-wide ids (equal ids exactly for equal grids)."""
        stamp = tuple((p.data_ptr(), p._version) for p in cnn.parameters())
        if stamp != self.stamp or len(self.entries) > self.LIMIT:
            self.stamp, self.entries = stamp, {}
        keys: list[int] | list[bytes]
        if names is not None:
            keys = names.tolist()
        else:
            rows = planes.detach().flatten(1).numpy()
            keys = [hashlib.blake2b(row.tobytes(), digest_size=16).digest() for row in rows]
        entries = self.entries
        missing = {key: i for i, key in enumerate(keys) if key not in entries}
        if missing:
            with torch.no_grad():
                pooled = pool_maps(cnn(planes[list(missing.values())]))
            entries.update(zip(missing, pooled, strict=True))
        return torch.stack([entries[key] for key in keys])
