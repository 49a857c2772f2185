"""A run's key, kept beside its journal: it authenticates every journalled game, and for a
held-out evaluation holds the secret its deals come from.

`run.key` (mode 0600, written once, never rewritten) holds 256 random bits from `secrets` for
the journal's HMAC-SHA256 codes, and a held-out run's 256-bit secret. A line of a journal that
does not carry the code of its own run's key was not written by that run: `--resume` refuses
it. The key protects against whoever cannot read the run's folder (a sealed agent in its box,
a journal copied from elsewhere or edited without it); not against the folder's own owner.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from farlight_env.untrusted.files import read_bounded
from farlight_env.untrusted.jsontext import decode

RUN_KEY = "run.key"
#: The field of a journal line that carries its authentication code.
MAC_FIELD = "journal_mac"
Hex256 = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]


class RunKeyFile(msgspec.Struct, forbid_unknown_fields=True):
    """`run.key` as written: the journal's key and, for a held-out run, its secret."""

    format: Literal["farlight-run-key"]
    version: Literal[1]
    journal_key: Hex256
    held_out_secret: Hex256 | None = None


class RunKeyError(ValueError):
    """A run key that is missing where games were journalled, or not one this project wrote."""


def new_secret() -> str:
    """256 bits from the OS's secure source, as hex."""
    return secrets.token_hex(32)


def create_run_key(out_dir: Path, held_out_secret: str | None = None) -> RunKeyFile:
    """Write a fresh `run.key` readable by its owner only; an existing one is never replaced."""
    key = RunKeyFile("farlight-run-key", 1, new_secret(), held_out_secret)
    data = msgspec.json.encode(key)
    fd = os.open(Path(out_dir) / RUN_KEY, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    return key


def read_run_key(out_dir: Path) -> RunKeyFile | None:
    """The run's key, or None when the folder has none."""
    path = Path(out_dir) / RUN_KEY
    if not path.is_file():
        return None
    try:
        return decode(read_bounded(path, 4096), RunKeyFile)
    except (msgspec.DecodeError, msgspec.ValidationError, ValueError) as exc:
        raise RunKeyError(f"{path}: not a run key ({exc})") from None


def run_key(out_dir: Path) -> RunKeyFile:
    """The folder's key, created on first use (a journal begun before any game)."""
    key = read_run_key(out_dir)
    if key is None:
        try:
            return create_run_key(out_dir)
        except FileExistsError:  # another process made it first: use that one
            return run_key(out_dir)
    return key


def journal_mac(key: RunKeyFile, record: dict[str, Any]) -> str:
    """The record's HMAC-SHA256 under the run's key, over its canonical JSON."""
    text = json.dumps(record, sort_keys=True).encode()
    return hmac.new(bytes.fromhex(key.journal_key), text, hashlib.sha256).hexdigest()


def sign(key: RunKeyFile, record: dict[str, Any]) -> dict[str, Any]:
    """The record with its code added (a record never holds MAC_FIELD of its own)."""
    return {**record, MAC_FIELD: journal_mac(key, record)}


def verified(key: RunKeyFile | None, line: dict[str, Any]) -> dict[str, Any] | None:
    """The journal line's record without its code, or None unless the code is the run's."""
    code = line.get(MAC_FIELD)
    if key is None or not isinstance(code, str):
        return None
    record = {k: v for k, v in line.items() if k != MAC_FIELD}
    return record if hmac.compare_digest(code, journal_mac(key, record)) else None
