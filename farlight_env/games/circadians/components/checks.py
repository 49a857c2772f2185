"""Whole-file constraints of docs/circadians/components.md marked *(all files)*, run on every
load (C-COMP-3); those marked *(reconstruction)* bind only the project's own file and are in
`reconstruction`."""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from itertools import pairwise, permutations
from math import prod

from farlight_env.games.circadians.components import model as m
from farlight_env.games.circadians.components.messages import where
from farlight_env.games.circadians.components.schema import ComponentFileError

ROUNDS = 7
STARTING_WATER = 15
MIN_CONTRACTS = 4 * 4 + 3  # a 4-player draft, then Zoey's 3 (C-DRAFT-1, C-LEADER-14)
MIN_OTHER_EVENTS = 12  # 6 for the pile and 6 for Renzo (C-SETUP-5, C-LEADER-7)
SLOTS_PER_ROW = 6  # one per token, so every token can always move (C-ADV-1, C-SETBACK-5)
CACHES = ARROWS = 6


class Refusal(ComponentFileError):
    """A constraint a file breaks: `table 'entry': field: why`."""

    def __init__(self, table: str, entry: str | None, field: str, why: str) -> None:
        super().__init__(f"{where(table, entry, field)}: {why}")


def check_components(c: m.Components) -> None:
    """Every *(all files)* constraint; the first one broken is raised as ComponentFileError."""
    _check_unique_names(c)
    _check_factions(c.factions)
    _check_effects(c)
    _check_research_base(c.research_base)
    _check_tiles(c)
    _check_contracts(c)
    _check_events(c.events)
    _check_player_counts(c)
    for board in c.negotiations.values():
        _check_negotiations(board, c)
    for port in c.spaceport.values():
        _check_spaceport(port)
    for stations in c.stations.values():
        _check_stations(stations)
    _check_control_room(c.control_room)
    _check_planets(c.planet)
    _check_caches(c.gem_caches)
    _check_leaders(c)


# =============================================================================================
# Names and effects
# =============================================================================================


def _named_tables(c: m.Components) -> Iterator[tuple[str, tuple]]:
    yield from (
        ("farm_tile", c.farm_tiles), ("ship_tile", c.ship_tiles), ("contract", c.contracts),
        ("event", c.events), ("faction", c.factions), ("mining_space", c.mining_spaces),
        ("market_space", c.market_spaces), ("academy_space", c.academy_spaces),
        ("gem_cache", c.gem_caches), ("leader_tile", c.leader_tiles), ("leader", c.leaders),
    )  # fmt: skip


def _check_unique_names(c: m.Components) -> None:
    """Names differing only by case or surrounding spaces are one name to a reader."""
    for table, entries in _named_tables(c):
        _unique(table, [e.name for e in entries], "name")
    for side, planet in c.planet.items():
        _unique("planet", [s.id for s in planet.spaces], "spaces.id", side)


def _unique(table: str, names: list[str], field: str, entry: str | None = None) -> None:
    seen: set[str] = set()
    for index, name in enumerate(names):
        key = name.strip().casefold()
        if key in seen:
            at = entry or name
            raise Refusal(table, at, f"{field}[{index}]" if entry else field, "must be unique")
        seen.add(key)


def all_effects(c: m.Components) -> Iterator[tuple[str, str, str, m.Effect]]:
    """Every effect of the file with where it is: (table, entry, field, effect)."""
    for table, entries in (("ship_tile", c.ship_tiles), ("contract", c.contracts)):
        for entry in entries:
            for i, effect in enumerate(entry.effects):
                yield table, entry.name, f"effects[{i}]", effect
    for event in c.events:
        for i, effect in enumerate(event.effects):
            yield "event", event.name, f"effects[{i}]", effect
    for faction in c.factions:
        for s, side in enumerate(faction.sides):
            for i, effect in enumerate(side.effects):
                yield "faction", faction.name, f"side[{s}].effects[{i}]", effect
    for n, port in c.spaceport.items():
        for i, effect in enumerate(port.headquarters_rewards):
            yield "spaceport", str(n), f"headquarters_rewards[{i}]", effect
        for i, row in enumerate(port.depository_rows):
            yield "spaceport", str(n), f"depository_rows[{i}].reward", row.reward
    for tile in c.leader_tiles:
        for i, effect in enumerate(tile.ship.effects if tile.ship else ()):
            yield "leader_tile", tile.name, f"ship.effects[{i}]", effect
    for leader in c.leaders:
        for i, effect in enumerate(leader.effects):
            yield "leader", leader.name, f"effects[{i}]", effect


