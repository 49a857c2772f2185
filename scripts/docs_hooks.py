"""MkDocs hooks (mkdocs.yml `hooks:`): what the site builds from the code instead of copying it.

- The notebooks (notebooks/*.ipynb, outside docs/) join the site as they are stored, outputs
  included; mkdocs-jupyter renders them.
- A page's link to a repository file outside docs/ (`../agents/farlight/rollout.py`) works
  when browsing the repository. On the site a link to a notebook points at its rendered page;
  the site does not ship the sources, so any other such link becomes its text, and a link whose
  file is missing is a warning (an error under `mkdocs build --strict`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority, get_plugin_logger
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
#: `[text](../path)`: a relative link that leaves docs/ (images and pages stay inside it).
OUTSIDE_LINK = re.compile(r"\[([^\]]+)\]\((\.\./[^)\s#]+)(#[^)\s]*)?\)")

log = get_plugin_logger("farlight")


@event_priority(100)  # before mkdocs-jupyter looks for notebooks among the files
def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the stored notebooks to the site."""
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
