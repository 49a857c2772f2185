"""Learning-curve pictures of training runs, redrawn after every evaluation or snapshot.

Legends sit outside the axes, never over the curves, and name agents briefly (policy paths
by file name); files are written whole (temp + rename).
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CURVE = "learning_curve.png"
STEP = "time/total_timesteps"
WIN_RATE_PREFIX = "eval/win_rate_vs_"
EPISODE_RETURN = "rollout/ep_rew_mean"
#: One colour per player count, the same in every picture.
SEAT_COLORS = {2: "#55A868", 3: "#C44E52", 4: "#8172B3", 5: "#937860"}


def _figure(width: float, height: float) -> Any:
    """A figure outside pyplot: drawing a file never changes a notebook's backend."""
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height))


def _save(fig: Any, path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp.png")
    fig.savefig(tmp, dpi=100, bbox_inches="tight")
    os.replace(tmp, path)


def _number(text: str | None) -> float | None:
    try:
        value = float(text or "")
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def progress_series(csv_path: Path) -> dict[str, list[tuple[float, float]]]:
    """(step, value) per logged column of a run's progress.csv, in file order."""
    series: dict[str, list[tuple[float, float]]] = {}
    if not csv_path.is_file():
        return series
    with csv_path.open(newline="") as fh:
        for row in csv.DictReader(fh):
            step = _number(row.get(STEP))
            if step is None:
                continue
            for key, text in row.items():
                value = _number(text)
                if key and key != STEP and value is not None:
                    series.setdefault(key, []).append((step, value))
    return series


def opponent_labels(names: Sequence[str]) -> dict[str, str]:
    """Short, distinct legend labels for evaluation opponents: a policy path by its file name
    (as tournament tables show it), a per-player-count suffix '_3p' kept as ', 3p'."""
    import re

    from evaluation.tournament import short_labels

    split = {n: re.fullmatch(r"(.+)_([2-5])p", n) for n in names}
    bases = [m.group(1) if m else n for n, m in split.items()]
    short = short_labels(list(dict.fromkeys(bases)))
    return {n: f"{short[m.group(1)]}, {m.group(2)}p" if m else short[n] for n, m in split.items()}


def plot_ppo_curve(run_dir: Path) -> Path:
    """Win rate against each evaluation opponent, and the mean episode return, over steps."""
    run_dir = Path(run_dir)
    series = progress_series(run_dir / "logs" / "progress.csv")
    fig = _figure(11, 4)
    rates, returns = fig.subplots(1, 2)
    keys = sorted(k for k in series if k.startswith(WIN_RATE_PREFIX))
    labels = opponent_labels([k[len(WIN_RATE_PREFIX) :] for k in keys])
    for key in keys:
        steps, values = zip(*series[key], strict=True)
        rates.plot(steps, values, "o-", label=f"vs {labels[key[len(WIN_RATE_PREFIX) :]]}")
    rates.set_ylim(-0.02, 1.02)
    rates.set_xlabel("training steps")
    rates.set_ylabel("win rate (evaluation games)")
    if keys:  # below the axes, short names (the full ones are in progress.csv)
        rates.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize="small")
    else:
        rates.text(0.5, 0.5, "no evaluation yet", ha="center", va="center")
    if EPISODE_RETURN in series:
        steps, values = zip(*series[EPISODE_RETURN], strict=True)
        returns.plot(steps, values, "-", color="#4C72B0")
    returns.set_xlabel("training steps")
    returns.set_ylabel("mean episode return (last 100)")
    fig.suptitle(f"{run_dir.name}: learning curve")
    fig.tight_layout()
    path = run_dir / CURVE
    _save(fig, path)
    return path


