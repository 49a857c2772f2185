"""Reading files from others with a size bound, and writing files whole or not at all."""

from __future__ import annotations

import os
from pathlib import Path

#: Bounds on the JSON files the project reads back (run configs, league states, tournament
#: specs); far above what the project writes, far below what would exhaust memory.
MAX_JSON_BYTES = 64 << 20


def read_bounded(path: Path, limit: int = MAX_JSON_BYTES) -> bytes:
    """The bytes of `path`, refusing (ValueError) a file larger than `limit`."""
    path = Path(path)
    with path.open("rb") as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{path}: larger than {limit} bytes; not a file this project wrote")
    return data


def atomic_write(path: Path, data: bytes | str) -> None:
    """Write to a temp file, flush it to disk, then rename over `path`."""
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("wb") as fh:
        fh.write(data.encode() if isinstance(data, str) else data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
