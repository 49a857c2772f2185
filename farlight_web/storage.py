"""What the server writes under --data besides its games' records: uploads, under a quota.

What is stored in `--data/uploads` is an upload's canonical content (sorted keys, one layout),
named by its hash: the same record sent twice, or with other whitespace, is one file. The folder
keeps at most `Limits.upload_files` files and `Limits.upload_bytes` bytes; the oldest (by
last upload) are removed first. Files are written like records (`save_record`): a hidden temp
file, then a rename; `remove_stale_temp_files` clears those a killed server left.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from pathlib import Path
from typing import Any

import msgspec

from farlight_env.untrusted.files import write_atomic
from farlight_web.schemas import MAX_UPLOAD_BYTES

UPLOAD_FOLDER = "uploads"


def canonical(upload: Any) -> bytes:
    """One encoding per content: sorted keys, no whitespace (hashed to name the file)."""
    return msgspec.json.encode(upload, order="sorted")


def remove_stale_temp_files(folder: Path) -> list[Path]:
    """Delete the `.<name>.*.tmp` files a killed writer left in `folder` (`save_record` and
    `UploadStore` write through them); symbolic links are left alone. The removed paths."""
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    for entry in entries:
        if entry.name.startswith(".") and entry.name.endswith(".tmp") and not entry.is_symlink():
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
    return removed


class UploadStore:
    """`--data/uploads`: one file per distinct content, at most `max_files` files and
    `max_bytes` bytes, the least recently uploaded removed first."""

    def __init__(self, data: Path, max_files: int, max_bytes: int) -> None:
        self.folder = data / UPLOAD_FOLDER
        self.max_files = max_files
        self.max_bytes = max_bytes
        self.lock = threading.Lock()

    def store(self, upload: Any) -> str:
        """Keep `upload` (once); its name relative to --data, `uploads/<hash>.json`."""
        text = canonical(upload)
        name = f"{hashlib.sha256(text).hexdigest()[:20]}.json"
        path = self.folder / name
        pretty = msgspec.json.format(text, indent=1)
        if len(pretty) < MAX_UPLOAD_BYTES:  # laid out like save_record's, if that still fits
            text = pretty
        del pretty
        with self.lock:
            self.folder.mkdir(parents=True, exist_ok=True)
            if path.is_file() and not path.is_symlink():
                os.utime(path)  # uploaded again: the most recent now
            else:
                write_atomic(path, text + b"\n")
            self._enforce_quota(keep=path)
        return f"{UPLOAD_FOLDER}/{name}"

    def _enforce_quota(self, keep: Path) -> None:
        files = []
        for entry in os.scandir(self.folder):
            if entry.name.endswith(".json") and entry.is_file(follow_symlinks=False):
                stat = entry.stat(follow_symlinks=False)
                files.append((stat.st_mtime_ns, entry.name, stat.st_size))
        files.sort()
        count, total = len(files), sum(size for _, _, size in files)
        for _, name, size in files:
            if count <= self.max_files and total <= self.max_bytes:
                break
            if name == keep.name:
                continue
            with contextlib.suppress(FileNotFoundError):
                (self.folder / name).unlink()
            count, total = count - 1, total - size
