"""The rules page is the rule specification: every rule ID the repository cites resolves there.

docs/rules.md defines each rule once, in a list item opening with its ID in bold
(`- **R-BID-5** ...`). Code, tests, card data, notebooks and the README cite those IDs.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from farlight_env.cards import MissionCard
from farlight_env.game.phases.missions import mission_order as _mission_order
from farlight_env.tools.rules_page import decisions

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
RULES_PAGE = DOCS / "rules.md"

#: Every section of the specification and how many rules it numbers.
SPEC_SECTIONS = {
    "COMP": 4,
    "SETUP": 6,
    "BID": 6,
    "RES": 6,
    "INST": 5,
    "BEN": 4,
    "MIS": 8,
    "RESET": 6,
    "END": 4,
    "SHIP": 2,
    "CARDS": 5,
}
SPEC_IDS = {
    f"R-{section}-{n}" for section, count in SPEC_SECTIONS.items() for n in range(1, count + 1)
}
#: The documented rule options, each with its values (default first).
RULE_OPTIONS = {
    "lone_zero_mission_chance": ("True", "False"),
    "temp_biotech_lasts": ('"round"', '"mission"'),
    "token_rounding": ('"up"', '"down"'),
    "edge_connectors": ('"open"', '"blocked"'),
}

RULE_ID = re.compile(r"\bR-[A-Z]+-\d+\b")
DEFINITION = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\*\*(R-[A-Z]+-\d+)\*\*", re.MULTILINE)
#: Where the repository cites rules: its code, tests, data and prose outside docs/.
CITING_SUFFIXES = {".py", ".toml", ".json", ".md", ".ipynb", ".txt", ".cfg", ".yml", ".yaml"}
SKIPPED_DIRS = {
    ".git",
    ".venv",
    "venv",
    "build",
    "dist",
    "runs",
    "node_modules",
    "__pycache__",
    ".pytest_cache",
    ".hypothesis",
    ".ruff_cache",
    ".ipynb_checkpoints",
    ".cache",  # mkdocs-jupyter's converted notebooks (mkdocs build)
    "site",  # a built documentation site
}


def _definitions() -> list[str]:
    return [
        m.group(1) for page in DOCS.rglob("*.md") for m in DEFINITION.finditer(page.read_text())
    ]


def _citing_files() -> list[Path]:
    files = []
    for path in ROOT.rglob("*"):
        parts = set(path.relative_to(ROOT).parts)
        if parts & SKIPPED_DIRS or any(p.endswith(".egg-info") for p in parts):
            continue
        if path.is_file() and path.suffix in CITING_SUFFIXES and DOCS not in path.parents:
            files.append(path)
    return files


def _cited() -> dict[str, list[str]]:
    """Rule ID -> the files citing it."""
    cited: dict[str, list[str]] = {}
    for path in _citing_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for rule in set(RULE_ID.findall(text)):
            cited.setdefault(rule, []).append(str(path.relative_to(ROOT)))
    return cited


def test_every_rule_of_the_specification_is_defined_once_in_docs() -> None:
    found = Counter(_definitions())
    assert set(found) == SPEC_IDS, (
        f"missing: {sorted(SPEC_IDS - set(found))}, unknown: {sorted(set(found) - SPEC_IDS)}"
    )
    assert all(n == 1 for n in found.values()), [r for r, n in found.items() if n > 1]


def test_every_rule_id_cited_in_the_repository_is_defined_in_docs() -> None:
    cited = _cited()
    assert len(cited) >= 40, "the scan should see the code and tests citing rules"
    undefined = {rule: files for rule, files in cited.items() if rule not in set(_definitions())}
    assert not undefined, f"rule IDs cited but not defined in docs/: {undefined}"


def test_rules_page_is_cited_where_the_specification_used_to_be() -> None:
    stale = [
        str(path.relative_to(ROOT))
        for path in _citing_files()
        if path != Path(__file__).resolve()
        and re.search(r"(?<![\w/])RULES\.md", path.read_text(encoding="utf-8", errors="replace"))
    ]
    assert not stale, f"cite docs/rules.md, not RULES.md (absent from the repository): {stale}"


def test_rules_page_lists_every_rule_option_with_both_values() -> None:
    text = RULES_PAGE.read_text()
    options = text.split("\n## Rule options\n", 1)[1].split("\n## ", 1)[0]
    for name, (default, other) in RULE_OPTIONS.items():
        section = options.split(f"### `{name}`", 1)[1].split("\n### ", 1)[0]
        assert f"`{default}` (**default**)" in section, name
        assert f"- `{other}`:" in section, name
        assert "*Rulebook:*" in section, name


def test_interpretations_stay_readable_by_farlight_rules() -> None:
    found = decisions(RULES_PAGE.read_text())
    groups = {d.group for d in found}
    assert groups == {"Decisions the specification settles", "Engine-level choices"}
    settled = [d for d in found if d.group == "Decisions the specification settles"]
    assert [d.rule for d in settled] == [
        "R-SETUP-6",
        "R-RES-1",
        "R-RES-6",
        "R-INST-2",
        "R-BEN-3",
        "R-SETUP-3",
        "R-MIS-5",
        "R-RESET-6",
        "R-END-1",
    ]
    assert all("Other reading:" in d.text and "Reason:" not in d.text for d in settled)


def test_r_mis_1_the_rules_page_and_the_engine_agree_that_mission_ties_ignore_case() -> None:
    """One statement of the tie order (R-SETUP-3, R-MIS-1), matching the engine's sort key."""
    text = RULES_PAGE.read_text()
    assert "ignoring case" in text and "plain character order of the names" not in text
    zeta, alpha = MissionCard("Zeta", 5, science=1), MissionCard("alpha", 5, science=1)
    assert sorted([zeta, alpha], key=_mission_order) == [alpha, zeta]


