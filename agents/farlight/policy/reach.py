"""The ship CNN computed only where a ship can reach: two 3x3 convolutions see two cells
around each occupied cell, and everywhere else every grid's map is the blank grid's.

A distinct grid of a training minibatch has about 8.5 occupied cells of 169 and 57 within
two of them, so the two convolutions run as matrix products over those cells (the input and
the first layer's map gathered from compact tables), and the blank grid's map fills the rest.
Outputs and gradients are the dense CNN's up to float rounding (`tests/test_ship_reach.py`).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import torch
from torch import nn
from torch.nn import functional

#: Offsets of a 3x3 kernel's taps, in the weight's (row, col) order.
TAPS = tuple((dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1))


def reach_layers(cnn: nn.Module) -> tuple[nn.Conv2d, nn.Conv2d] | None:
    """The two convolutions of `cnn` if it is Conv3x3 (padding 1), ReLU, Conv3x3, ReLU, the
    shape whose reach is two cells; None for any other CNN (it then runs dense)."""
    layers = list(cnn.children()) if isinstance(cnn, nn.Sequential) else []
    if len(layers) != 4 or not all(isinstance(m, nn.ReLU) for m in layers[1::2]):
        return None
    convs = layers[0::2]
    for conv in convs:
        if not (
            isinstance(conv, nn.Conv2d)
            and conv.kernel_size == (3, 3)
            and conv.padding == (1, 1)
            and conv.stride == (1, 1)
            and conv.dilation == (1, 1)
            and conv.groups == 1
            and conv.bias is not None
            and conv.padding_mode == "zeros"
        ):
            return None
    return convs[0], convs[1]


@functools.cache
def _tap_offsets(padded: int, device: torch.device) -> torch.Tensor:
    """Each tap's offset in a flat grid of side `padded` (a grid with a border of one cell)."""
    return torch.tensor([dr * padded + dc for dr, dc in TAPS], device=device)


