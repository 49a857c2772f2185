"""Optional compiled hot modules: the same Python source built with Cython, used only when
it is exactly the source on disk.

`setup.py` compiles `COMPILED_MODULES` when Cython and a C compiler are there and records each
source's SHA-256 in `_compiled.json`. A build is only ever a speed-up of identical code: a
module whose source changed since (an edit, a checkout) is imported from its `.py` instead, as
is every one when `FARLIGHT_PURE_PYTHON=1`. Behaviour is the same either way
(`tests/test_compiled.py` plays the same games both ways).
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

#: The modules most of an env step, a search roll-out or a training step runs in.
COMPILED_MODULES: tuple[str, ...] = (
    "farlight_env.game.game",
    "farlight_env.game.state",
    "farlight_env.game.tables",
    "farlight_env.game.legal",
    "farlight_env.game.queries",
    "farlight_env.game.phases.setup",
    "farlight_env.game.phases.bidding",
    "farlight_env.game.phases.resolution",
    "farlight_env.game.phases.install",
    "farlight_env.game.phases.benefits",
    "farlight_env.game.phases.missions",
    "farlight_env.game.phases.reset",
    "farlight_env.game.ship",
    "farlight_env.game.actions",
    "farlight_env.game.hidden",
    "farlight_env.game.scoring",
    "farlight_env.encode.codec",
    "farlight_env.encode.observation",
    "farlight_env.encode.observers",
    "farlight_env.encode.ship_planes",
    "farlight_env.env.aec",
    "farlight_env.env.order",
    "farlight_env.env.single_agent",
    "agents.heuristic.agent",
    "agents.heuristic.placements",
    "agents.heuristic.planner",
    "agents.ismcts",
)
#: Set to 1 to import every module from its Python source (debugging, profiling, comparing).
PURE_PYTHON_VARIABLE = "FARLIGHT_PURE_PYTHON"
BUILD_RECORD = Path(__file__).with_name("_compiled.json")
#: Where the top-level packages (farlight_env, agents) live.
PACKAGES_ROOT = Path(__file__).resolve().parents[1]


def source_path(module: str, root: Path = PACKAGES_ROOT) -> Path:
    return root.joinpath(*module.split(".")).with_suffix(".py")


def source_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_build_record(path: Path = BUILD_RECORD) -> dict[str, str]:
    """Module -> SHA-256 of the source it was compiled from; {} when nothing was built."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    digests = record.get("sources") if isinstance(record, dict) else None
    if not isinstance(digests, dict):
        return {}
    return {str(k): str(v) for k, v in digests.items()}


def pure_python_requested() -> bool:
    return os.environ.get(PURE_PYTHON_VARIABLE, "") not in ("", "0")


def modules_from_source(
    record: dict[str, str], root: Path = PACKAGES_ROOT, force: bool = False
) -> dict[str, Path]:
    """The listed modules that must be imported from source: all when `force`, else those
    whose source no longer matches the digest they were compiled from."""
    out: dict[str, Path] = {}
    for module in COMPILED_MODULES:
        path = source_path(module, root)
        if not path.is_file():
            continue
        if force or (module in record and record[module] != source_digest(path)):
            out[module] = path
    return out


class SourceFinder(importlib.abc.MetaPathFinder):
    """Finds the named modules as their `.py` files, ahead of any compiled build beside them."""

    def __init__(self, sources: dict[str, Path]) -> None:
        self.sources = dict(sources)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        source = self.sources.get(fullname)
        if source is None:
            return None
        return importlib.util.spec_from_file_location(fullname, source)


def install_guard() -> SourceFinder | None:
    """Put a `SourceFinder` first on `sys.meta_path` for modules that must not come from a
    build (once per process); called when `farlight_env` is imported."""
    for finder in sys.meta_path:
        if isinstance(finder, SourceFinder):
            return finder
    sources = modules_from_source(read_build_record(), force=pure_python_requested())
    if not sources:
        return None
    finder = SourceFinder(sources)
    sys.meta_path.insert(0, finder)
    return finder


def is_compiled(module: ModuleType) -> bool:
    name = getattr(module, "__file__", None) or ""
    return name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


def has_build(module: str, root: Path = PACKAGES_ROOT) -> bool:
    source = source_path(module, root)
    suffixes = importlib.machinery.EXTENSION_SUFFIXES
    return any(source.with_name(source.stem + suffix).is_file() for suffix in suffixes)


def build_status() -> dict[str, bool]:
    """Module -> whether importing it in this process gives its compiled build, read from disk
    (imports nothing: farlight_env never imports agents)."""
    record = read_build_record()
    from_source = modules_from_source(record, force=pure_python_requested())
    return {
        name: name in record and name not in from_source and has_build(name)
        for name in COMPILED_MODULES
    }


def summary() -> str:
    """One line for benchmarks: how many hot modules run compiled, and why not if none."""
    status = build_status()
    compiled = sum(status.values())
    if compiled == len(status):
        return f"hot modules: all {compiled} compiled (Cython)"
    if pure_python_requested():
        return f"hot modules: pure Python ({PURE_PYTHON_VARIABLE}=1)"
    if compiled == 0:
        return "hot modules: pure Python (not compiled: pip install needs Cython and a C compiler)"
    slow = ", ".join(name for name, ok in status.items() if not ok)
    return f"hot modules: {compiled} of {len(status)} compiled; from source: {slow}"
