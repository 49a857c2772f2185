"""Auction diagnostics per agent: the per-seat counters of `farlight_env.tools.auction` summed
over a tournament's (or an evaluation's) game records, the rates derived from them, the table
`farlight tournament --diagnostics` prints and the picture auction_diagnostics.png.

Definitions: docs/auction_diagnostics.md. Everything here is read from the records after the
games (public once a game is over), never from a live game.
"""

from __future__ import annotations

import os
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from farlight_env.tools.auction import COUNTERS, KINDS, seat_auctions

__all__ = ["agent_diagnostics", "diagnostics_line", "format_diagnostics", "plot_diagnostics"]

#: Each rate: (numerator counter(s), denominator counter(s)); None when the denominator is 0.
RATES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    **{f"{k}.win_rate": ((f"{k}.won",), (f"{k}.targets",)) for k in KINDS},
    **{f"{k}.overbid_rate": ((f"{k}.overbids",), (f"{k}.won",)) for k in KINDS},
    **{f"{k}.mean_price": ((f"{k}.price",), (f"{k}.won",)) for k in KINDS},
    "overbid_rate": (tuple(f"{k}.overbids" for k in KINDS), tuple(f"{k}.won" for k in KINDS)),
    "overbid_excess": (
        tuple(f"{k}.overbid_excess" for k in KINDS),
        tuple(f"{k}.overbids" for k in KINDS),
    ),
    "part.mean_points": (("part.mission_points",), ("part.won",)),
    "part.kept_rate": (("part.kept",), ("part.won",)),
    "mission.mean_points": (("mission.points",), ("mission.won",)),
    "ticket_share": (("zero.tickets",), tuple(f"{k}.tiles" for k in KINDS)),
    "bluff_share": (("zero.bluffs",), tuple(f"{k}.tiles" for k in KINDS)),
    "top_win_rate": (("top.won",), ("top.rounds",)),
}


def agent_diagnostics(
    records: Iterable[Mapping[str, Any]], agents: Sequence[str] | None = None
) -> dict[str, dict[str, Any]]:
    """Per agent name (`record["players"]`; an agent in several seats counts each seat):
    {"seats": seats played, "counters": sums of every COUNTERS entry, "rates": RATES}.

    `agents` fixes the names and their order (an agent with no seat gets zeros); by default
    every name in the records, in order of first appearance.
    """
    sums: dict[str, dict[str, float]] = {}
    seats: dict[str, int] = {}
    for name in agents or ():
        sums[name] = dict.fromkeys(COUNTERS, 0)
        seats[name] = 0
    for record in records:
        for name, counters in zip(record["players"], seat_auctions(record), strict=True):
            if agents is not None and name not in sums:
                continue
            total = sums.setdefault(name, dict.fromkeys(COUNTERS, 0))
            seats[name] = seats.get(name, 0) + 1
            for key, value in counters.items():
                total[key] += value
    return {
        name: {"seats": seats[name], "counters": total, "rates": _rates(total)}
        for name, total in sums.items()
    }


