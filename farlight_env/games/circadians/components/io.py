"""Reading a Circadians component file: size-bounded, UTF-8 TOML, checked by the schema and by
every *(all files)* constraint (C-COMP-3); its SHA-256, stored in every game record; the shipped
standard file, parsed once."""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Mapping
from dataclasses import replace
from importlib import resources
from types import MappingProxyType
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from farlight_env.games.circadians.components.checks import check_components
from farlight_env.games.circadians.components.model import Components
from farlight_env.games.circadians.components.schema import (
    MAX_FILE_BYTES,
    ComponentFile,
    ComponentFileError,
    read_file,
)

STANDARD_FILE = "standard.toml"
#: The package holding `data/standard.toml`.
PACKAGE = "farlight_env.games.circadians"


def load_components(path: str | os.PathLike[str] | None = None) -> Components:
    """Load and check a component file; None loads the shipped standard file."""
    source = STANDARD_FILE if path is None else os.fspath(path)
    raw = _read_bytes(path)
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as err:
        raise ComponentFileError(
            f"{source}: not UTF-8 text ({err.reason} at byte {err.start})"
        ) from None
    except tomllib.TOMLDecodeError as err:
        raise ComponentFileError(f"{source}: not valid TOML: {err}") from None
    return replace(components_from_dict(data, source), sha256=hashlib.sha256(raw).hexdigest())


def components_from_dict(data: Mapping[str, Any], source: str = "<dict>") -> Components:
    """Check plain data (as parsed from TOML) and build the components from it (no hash)."""
    components = build(read_file(dict(data), source))
    try:
        check_components(components)
    except ComponentFileError as err:
        raise ComponentFileError(f"{source}: {err}") from None
    return components


def components_hash(path: str | os.PathLike[str] | None = None) -> str:
    """The SHA-256 (hex) of the file's bytes, as stored in game records; None: the standard file."""
    return hashlib.sha256(_read_bytes(path)).hexdigest()


@functools.lru_cache(maxsize=1)
def standard_components() -> Components:
    """The shipped reconstruction, parsed once (Components is immutable)."""
    return load_components(None)


def build(f: ComponentFile) -> Components:
    """The frozen model of a file that passed the schema."""
    return Components(
        schema_version=f.schema_version,
        name=f.name,
        reconstructed=f.reconstructed,
        description=f.description,
        players=tuple(f.players),
        research_base=f.research_base.model(),
        farm_tiles=tuple(t.model() for t in f.farm_tile),
        ship_tiles=tuple(t.model() for t in f.ship_tile),
        contracts=tuple(t.model() for t in f.contract),
        events=tuple(t.model() for t in f.event),
        factions=tuple(t.model() for t in f.faction),
        negotiations=_frozen({int(n): b.model(int(n)) for n, b in f.negotiations.items()}),
        spaceport=_frozen({int(n): p.model(int(n)) for n, p in f.spaceport.items()}),
        stations=_frozen({int(n): s.model(int(n)) for n, s in f.stations.items()}),
        station_costs=f.station_costs.model(),
        mining_spaces=tuple(t.model() for t in f.mining_space),
        market_spaces=tuple(t.model() for t in f.market_space),
        academy_spaces=tuple(t.model() for t in f.academy_space),
        control_room=_frozen({int(v): d for v, d in f.control_room.directions.items()}),
        planet=_frozen({side: p.model(side) for side, p in f.planet.items()}),
        gem_caches=tuple(t.model() for t in f.gem_cache),
        leader_tiles=tuple(t.model() for t in f.leader_tile),
        leaders=tuple(t.model() for t in f.leader),
    )


def _frozen(mapping: dict[Any, Any]) -> Mapping[Any, Any]:
    """A read-only view: the components never change once loaded."""
    return MappingProxyType(mapping)


def _read_bytes(path: str | os.PathLike[str] | None) -> bytes:
    """At most MAX_FILE_BYTES of the file: a component file is data from others."""
    if path is None:
        resource = resources.files(PACKAGE).joinpath("data").joinpath(STANDARD_FILE)
        return resource.read_bytes()
    source = os.fspath(path)
    try:
        with open(source, "rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise ComponentFileError(f"{source}: no such component file") from None
    except OSError as err:
        raise ComponentFileError(f"{source}: cannot read ({err.strerror or err})") from None
    if len(raw) > MAX_FILE_BYTES:
        limit = MAX_FILE_BYTES // 1024
        raise ComponentFileError(f"{source}: larger than {limit} KiB; a component file is smaller")
    return raw
