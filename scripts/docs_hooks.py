"""MkDocs hooks (mkdocs.yml `hooks:`): what the site builds from the code instead of copying it.

- The command reference page is generated from the `farlight` argparse parsers at build time,
  so it cannot drift from `farlight COMMAND --help`.
- The notebooks (notebooks/*.ipynb, outside docs/) join the site as they are stored, outputs
  included; mkdocs-jupyter renders them.
- A page's link to a repository file outside docs/ (`../agents/rollout.py`) works when browsing
  the repository. On the site a link to a notebook points at its rendered page; the site does
  not ship the sources, so any other such link becomes its text, and a link whose file is
  missing is a warning (an error under `mkdocs build --strict`).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from unittest import mock

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority, get_plugin_logger
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
CLI_PAGE = "cli-reference.md"
#: Width of the generated help text: stable whatever terminal builds the site.
HELP_COLUMNS = "100"
#: `[text](../path)`: a relative link that leaves docs/ (images and pages stay inside it).
OUTSIDE_LINK = re.compile(r"\[([^\]]+)\]\((\.\./[^)\s#]+)(#[^)\s]*)?\)")

log = get_plugin_logger("farlight")


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """A parser's subcommands by name (argparse keeps them in its subparsers action)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def cli_reference() -> str:
    """The command reference page: every `farlight` command's --help, as the parser prints it."""
    if str(ROOT) not in sys.path:  # the parsers of the tree being built, not another install
        sys.path.insert(0, str(ROOT))
    from farlight_cli.main import build_parser

    parser = build_parser()
    lines = [
        "# Command reference",
        "",
        "Generated when the site is built, from the `farlight` parsers themselves "
        "(`scripts/docs_hooks.py`), so it is exactly what `farlight COMMAND --help` prints. "
        "What the commands are for, with examples, is on the [Command line](cli.md) page.",
        "",
    ]
    # argparse wraps help to $COLUMNS: fix it while the page is written
    with mock.patch.dict(os.environ, {"COLUMNS": HELP_COLUMNS}):
        lines += ["## `farlight`", "", "```text", parser.format_help().rstrip(), "```", ""]
        for name, command in _subcommands(parser).items():
            kinds = _subcommands(command)
            lines += [f"## `farlight {name}`", "", "```text", command.format_help().rstrip()]
            lines += ["```", ""]
            for kind, sub in kinds.items():
                lines += [f"### `farlight {name} {kind}`", "", "```text"]
                lines += [sub.format_help().rstrip(), "```", ""]
    return "\n".join(lines)


@event_priority(100)  # before mkdocs-jupyter looks for notebooks among the files
def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated command reference and the stored notebooks to the site."""
    files.append(File.generated(config, CLI_PAGE, content=cli_reference()))
    for notebook in sorted(NOTEBOOKS.glob("*.ipynb")):
        files.append(
            File(
                f"notebooks/{notebook.name}",
                src_dir=str(ROOT),
                dest_dir=config.site_dir,
                use_directory_urls=config.use_directory_urls,
            )
        )
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Links to repository files outside docs/: notebooks to their pages, other files to their
    text; a missing file is a warning."""
    if page.file.abs_src_path is None:
        return markdown
    here = Path(page.file.abs_src_path).parent

    on_site = {Path(f.abs_src_path).resolve(): f for f in files if f.abs_src_path}

    def replace(match: re.Match[str]) -> str:
        target = (here / match.group(2)).resolve()
        if target in on_site:  # a notebook: the site has it under docs/'s tree
            page_dir = Path(page.file.src_uri).parent
            link = os.path.relpath(on_site[target].src_uri, page_dir)
            return f"[{match.group(1)}]({link}{match.group(3) or ''})"
        if not target.exists() or ROOT not in target.parents:
            log.warning(f"{page.file.src_uri}: link to {match.group(2)}: no such repository file")
        return match.group(1)

    return OUTSIDE_LINK.sub(replace, markdown)
