"""The Circadians component-file format (C-COMP-3) as msgspec structs: each field's type and bounds
declared once, unknown fields refused; `read_file` turns a refusal into one line naming the
table, the entry and the field. What spans fields or tables is in `checks`."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, Any, Literal, get_args

import msgspec
from msgspec import Meta, field

from farlight_env.games.circadians.components import model as m
from farlight_env.games.circadians.components.messages import problem
from farlight_env.platform.protocol import GameError
from farlight_env.untrusted.messages import clip_message, short

SCHEMA_VERSION = 1
MAX_FILE_BYTES = 256 * 1024  # the standard file is ~40 KB
MAX_ENTRIES = 200  # per table; the standard file's largest (contracts) has 24
MAX_LIST = 40  # effects, spaces, slots, trades in one entry
MAX_COUNT = 60  # any amount, cost, points or space count
MAX_NAME = 60
MAX_TEXT = 400

Name = Annotated[str, Meta(min_length=1, max_length=MAX_NAME, pattern=r"\S")]
Text = Annotated[str, Meta(max_length=MAX_TEXT)]
Count = Annotated[int, Meta(ge=0, le=MAX_COUNT)]
Positive = Annotated[int, Meta(ge=1, le=MAX_COUNT)]
DieValue = Annotated[int, Meta(ge=1, le=6)]
Players = Annotated[int, Meta(ge=2, le=4)]
PlayerKey = Literal["2", "3", "4"]


def Many(item: Any, most: int = MAX_LIST, least: int = 0) -> Any:  # noqa: N802 - a type builder
    """A bounded list type: no list in a file others wrote may be unbounded."""
    return Annotated[list[item], Meta(min_length=least, max_length=most)]


class Strict(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    """Every table of the file: an unknown field is an error, never ignored."""


class CostFile(Strict, kw_only=True):
    """A price in resources; omitted resources are 0."""

    water: Count = 0
    algae: Count = 0
    energy: Count = 0
    gems: Count = 0

    def model(self) -> m.Bundle:
        return m.Bundle(self.water, self.algae, self.energy, self.gems)


class GainFile(CostFile, kw_only=True):
    """What something yields: resources, and also dice and contract cards."""

    dice: Count = 0
    contracts: Count = 0

    def model(self) -> m.Bundle:
        return m.Bundle(self.water, self.algae, self.energy, self.gems, self.dice, self.contracts)


class EffectFile(Strict, kw_only=True):
    """One effect; which parameters it must and may have depends on its kind (checks)."""

    kind: m.EffectKind
    amount: Count | None = None
    resource: m.Resource | None = None
    per: m.Countable | None = None
    values: Many(DieValue, 6) | None = None
    locations: Many(m.Location, 14) | None = None
    faction: Name | None = None
    tile: Name | None = None
    when: m.When = "immediate"
    condition: m.Condition = "none"
    optional: bool = False

    def given(self) -> frozenset[str]:
        """The parameters this effect sets."""
        return frozenset(p for p in get_args(m.Param) if getattr(self, p) is not None)

    def model(self) -> m.Effect:
        return m.Effect(
            kind=self.kind,
            amount=self.amount,
            resource=self.resource,
            per=self.per,
            values=tuple(self.values or ()),
            locations=tuple(self.locations or ()),
            faction=self.faction,
            tile=self.tile,
            when=self.when,
            condition=self.condition,
            optional=self.optional,
        )


Effects = Many(EffectFile)


def effects(items: list[EffectFile]) -> tuple[m.Effect, ...]:
    return tuple(e.model() for e in items)


class GarageFile(Strict, kw_only=True):
    algae: Count
    points: Count = 0


class DieFarmFile(Strict, kw_only=True):
    resources: Many(m.Resource, 2, 2)


class ResearchBaseFile(Strict, kw_only=True):
    source: m.Source
    garages: Many(GarageFile, 10, 1)
    garage_full_points: Count
    booster: Positive
    booster_max: DieValue
    die_farms: Many(DieFarmFile, 6)
    farm_table: Many(Count, 6, 6)
    foundation_points: Many(Count, 10, 1)
    foundation_full_points: Count

    def model(self) -> m.ResearchBase:
        return m.ResearchBase(
            garages=tuple(m.Garage(g.algae, g.points) for g in self.garages),
            garage_full_points=self.garage_full_points,
            booster=self.booster,
            booster_max=self.booster_max,
            die_farms=tuple(tuple(f.resources) for f in self.die_farms),
            farm_table=tuple(self.farm_table),
            foundation_points=tuple(self.foundation_points),
            foundation_full_points=self.foundation_full_points,
            source=self.source,
        )


class FarmSpecFile(Strict, kw_only=True):
    """A farm's kind and printed numbers; which fields its kind needs is checked in `checks`."""

    kind: m.FarmKind
    points: Count = 0
    resources: Many(m.Resource, 2) | None = None
    trades: Positive | None = None
    produces: GainFile | None = None

    def farm(self, name: str, source: m.Source) -> m.FarmTile:
        return m.FarmTile(
            name=name,
            kind=self.kind,
            points=self.points,
            resources=tuple(self.resources or ()),
            trades=self.trades or 0,
            produces=self.produces.model() if self.produces else m.Bundle(),
            source=source,
        )


