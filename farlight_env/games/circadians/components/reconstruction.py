"""The constraints of docs/circadians/components.md marked *(reconstruction)*: they bind the
project's own standard file, not a user's transcription, so they are reported (for the tests),
never enforced on load."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise

from farlight_env.games.circadians.components import model as m
from farlight_env.games.circadians.components.checks import ROUNDS, STARTING_WATER

POINT_FARM_POINTS = 3
#: What a negotiation space may cost for Troy's reduction to apply (C-LEADER-11).
TROY_RESOURCES = ("gems", "energy", "algae")
#: Contract triggers a reconstruction must show at least once (components.md §4).
TRIGGERS = ("in_game", "negotiations", "faction", "end_game")
#: Locations a die can always go to without paying (components.md §13).
FREE_LOCATIONS = ("headquarters", "market")


def reconstruction_report(c: m.Components) -> list[str]:
    """Every *(reconstruction)* constraint `c` breaks, one line each; empty when all hold."""
    checks = (
        _research_base, _farm_tiles, _ship_tiles, _contracts, _events, _negotiations, _mining,
        _market, _planet, _caches, _named_effects, _free_destination, _scoring_areas,
        _player_counts,
    )  # fmt: skip
    return [line for check in checks for line in check(c)]


def _research_base(c: m.Components) -> Iterator[str]:
    costs = [g.algae for g in c.research_base.garages]
    if len(costs) < 2 or costs[1] != 1:
        yield "research_base: garages[1].algae: garage 2 costs 1 algae (Ul kah tal's text)"
    if any(a > b for a, b in pairwise(costs)):
        yield "research_base: garages: algae costs must not decrease left to right"
    table = c.research_base.farm_table
    if any(a > b for a, b in pairwise(table)):
        yield "research_base: farm_table: must not decrease from 1 to 6"


def _farm_tiles(c: m.Components) -> Iterator[str]:
    kinds = {f.kind for f in c.farm_tiles}
    for kind in m.FARM_KINDS:
        if kind not in kinds:
            yield f"farm_tile: no tile of kind {kind!r}"
    for farm in c.farm_tiles:
        if farm.kind == "point_farm" and farm.points != POINT_FARM_POINTS:
            yield f"farm_tile {farm.name!r}: points: a point farm is worth {POINT_FARM_POINTS}"
    if len(c.farm_tiles) < 3 or len(c.farm_tiles) % 3:
        yield "farm_tile: the count must be at least 3 and a multiple of 3"


def _ship_tiles(c: m.Components) -> Iterator[str]:
    found = {frozenset(e.signature for e in ship.effects) for ship in c.ship_tiles}
    for i, effect in enumerate(m.SHIP_EFFECTS, 1):
        if effect not in found:
            yield f"ship_tile: no tile has the summary's effect {i} (C-SHIP-1)"
    if len(c.ship_tiles) % 3:
        yield "ship_tile: the count must be a multiple of 3"


def _contracts(c: m.Components) -> Iterator[str]:
    triggers = {card.trigger for card in c.contracts}
    for trigger in TRIGGERS:
        if trigger not in triggers:
            yield f"contract: no card with trigger {trigger!r}"
    if not any(card.name == "Aqua Cannon" for card in c.contracts):
        yield "contract: 'Aqua Cannon' is missing"
    for card in c.contracts:
        if card.cost.empty:
            yield f"contract {card.name!r}: cost: must not be zero in every resource"


def _events(c: m.Components) -> Iterator[str]:
    """No event may take away the places a die can always go (C-EXEC-10)."""
    for event in c.events:
        for i, effect in enumerate(event.effects):
            closes = set(effect.locations) & set(FREE_LOCATIONS)
            if effect.kind in {"location_closed", "surcharge"} and closes:
                where = f"event {event.name!r}: effects[{i}]"
                yield f"{where}: must not close or tax {', '.join(sorted(closes))}"


def _negotiations(c: m.Components) -> Iterator[str]:
    for n, board in c.negotiations.items():
        spaces = [s for col in board.columns for s in col.spaces]
        if not any(getattr(s.cost, r) for s in spaces for r in TROY_RESOURCES):
            yield f"negotiations {n!r}: no cost includes gems, energy or algae (Troy)"
        for i, col in enumerate(board.columns):
            points = [s.points for s in col.spaces]
            if any(a > b for a, b in pairwise(points)):
                yield f"negotiations {n!r}: column[{i}]: points must not decrease as it fills"
        if len(spaces) < ROUNDS * n:
            yield f"negotiations {n!r}: {len(spaces)} spaces, fewer than one per player and round"


def _mining(c: m.Components) -> Iterator[str]:
    for space in c.mining_spaces:
        if space.sum - 6 > STARTING_WATER:
            yield f"mining_space {space.name!r}: sum: no die makes it payable from starting water"


def _market(c: m.Components) -> Iterator[str]:
    for n in c.players:
        trades = [t for s in c.for_players(c.market_spaces, n) for t in s.trades]
        bought = {r for t in trades for r, _ in t.get.items()}
        sold = {r for t in trades for r, _ in t.pay.items()}
        for resource in m.RESOURCES:
            if resource not in bought or resource not in sold:
                yield f"market_space: with {n} players {resource} cannot be both bought and sold"


def _planet(c: m.Components) -> Iterator[str]:
    for side, planet in c.planet.items():
        yields = {name for s in planet.spaces for name, _ in s.yields.items()}
        for kind in m.PLANET_YIELDS:
            if kind not in yields:
                yield f"planet {side!r}: no space yields {kind}"


def _caches(c: m.Components) -> Iterator[str]:
    if len({cache.points for cache in c.gem_caches}) < 2:
        yield "gem_cache: points: all backs are equal, so a cache is no gamble"


def _named_effects(c: m.Components) -> Iterator[str]:
    """Every effect the summary names is used by some component (components.md §13)."""
    for n, board in c.negotiations.items():
        for kind in (*m.REWARDS, *m.PUNISHMENTS):
            if kind not in board.reward_slots and kind not in board.punishment_slots:
                yield f"negotiations {n!r}: no slot for {kind}"
    for n, port in c.spaceport.items():
        rows = {(r.reward.kind, r.reward.amount) for r in port.depository_rows}
        if rows != m.DELIVERY_REWARDS:
            yield f"spaceport {n!r}: depository_rows: not the three delivery rewards"


def _free_destination(c: m.Components) -> Iterator[str]:
    """With the headquarters full, every player still finds a market space (C-EXEC-10)."""
    for n in c.players:
        if len(c.for_players(c.market_spaces, n)) < n:
            yield f"market_space: fewer than {n} spaces with {n} players"


def _scoring_areas(c: m.Components) -> Iterator[str]:
    """Each scoring area of C-SCORE can contribute points."""
    base = c.research_base
    areas = {
        "negotiation spaces": any(
            s.points for b in c.negotiations.values() for col in b.columns for s in col.spaces
        ),
        "contracts": any(card.points for card in c.contracts),
        "gem cache backs": any(cache.points for cache in c.gem_caches),
        "tiles": any(t.points for t in (*c.farm_tiles, *c.ship_tiles)),
        "research base positions": any(g.points for g in base.garages)
        or any(base.foundation_points),
    }
    for area, scores in areas.items():
        if not scores:
            yield f"scoring: no {area} carry points"


def _player_counts(c: m.Components) -> Iterator[str]:
    if sorted(c.players) != list(m.PLAYER_COUNTS):
        yield "players: the standard file supports 2, 3 and 4 players"
