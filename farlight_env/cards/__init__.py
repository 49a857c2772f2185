"""Cards: the frozen card model, the card-file loader and the shipped standard set (R-CARDS)."""

from .loader import (
    CardFileError,
    card_set_from_dict,
    card_set_to_dict,
    load_card_set,
    standard_card_set,
    standard_constraints_report,
)
from .model import (
    AWARDS,
    FACILITIES,
    SIDES,
    CardSet,
    Icon,
    IconKind,
    MissionCard,
    PartCard,
    Side,
    Timing,
)

__all__ = [
    "AWARDS",
    "FACILITIES",
    "SIDES",
    "CardFileError",
    "CardSet",
    "Icon",
    "IconKind",
    "MissionCard",
    "PartCard",
    "Side",
    "Timing",
    "card_set_from_dict",
    "card_set_to_dict",
    "load_card_set",
    "standard_card_set",
    "standard_constraints_report",
]