class FarmTileFile(FarmSpecFile, kw_only=True):
    name: Name
    source: m.Source

    def model(self) -> m.FarmTile:
        return self.farm(self.name, self.source)


class ShipSpecFile(Strict, kw_only=True):
    effects: Many(EffectFile, 6, 1)
    points: Count = 0

    def ship(self, name: str, source: m.Source) -> m.ShipTile:
        return m.ShipTile(name, effects(self.effects), self.points, source)


class ShipTileFile(ShipSpecFile, kw_only=True):
    name: Name
    source: m.Source

    def model(self) -> m.ShipTile:
        return self.ship(self.name, self.source)


class ContractFile(Strict, kw_only=True):
    name: Name
    source: m.Source
    cost: CostFile
    points: Count
    trigger: m.ContractTrigger
    faction: Name | None = None
    effects: Effects = []
    text: Text = ""

    def model(self) -> m.Contract:
        return m.Contract(
            name=self.name,
            cost=self.cost.model(),
            points=self.points,
            trigger=self.trigger,
            effects=effects(self.effects),
            faction=self.faction,
            text=self.text,
            source=self.source,
        )


class EventFile(Strict, kw_only=True):
    name: Name
    source: m.Source
    timing: m.Phase
    final: bool = False
    effects: Effects = []
    text: Text = ""

    def model(self) -> m.Event:
        return m.Event(
            self.name, self.timing, effects(self.effects), self.final, self.text, self.source
        )


class FactionSideFile(Strict, kw_only=True):
    side: Literal["a", "b"]
    effects: Many(EffectFile, 6, 1)


class FactionFile(Strict, kw_only=True):
    name: Name
    position: m.FactionPosition
    source: m.Source
    side: Many(FactionSideFile, 2)

    def model(self) -> m.Faction:
        sides = tuple(m.FactionSide(s.side, effects(s.effects)) for s in self.side)
        return m.Faction(self.name, self.position, sides, self.source)


class NegotiationSpaceFile(Strict, kw_only=True):
    cost: CostFile
    points: Count


class NegotiationColumnFile(Strict, kw_only=True):
    faction: Name
    space: Many(NegotiationSpaceFile, MAX_LIST, 1)


class NegotiationBoardFile(Strict, kw_only=True):
    source: m.Source
    setback_sums: Many(Positive, 4, 4)
    setback_same: Many(Positive, 2, 2)
    reward_slots: Many(m.Reward)
    punishment_slots: Many(m.Punishment)
    column: Many(NegotiationColumnFile, 8, 1)

    def model(self, players: int) -> m.NegotiationBoard:
        columns = tuple(
            m.NegotiationColumn(
                c.faction, tuple(m.NegotiationSpace(s.cost.model(), s.points) for s in c.space)
            )
            for c in self.column
        )
        return m.NegotiationBoard(
            players=players,
            columns=columns,
            setback_sums=tuple(self.setback_sums),
            setback_same=tuple(self.setback_same),
            reward_slots=tuple(self.reward_slots),
            punishment_slots=tuple(self.punishment_slots),
            source=self.source,
        )


class DepositoryRowFile(Strict, kw_only=True):
    reward: EffectFile
    spaces: Positive


