"""Reading files from others with a size bound, and writing files whole or not at all."""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
import zipfile
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


def write_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write `data` to a hidden temp file beside `path` (`.NAME.*.tmp`, unique per writer, so
    two writers never share one and a server's start-up cleanup finds it), flush it to disk,
    then rename it over `path`; the folder is created if missing."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def atomic_write(path: Path, data: bytes | str) -> None:
    """`write_atomic` for text too: never a half-written file."""
    write_atomic(path, data.encode() if isinstance(data, str) else data)


def check_torch_archive(source: Path | bytes, limit: int) -> None:
    """Refuse (ValueError) a file torch.load could inflate past `limit` bytes, or that is no
    torch.save archive at all, before torch reads it.

    torch.load allocates each tensor's storage at the size the zip's directory declares, so a
    compressed member (a 200 KB file asking for 200 MB, or for terabytes) or members declaring
    more bytes than the file holds would be allocated in full. torch.save writes a zip of stored,
    uncompressed members in one folder, a `version` and a `data.pkl` record among them;
    anything else (including torch's legacy pickle format, whose storage sizes are whatever the
    pickle says) is not a file this project wrote, and torch's own words for a zip without
    those records (`Expected hasRecord("version") to be true`) tell a user nothing.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source) as zf:
            members = zf.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError) as exc:
        raise ValueError(f"not a zip written by torch.save ({exc})") from None
    _check_records([member.filename for member in members])
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


#: The records torch.load reads first: the format version (one of two names) and the pickle
#: of plain values and tensor references.
TORCH_VERSION_RECORDS = ("version", ".data/version")
TORCH_DATA_RECORD = "data.pkl"


def _check_records(names: list[str]) -> None:
    """The zip is laid out as torch.save lays it out: records in the folder of its first
    member (torch looks for them there), `data.pkl` and a version among them."""
    if not names or "/" not in names[0]:
        raise ValueError("a zip, but not one torch.save wrote: its records are not in a folder")
    folder = names[0].split("/", 1)[0] + "/"
    records = {name.removeprefix(folder) for name in names if name.startswith(folder)}
    missing = [] if records.intersection(TORCH_VERSION_RECORDS) else [f"{folder}version"]
    missing += [] if TORCH_DATA_RECORD in records else [folder + TORCH_DATA_RECORD]
    if missing:
        raise ValueError(f"a zip, but not one torch.save wrote: no {' and no '.join(missing)}")
