"""Refusals in the file's words: msgspec's "Expected `int` >= 0 - at `$.contract[3].points`"
becomes "contract 'Ore Run': points: must be >= 0, got -1" (C-COMP-3)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from msgspec import inspect as mi

from farlight_env.untrusted.messages import short

_AT = re.compile(r"(?P<reason>.*?)(?: - at (?P<key>`key` in )?`\$(?P<path>[^`]*)`)?", re.DOTALL)
_STEP = re.compile(r"\.([^.\[]+)|\[(\d+|\.\.\.)\]")
_BOUND = re.compile(r"Expected `\w+`( of length)? ([<>]=?) ?(\d+)")
_UNKNOWN = re.compile(r"Object contains unknown field `(.+)`")
_MISSING = re.compile(r"Object missing required field `(\w+)`")
_ENUM = re.compile(r"Invalid enum value (.+)")


def where(table: str, entry: str | None, field_path: str) -> str:
    """The words every message starts with: `table 'entry': field`."""
    head = f"{table} {short(entry)!r}" if entry else table
    return f"{head}: {field_path}" if field_path else head


def problem(
    error: str, data: Any, schema: Any, keyed: tuple[str, ...] = (), prefix: str = ""
) -> str:
    """What msgspec's `error` means, said of `data` (which `schema` describes); `keyed` tables are
    named by key, `prefix` is the path of the value that was converted within `data`."""
    found = _AT.fullmatch(error)
    reason, key, path = found.group("reason", "key", "path") if found else (error, None, "")
    steps: list[Any] = [
        name if name else (int(index) if index.isdigit() else index)
        for name, index in _STEP.findall(prefix + (path or ""))
    ]
    table, entry, fields = _locate(steps, data, keyed)
    root = mi.type_info(schema)
    if key:
        return f"{where(table, entry, fields)}: unknown key; allowed: {_choices(root, steps, True)}"
    return f"{where(table, entry, fields)}: {_reason(reason, steps, data, root)}"


def _locate(steps: list[Any], data: Any, keyed: tuple[str, ...]) -> tuple[str, str | None, str]:
    """The table, the entry's name (or index, or key) and the field path within it."""
    if not steps:
        return "the file", None, ""
    if len(steps) == 1 and not isinstance(_value_at(steps, data), (Mapping, list)):
        return "the file", None, str(steps[0])  # a top-level value such as schema_version
    table, rest = str(steps[0]), steps[1:]
    entry: str | None = None
    if rest and (isinstance(rest[0], int) or table in keyed):
        item = _value_at(steps[:2], data)
        name = item.get("name") if isinstance(item, Mapping) and table not in keyed else None
        entry = name if isinstance(name, str) and name.strip() else str(rest[0])
        rest = rest[1:]
    text = "".join(f"[{s}]" if isinstance(s, int) else f".{s}" for s in rest)
    return table, entry, text.lstrip(".")


def _value_at(steps: list[Any], data: Any) -> Any:
    for step in steps:
        if isinstance(data, Mapping):
            data = data.get(step)
        elif isinstance(data, list) and isinstance(step, int) and step < len(data):
            data = data[step]
        else:
            return None
    return data


def _reason(reason: str, steps: list[Any], data: Any, root: Any) -> str:
    """msgspec's reason in the file's words."""
    if found := _UNKNOWN.fullmatch(reason):
        allowed = ", ".join(_fields(root, steps))
        return f"unknown field {short(found[1])!r}; allowed: {allowed}"
    if found := _MISSING.fullmatch(reason):
        return f"{found[1]}: required field is missing"
    if found := _ENUM.fullmatch(reason):
        # the value first: a long list of choices may be clipped, the value never is
        return f"got {short(found[1])}, must be one of {_choices(root, steps)}"
    if found := _BOUND.fullmatch(reason):
        value = _value_at(steps, data)
        if found[1]:
            size = len(value) if isinstance(value, (list, str)) else "?"
            return f"must have length {found[2]} {found[3]}, got {size}"
        return f"must be {found[2]} {found[3]}, got {short(repr(value))}"
    return reason.replace("`", "")


def _type_at(root: Any, steps: list[Any]) -> Any:
    """The schema type at `steps` (for allowed fields and choices), or None if it is lost."""
    kind: Any = root
    for step in steps:
        kind = _strip(kind)
        if isinstance(kind, mi.StructType) and isinstance(step, str):
            kind = next((f.type for f in kind.fields if f.encode_name == step), None)
        elif isinstance(kind, (mi.ListType, mi.DictType)):
            kind = kind.item_type if isinstance(kind, mi.ListType) else kind.value_type
        else:
            return None
        if kind is None:
            return None
    return _strip(kind)


def _strip(kind: Any) -> Any:
    while isinstance(kind, (mi.Metadata, mi.UnionType)):
        if isinstance(kind, mi.Metadata):
            kind = kind.type
        else:
            kind = next((t for t in kind.types if not isinstance(t, mi.NoneType)), kind)
            if isinstance(kind, mi.UnionType):
                break
    return kind


def _fields(root: Any, steps: list[Any]) -> list[str]:
    kind = _type_at(root, steps)
    return [f.encode_name for f in kind.fields] if isinstance(kind, mi.StructType) else []


def _choices(root: Any, steps: list[Any], key: bool = False) -> str:
    kind = _type_at(root, steps)
    if key and isinstance(kind, mi.DictType):  # an unknown key of a keyed table
        kind = _strip(kind.key_type)
    if isinstance(kind, mi.LiteralType):
        values = [repr(v) for v in kind.values]
        return ", ".join(values[:8]) + (f" … ({len(values) - 8} more)" if len(values) > 8 else "")
    return "the allowed values"
