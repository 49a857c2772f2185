"""A tournament's result and its files: results.json (reproducible), games.csv, summary.csv,
timing.json, the ratings plot and the auction diagnostics' plot."""

from __future__ import annotations

import csv
import io
import json
import os
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from evaluation.farlight.diagnostics import (
    agent_diagnostics,
    format_diagnostics,
    plot_diagnostics,
)
from evaluation.tournament.ratings import AgentSummary, format_table, short_labels
from farlight_env.untrusted.files import atomic_write


@dataclass
class TournamentResult:
    agents: list[str]
    num_players: int
    seed: int
    records: list[dict[str, Any]]
    summary: list[AgentSummary]
    _diagnostics: dict[str, dict[str, Any]] | None = field(default=None, repr=False)

    def table(self) -> str:
        return format_table(self.summary)

    def diagnostics(self) -> dict[str, dict[str, Any]]:
        """Auction diagnostics per agent (evaluation.farlight.diagnostics), from the records;
        computed once (it replays every game). Farlight's auction only: a tournament of
        another game has none (they move to the game's declaration with #50's layout)."""
        if self._diagnostics is None:
            names = list(dict.fromkeys(self.agents))
            farlight = all(r.get("format") == "farlight-record" for r in self.records)
            self._diagnostics = agent_diagnostics(self.records, names) if farlight else {}
        return self._diagnostics

    def diagnostics_table(self) -> str:
        return format_diagnostics(self.diagnostics())


def write_results(result: TournamentResult, out_dir: Path) -> dict[str, Path]:
    """results.json (reproducible: no timings; "diagnostics" holds the auction diagnostics per
    agent), games.csv, summary.csv, timing.json, ratings.png, auction_diagnostics.png."""
    out_dir.mkdir(parents=True, exist_ok=True)
    records = [{k: v for k, v in r.items() if k != "timing"} for r in result.records]
    summary = [
        {k: v for k, v in asdict(row).items() if k != "seconds_per_decision"}
        for row in result.summary
    ]
    payload = {
        "format": "farlight-tournament",
        "version": 1,
        "rule_options": records[0]["config"].get("rule_options") if records else None,
        "agents": result.agents,
        "num_players": result.num_players,
        "seed": result.seed,
        # every agent played sealed (agents.farlight.sealed): from its own process, redacted views
        # only
        "sealed": bool(records) and all(r.get("sealed", False) for r in records),
        "summary": summary,
        "diagnostics": result.diagnostics(),
        "games": records,
    }
    paths = {
        "results": out_dir / "results.json",
        "games": out_dir / "games.csv",
        "summary": out_dir / "summary.csv",
        "timing": out_dir / "timing.json",
        "plot": out_dir / "ratings.png",
        "diagnostics_plot": out_dir / "auction_diagnostics.png",
    }
    atomic_write(paths["results"], json.dumps(payload, indent=1, sort_keys=True))
    with io.StringIO(newline="") as fh:
        writer = csv.writer(fh)
        n = result.num_players
        writer.writerow(
            ["index", "env_seed", "game_seed", "rounds", "end_reason", "winners"]
            + [f"seat{s}_agent" for s in range(n)]
            + [f"seat{s}_score" for s in range(n)]
        )
        for r in records:
            writer.writerow(
                [
                    r["index"],
                    r["env_seed"],
                    r["game_seed"],
                    r.get("rounds", ""),
                    r.get("end_reason", ""),
                    " ".join(map(str, r["winners"])),
                ]
                + r["players"]
                + r["scores"]
            )
        atomic_write(paths["games"], fh.getvalue())
    with io.StringIO(newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(asdict(result.summary[0])))
        writer.writeheader()
        for row in result.summary:
            writer.writerow(asdict(row))
        atomic_write(paths["summary"], fh.getvalue())
    timing = {row.agent: row.seconds_per_decision for row in result.summary}
    atomic_write(paths["timing"], json.dumps(timing, indent=1, sort_keys=True))
    plot_summary(result.summary, paths["plot"], title=_title(result))
    diagnostics = result.diagnostics()
    order = [r.agent for r in sorted(result.summary, key=lambda r: -r.rating)]  # as ratings.png
    diagnostics = {name: diagnostics[name] for name in order if name in diagnostics}
    labels = short_labels(list(diagnostics))
    plot_diagnostics(
        diagnostics,
        paths["diagnostics_plot"],
        title=f"auction diagnostics: {_title(result)}",
        labels=[labels[name] for name in diagnostics],
    )
    return paths


def _title(result: TournamentResult) -> str:
    games = len(result.records)
    return f"{result.num_players}-player tournament, {games} games, seed {result.seed}"


def plot_summary(rows: Iterable[AgentSummary], path: Path, title: str) -> None:
    """Win rate with its 95% interval and rating (mu ± sigma) per agent, side by side.

    Drawn on a Figure outside pyplot, so saving a file never changes a notebook's backend.
    """
    from matplotlib.figure import Figure

    rows = sorted(rows, key=lambda r: -r.rating)
    labels = short_labels([r.agent for r in rows])
    names = [labels[r.agent] for r in rows]
    x = np.arange(len(rows))
    fig = Figure(figsize=(10, 4))
    ax1, ax2 = fig.subplots(1, 2)
    rates = np.array([r.win_rate for r in rows])
    err = np.array(
        [[r.win_rate - r.win_low for r in rows], [r.win_high - r.win_rate for r in rows]]
    )
    ax1.bar(x, rates, yerr=err, capsize=6, color="#4C72B0")
    ax1.set_xticks(x, names, rotation=30, ha="right")
    ax1.set_ylim(0, 1)
    ax1.set_ylabel("win rate (95% Wilson CI)")
    ax2.errorbar(
        x,
        [r.rating_mu for r in rows],
        yerr=[r.rating_sigma for r in rows],
        fmt="o",
        capsize=6,
        color="#DD8452",
    )
    ax2.set_xticks(x, names, rotation=30, ha="right")
    ax2.set_ylabel("OpenSkill rating (mu ± sigma)")
    fig.suptitle(title)
    fig.tight_layout()
    tmp = path.with_name(path.name + ".tmp.png")
    fig.savefig(tmp, dpi=100, bbox_inches="tight")
    os.replace(tmp, path)
