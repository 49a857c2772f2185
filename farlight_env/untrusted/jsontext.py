"""JSON that others wrote, parsed as data: absurd nesting is a decode error, never a crash.

Python's `json` and msgspec both raise `RecursionError` on text nested more than about a
thousand levels (`[[[[...]]]]`), which no handler of bad input catches. These wrappers turn it
into the decode error each caller already handles: `json.JSONDecodeError` (a ValueError) and
`msgspec.DecodeError`.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec

NESTED_TOO_DEEPLY = "nested too deeply"


def loads(text: str | bytes | bytearray) -> Any:
    """`json.loads(text)`; text nested too deeply to parse is a `json.JSONDecodeError`."""
    try:
        return json.loads(text)
    except RecursionError:
        error = json.JSONDecodeError(NESTED_TOO_DEEPLY, "", 0)
        error.args = (NESTED_TOO_DEEPLY,)  # no "line 1 column 1": the depth is the problem
        raise error from None


def decode(data: bytes | str, kind: Any) -> Any:
    """`msgspec.json.decode(data, type=kind)`; nesting too deep is a `msgspec.DecodeError`."""
    try:
        return msgspec.json.decode(data, type=kind)
    except RecursionError:
        raise msgspec.DecodeError(f"JSON is {NESTED_TOO_DEEPLY}") from None
