"""Run a documentation page's Python blocks, so the code a page shows cannot rot."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYTHON_BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def python_blocks(page: str | Path) -> list[str]:
    """The page's ```python blocks, in order (`page` relative to the repository root)."""
    return PYTHON_BLOCK.findall((ROOT / page).read_text())


def run_page(page: str | Path, expected_blocks: int | None = None) -> str:
    """Execute the page's blocks top to bottom in one namespace (as a reader pasting them into
    one session would); returns what they printed. `expected_blocks` guards against a block
    that stopped matching (a changed fence) and so silently stopped running."""
    blocks = python_blocks(page)
    if expected_blocks is not None:
        assert len(blocks) == expected_blocks, f"{page}: {len(blocks)} python blocks"
    namespace: dict = {"__name__": "__doc_snippet__"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in blocks:
            exec(compile(block, str(page), "exec"), namespace)
    return out.getvalue()