class SpaceportFile(Strict, kw_only=True):
    source: m.Source
    headquarters_spaces: Positive
    headquarters_rewards: Many(EffectFile, 4, 1)
    depository_columns: Positive
    depository_rows: Many(DepositoryRowFile, 6, 1)

    def model(self, players: int) -> m.Spaceport:
        rows = tuple(m.DepositoryRow(r.reward.model(), r.spaces) for r in self.depository_rows)
        return m.Spaceport(
            players=players,
            headquarters_spaces=self.headquarters_spaces,
            headquarters_rewards=effects(self.headquarters_rewards),
            depository_columns=self.depository_columns,
            depository_rows=rows,
            source=self.source,
        )


class StationsFile(Strict, kw_only=True):
    source: m.Source
    laboratory_pairs: Positive
    foundry_spaces: Count
    control_room_spaces: Count

    def model(self, players: int) -> m.Stations:
        return m.Stations(
            players,
            self.laboratory_pairs,
            self.foundry_spaces,
            self.control_room_spaces,
            self.source,
        )


class StationCostsFile(Strict, kw_only=True):
    source: m.Source
    laboratory: Many(CostFile, 4, 1)
    foundry: Many(CostFile, 4, 1)
    control_room: Many(CostFile, 4, 1)

    def model(self) -> m.StationCosts:
        def each(costs: list[CostFile]) -> tuple[m.Bundle, ...]:
            return tuple(c.model() for c in costs)

        return m.StationCosts(
            each(self.laboratory), each(self.foundry), each(self.control_room), self.source
        )


class MiningSpaceFile(Strict, kw_only=True):
    name: Name
    source: m.Source
    players: Many(Players, 3, 1)
    sum: Positive
    gems: Positive

    def model(self) -> m.MiningSpace:
        return m.MiningSpace(self.name, tuple(self.players), self.sum, self.gems, self.source)


class TradeFile(Strict, kw_only=True):
    pay: CostFile
    get: CostFile


class MarketSpaceFile(Strict, kw_only=True):
    name: Name
    source: m.Source
    players: Many(Players, 3, 1)
    trades: Many(TradeFile, MAX_LIST, 1)

    def model(self) -> m.MarketSpace:
        trades = tuple(m.Trade(t.pay.model(), t.get.model()) for t in self.trades)
        return m.MarketSpace(self.name, tuple(self.players), trades, self.source)


class AcademySpaceFile(Strict, kw_only=True):
    name: Name
    source: m.Source
    players: Many(Players, 3, 1)
    values: Many(DieValue, 6, 1)
    resource: m.Resource
    price_one: Count
    price_two: Count

    def model(self) -> m.AcademySpace:
        return m.AcademySpace(
            name=self.name,
            players=tuple(self.players),
            values=tuple(self.values),
            resource=self.resource,
            price_one=self.price_one,
            price_two=self.price_two,
            source=self.source,
        )


class ControlRoomFile(Strict, kw_only=True):
    source: m.Source
    directions: dict[Literal["1", "2", "3", "4", "5", "6"], m.Direction]


class ArrowFile(Strict, kw_only=True):
    space: Name
    direction: m.Direction
    to: Name


class PlanetSpaceFile(Strict, kw_only=True):
    id: Name
    distance: Count
    neighbours: dict[m.Direction, Name]
    yields: GainFile = field(name="yield", default_factory=GainFile)
    start: CostFile = field(default_factory=CostFile)
    cache: bool = False

    def model(self) -> m.PlanetSpace:
        return m.PlanetSpace(
            self.id, self.distance, MappingProxyType(dict(self.neighbours)), self.yields.model(),
            self.start.model(), self.cache,
        )  # fmt: skip


class PlanetFile(Strict, kw_only=True):
    source: m.Source
    centre: Name
    spaces: Many(PlanetSpaceFile, 100, 1)
    arrows: Many(ArrowFile, 12)

    def model(self, side: str) -> m.Planet:
        arrows = tuple(m.Arrow(a.space, a.direction, a.to) for a in self.arrows)
        spaces = tuple(s.model() for s in self.spaces)
        return m.Planet(side, self.centre, spaces, arrows, self.source)


class GemCacheFile(Strict, kw_only=True):
    name: Name
    source: m.Source
    front: GainFile
    points: Count

    def model(self) -> m.GemCache:
        return m.GemCache(self.name, self.front.model(), self.points, self.source)


