"""What every policy file shares, whatever its game: the bounds a file may ask for and its
atomic write (a plain `torch.save` of a dict, read back with `weights_only=True` only)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import torch

#: Bounds on what a policy file may ask for: the shipped policy has 0.5 M parameters in a
#: 2 MB file; a file asking for more than MAX_PARAMETERS is refused before anything is built.
MAX_POLICY_BYTES = 256 << 20
MAX_PARAMETERS = 50_000_000
MAX_WIDTH = 4096
MAX_OBSERVATION = 1_000_000
MAX_ACTIONS = 100_000
#: How every file torch.save writes (a zip archive) begins.
ZIP_MAGIC = b"PK\x03\x04"


def write_payload(payload: Mapping[str, Any], path: str | Path) -> None:
    """`torch.save` a policy file's payload atomically: a temp file, then a rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(dict(payload), tmp)
    tmp.replace(path)
