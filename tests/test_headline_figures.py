"""The README's headline figures are declared once (docs/data/figures.toml): the README's table
is written from that file, each value is stated on the page the table links, and no page
states a declared figure with another value (#48: "2.3–2.4x" against "2.3–2.7x")."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import headline_figures as hf  # noqa: E402

FIGURES = hf.figures()
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def normal(text: str) -> str:
    """Text as figures compare: × as x, every dash and minus sign as a hyphen."""
    return re.sub("[–—−]", "-", text.replace("×", "x"))


def test_the_readme_table_is_the_files() -> None:
    readme = (ROOT / "README.md").read_text()
    assert hf.with_table(readme, FIGURES) == readme, "run python scripts/headline_figures.py"
    check = subprocess.run([sys.executable, str(ROOT / "scripts/headline_figures.py"), "--check"])
    assert check.returncode == 0


@pytest.mark.parametrize("figure", FIGURES, ids=lambda f: f.name[:40])
def test_each_value_is_stated_on_its_page(figure: hf.Figure) -> None:
    page = ROOT / figure.page
    assert normal(figure.value) in normal(" ".join(page.read_text().split())), figure.page
    if figure.anchor:
        slug = figure.anchor
        headings = [
            re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
            for line in page.read_text().splitlines()
            if line.startswith("#")
        ]
        assert slug in headings, f"{figure.page} has no heading #{slug}"


@pytest.mark.parametrize("figure", [f for f in FIGURES if f.pattern], ids=lambda f: f.name[:40])
def test_no_page_states_a_figure_with_another_value(figure: hf.Figure) -> None:
    pattern = re.compile(normal(figure.pattern))
    stated = []
    for page in PAGES:
        text = normal(" ".join(page.read_text().split()))  # a figure may wrap across lines
        for match in pattern.finditer(text):
            value = next(g for g in match.groups() if g is not None)
            stated.append((page.relative_to(ROOT).as_posix(), value))
    assert stated, f"the pattern of {figure.name!r} matches no page"
    wrong = [(page, value) for page, value in stated if value != normal(figure.value)]
    assert not wrong, f"{figure.name}: {figure.value} declared, but {wrong}"


def test_the_check_catches_a_disagreement(tmp_path: Path) -> None:
    """The consistency check is not vacuous: the disagreement #48 found is caught."""
    figure = next(f for f in FIGURES if "train ppo" in f.name)
    old = "that is 2.3–2.4x the learner steps per CPU-second"
    match = re.search(normal(figure.pattern), normal(old))
    assert match is not None and normal(figure.value) not in match.groups()


def test_every_api_page_reads_on_its_own() -> None:
    """Each `::: name` directive of docs/api (expanded only in the built site) has a line of
    prose before it that names what it documents, so the page reads on GitHub too (#48)."""
    for page in sorted((ROOT / "docs" / "api").glob("*.md")):
        lines = page.read_text().splitlines()
        for number, line in enumerate(lines):
            if line.startswith("::: "):
                short = line[4:].strip().rsplit(".", 1)[-1]
                before = lines[number - 2] if number >= 2 else ""
                assert short in before, f"{page.name}:{number + 1}: no prose names {short}"