class LeaderTileFile(Strict, kw_only=True):
    name: Name
    leader: Name
    kind: m.LeaderTileKind
    source: m.Source
    value: DieValue | None = None
    events: Count = 0
    farm: FarmSpecFile | None = None
    ship: ShipSpecFile | None = None

    def model(self) -> m.LeaderTile:
        return m.LeaderTile(
            name=self.name,
            leader=self.leader,
            kind=self.kind,
            value=self.value,
            events=self.events,
            farm=self.farm.farm(self.name, self.source) if self.farm else None,
            ship=self.ship.ship(self.name, self.source) if self.ship else None,
            source=self.source,
        )


class LeaderFile(Strict, kw_only=True):
    name: Name
    expansion: m.Expansion
    source: m.Source
    tile: Name | None = None
    effects: Many(EffectFile, MAX_LIST, 1)

    def model(self) -> m.Leader:
        return m.Leader(self.name, self.expansion, effects(self.effects), self.tile, self.source)


class ComponentFile(Strict, kw_only=True):
    """The whole file; table names are singular, as each `[[table]]` holds one entry."""

    schema_version: Annotated[int, Meta(ge=1, le=SCHEMA_VERSION)]
    name: Name
    reconstructed: bool
    description: Text = ""
    players: Many(Players, 3, 1)
    research_base: ResearchBaseFile
    farm_tile: Many(FarmTileFile, MAX_ENTRIES, 1)
    ship_tile: Many(ShipTileFile, MAX_ENTRIES, 1)
    contract: Many(ContractFile, MAX_ENTRIES, 1)
    event: Many(EventFile, MAX_ENTRIES, 1)
    faction: Many(FactionFile, 8, 1)
    negotiations: dict[PlayerKey, NegotiationBoardFile]
    spaceport: dict[PlayerKey, SpaceportFile]
    stations: dict[PlayerKey, StationsFile]
    station_costs: StationCostsFile
    mining_space: Many(MiningSpaceFile, MAX_ENTRIES, 1)
    market_space: Many(MarketSpaceFile, MAX_ENTRIES, 1)
    academy_space: Many(AcademySpaceFile, MAX_ENTRIES, 1)
    control_room: ControlRoomFile
    planet: dict[Literal["a", "b"], PlanetFile]
    gem_cache: Many(GemCacheFile, 12, 1)
    leader_tile: Many(LeaderTileFile, MAX_ENTRIES)
    leader: Many(LeaderFile, MAX_ENTRIES, 1)


class ComponentFileError(GameError):
    """A component file that cannot be used; the one-line message names table, entry and field."""

    def __init__(self, message: str) -> None:
        super().__init__(clip_message(message))


#: Tables keyed by player count or side: each value is converted alone, so that a message can
#: name the key (msgspec's own path says only `[...]` inside a dict).
KEYED: dict[str, tuple[Any, tuple[str, ...]]] = {
    "negotiations": (NegotiationBoardFile, get_args(PlayerKey)),
    "spaceport": (SpaceportFile, get_args(PlayerKey)),
    "stations": (StationsFile, get_args(PlayerKey)),
    "planet": (PlanetFile, m.SIDES),
}


def read_file(data: Any, source: str) -> ComponentFile:
    """`data` (parsed TOML) as a ComponentFile; ComponentFileError says what is wrong and where."""
    if isinstance(data, Mapping):
        for table, (kind, keys) in KEYED.items():
            keyed = data.get(table)
            for key, value in keyed.items() if isinstance(keyed, Mapping) else ():
                if key not in keys:
                    allowed = ", ".join(repr(k) for k in keys)
                    raise ComponentFileError(
                        f"{source}: {table}: unknown key {short(str(key))!r}; allowed: {allowed}"
                    )
                _convert(value, kind, data, source, f".{table}.{key}")
    return _convert(data, ComponentFile, data, source, "")


def _convert(value: Any, kind: Any, data: Any, source: str, prefix: str) -> Any:
    try:
        return msgspec.convert(value, kind, strict=True)
    except msgspec.ValidationError as exc:
        raise ComponentFileError(
            f"{source}: {problem(str(exc), data, ComponentFile, tuple(KEYED), prefix)}"
        ) from None
