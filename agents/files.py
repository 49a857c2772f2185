"""Reading files from others with a size bound, and writing files whole or not at all."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from farlight_env.records.record import write_atomic

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
    """`write_atomic` of the records module, for text too: never a half-written file."""
    write_atomic(path, data.encode() if isinstance(data, str) else data)


def check_torch_archive(source: Path | bytes, limit: int) -> None:
    """Refuse (ValueError) a file torch.load could inflate past `limit` bytes, before it is read.

    torch.load allocates each tensor's storage at the size the zip's directory declares, so a
    compressed member (a 200 KB file asking for 200 MB, or for terabytes) or members declaring
    more bytes than the file holds would be allocated in full. torch.save writes a zip of stored,
    uncompressed members; anything else (including torch's legacy pickle format, whose storage
    sizes are whatever the pickle says) is not a file this project wrote.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source) as zf:
            members = zf.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError) as exc:
        raise ValueError(f"not a zip written by torch.save ({exc})") from None
    for member in members:
        if member.compress_type != zipfile.ZIP_STORED or member.file_size != member.compress_size:
            raise ValueError(f"{member.filename} is compressed; torch.save never compresses")
    total = sum(member.file_size for member in members)
    if total > limit:
        raise ValueError(f"its members hold {total:,} bytes, more than {limit:,}")
    size = len(source) if isinstance(source, bytes) else Path(source).stat().st_size
    if total > size:
        raise ValueError(
            f"its members declare {total:,} bytes, more than the {size:,} bytes of the file"
        )
