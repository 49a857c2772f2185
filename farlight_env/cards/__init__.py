"""Cards: the frozen card model (`model`), the card-file format (`schema`), whole-deck checks
(`checks`), reading and writing card sets (`io`) and the shipped standard set (R-CARDS)."""

from .checks import standard_constraints_report
from .io import card_set_from_dict, card_set_to_dict, load_card_set, standard_card_set
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
from .schema import CardFileError

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