def given_params(effect: m.Effect) -> frozenset[str]:
    """The parameters an effect sets (a list is set when non-empty)."""
    values = {
        "amount": effect.amount, "resource": effect.resource, "per": effect.per,
        "values": effect.values or None, "locations": effect.locations or None,
        "faction": effect.faction, "tile": effect.tile,
    }  # fmt: skip
    return frozenset(name for name, value in values.items() if value is not None)


def _check_effects(c: m.Components) -> None:
    """Each kind's parameters (EFFECT_PARAMS); names point at real factions and tiles; only
    Specialists leaders use the expansion's kinds."""
    factions = {f.name for f in c.factions}
    tiles = {t.name for t in c.leader_tiles}
    specialists = {leader.name for leader in c.leaders if leader.expansion == "specialists"}
    for table, entry, field, effect in all_effects(c):
        need, allowed = m.EFFECT_PARAMS[effect.kind]
        if effect.when == "on_send":  # "when a die is sent to ...": the locations say where
            need, allowed = need | {"locations"}, allowed | {"locations"}
        given = given_params(effect)
        expansion = table == "leader" and entry in specialists
        if missing := sorted(need - given):
            raise Refusal(table, entry, field, f"effect {effect.kind!r} needs {', '.join(missing)}")
        if extra := sorted(given - allowed):
            why = f"effect {effect.kind!r} takes no {', '.join(extra)}"
            raise Refusal(table, entry, f"{field}.{extra[0]}", why)
        named = factions | (set(m.SPECIALISTS_FACTIONS) if expansion else set())
        if effect.faction is not None and effect.faction not in named:
            raise Refusal(table, entry, f"{field}.faction", "must name a faction of the file")
        if effect.tile is not None and effect.tile not in tiles:
            raise Refusal(table, entry, f"{field}.tile", "must name a leader_tile of the file")
        if effect.kind in m.SPECIALISTS_KINDS and not expansion:
            why = f"effect {effect.kind!r} belongs to the Specialists expansion"
            raise Refusal(table, entry, f"{field}.kind", why)


# =============================================================================================
# Research base, tiles, contracts, events, factions
# =============================================================================================


def _check_research_base(base: m.ResearchBase) -> None:
    """Every die can be assigned (C-ASSIGN-4); the printed ship's garage costs no algae."""
    spaces = len(base.garages) + 1 + len(base.die_farms)  # garages, booster farm, die farms
    if spaces < m.DICE_LIMIT + 1:
        why = f"garages and die farms give {spaces} places; at least {m.DICE_LIMIT + 1} are needed"
        raise Refusal("research_base", None, "garages", why + " (dice limit plus Sal, C-ASSIGN-4)")
    if base.garages[0].algae:
        why = "the first garage holds the printed ship and has no algae cost"
        raise Refusal("research_base", None, "garages[0].algae", why)


#: The one field (besides points) each farm kind has (C-FARM-1).
FARM_FIELDS = {
    "die_farm": "resources", "trading_farm": "trades", "six_farm": "produces",
    "passive_farm": "produces", "point_farm": None,
}  # fmt: skip


def _check_farm(table: str, farm: m.FarmTile, prefix: str = "") -> None:
    present = {
        "resources": bool(farm.resources), "trades": bool(farm.trades),
        "produces": not farm.produces.empty,
    }  # fmt: skip
    wanted = FARM_FIELDS[farm.kind]
    for name, has in present.items():
        if has and name != wanted:
            raise Refusal(table, farm.name, prefix + name, f"a {farm.kind} has no {name}")
        if not has and name == wanted:
            raise Refusal(table, farm.name, prefix + name, f"a {farm.kind} needs {name}")
    if farm.kind == "die_farm" and len(set(farm.resources)) != 2:
        raise Refusal(table, farm.name, prefix + "resources", "must name two different resources")