def _cells(mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """The cells set in `mask` (n, grid, grid), in order: their flat indices in the bordered
    frame (n, grid + 2, grid + 2), in the plain one (n * grid * grid), and their grids."""
    grids, rows, cols = mask.nonzero(as_tuple=True)
    grid = mask.shape[1]
    bordered = (grids * (grid + 2) + rows + 1) * (grid + 2) + cols + 1
    return bordered, (grids * grid + rows) * grid + cols, grids


def _rows_of(cells: torch.Tensor, n: int, grid: int, inside: int, border: int) -> torch.Tensor:
    """Bordered flat cell -> its row among `cells` (bordered indices); `inside` for the other
    cells of the grid, `border` for the border."""
    frame = torch.full((n, grid + 2, grid + 2), border, dtype=torch.long, device=cells.device)
    frame[:, 1:-1, 1:-1] = inside
    frame = frame.view(-1)
    frame[cells] = torch.arange(len(cells), device=cells.device)
    return frame


def _tap_rows(cells: torch.Tensor, row_of: torch.Tensor, grid: int) -> torch.Tensor:
    """(len(cells), 9): the table entry each of `cells` (bordered) reads under each tap: the
    neighbour's row (`row_of`) times 9, plus the tap (tables hold 9 per-tap blocks per row)."""
    offsets = _tap_offsets(grid + 2, cells.device)
    rows = row_of[cells[:, None] + offsets]
    return rows * len(TAPS) + torch.arange(len(TAPS), device=cells.device)


def _back_rows(
    cells_in: torch.Tensor, row_of_out: torch.Tensor, none: int, rows: int, grid: int
) -> torch.Tensor:
    """For each entry of a `rows`-row tap table whose first rows are `cells_in` (bordered): the
    output row it feeds (`row_of_out`; a row it gives past `none` counts as none), `none` (the
    zero row) for entries that feed no output and for the rows after `cells_in`. Tap (dr, dc)
    of cell c feeds cell c - (dr, dc), the neighbour under the reversed tap."""
    offsets = _tap_offsets(grid + 2, cells_in.device).flip(0)
    back = row_of_out[cells_in[:, None] + offsets].clamp_(max=none)  # rows past `none`: none
    pad = back.new_full((rows - len(cells_in), len(TAPS)), none)
    return torch.cat([back, pad]).flatten()


def _tap_weights(conv: nn.Conv2d) -> torch.Tensor:
    """A 3x3 convolution's weight as (in, taps * out): an input row times it gives what that
    cell adds to each neighbour, one block of `out` per tap."""
    return conv.weight.permute(1, 2, 3, 0).reshape(conv.in_channels, -1)


def _dilate(cells: torch.Tensor) -> torch.Tensor:
    """Cells (n, grid, grid), 1 or 0 -> 1 within one cell (8-neighbourhood) of a 1: the max of
    shifted copies, rows then columns (a third of `max_pool2d`'s time on these shapes)."""
    padded = functional.pad(cells, (1, 1, 1, 1))
    rows = torch.maximum(torch.maximum(padded[:, :-2], padded[:, 1:-1]), padded[:, 2:])
    return torch.maximum(torch.maximum(rows[:, :, :-2], rows[:, :, 1:-1]), rows[:, :, 2:])


class _GatherSum(torch.autograd.Function):
    """out[i] = sum over taps t of table[index[i, t]]: a convolution's taps summed from a table
    of per-tap contributions. Every entry of a table row that is a real cell feeds at most one
    output cell, so the backward gathers (`back`: each table entry's output row, or the
    appended zero row); only the blank cell's entries (row `blank`, if any) feed many, and sum."""

    @staticmethod
    def forward(ctx, table, index, back, blank):  # noqa: ANN001, ANN205 - autograd's signature
        ctx.save_for_backward(index, back)
        ctx.blank = blank
        out = table.index_select(0, index[:, 0])
        for tap in range(1, index.shape[1]):
            out += table.index_select(0, index[:, tap])
        return out

    @staticmethod
    def backward(ctx, grad):  # noqa: ANN001, ANN205
        index, back = ctx.saved_tensors
        table = torch.cat([grad, grad.new_zeros(1, grad.shape[1])]).index_select(0, back)
        if ctx.blank is not None:
            taps = index.shape[1]
            entries = ctx.blank * taps + torch.arange(taps, device=index.device)
            hits = (index == entries).to(grad.dtype)  # (out, taps)
            table[ctx.blank * taps : (ctx.blank + 1) * taps] = hits.t() @ grad
        return table, None, None, None


def _convolve(
    rows: torch.Tensor,
    conv: nn.Conv2d,
    taps: torch.Tensor,
    back: torch.Tensor,
    blank: int | None = None,
) -> torch.Tensor:
    """relu(conv) at the cells whose taps (`_tap_rows`) index `rows`, the input rows
    (blank and padding rows included); `back` and `blank` as `_GatherSum`'s."""
    contributions = (rows @ _tap_weights(conv)).view(-1, conv.out_channels)
    return torch.relu(_GatherSum.apply(contributions, taps, back, blank) + conv.bias)


class ReachMaps(NamedTuple):
    """The CNN maps of n grids, held compactly: `table` (R, C) holds the computed cells' rows,
    then the blank grid's map (grid * grid rows); `rows` (n, grid * grid) names each cell's row,
    `computed` the flat cell (of n * grid * grid) of each computed row, in ascending order.
    (Every non-zero input cell is a computed cell.)"""

    table: torch.Tensor
    rows: torch.Tensor
    computed: torch.Tensor
    grid: int
    #: The non-zero input cells: their planes (N0, in) and their rows in `table`.
    inputs: torch.Tensor
    input_rows: torch.Tensor

    def select(self, grids: torch.Tensor) -> torch.Tensor:
        """The maps of `grids` (k indices) as (k, C, grid, grid), channels-last in memory."""
        return self.rows_of(grids).view(len(grids), self.grid, self.grid, -1).permute(0, 3, 1, 2)

    def rows_of(self, grids: torch.Tensor) -> torch.Tensor:
        """The maps of `grids` (k indices) as rows: (k, grid * grid, C)."""
        return self._cells_of(self.table, grids)

    def _cells_of(self, values: torch.Tensor, grids: torch.Tensor) -> torch.Tensor:
        """Rows of `values` (one per row of `table`) for every cell of `grids`, as `rows_of`."""
        rows = self.rows.index_select(0, grids).flatten()
        return values.index_select(0, rows).view(len(grids), self.grid * self.grid, -1)

    def pointwise(self, grids: torch.Tensor, conv: nn.Conv2d) -> torch.Tensor:
        """A 1x1 convolution `conv` over [maps; input planes] at every cell of `grids` (k
        indices, repeats allowed): (k, grid * grid, out). Computed once per table row, the
        input planes' part only at the non-zero input cells."""
        width = self.table.shape[1]
        weight = conv.weight.flatten(1)
        values = self.table @ weight[:, :width].t()
        values = values.index_add(0, self.input_rows, self.inputs @ weight[:, width:].t())
        if conv.bias is not None:
            values = values + conv.bias
        return self._cells_of(values, grids)

    def pooled(self) -> torch.Tensor:
        """`cache.pool_maps` of every grid's maps: (n, 2C), mean then max over cells."""
        return _PoolRows.apply(self.table, self.rows, self.computed)


class _PoolRows(torch.autograd.Function):
    """Mean and max over each grid's cells of table rows (computed cells first, in the order of
    `rows`' flat positions, then the blank grid's), one pass each way: the backward hands each
    cell its mean share plus its max share split among tied cells as `amax`'s backward does,
    gathering computed cells' gradients and summing the blank cells', in float arithmetic
    throughout (torch's CPU comparisons and bool tensors cost several times a float op)."""

    @staticmethod
    def forward(ctx, table, rows, computed):  # noqa: ANN001, ANN205 - autograd's signature
        n, area = rows.shape
        cells = table.index_select(0, rows.flatten()).view(n, area, -1)
        top = cells.amax(dim=1)
        # 1 where a cell ties the max, else 0: x - max is 0 exactly when x == max, else < 0
        ties = torch.sub(cells, top[:, None]).sign_().add_(1)
        ctx.save_for_backward(computed, ties, ties.sum(dim=1))
        return torch.cat([cells.mean(dim=1), top], dim=1)

    @staticmethod
    def backward(ctx, grad):  # noqa: ANN001, ANN205
        computed, ties, count = ctx.saved_tensors
        n, area, width = ties.shape
        mean, top = grad[:, :width], grad[:, width:]
        cells = torch.addcmul((mean / area)[:, None], ties, (top / count)[:, None])
        cells = cells.view(-1, width)  # (a new tensor: the saved ties stay as they were)
        computed_grad = cells.index_select(0, computed)
        blank_grad = cells.index_fill_(0, computed, 0.0).view(n, area, width).sum(dim=0)
        return torch.cat([computed_grad, blank_grad]), None, None


def reach_maps(cnn: nn.Module, planes: torch.Tensor) -> ReachMaps:
    """`cnn(planes)` for the two-layer CNN of `reach_layers`, computed at the cells within two of
    a non-zero input cell only; the rest of every map is the blank grid's."""
    layers = reach_layers(cnn)
    if layers is None:
        raise ValueError("reach_maps needs Conv3x3, ReLU, Conv3x3, ReLU")
    first, second = layers
    n, channels, grid, _ = planes.shape
    area, device = grid * grid, planes.device
    with torch.no_grad():
        occupied = planes.abs().amax(dim=1) > 0  # a cell with any non-zero input
        near1 = _dilate(occupied.float())  # where the first layer differs from the blank's
        near2 = _dilate(near1)  # where the second does
        cells0, flat0, grids0 = _cells(occupied)
        cells1, _, _ = _cells(near1 > 0)
        cells2, flat2, _ = _cells(near2 > 0)
        # the first layer reads [occupied cells' input rows; zero row]
        rows0 = planes.view(n, channels, area)[grids0, :, flat0 % area]
        rows0 = torch.cat([rows0, rows0.new_zeros(1, channels)])
        zero0 = len(cells0)
        taps1 = _tap_rows(cells1, _rows_of(cells0, n, grid, zero0, zero0), grid)
        # the second reads [first layer's rows of cells1; blank cell; zero row (the border)]
        none1 = len(cells1)
        row_of1 = _rows_of(cells1, n, grid, none1, none1 + 1)
        back1 = _back_rows(cells0, row_of1, none1, zero0 + 1, grid)
        taps2 = _tap_rows(cells2, row_of1, grid)
        none2 = len(cells2)
        row_of2 = _rows_of(cells2, n, grid, none2, none2)
        back2 = _back_rows(cells1, row_of2, none2, none1 + 2, grid)
        # the output reads [second layer's rows of cells2; the blank grid's map]
        out_rows = none2 + torch.arange(n * area, device=device) % area
        out_rows[flat2] = torch.arange(none2, device=device)
        out_rows = out_rows.view(n, area)
    hidden1 = _convolve(rows0, first, taps1, back1)
    blank1 = torch.relu(first.bias)[None]
    rows1 = torch.cat([hidden1, blank1, torch.zeros_like(blank1)])
    hidden2 = _convolve(rows1, second, taps2, back2, blank=len(cells1))
    blank = cnn(planes.new_zeros(1, channels, grid, grid))  # (1, C, grid, grid)
    table = torch.cat([hidden2, blank.permute(0, 2, 3, 1).reshape(area, -1)])
    return ReachMaps(table, out_rows, flat2, grid, rows0[:-1], row_of2[cells0])
