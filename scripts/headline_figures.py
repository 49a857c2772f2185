"""Write (or check) the README's table of headline figures from docs/data/figures.toml.

python scripts/headline_figures.py          # rewrite the table between the README's markers
python scripts/headline_figures.py --check  # exit 1 if the README's table is not the file's
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
FIGURES = ROOT / "docs" / "data" / "figures.toml"
README = ROOT / "README.md"
BEGIN = (
    "<!-- headline figures: written by scripts/headline_figures.py from docs/data/figures.toml -->"
)
END = "<!-- end of headline figures -->"


@dataclass(frozen=True)
class Figure:
    name: str
    value: str
    command: str
    page: str
    anchor: str = ""
    pattern: str = ""
    title: str = ""  # the page's name in the table (default: its file name)


def figures(path: Path = FIGURES) -> list[Figure]:
    """The declared figures, in the README's order."""
    return [Figure(**entry) for entry in tomllib.loads(path.read_text())["figure"]]


def table(rows: list[Figure]) -> str:
    """The README's Markdown table: figure, value, command, page."""
    lines = ["| figure | value | command | page |", "|---|---|---|---|"]
    for f in rows:
        link = f.page + (f"#{f.anchor}" if f.anchor else "")
        title = f.title or Path(f.page).stem.replace("_", " ").capitalize()
        lines.append(f"| {f.name} | **{f.value}** | `{f.command}` | [{title}]({link}) |")
    return "\n".join(lines)


def with_table(readme: str, rows: list[Figure]) -> str:
    """The README text with its marked block replaced by the table of `rows`."""
    head, found, rest = readme.partition(BEGIN)
    _, ended, tail = rest.partition(END)
    if not (found and ended):
        raise ValueError(f"README.md lacks the markers {BEGIN!r} ... {END!r}")
    return f"{head}{BEGIN}\n{table(rows)}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check; exit 1 if stale")
    args = parser.parse_args(argv)
    readme = README.read_text()
    wanted = with_table(readme, figures())
    if args.check:
        if wanted != readme:
            print(
                "README.md's headline figures differ from docs/data/figures.toml", file=sys.stderr
            )
            return 1
        return 0
    README.write_text(wanted)
    return 0


if __name__ == "__main__":
    sys.exit(main())
