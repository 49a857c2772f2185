"""Rewrite the compact observation's layout table in docs/environment.md from the fields'
declarations (farlight_env/encode/layout.py); tests/test_compact_observation.py fails when
the page falls behind them (rerun this script)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "environment.md"


def page_text(text: str) -> str:
    """`text` with the table between the markers generated afresh (standard cards, 13x13)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from farlight_env import farlight_v0
    from farlight_env.encode.layout_table import BEGIN, END, layout_table

    head, rest = text.split(BEGIN, 1)
    _old, tail = rest.split(END, 1)
    table = layout_table(farlight_v0.raw_env().compact_codec)
    return f"{head}{BEGIN}\n{table}\n{END}{tail}"


def main() -> None:
    PAGE.write_text(page_text(PAGE.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote the observation table in {PAGE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