def plot_league_curve(history: Sequence[dict[str, Any]], path: Path) -> None:
    """Snapshot ratings (mu ± sigma) and win rate against the heuristic over steps."""
    steps = [h["steps"] for h in history]
    fig = _figure(9, 4)
    ax1 = fig.subplots()
    ax1.errorbar(
        steps,
        [h["rating_mu"] for h in history],
        yerr=[h["rating_sigma"] for h in history],
        fmt="o-",
        color="#4C72B0",
        label="snapshot rating (mu ± sigma)",
    )
    ax1.set_xlabel("training steps")
    ax1.set_ylabel("OpenSkill rating")
    ax2 = ax1.twinx()
    ax2.plot(
        steps,
        [h["win_rate_vs_heuristic"] for h in history],
        "s--",
        color="#DD8452",
        label="win rate vs heuristic",
    )
    for seats, color in SEAT_COLORS.items():
        key = f"win_rate_vs_heuristic_{seats}p"  # runs over several player counts
        points = [(h["steps"], h[key]) for h in history if key in h]
        if points:
            xs, ys = zip(*points, strict=True)
            ax2.plot(xs, ys, ":", color=color, label=f"vs heuristic, {seats} players")
    ax2.set_ylim(0, 1)
    ax2.set_ylabel("win rate vs heuristic")
    handles = ax1.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
    labels = ax1.get_legend_handles_labels()[1] + ax2.get_legend_handles_labels()[1]
    # Below the axes: a legend inside would sit on the curves sooner or later.
    fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0), ncol=3)
    fig.tight_layout()
    _save(fig, path)


@dataclass(frozen=True)
class Stage:
    """One run of a chain of runs (each started --init-from the previous one's checkpoint),
    used up to `until` steps (the checkpoint the next stage started from)."""

    label: str
    run_dir: Path
    until: int | None = None


#: Columns holding a run's evaluations against the heuristic per player count: PPO runs log
#: eval/…, league runs log league/… at each snapshot.
STAGE_RATE_PREFIXES = ("eval/win_rate_vs_heuristic_", "league/win_rate_vs_heuristic_")


def stage_rates(stage: Stage) -> dict[int, list[tuple[float, float]]]:
    """A stage's (step, win rate vs heuristic) per player count, cut at `until`."""
    series = progress_series(Path(stage.run_dir) / "logs" / "progress.csv")
    rates: dict[int, list[tuple[float, float]]] = {}
    for key, points in series.items():
        for prefix in STAGE_RATE_PREFIXES:
            if key.startswith(prefix) and key[len(prefix) :] in {"2p", "3p", "4p", "5p"}:
                seats = int(key[len(prefix)])
                kept = [(s, v) for s, v in points if stage.until is None or s <= stage.until]
                rates.setdefault(seats, []).extend(kept)
    return {seats: sorted(points) for seats, points in rates.items()}


def rolling_mean(values: Sequence[float], width: int) -> list[float]:
    """Mean of each value and up to width - 1 before it: small evaluations are noisy."""
    return [
        sum(values[max(0, i - width + 1) : i + 1]) / (i + 1 - max(0, i - width + 1))
        for i in range(len(values))
    ]


def plot_stage_curves(stages: Sequence[Stage], path: Path) -> Path:
    """Training evaluations against the heuristic per player count over a chain of runs, on
    one step axis (each stage offset by the steps before it), stages shaded and named."""
    fig = _figure(11, 4.5)
    ax = fig.subplots()
    offset = 0.0
    merged: dict[int, list[tuple[float, float]]] = {}
    for index, stage in enumerate(stages):
        rates = stage_rates(stage)
        end = stage.until or max((s for pts in rates.values() for s, _ in pts), default=0.0)
        if index % 2:
            ax.axvspan(offset, offset + end, color="#EEEEEE", zorder=0)
        ax.text(offset + end / 2, 0.03, stage.label, ha="center", va="bottom", fontsize="small")
        for seats, points in rates.items():
            merged.setdefault(seats, []).extend((offset + s, v) for s, v in points)
        offset += end
    for seats, color in SEAT_COLORS.items():
        if merged.get(seats):
            xs, ys = zip(*merged[seats], strict=True)
            ax.plot(xs, ys, "o", color=color, markersize=3, alpha=0.35)
            ax.plot(xs, rolling_mean(ys, 3), "-", color=color, label=f"{seats} players")
    ax.set_ylim(0, 1.02)
    ax.set_xlim(0, max(offset, 1.0))
    ax.set_xlabel("training steps, all stages")
    ax.set_ylabel("win rate vs heuristics\n(training evaluations; line: mean of 3)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=4, fontsize="small")
    fig.tight_layout()
    _save(fig, Path(path))
    return Path(path)