@pytest.mark.parametrize(
    "page", sorted(str(p.relative_to(DOCS.parent)) for p in DOCS.rglob("*.md")) + ["README.md"]
)
def test_no_heading_appears_twice_on_a_page(page: str) -> None:
    """Each heading is its own anchor: docs/rules.md once had two "## Rule options" (issue #26),
    so `#rule-options` led to one of them and the other's anchor was a guess."""
    text = (DOCS.parent / page).read_text()
    headings = [line for line in _outside_code(text).splitlines() if line.startswith("#")]
    repeated = sorted({h for h in headings if headings.count(h) > 1})
    assert not repeated, f"{page}: repeated headings {repeated}"


def _outside_code(text: str) -> str:
    """The markdown without its fenced code blocks (a '# comment' there is no heading)."""
    return "\n".join(part for i, part in enumerate(text.split("```")) if i % 2 == 0)


def test_the_notebooks_readme_installs_what_it_tells_users_to_run() -> None:
    """notebooks/README.md says `jupyter lab`: the install it gives must bring Jupyter (issue
    #26: the extras it named do not)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        import tomli as tomllib

    text = " ".join((DOCS.parent / "notebooks" / "README.md").read_text().split())
    assert "jupyter lab" in text
    extras = tomllib.loads((DOCS.parent / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    named = {name for group in re.findall(r"\.\[([a-z,]+)\]", text) for name in group.split(",")}
    from_extras = any("jupyterlab" in dep for name in named for dep in extras.get(name, []))
    assert from_extras or "pip install jupyterlab" in text


def test_ci_runs_the_readmes_test_command_and_the_readme_says_what_else() -> None:
    """The README's "this is what CI runs" holds (issue #26): .ci/run takes the command from
    the README, and the README names what CI checks besides it."""
    readme = (DOCS.parent / "README.md").read_text()
    ci = (DOCS.parent / ".ci" / "run").read_text()
    command = 'pip install torch==2.13.0 && pip install -e ".[dev,train,ray,rllib,web,interop]"'
    lines = [line for line in readme.splitlines() if line.startswith(command)]
    assert lines == [f"{command} && python -m pytest -q -n 2"]
    assert f"grep -m1 -F '{command}' README.md" in ci
    assert 'bash -euo pipefail -c "$readme_command"' in ci
    said = " ".join(readme.split())
    checks = ("REQUIRE_BROWSER=1", "ruff check .", "ruff format --check .")
    for check in checks:
        assert check in ci and check in said, check


def test_the_performance_page_is_a_reference_and_links_its_history() -> None:
    """docs/performance.md answers "how fast is it, and what should I pick" in a page one reads
    (it had grown to an 84 kB notebook of dated sections); those sections live in
    docs/performance-history.md, which it links."""
    page = DOCS / "performance.md"
    assert page.stat().st_size <= 15_360, f"{page.stat().st_size} bytes"
    assert "](performance-history.md" in page.read_text()
    assert (DOCS / "performance-history.md").is_file()
