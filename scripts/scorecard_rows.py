"""Print scorecard table rows (markdown: docs/scorecards.md, the README) from scorecard.json
files: win rates per cell, rating, time.

Usage: python scripts/scorecard_rows.py docs/scorecards/*/scorecard.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OPPONENTS = ("random", "heuristic", "ismcts")


def row(card: dict) -> str:
    by_cell = {(c["players"], c["opponent"]): c for c in card["cells"]}
    rates = []
    for opponent in OPPONENTS:
        cells = [by_cell[n, opponent] for n in (2, 3, 4, 5) if (n, opponent) in by_cell]
        rates.append(" / ".join(f"{c['win_rate']:.0%}" for c in cells))
    budget = card["budgets"]["policy"].get("iterations")
    name = card["agent"] + (f" ({budget} it.)" if budget else "")
    if card["quick"]:
        name += " QUICK"
    rating = card["rating"]
    return (
        f"| {name} | {' | '.join(rates)} | {rating['mu']:.1f} ± {rating['sigma']:.1f} "
        f"| {card['seconds_per_decision']:.4f} |"
    )


def main(paths: list[str]) -> None:
    print(
        "| policy | vs random (N = 2/3/4/5) | vs heuristic | vs ismcts | rating | CPU s/decision |"
    )
    print("|---|---|---|---|---|---|")
    for path in paths:
        print(row(json.loads(Path(path).read_text())))


if __name__ == "__main__":
    main(sys.argv[1:])
