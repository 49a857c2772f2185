"""The rules page (docs/rules.md) read as data: where it is, and the decisions it records.

`decisions` lists every point the rulebook leaves open that the project settled, so that
`farlight rules` and the tests can show them; no argument parsing here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["RULES_RELPATH", "Decision", "decisions", "rules_path"]

#: Where the rules page lives in the source tree (not shipped in the wheel).
RULES_RELPATH = "docs/rules.md"


def rules_path() -> Path:
    """docs/rules.md in the source tree this package was imported from (may not exist)."""
    return Path(__file__).resolve().parents[2] / RULES_RELPATH


_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_RULE_ID = re.compile(r"\bR-[A-Z]+-\d+[a-z]?\b")
_REASON = re.compile(r"\s*\bReason:.*$")
_SECTION_WORDS = ("interpretation", "decision")


@dataclass(frozen=True)
class Decision:
    """One point the rulebook leaves open and how the project settles it."""

    rule: str  # the first rule ID the item cites ("" when it cites none)
    text: str  # the item as plain text, without its "Reason:"
    group: str  # the heading it sits under


def _clean(text: str) -> str:
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)  # [label](link) -> label
    text = text.replace("**", "").replace("`", "").replace("*", "")
    return re.sub(r"\s+", " ", text).strip()


def decisions(text: str) -> list[Decision]:
    """The decisions of a rules page, in page order.

    Two layouts are understood: every list item under a heading that names interpretations
    or decisions (docs/rules.md), and any item or paragraph marked ``[decision]`` elsewhere
    (the rules specification's style).
    """
    found: list[Decision] = []
    section_level = 0  # level of the enclosing "Interpretations" heading; 0 = outside
    group = ""
    item: list[str] | None = None
    items: list[tuple[list[str], bool, str, bool]] = []  # lines, is list item, group, in section
    in_fence = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            in_fence = not in_fence
            item = None
            continue
        if in_fence:
            continue
        heading = _HEADING.match(stripped)
        if heading:
            level, title = len(heading.group(1)), _clean(heading.group(2))
            named = any(w in title.lower() for w in _SECTION_WORDS)
            if section_level and level <= section_level and not named:
                section_level = 0
            if named and not section_level:
                section_level = level
            group = title
            item = None
            continue
        if not stripped or stripped.startswith("|"):
            item = None
            continue
        if _BULLET.match(line) or item is None:
            item = [_BULLET.sub("", line).strip()]
            items.append((item, bool(_BULLET.match(line)), group, bool(section_level)))
        else:
            item.append(stripped)
    for lines, is_item, grp, in_section in items:
        raw = " ".join(lines)
        if not is_item or not (in_section or "[decision]" in raw.lower()):
            continue
        clean = _REASON.sub("", _clean(raw))
        if clean.endswith(":"):  # the reason is all the item says: keep it
            clean = _clean(raw)
        rule = _RULE_ID.search(clean)
        found.append(Decision(rule.group(0) if rule else "", clean, grp))
    return found