def _check_ship(table: str, ship: m.ShipTile, prefix: str = "") -> None:
    """A ship touches only the die sent, its garage's cost or its action's cost (C-SHIP-1)."""
    for i, effect in enumerate(ship.effects):
        if effect.kind not in m.SHIP_KINDS:
            why = f"a ship may only use {', '.join(sorted(m.SHIP_KINDS))}"
            raise Refusal(table, ship.name, f"{prefix}effects[{i}].kind", why)


def _check_tiles(c: m.Components) -> None:
    for farm in c.farm_tiles:
        _check_farm("farm_tile", farm)
    for ship in c.ship_tiles:
        _check_ship("ship_tile", ship)
    if len(c.ship_tiles) < 3:
        raise Refusal("ship_tile", None, "", "needs at least 3 tiles, one per foundry stack")


def gainable(c: m.Components) -> set[str]:
    """Resources some planet space, cache front, trade, farm or research-base farm gives."""
    got = {name for p in c.planet.values() for s in p.spaces for name, _ in s.yields.items()}
    got |= {name for cache in c.gem_caches for name, _ in cache.front.items()}
    got |= {name for s in c.market_spaces for t in s.trades for name, _ in t.get.items()}
    got |= {name for f in c.farm_tiles for name, _ in f.produces.items()}
    got |= {r for f in c.farm_tiles for r in f.resources}
    return got | {r for farm in c.research_base.die_farms for r in farm}


def _check_contracts(c: m.Components) -> None:
    """Enough to draft; each trigger kind's fields; costs a player can gain (C-DRAFT, C-DEPOT)."""
    if len(c.contracts) < MIN_CONTRACTS:
        why = f"needs at least {MIN_CONTRACTS} cards (a 4-player draft and Zoey), got"
        raise Refusal("contract", None, "", f"{why} {len(c.contracts)}")
    factions, gains = {f.name for f in c.factions}, gainable(c)
    for card in c.contracts:
        _check_contract(card, factions, gains)


def _check_contract(card: m.Contract, factions: set[str], gains: set[str]) -> None:
    name, trigger = card.name, card.trigger
    if (trigger == "none") != (not card.effects):
        why = "a card with trigger 'none' has no effects" if card.effects else "needs effects"
        raise Refusal("contract", name, "effects", why)
    if (trigger == "faction") != (card.faction is not None):
        why = "needs a faction" if trigger == "faction" else "only a 'faction' card names one"
        raise Refusal("contract", name, "faction", why)
    if card.faction is not None and card.faction not in factions:
        raise Refusal("contract", name, "faction", "must name a faction of the file")
    for i, effect in enumerate(card.effects):
        if trigger == "end_game" and effect.kind not in m.END_GAME_KINDS:
            why = "an end-game card may only use points or points_per"
            raise Refusal("contract", name, f"effects[{i}].kind", why)
    for resource, _ in card.cost.items():
        if resource not in gains:
            why = f"{resource} is not yielded by any planet space, trade or farm"
            raise Refusal("contract", name, f"cost.{resource}", why)


def _check_events(events: tuple[m.Event, ...]) -> None:
    """End of an Era closes the pile, once; enough others for the pile and Renzo (C-SETUP-5)."""
    finals = [e for e in events if e.final]
    era = [e for e in events if e.name == m.END_OF_AN_ERA]
    if not era:
        raise Refusal("event", m.END_OF_AN_ERA, "", "is missing")
    if not era[0].final:
        raise Refusal("event", m.END_OF_AN_ERA, "final", "must be true")
    if len(finals) != 1:
        other = next(e for e in finals if e.name != m.END_OF_AN_ERA)
        raise Refusal("event", other.name, "final", f"only {m.END_OF_AN_ERA!r} is final")
    if len(events) - 1 < MIN_OTHER_EVENTS:
        why = f"needs at least {MIN_OTHER_EVENTS} events besides {m.END_OF_AN_ERA!r}, got"
        raise Refusal("event", None, "", f"{why} {len(events) - 1}")


