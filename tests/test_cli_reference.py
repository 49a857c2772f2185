"""docs/cli-reference.md is stored in the repository, so it reads without building the site
(#48); it must say exactly what the parsers print."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(
    sys.version_info[:2] != (3, 11),
    reason="argparse lays help out differently across Python versions; the page is 3.11's",
)
def test_the_stored_command_reference_matches_the_parsers() -> None:
    spec = importlib.util.spec_from_file_location(
        "cli_reference", ROOT / "scripts/cli_reference.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    stored = (ROOT / "docs" / "cli-reference.md").read_text(encoding="utf-8")
    assert stored == module.cli_reference(), "rerun: python scripts/cli_reference.py"
