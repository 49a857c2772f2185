"""Where the card-file loader used to live: its names, re-exported from the modules that hold
them now, `schema` (the card-file format), `checks` (whole-deck checks, the standard set's
constraints) and `io` (reading and writing card sets)."""

from __future__ import annotations

from farlight_env.cards.checks import (
    MIN_CLIMACTIC,
    MIN_PARTS,
    MIN_REGULAR,
    STANDARD_CLIMACTIC,
    STANDARD_ENGINE_ICONS,
    STANDARD_MISSIONS,
    STANDARD_PARTS,
    standard_constraints_report,
)
from farlight_env.cards.io import (
    STANDARD_FILE,
    card_set_from_dict,
    card_set_to_dict,
    load_card_set,
    standard_card_set,
)
from farlight_env.cards.schema import (
    MAX_CARDS,
    MAX_CREW_COST,
    MAX_DESCRIPTION_LENGTH,
    MAX_ENGINE_RANK,
    MAX_FILE_BYTES,
    MAX_MISSION_BIOTECH,
    MAX_MISSION_DIE,
    MAX_MISSION_ENGINES,
    MAX_MISSION_SCIENCE,
    MAX_MISSION_VALUE,
    MAX_NAME_LENGTH,
    MAX_PART_BIOTECH,
    MAX_PART_ENGINES,
    MAX_PART_ICONS,
    MIN_MISSION_DIE,
    CardFileError,
)

__all__ = [
    "MAX_CARDS",
    "MAX_CREW_COST",
    "MAX_DESCRIPTION_LENGTH",
    "MAX_ENGINE_RANK",
    "MAX_FILE_BYTES",
    "MAX_MISSION_BIOTECH",
    "MAX_MISSION_DIE",
    "MAX_MISSION_ENGINES",
    "MAX_MISSION_SCIENCE",
    "MAX_MISSION_VALUE",
    "MAX_NAME_LENGTH",
    "MAX_PART_BIOTECH",
    "MAX_PART_ENGINES",
    "MAX_PART_ICONS",
    "MIN_CLIMACTIC",
    "MIN_MISSION_DIE",
    "MIN_PARTS",
    "MIN_REGULAR",
    "STANDARD_CLIMACTIC",
    "STANDARD_ENGINE_ICONS",
    "STANDARD_FILE",
    "STANDARD_MISSIONS",
    "STANDARD_PARTS",
    "CardFileError",
    "card_set_from_dict",
    "card_set_to_dict",
    "load_card_set",
    "standard_card_set",
    "standard_constraints_report",
]