def _check_factions(factions: tuple[m.Faction, ...]) -> None:
    """Leyrien, Zcharo, Jrayek, left to right, two sides each (C-SETUP-3); abilities resolve on
    the spot (C-NEGOT-4)."""
    found = tuple((f.name, f.position) for f in factions)
    if sorted(found) != sorted(m.FACTIONS):
        expected = ", ".join(f"{n} ({p})" for n, p in m.FACTIONS)
        raise Refusal("faction", None, "name", f"must be exactly {expected}")
    for faction in factions:
        if sorted(s.side for s in faction.sides) != list(m.SIDES):
            raise Refusal("faction", faction.name, "side", "needs the sides 'a' and 'b', once each")
        for s, side in enumerate(faction.sides):
            for i, effect in enumerate(side.effects):
                if effect.kind not in m.IMMEDIATE_KINDS or effect.when != "immediate":
                    why = "a faction ability must resolve at once with an immediate kind"
                    raise Refusal("faction", faction.name, f"side[{s}].effects[{i}]", why)


# =============================================================================================
# Player counts and boards
# =============================================================================================


def _check_player_counts(c: m.Components) -> None:
    """The file names its player counts, and every per-count table has exactly those."""
    if len(set(c.players)) != len(c.players):
        raise Refusal("the file", None, "players", "lists a player count twice")
    wanted = sorted(c.players)
    for table, keyed in (
        ("negotiations", c.negotiations), ("spaceport", c.spaceport), ("stations", c.stations),
    ):  # fmt: skip
        if sorted(keyed) != wanted:
            raise Refusal(table, None, "", f"needs exactly the player counts {wanted}")
    stations = (
        ("mining_space", c.mining_spaces), ("market_space", c.market_spaces),
        ("academy_space", c.academy_spaces),
    )  # fmt: skip
    for table, entries in stations:
        for entry in entries:
            if not set(entry.players) <= set(c.players):
                raise Refusal(table, entry.name, "players", f"must be among {wanted}")
        for n in wanted:
            if not c.for_players(entries, n):
                raise Refusal(table, None, "players", f"no space for {n} players")
    for n in wanted:
        _check_academy(c.for_players(c.academy_spaces, n), n)
        _check_market(c.for_players(c.market_spaces, n))


def _check_negotiations(board: m.NegotiationBoard, c: m.Components) -> None:
    key = str(board.players)
    names = [col.faction for col in board.columns]
    if sorted(set(names)) != sorted(f.name for f in c.factions):
        raise Refusal("negotiations", key, "column.faction", "needs a column per faction")
    for field, slots, kinds in (
        ("reward_slots", board.reward_slots, m.REWARDS),
        ("punishment_slots", board.punishment_slots, m.PUNISHMENTS),
    ):
        if len(slots) < SLOTS_PER_ROW:
            why = f"needs at least {SLOTS_PER_ROW} slots, so every token can move; got"
            raise Refusal("negotiations", key, field, f"{why} {len(slots)}")
        if missing := [k for k in kinds if k not in slots]:
            raise Refusal("negotiations", key, field, f"no slot for {', '.join(missing)}")
    _check_setbacks(board, key)


def _check_setbacks(board: m.NegotiationBoard, key: str) -> None:
    """Thresholds strictly increase and each can be reached in every column (C-SETBACK-1)."""
    for field, limits in (
        ("setback_sums", board.setback_sums),
        ("setback_same", board.setback_same),
    ):
        if any(a >= b for a, b in pairwise(limits)):
            raise Refusal("negotiations", key, field, "must strictly increase")
    for i, col in enumerate(board.columns):
        spaces = len(col.spaces)
        if board.setback_sums[-1] > 6 * spaces:
            why = f"{board.setback_sums[-1]} cannot be reached with {spaces} dice of column {i}"
            raise Refusal("negotiations", key, "setback_sums", why)
        if board.setback_same[-1] > spaces - 1:
            why = f"{board.setback_same[-1]} same dice cannot already lie in column {i}"
            raise Refusal("negotiations", key, "setback_same", why)


def _check_spaceport(port: m.Spaceport) -> None:
    """Headquarters of 4; depository of 6 columns and the 3 delivery rewards (C-HQ, C-DEPOT)."""
    key = str(port.players)
    if port.headquarters_spaces != m.HEADQUARTERS_SPACES:
        why = f"must be {m.HEADQUARTERS_SPACES}"
        raise Refusal("spaceport", key, "headquarters_spaces", why)
    if port.depository_columns != m.DEPOSITORY_COLUMNS:
        raise Refusal("spaceport", key, "depository_columns", "must be 6, one per die value")
    rewards = [(row.reward.kind, row.reward.amount) for row in port.depository_rows]
    if len(rewards) != 3 or set(rewards) != m.DELIVERY_REWARDS:
        why = "needs 3 rows: move_harvester 1, gain_dice 1 and draw_contracts 2, one each"
        raise Refusal("spaceport", key, "depository_rows", why)


