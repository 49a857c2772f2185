"""Write docs/cli-reference.md: every `farlight` command's --help, as the parsers print it.

The page is stored in the repository, so it reads on GitHub and offline as every other page
does; tests/test_cli_reference.py fails when it falls behind the parsers (rerun this script).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "cli-reference.md"
#: Width of the help text: stable whatever terminal writes the page.
HELP_COLUMNS = "100"


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """A parser's subcommands by name (argparse keeps them in its subparsers action)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def cli_reference() -> str:
    """The page's text, from the parsers of this tree (not of another install)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from farlight_cli.main import build_parser

    parser = build_parser()
    lines = [
        "# Command reference",
        "",
        "Written by `python scripts/cli_reference.py` from the `farlight` parsers themselves, "
        "so it is exactly what `farlight COMMAND --help` prints (a test keeps it so). What the "
        "commands are for, with examples, is on the [Command line](cli.md) page.",
        "",
    ]
    with mock.patch.dict(os.environ, {"COLUMNS": HELP_COLUMNS}):  # argparse wraps to $COLUMNS
        lines += ["## `farlight`", "", "```text", parser.format_help().rstrip(), "```", ""]
        for name, command in _subcommands(parser).items():
            lines += [f"## `farlight {name}`", "", "```text", command.format_help().rstrip()]
            lines += ["```", ""]
            for kind, sub in _subcommands(command).items():
                lines += [f"### `farlight {name} {kind}`", "", "```text"]
                lines += [sub.format_help().rstrip(), "```", ""]
    return "\n".join(lines)


def main() -> None:
    PAGE.write_text(cli_reference(), encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
