"""A game's immutable lookup tables, derived once per card set, seat count and grid and shared
by every game (and clone) with them; also the game options' card set and seed."""

from __future__ import annotations

import os
import secrets
from typing import TYPE_CHECKING, Any

import numpy as np

from farlight_env.cards.io import load_card_set, standard_card_set
from farlight_env.cards.model import FACILITIES, CardSet, Icon, IconKind, Timing
from farlight_env.cards.schema import CardFileError
from farlight_env.game.actions import Bid, Target, TargetKind
from farlight_env.game.config import CardSetError, ConfigError
from farlight_env.game.facts import NUM_STACKS, PART_SPACES, TILES
from farlight_env.game.ship import connector_mask
from farlight_env.seeding import SECURE_SEED_BITS, SEED_LIMIT

if TYPE_CHECKING:
    from farlight_env.game.game import FarlightGame


def resolve_card_set(card_set: CardSet | str | os.PathLike | None) -> CardSet:
    """The card set a game option names: None for the standard set, a CardSet, or a file."""
    if card_set is None:
        return standard_card_set()
    if isinstance(card_set, CardSet):
        return card_set
    if isinstance(card_set, (str, os.PathLike)):
        try:
            return load_card_set(card_set)
        except CardFileError as exc:
            raise CardSetError(str(exc)) from exc
    raise ConfigError(
        f"card_set must be None, a CardSet or a path to a card file, got {type(card_set).__name__}"
    )


def resolve_seed(seed: int | None) -> int:
    if seed is None:
        return secrets.randbits(SECURE_SEED_BITS)  # below SEED_LIMIT, as any seed must be
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ConfigError(f"seed must be an integer or None, got {seed!r}")
    if not 0 <= seed < SEED_LIMIT:
        raise ConfigError(f"seed must be a non-negative integer below 2**128, got {seed}")
    return int(seed)


# Attributes derived once from config and cards; immutable, so clones share them.
SHARED_TABLES = (
    "config",
    "cards",
    "seed",
    "num_players",
    "num_spaces",
    "half",
    "part_index",
    "mission_index",
    "part_masks",
    "rank_part",
    "targets",
    "target_slot",
    "bid_actions",
    "bid_slots",
    "install_actions",
    "connector_cache",
    "cells_cache",
    "bid_blocks",
    "engines_cache",
    "ship_transitions",
    "compact_changes",
    "icon_gains",
)


_TABLES_KEPT = 16
CONNECTOR_CACHE_SIZE = 65536
BID_BLOCKS_KEPT = 4096
#: Whether a bid adds a crew, by whether the seat has crew to add.
CREW_CHOICES = {False: (False,), True: (False, True)}
_TABLES: dict[tuple[int, int, int], tuple[CardSet, dict[str, Any]]] = {}


def _derive_tables(cards: CardSet, num_players: int, grid_size: int) -> dict[str, Any]:
    """The immutable lookups a game needs: indices, connector masks, targets, bid actions."""
    num_spaces = PART_SPACES[num_players]
    targets: tuple[Target, ...] = (
        tuple(Target(TargetKind.PART, i) for i in range(num_spaces))
        + tuple(Target(TargetKind.FACILITY, i) for i in range(len(FACILITIES)))
        + tuple(Target(TargetKind.MISSION, i) for i in range(NUM_STACKS))
    )
    bid_actions = {
        (tile, slot, crew): Bid(tile, t, crew)
        for slot, t in enumerate(targets)
        for tile in TILES
        for crew in (False, True)
    }
    return {
        "num_players": num_players,
        "num_spaces": num_spaces,
        "half": grid_size // 2,
        "part_index": {p.name: i for i, p in enumerate(cards.parts)},
        "mission_index": {m.name: i for i, m in enumerate(cards.missions)},
        "part_masks": tuple(connector_mask(p) for p in cards.parts),
        "rank_part": {rank: i for i, p in enumerate(cards.parts) for rank in p.engines},
        "targets": targets,
        "target_slot": {t: i for i, t in enumerate(targets)},
        "bid_actions": bid_actions,
        # id of each shared Bid -> (that Bid, its slot): a bid handed out by these tables (the
        # codec decodes to them) is recognised without hashing its target
        "bid_slots": {id(bid): (bid, key[1]) for key, bid in bid_actions.items()},
        "install_actions": {},  # (part, row, col) -> Install, filled as cells come up
        "connector_cache": {},  # (ship stamp, edge rule) -> connector counts; stamps are unique
        "cells_cache": {},  # (ship stamp, part mask) -> legal install cells
        "bid_blocks": {},  # (open target slots, tile, crew possible) -> that tile's bids
        "engines_cache": {},  # ship stamp -> (rank, value) of its engines
        # (ship stamp, change) -> the stamp after it: equal ships changed alike stay equal, so
        # games that make the same change (search rollouts) share every stamp-keyed cache
        "ship_transitions": {},
        # ship changes code into 64 bits: parts, ranks and the grid (<= 41) within the widths
        "compact_changes": _changes_fit(cards),
        # per part: (crew, science, upgrade, overhaul) icons paying every round, and all of
        # its icons (paid in the round it is installed), R-BEN-1/2
        "icon_gains": (
            tuple(_icon_counts(p.icons, every_round_only=True) for p in cards.parts),
            tuple(_icon_counts(p.icons, every_round_only=False) for p in cards.parts),
        ),
    }


def _icon_counts(icons: tuple[Icon, ...], every_round_only: bool) -> tuple[int, int, int, int]:
    """A part's crew, science, upgrade and overhaul icons; only every-round ones if asked."""
    counted = [i for i in icons if not every_round_only or i.timing is Timing.EVERY_ROUND]
    kinds = (IconKind.CREW, IconKind.SCIENCE, IconKind.UPGRADE, IconKind.OVERHAUL)
    c, s, u, o = (sum(1 for i in counted if i.kind is kind) for kind in kinds)
    return c, s, u, o


def _changes_fit(cards: CardSet) -> bool:
    """Whether `_change_ship` codes fit 64 bits: parts below 2**32 with at most 6 engines,
    ranks below 2**59 (the grid, at most 41 wide, and dice 1..6 always fit)."""
    return len(cards.parts) < 1 << 32 and all(
        len(p.engines) <= 6 and all(0 <= r < 1 << 59 for r in p.engines) for p in cards.parts
    )


def init_tables(g: FarlightGame) -> None:
    """Per-card lookups derived once per card set and seat count, shared by every game."""
    key = (id(g.cards), g.config.num_players, g.config.grid_size)
    hit = _TABLES.get(key)
    if hit is None or hit[0] is not g.cards:  # `is`: an id can be reused after a free
        hit = (g.cards, _derive_tables(g.cards, *key[1:]))
        if len(_TABLES) >= _TABLES_KEPT:
            del _TABLES[next(iter(_TABLES))]
        _TABLES[key] = hit
    for name, value in hit[1].items():
        setattr(g, name, value)
    # A game played on its own never meets a ship state again; copies of one position
    # (search) do, so only clones look their ship changes up (see `_change_ship`).
    g.share_ship_stamps = False