def _check_stations(stations: m.Stations) -> None:
    key = str(stations.players)
    pairs = 2 if stations.players == 4 else 1
    if stations.laboratory_pairs != pairs:
        why = f"must be {pairs} with {stations.players} players (C-LAB-5)"
        raise Refusal("stations", key, "laboratory_pairs", why)
    if stations.foundry_spaces < 1:
        raise Refusal("stations", key, "foundry_spaces", "must be at least 1")


def _check_academy(spaces: tuple[m.AcademySpace, ...], n: int) -> None:
    """Some academy space takes every die value (C-ACAD-1)."""
    values = {v for s in spaces for v in s.values}
    if missing := [v for v in m.DIE_VALUES if v not in values]:
        why = f"with {n} players no space accepts {', '.join(map(str, missing))}"
        raise Refusal("academy_space", None, "values", why)


def _check_market(spaces: tuple[m.MarketSpace, ...]) -> None:
    """No trade gives something for nothing, and no cycle of one-for-one trades gains."""
    rates: dict[tuple[str, str], Fraction] = {}
    for space in spaces:
        for i, trade in enumerate(space.trades):
            paid, got = trade.pay.items(), trade.get.items()
            if not paid or not got:
                raise Refusal("market_space", space.name, f"trades[{i}]", "pays or gets nothing")
            if {r for r, _ in paid} & {r for r, _ in got}:
                why = "names a resource on both sides"
                raise Refusal("market_space", space.name, f"trades[{i}]", why)
            if len(paid) == len(got) == 1:
                edge, rate = (paid[0][0], got[0][0]), Fraction(got[0][1], paid[0][1])
                rates[edge] = max(rate, rates.get(edge, rate))
    if gain := arbitrage(rates):
        raise Refusal("market_space", None, "trades", f"trading {' -> '.join(gain)} gains")


def arbitrage(rates: dict[tuple[str, str], Fraction]) -> list[str]:
    """A cycle of one-for-one trades whose rates multiply above 1, or []. Any gaining cycle
    contains a gaining simple one, and with four resources those are few enough to list."""
    for length in range(2, len(m.RESOURCES) + 1):
        for cycle in permutations(m.RESOURCES, length):
            if cycle[0] != min(cycle):
                continue  # each cycle once, from its first resource
            path = [*cycle, cycle[0]]
            edges = list(pairwise(path))
            if all(e in rates for e in edges) and prod(rates[e] for e in edges) > 1:
                return path
    return []


def _check_control_room(directions: dict[int, str]) -> None:
    """Die values 1-6 onto the six directions, one to one (C-CTRL-1)."""
    if sorted(directions) != list(m.DIE_VALUES) or len(set(directions.values())) != 6:
        why = "must map each die value 1-6 to a different one of the six directions"
        raise Refusal("control_room", None, "directions", why)


def _check_planets(planets: dict[str, m.Planet]) -> None:
    if sorted(planets) != list(m.SIDES):
        raise Refusal("planet", None, "", "needs the sides 'a' and 'b'")
    for planet in planets.values():
        _check_planet(planet)


def _check_planet(planet: m.Planet) -> None:
    """Distances lead to the centre (so every space is reachable from it: each has a closer
    neighbour and only the centre is at 0), 6 caches and 6 arrows, and the control room always
    has a way to go (C-PLANET-3, C-CTRL-2)."""
    side, spaces = planet.side, {s.id: s for s in planet.spaces}
    opposite = {d: m.DIRECTIONS[(i + 3) % 6] for i, d in enumerate(m.DIRECTIONS)}
    if planet.centre not in spaces or spaces[planet.centre].distance != 0:
        raise Refusal("planet", side, "centre", "must name a space at distance 0")
    for s in planet.spaces:
        for direction, other in s.neighbours.items():
            field = f"spaces[{s.id}].neighbours.{direction}"
            if other not in spaces:
                raise Refusal("planet", side, field, f"no space {other!r}")
            if spaces[other].neighbours.get(opposite[direction]) != s.id:
                why = f"{other!r} must lead back by {opposite[direction]}"
                raise Refusal("planet", side, field, why)
        closer = [o for o in s.neighbours.values() if spaces[o].distance < s.distance]
        if s.id != planet.centre and (s.distance == 0 or not closer):
            why = "every space but the centre needs a neighbour closer to the centre"
            raise Refusal("planet", side, f"spaces[{s.id}].distance", why)
    _check_edges(planet, spaces)


