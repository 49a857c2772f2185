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

import msgspec

from farlight_env.cards.checks import (
    check_cards,
    check_climactic_above_regular,
    check_playable,
    check_unique_names,
    check_unique_ranks,
)
from farlight_env.cards.model import CardSet
from farlight_env.cards.schema import MAX_FILE_BYTES, CardFileError, CardSetFile, read_card_file
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
    card_file = read_card_file(data, source)
    check_cards(card_file, source)
    parts = tuple(part.card() for part in card_file.parts)
    missions = tuple(mission.card() for mission in card_file.missions)
    check_unique_names("part", parts, source)
    check_unique_names("mission", missions, source)
    check_unique_ranks(parts, source)
    check_climactic_above_regular(missions, source)
    check_playable(parts, missions, source)
    return CardSet(
        name=card_file.name,
        parts=parts,
        missions=missions,
        reconstructed=card_file.reconstructed,
        description=card_file.description,
    )


def card_set_to_dict(cs: CardSet) -> dict[str, Any]:
    """Plain JSON-able data in the card-file format; `card_set_from_dict` inverts it exactly."""
    return msgspec.to_builtins(CardSetFile.of(cs))


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
