"""R-BEN, assembly 3: crew and science for all, then upgrade and overhaul decisions; also
the Engineer's die choice (R-RES-5), the same move."""

from __future__ import annotations

from typing import TYPE_CHECKING

from farlight_env.cards.model import CardSet, Icon, IconKind, Timing
from farlight_env.game.config import Phase, Resume
from farlight_env.game.facts import MAX_ENGINE
from farlight_env.game.phases.missions import start_missions
from farlight_env.game.queries import _BOOSTED, change_ship, engines, turn_order
from farlight_env.game.ship import new_stamp
from farlight_env.game.tables import CONNECTOR_CACHE_SIZE

if TYPE_CHECKING:
    from farlight_env.game.game import FarlightGame

_Gains = tuple[int, int, int, int]  # crew, science, upgrade, overhaul icons


def start_benefits(g: FarlightGame) -> None:
    """R-BEN-1/2: crew and science for all; count upgrade and overhaul decisions."""
    every, fresh_gains = _icon_gains(g.cards)
    g._benefit_left = []
    for p in range(g.num_players):
        fresh = g.installed_this_round[p]
        crew = science = upgrade = overhaul = 0
        for part in g.ship_parts[p]:
            c, s, u, o = fresh_gains[part] if part in fresh else every[part]
            crew += c
            science += s
            upgrade += u
            overhaul += o
        g.crew[p] += crew
        g.science[p] += science
        g._benefit_left.append([upgrade, overhaul])
        g.installed_this_round[p] = []
        g.seat_stamps[p] = new_stamp()
    next_benefit(g)


#: Card set id -> (that set, its `_icon_gains`); the set is kept so an id is not reused.
_GAINS: dict[int, tuple[CardSet, tuple[list[_Gains], list[_Gains]]]] = {}


def _icon_gains(cards: CardSet) -> tuple[list[_Gains], list[_Gains]]:
    """Per part, its (crew, science, upgrade, overhaul) icons paying every round, and all its
    icons (paid in the round it is installed); derived once per card set."""
    hit = _GAINS.get(id(cards))
    if hit is None or hit[0] is not cards:
        every = [_count(part.icons, True) for part in cards.parts]
        fresh = [_count(part.icons, False) for part in cards.parts]
        if len(_GAINS) >= 16:
            _GAINS.clear()
        hit = _GAINS[id(cards)] = (cards, (every, fresh))
    return hit[1]


def _count(icons: tuple[Icon, ...], every_round_only: bool) -> _Gains:
    """Icons of each kind, in `_Gains` order; only every-round ones if asked."""
    kinds = (IconKind.CREW, IconKind.SCIENCE, IconKind.UPGRADE, IconKind.OVERHAUL)
    counted = [i for i in icons if not every_round_only or i.timing is Timing.EVERY_ROUND]
    c, s, u, o = (sum(1 for i in counted if i.kind is kind) for kind in kinds)
    return c, s, u, o


def next_benefit(g: FarlightGame) -> None:
    """R-BEN-3: in turn order, each player's upgrades, then its overhauls [decision]."""
    for p in turn_order(g):
        left = g._benefit_left[p]
        if not any(v < MAX_ENGINE for _, v in engines(g, p)):
            left[0] = left[1] = 0  # nothing an icon could improve
            continue
        if left[0] > 0:
            g._phase, g._current = Phase.UPGRADE, p
            return
        if left[1] > 0:
            g._phase, g._current = Phase.OVERHAUL, p
            return
    start_missions(g)


def engine_choice(g: FarlightGame, p: int, rank: int) -> None:
    rule = g.config.rule_options.edge_connectors
    counts = g.connector_cache.get((g.ship_stamps[p], rule))
    if g._phase is Phase.OVERHAUL:
        g.engine_values[rank] = MAX_ENGINE
    else:
        g.engine_values[rank] = min(MAX_ENGINE, g.engine_values[rank] + 1)
    change_ship(g, p, (rank << 3 | g.engine_values[rank]) << 2 | _BOOSTED)
    if counts is not None and len(g.connector_cache) < CONNECTOR_CACHE_SIZE:
        g.connector_cache[(g.ship_stamps[p], rule)] = counts  # same layout, new die
    if g._phase is Phase.ENGINEER:
        g._resume = Resume.RESOLVE
    else:
        g._benefit_left[p][0 if g._phase is Phase.UPGRADE else 1] -= 1
        g._resume = Resume.BENEFITS


def engine_skip(g: FarlightGame, p: int) -> None:
    g._benefit_left[p][0 if g._phase is Phase.UPGRADE else 1] -= 1
    g._resume = Resume.BENEFITS