def _check_edges(planet: m.Planet, spaces: dict[str, m.PlanetSpace]) -> None:
    side = planet.side
    exits = {(a.space, a.direction) for a in planet.arrows}
    for s in planet.spaces:
        if not any(d in s.neighbours or (s.id, d) in exits for d in m.DIRECTIONS):
            why = "no control-room direction leads anywhere (C-CTRL-2)"
            raise Refusal("planet", side, f"spaces[{s.id}]", why)
    if (caches := sum(s.cache for s in planet.spaces)) != CACHES:
        raise Refusal("planet", side, "spaces.cache", f"needs {CACHES} cache slots, got {caches}")
    if len(planet.arrows) != ARROWS:
        raise Refusal("planet", side, "arrows", f"needs {ARROWS} arrows, got {len(planet.arrows)}")
    for i, arrow in enumerate(planet.arrows):
        start = spaces.get(arrow.space)
        if start is None or arrow.to not in spaces:
            raise Refusal("planet", side, f"arrows[{i}]", "must join two spaces of this side")
        if arrow.direction in start.neighbours:
            raise Refusal("planet", side, f"arrows[{i}].direction", "must point off the edge")


def _check_caches(caches: tuple[m.GemCache, ...]) -> None:
    if len(caches) != CACHES:
        raise Refusal("gem_cache", None, "", f"needs exactly {CACHES} tokens, got {len(caches)}")
    for cache in caches:
        if cache.front != m.Bundle(gems=1, dice=1):
            raise Refusal("gem_cache", cache.name, "front", "must show 1 gem and 1 die")


def _check_leaders(c: m.Components) -> None:
    """The 26 leaders by expansion (C-LEADER); tiles belong to their leaders; Sal is a 3."""
    expansions = {n: "base" for n in m.BASE_LEADERS} | dict.fromkeys(
        m.SPECIALISTS_LEADERS, "specialists"
    )
    found = {leader.name: leader for leader in c.leaders}
    if missing := [name for name in expansions if name not in found]:
        raise Refusal("leader", missing[0], "", "is missing")
    for leader in c.leaders:
        if leader.name not in expansions:
            raise Refusal("leader", leader.name, "name", "is not a leader of the game")
        if leader.expansion != expansions[leader.name]:
            why = f"must be {expansions[leader.name]!r}"
            raise Refusal("leader", leader.name, "expansion", why)
    tiles = {t.name: t for t in c.leader_tiles}
    for leader in c.leaders:
        if (
            leader.tile is not None
            and getattr(tiles.get(leader.tile), "leader", None) != leader.name
        ):
            raise Refusal("leader", leader.name, "tile", "must name a leader_tile of this leader")
    for tile in c.leader_tiles:
        _check_leader_tile(tile, found)
    sal = tiles.get(m.SAL)
    if sal is None or sal.kind != "die" or sal.value != m.SAL_VALUE or sal.leader != "Bjorg":
        raise Refusal("leader_tile", m.SAL, "value", "Bjorg's Sal must be a die of value 3")


def _check_leader_tile(tile: m.LeaderTile, leaders: dict[str, m.Leader]) -> None:
    if tile.leader not in leaders:
        raise Refusal("leader_tile", tile.name, "leader", "must name a leader of the file")
    present = {
        "value": tile.value is not None, "events": tile.events > 0,
        "farm": tile.farm is not None, "ship": tile.ship is not None,
    }  # fmt: skip
    wanted = {"die": "value", "events": "events", "farm": "farm", "ship": "ship"}[tile.kind]
    for name, has in present.items():
        if has != (name == wanted):
            why = f"a {tile.kind} tile {'needs' if name == wanted else 'has no'} {name}"
            raise Refusal("leader_tile", tile.name, name, why)
    if tile.farm is not None:
        _check_farm("leader_tile", tile.farm, "farm.")
    if tile.ship is not None:
        _check_ship("leader_tile", tile.ship, "ship.")
