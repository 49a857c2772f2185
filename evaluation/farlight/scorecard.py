"""What a scorecard says of a Farlight game beyond any game's fields: the card file's hash, its
rule options and other offered options, whether it is the standard game, and the policy's
auction diagnostics."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import msgspec

from evaluation.farlight.diagnostics import agent_diagnostics
from evaluation.formats.scorecard import AuctionDiagnostics


def card_set_hash(card_file: Path | None) -> str:
    """sha256 of the card file's bytes (the shipped standard.toml when none is given)."""
    if card_file is None:
        data = resources.files("farlight_env.cards").joinpath("data", "standard.toml").read_bytes()
    else:
        data = Path(card_file).read_bytes()
    return "sha256:" + hashlib.sha256(data).hexdigest()


def farlight_options(
    config: dict[str, Any], card_hash: str | None
) -> tuple[dict[str, Any], dict[str, Any], bool]:
    """Farlight's rule options and other offered options as the scorecard stores them, and
    whether the game is the standard one (the standard cards included)."""
    from farlight_env.game.config import OFFERED_OPTIONS, OPTION_DEFAULTS, OPTION_SPECS

    specs = {name: OPTION_SPECS[name] for name in OFFERED_OPTIONS}
    groups = {  # every member in force, stored apart from the other options
        name: spec.plain(config.get(name, OPTION_DEFAULTS[name]))
        for name, spec in specs.items()
        if spec.group is not None
    }
    defaults = {name: OPTION_DEFAULTS[name] for name, spec in specs.items() if spec.group is None}
    options = {name: config.get(name, default) for name, default in defaults.items()}
    standard = (
        not any(specs[name].changed(given) for name, given in groups.items())
        and card_hash == card_set_hash(None)
        and "card_set" not in config
        and options == defaults
    )
    return groups["rule_options"], options, standard


def auction_diagnostics(
    records: Sequence[dict[str, Any]], label: str
) -> dict[str, AuctionDiagnostics]:
    """The auction counts of the seat labelled `label` over Farlight's records (the scorecard's
    `diagnostics`)."""
    counts = agent_diagnostics(records, [label])[label]
    return {"diagnostics": msgspec.convert(counts, AuctionDiagnostics)}
