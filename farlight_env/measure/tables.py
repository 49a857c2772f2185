"""Right-aligned text tables, the form every measurement prints in the terminal."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class SeatShares(Protocol):
    """A report with each seat's share of victories (Farlight's and any game's statistics)."""

    @property
    def num_players(self) -> int: ...

    @property
    def seat_win_share(self) -> tuple[float, ...]: ...


def text_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """Right-aligned text columns with a rule under the header."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    lines = ["  ".join(h.rjust(w) for h, w in zip(header, widths, strict=True))]
    lines.append("  ".join("-" * w for w in widths))
    lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    return "\n".join(line.rstrip() for line in lines)


def format_seat_table(reports: Sequence[SeatShares]) -> str:
    """Share of victories per seat (seat 0 moves first in round 1), one row per report."""
    if not reports:
        raise ValueError("need at least one report")
    seats = max(rep.num_players for rep in reports)
    header = ["players", *(f"seat {i}" for i in range(seats))]
    rows = [
        [
            str(rep.num_players),
            *(f"{rep.seat_win_share[i]:.1%}" if i < rep.num_players else "" for i in range(seats)),
        ]
        for rep in reports
    ]
    return text_table(header, rows)
