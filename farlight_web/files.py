"""What `--data` holds, walked and read as data, for any game: walks bounded in depth and count
(the count shared fairly between top-level folders), paths kept inside `--data`, and a
`FileIndex` so listings read a file again only when it changed. Symbolic links are never
followed (a link is a path outside `--data`). What the files mean is the game's part
(Farlight's: `farlight_web.farlight.library`)."""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from farlight_env.platform.records import RecordError
from farlight_env.untrusted.files import read_bounded
from farlight_env.untrusted.jsontext import loads

MAX_FILE_BYTES = 32 << 20  # a results.json of a few thousand games fits easily
MAX_FILES = 2000  # files listed per walk of --data, shared fairly between top-level folders
MAX_DEPTH = 4


def walk(data: Path, names: tuple[str, ...] = (), suffix: str = ".json") -> list[Path]:
    """Files under `data` (depth <= MAX_DEPTH, at most MAX_FILES, hidden folders skipped) named
    one of `names`, or ending in `suffix` when no names are given; sorted. Symbolic links
    (to files or folders) are not followed: whatever they point to is outside.

    The bound is shared fairly: the files of `data` itself and each top-level folder are
    taken in turn, one at a time, so thousands of browser games in `games/` cannot push
    `tour/` or `uploads/` out of the listing; a folder with fewer files leaves the rest."""
    groups: deque[Iterator[Path]] = deque([_matches(data, data, names, suffix, descend=False)])
    try:
        entries = sorted(os.scandir(data), key=lambda e: e.name)
    except OSError:
        return []
    for entry in entries:
        if not entry.name.startswith(".") and entry.is_dir(follow_symlinks=False):
            groups.append(_matches(data, Path(entry.path), names, suffix, descend=True))
    found: list[Path] = []
    while groups and len(found) < MAX_FILES:
        group = groups.popleft()
        path = next(group, None)
        if path is not None:
            found.append(path)
            groups.append(group)
    return sorted(found)


def _matches(
    data: Path, top: Path, names: tuple[str, ...], suffix: str, descend: bool
) -> Iterator[Path]:
    """The matching files under `top` in sorted order, lazily (listed only when asked for);
    only `top`'s own files unless `descend`."""
    root_depth = len(data.parts)
    for folder, dirs, files in os.walk(top):  # never descends into a linked folder
        here = Path(folder)
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        if not descend or len(here.parts) - root_depth >= MAX_DEPTH:
            dirs[:] = []
        for name in sorted(files):
            if name.startswith("."):
                continue
            if ((name in names) if names else name.endswith(suffix)) and not os.path.islink(
                here / name
            ):
                yield here / name


def inside(data: Path, relative: str) -> Path:
    """`data/relative`, refusing (ValueError) anything that leaves `data`, including through
    a symbolic link anywhere below `data` (a link is treated as a path outside)."""
    root = data.resolve()
    path = Path(os.path.normpath(root / relative))
    outside = ValueError(f"{relative!r} is outside the data folder")
    if path != root and root not in path.parents:
        raise outside
    probe = root
    for part in path.relative_to(root).parts:
        probe = probe / part
        if probe.is_symlink():
            raise outside
    return path


def read_json(path: Path) -> Any:
    """A bounded JSON file; RecordError naming it when it cannot be read or parsed."""
    try:
        return loads(read_bounded(path, MAX_FILE_BYTES))
    except (OSError, ValueError) as exc:
        raise RecordError(f"{path.name}: cannot read: {exc}") from exc


class FileIndex:
    """What was read from each file, kept while the file is unchanged (same size, mtime and
    inode), so a listing reads only new and changed files. One group per listing and folder;
    files gone from a group's last walk are forgotten with it."""

    def __init__(self) -> None:
        self.groups: dict[tuple[str, Path], dict[Path, tuple[tuple[int, int, int], Any]]] = {}
        self.lock = threading.Lock()
        self.reads = 0  # files read so far (tests count them)

    def summaries(
        self, group: tuple[str, Path], paths: list[Path], read: Callable[[Path], Any]
    ) -> list[tuple[Path, Any]]:
        """(path, read(path)) for each path that still exists, from memory when unchanged."""
        with self.lock:
            old = self.groups.get(group, {})
        new: dict[Path, tuple[tuple[int, int, int], Any]] = {}
        for path in paths:
            try:
                stat = path.lstat()
            except OSError:
                continue
            stamp = (stat.st_size, stat.st_mtime_ns, stat.st_ino)
            hit = old.get(path)
            if hit is not None and hit[0] == stamp:
                new[path] = hit
                continue
            value = read(path)
            with self.lock:
                self.reads += 1
            new[path] = (stamp, value)
        with self.lock:
            self.groups[group] = new
        return [(path, value) for path, (_, value) in new.items()]


def summaries(
    index: FileIndex | None, kind: str, data: Path, paths: list[Path], read: Callable[[Path], Any]
) -> list[tuple[Path, Any]]:
    if index is None:
        return [(path, read(path)) for path in paths]
    return index.summaries((kind, data), paths, read)