def _rates(counters: Mapping[str, float]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for name, (top, bottom) in RATES.items():
        denominator = sum(counters[c] for c in bottom)
        out[name] = sum(counters[c] for c in top) / denominator if denominator else None
    return out


# ----------------------------------------------------------------------------- the table
def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


#: Table columns: (header, width, cell of a diagnostics block).
_COLUMNS: tuple[tuple[str, int, Any], ...] = (
    ("seats", 5, lambda d: str(d["seats"])),
    ("tiles P/F/M", 14, lambda d: "/".join(str(int(d["counters"][f"{k}.tiles"])) for k in KINDS)),
    ("won P", 5, lambda d: _pct(d["rates"]["part.win_rate"])),
    ("won F", 5, lambda d: _pct(d["rates"]["facility.win_rate"])),
    ("won M", 5, lambda d: _pct(d["rates"]["mission.win_rate"])),
    ("overbid", 7, lambda d: _pct(d["rates"]["overbid_rate"])),
    ("price P", 7, lambda d: _num(d["rates"]["part.mean_price"])),
    ("pts/P", 5, lambda d: _num(d["rates"]["part.mean_points"])),
    ("kept P", 6, lambda d: _pct(d["rates"]["part.kept_rate"])),
    ("price M", 7, lambda d: _num(d["rates"]["mission.mean_price"])),
    ("pts/M", 5, lambda d: _num(d["rates"]["mission.mean_points"])),
    ("ticket", 6, lambda d: _pct(d["rates"]["ticket_share"])),
    ("bluff", 5, lambda d: _pct(d["rates"]["bluff_share"])),
    ("top won", 7, lambda d: _pct(d["rates"]["top_win_rate"])),
)


def format_diagnostics(diagnostics: Mapping[str, Mapping[str, Any]]) -> str:
    """One row per agent; the key below the table says what each column is."""
    from evaluation.tournament.ratings import short_labels

    labels = short_labels(list(diagnostics))
    width = max([5, *map(len, labels.values())])
    header = f"{'agent':<{width}} " + " ".join(f"{h:>{w}}" for h, w, _ in _COLUMNS)
    lines = ["auction diagnostics (docs/auction_diagnostics.md)", header, "-" * len(header)]
    for name, block in diagnostics.items():
        cells = " ".join(f"{cell(block):>{w}}" for _, w, cell in _COLUMNS)
        lines.append(f"{labels[name]:<{width}} {cells}")
    lines += textwrap.wrap(
        "P/F/M: part, facility, mission. won: targets won of those bid on (a mission: completed "
        "first). overbid: wins a lower bid would also have won. price: mean bid (tiles + crew) "
        "per win; pts/P: points of missions a won part was needed for; pts/M: points per "
        "mission won. kept P: won parts on the ship at the end. ticket/bluff: lone 0s on "
        "missions / other 0s without crew, per tile. top won: rounds it won the target it bid "
        "most on.",
        width=len(header),
    )
    lines += [f"  {label} = {name}" for name, label in labels.items() if label != name]
    return "\n".join(lines)


def diagnostics_line(block: Mapping[str, Any]) -> str:
    """One line of a diagnostics block, for the scorecard's printout."""
    r = block["rates"]
    won = ", ".join(f"{k} {_pct(r[f'{k}.win_rate'])}" for k in KINDS)
    return (
        f"auction: won {won}; overbid {_pct(r['overbid_rate'])}; tiles: lone-0 tickets "
        f"{_pct(r['ticket_share'])}, bluffs {_pct(r['bluff_share'])}; top bid won "
        f"{_pct(r['top_win_rate'])}"
    )


# ----------------------------------------------------------------------------- the picture
def plot_diagnostics(
    diagnostics: Mapping[str, Mapping[str, Any]], path: Path, title: str, labels: Sequence[str]
) -> None:
    """`diagnostics_figure` saved to `path` whole (a temporary file, then renamed)."""
    fig = diagnostics_figure(diagnostics, title, labels)
    tmp = path.with_name(path.name + ".tmp.png")
    fig.savefig(tmp, dpi=100, bbox_inches="tight")
    os.replace(tmp, path)


def diagnostics_figure(
    diagnostics: Mapping[str, Mapping[str, Any]], title: str, labels: Sequence[str]
) -> Any:
    """Three panels per agent: win rate per target kind; overbid rate, lone-0 ticket and bluff
    shares and top-bid win rate; mean price against mean points per won part and mission.

    `labels` names the agents in the picture (in the order of `diagnostics`). Each legend sits
    above its panel, clear of the bars. Drawn on a Figure outside pyplot (as plot_summary), so
    saving never changes a notebook's backend.
    """
    from matplotlib.figure import Figure

    blocks = list(diagnostics.values())
    x = np.arange(len(blocks))
    fig = Figure(figsize=(13, 4.2))
    axes = fig.subplots(1, 3)

    def bars(ax: Any, series: list[tuple[str, list[float | None]]], ylabel: str) -> None:
        width = 0.8 / len(series)
        for i, (name, values) in enumerate(series):
            heights = [np.nan if v is None else v for v in values]
            ax.bar(x + (i - (len(series) - 1) / 2) * width, heights, width * 0.95, label=name)
        ax.set_xticks(x, labels, rotation=30, ha="right")
        ax.set_ylabel(ylabel)
        ax.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)

    def rate(name: str) -> list[float | None]:
        return [b["rates"][name] for b in blocks]

    bars(axes[0], [(k, rate(f"{k}.win_rate")) for k in KINDS], "targets won / targets bid on")
    axes[0].set_ylim(0, 1)
    shares = [
        ("overbid", rate("overbid_rate")),
        ("lone-0 ticket", rate("ticket_share")),
        ("bluff 0", rate("bluff_share")),
        ("wins top bid", rate("top_win_rate")),
    ]
    bars(axes[1], shares, "share")
    axes[1].set_ylim(0, 1)
    value = [
        ("part: price", rate("part.mean_price")),
        ("part: points", rate("part.mean_points")),
        ("mission: price", rate("mission.mean_price")),
        ("mission: points", rate("mission.mean_points")),
    ]
    bars(axes[2], value, "per item won: bid (tiles + crew), points")
    fig.suptitle(title, y=1.04)
    fig.tight_layout()
    return fig
