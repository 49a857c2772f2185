"""Reading and writing card sets: a `.toml` or `.json` card file (size-bounded, UTF-8,
duplicate JSON keys refused) or plain data, validated by the card-file format and the deck
checks; the shipped standard set, parsed once."""

from __future__ import annotations

import functools
import json
import os
from collections import Counter
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from farlight_env.cards.checks import (
    check_climactic_above_regular,
    check_playable,
    check_unique_names,
    check_unique_ranks,
)
from farlight_env.cards.model import CardSet
from farlight_env.cards.schema import (
    MAX_DESCRIPTION_LENGTH,
    MAX_FILE_BYTES,
    SET_FIELDS,
    SET_REQUIRED,
    CardFileError,
    FieldError,
    check_bool,
    check_keys,
    check_name,
    check_string,
    describe,
    mission_to_dict,
    parse_card,
    parse_mission,
    parse_part,
    part_to_dict,
    table_list,
)
from farlight_env.untrusted.messages import short

STANDARD_FILE = "standard.toml"
PACKAGE = __name__.rpartition(".")[0]


def load_card_set(path: str | os.PathLike[str] | None = None) -> CardSet:
    """Load a card file (`.toml` or `.json`); None loads the shipped standard set."""
    if path is None:
        resource = resources.files(PACKAGE).joinpath("data").joinpath(STANDARD_FILE)
        return _parse_text(resource.read_text(encoding="utf-8"), ".toml", STANDARD_FILE)
    source = os.fspath(path)
    suffix = Path(source).suffix.lower()
    if suffix not in _DECODERS:
        raise CardFileError(
            f"{source}: unknown card file type {suffix or '(none)'!r}; use .toml or .json"
        )
    return _parse_text(_read_text(source), suffix, source)


@functools.lru_cache(maxsize=1)
def standard_card_set() -> CardSet:
    """The shipped reconstructed standard set, parsed once (CardSet is immutable)."""
    return load_card_set(None)


def card_set_from_dict(data: Mapping[str, Any], source: str = "<dict>") -> CardSet:
    """Validate plain data (as parsed from TOML/JSON) and build a CardSet from it."""
    if not isinstance(data, Mapping):
        raise CardFileError(
            f"{source}: the top level must be a table of card-set fields, got {describe(data)}"
        )
    try:
        check_keys(data, SET_FIELDS, SET_REQUIRED)
        name = check_name("name", data["name"])
        reconstructed = check_bool("reconstructed", data.get("reconstructed", False))
        description = check_string("description", data.get("description", ""))
        if len(description) > MAX_DESCRIPTION_LENGTH:
            raise FieldError("description", f"must be {SET_FIELDS['description']}")
        raw_parts = table_list("parts", data["parts"])
        raw_missions = table_list("missions", data["missions"])
    except FieldError as problem:
        raise CardFileError(f"{source}: {problem.where()}") from None
    parts = tuple(parse_card("part", raw, i, source, parse_part) for i, raw in enumerate(raw_parts))
    missions = tuple(
        parse_card("mission", raw, i, source, parse_mission) for i, raw in enumerate(raw_missions)
    )
    check_unique_names("part", parts, source)
    check_unique_names("mission", missions, source)
    check_unique_ranks(parts, source)
    check_climactic_above_regular(missions, source)
    check_playable(parts, missions, source)
    return CardSet(
        name=name,
        parts=parts,
        missions=missions,
        reconstructed=reconstructed,
        description=description,
    )


def card_set_to_dict(cs: CardSet) -> dict[str, Any]:
    """Plain JSON-able data in the card-file format; `card_set_from_dict` inverts it exactly."""
    return {
        "name": cs.name,
        "reconstructed": cs.reconstructed,
        "description": cs.description,
        "parts": [part_to_dict(p) for p in cs.parts],
        "missions": [mission_to_dict(m) for m in cs.missions],
    }


# =============================================================================================
# Reading and decoding
# =============================================================================================


def _read_text(source: str) -> str:
    try:
        with open(source, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
        if len(raw) > MAX_FILE_BYTES:
            raise CardFileError(
                f"{source}: card file is larger than {MAX_FILE_BYTES // 1024} KiB; "
                "a card set is far smaller"
            )
        return raw.decode("utf-8")
    except FileNotFoundError:
        raise CardFileError(f"{source}: no such card file") from None
    except UnicodeDecodeError as err:
        detail = f"{err.reason} at byte {err.start}"
        raise CardFileError(f"{source}: not UTF-8 text ({detail})") from None
    except OSError as err:
        raise CardFileError(f"{source}: cannot read card file ({err.strerror or err})") from None


def _reject_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """JSON would silently keep the last of two equal keys; a card file must not be ambiguous."""
    counts = Counter(key for key, _ in pairs)
    duplicates = sorted(key for key, n in counts.items() if n > 1)
    if duplicates:
        raise ValueError(f"duplicate key {short(duplicates[0])!r} in one object")
    return dict(pairs)


def _decode_json(text: str) -> Any:
    return json.loads(text, object_pairs_hook=_reject_duplicate_keys)


_DECODERS: dict[str, tuple[str, Callable[[str], Any]]] = {
    ".toml": ("TOML", tomllib.loads),
    ".json": ("JSON", _decode_json),
}


def _parse_text(text: str, suffix: str, source: str) -> CardSet:
    kind, decode = _DECODERS[suffix]
    try:
        data = decode(text)
    except ValueError as err:  # TOMLDecodeError and JSONDecodeError are ValueErrors
        raise CardFileError(f"{source}: not valid {kind}: {err}") from None
    except RecursionError:
        raise CardFileError(f"{source}: not valid {kind}: nested too deeply") from None
    return card_set_from_dict(data, source)
