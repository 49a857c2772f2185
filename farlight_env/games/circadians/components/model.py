"""Circadians components as the engine will use them: frozen dataclasses built from a checked
component file (C-COMP-3), and the closed vocabularies (effect kinds, resources, directions) that
every file is written in."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, TypeVar, get_args

# =============================================================================================
# Closed vocabularies: a file may use these words and no others (the list grows with the engine)
# =============================================================================================

Resource = Literal["water", "algae", "energy", "gems"]
Source = Literal["summary", "reconstruction"]
Expansion = Literal["base", "specialists"]
Direction = Literal["n", "ne", "se", "s", "sw", "nw"]
Phase = Literal["plan", "execute", "harvest", "rest"]
FactionPosition = Literal["left", "middle", "right"]
FarmKind = Literal["die_farm", "trading_farm", "six_farm", "passive_farm", "point_farm"]
LeaderTileKind = Literal["die", "events", "farm", "ship"]
ContractTrigger = Literal["none", "in_game", "negotiations", "faction", "end_game"]

#: The six advancement rewards above the negotiations board's upper row (C-ADV-3).
Reward = Literal[
    "harvest_position", "free_ship_tile", "gain_die", "free_farm_tile", "move_harvester", "gain_gem"
]
#: The six setback punishments above its lower row (C-SETBACK-6).
Punishment = Literal[
    "discard_contracts", "destroy_ship_tile", "lose_die", "destroy_farm_tile",
    "harvester_back", "pay_gem",
]  # fmt: skip
Location = Literal[
    "headquarters", "depository", "negotiations", "mining_camp", "laboratory", "foundry",
    "market", "academy", "control_room", "farms", "garages", "cantina", "outposts", "temple",
]  # fmt: skip
#: What a `per` effect counts (end-game bonuses, gains by a count).
Countable = Literal[
    "fulfilled_contract", "ship_tile", "farm_tile", "gem", "negotiation_die", "depository_die",
    "die_in_supply", "missing_die", "faction_die", "distinct_negotiation_value",
]  # fmt: skip
#: When an effect acts; `immediate` is "when the component is resolved".
When = Literal[
    "immediate", "always", "setup", "after_draft", "plan", "execute", "harvest", "harvest_end",
    "rest_end", "on_send", "on_negotiate", "on_gain_farm_tile", "event_choice", "end_game",
]  # fmt: skip
Condition = Literal[
    "none", "below_dice_limit", "no_water_harvested", "no_die_at_outpost", "opponent_negotiates",
]  # fmt: skip

#: Every effect kind the engine is to know. Never free text: a new kind is added here, with
#: its parameters in EFFECT_PARAMS, when the engine learns it.
EffectKind = Literal[
    # gains and losses
    "gain", "pay", "gain_dice", "lose_die", "draw_contracts", "discard_contracts",
    "points", "points_per", "harvest_position", "free_ship_tile", "free_farm_tile",
    "destroy_ship_tile", "destroy_farm_tile", "trade",
    # the harvester and the caches
    "move_harvester", "harvester_back", "reveal_cache", "peek_cache",
    # dice and costs (ships, leaders, events)
    "flip_die", "raise_die", "lower_die", "nudge_die", "ignore_algae_cost", "discount",
    "surcharge", "treat_as", "location_closed", "fixed_die", "barred_from", "outside_dice_limit",
    # base leaders
    "grant_tile", "personal_events", "mirror_punishment", "extra_delivery_reward",
    "immediate_dice", "double_fulfil", "refill_die",
    # Specialists leaders (recorded, never resolved while the expansion is off)
    "gem_substitute", "second_faction_ability", "early_harvest", "gain_specialist",
    "specialist_limit", "reduce_dice_limit", "unclaimed_advancement", "extra_advancements",
    "outpost_board", "leader_board", "hq_start_die", "double_hq_action", "radio_left",
]  # fmt: skip

Param = Literal["amount", "resource", "per", "values", "locations", "faction", "tile"]

RESOURCES: tuple[Resource, ...] = get_args(Resource)
DIRECTIONS: tuple[Direction, ...] = get_args(Direction)
PHASES: tuple[Phase, ...] = get_args(Phase)
FARM_KINDS: tuple[FarmKind, ...] = get_args(FarmKind)
REWARDS: tuple[Reward, ...] = get_args(Reward)
PUNISHMENTS: tuple[Punishment, ...] = get_args(Punishment)
EFFECT_KINDS: tuple[EffectKind, ...] = get_args(EffectKind)
CONTRACT_TRIGGERS: tuple[ContractTrigger, ...] = get_args(ContractTrigger)
DIE_VALUES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
PLAYER_COUNTS: tuple[int, ...] = (2, 3, 4)
SIDES: tuple[str, ...] = ("a", "b")


def _params(required: str = "", allowed: str = "") -> tuple[frozenset[str], frozenset[str]]:
    need = frozenset(required.split())
    return need, need | frozenset(allowed.split())


#: For each effect kind: the parameters it needs, and all it may have (C-COMP-3).
EFFECT_PARAMS: Mapping[str, tuple[frozenset[str], frozenset[str]]] = MappingProxyType(
    {
        "gain": _params("resource amount", "per faction"),
        "pay": _params("resource amount"),
        "gain_dice": _params("amount", "per"),
        "lose_die": _params("amount"),
        "draw_contracts": _params("amount"),
        "discard_contracts": _params("amount"),
        "points": _params("amount"),
        "points_per": _params("amount per", "faction"),
        "harvest_position": _params(),
        "free_ship_tile": _params(),
        "free_farm_tile": _params(),
        "destroy_ship_tile": _params(),
        "destroy_farm_tile": _params(),
        "trade": _params("amount"),
        "move_harvester": _params("amount"),
        "harvester_back": _params("amount"),
        "reveal_cache": _params("amount"),
        "peek_cache": _params("amount"),
        "flip_die": _params(),
        "raise_die": _params("amount"),
        "lower_die": _params("amount"),
        "nudge_die": _params("amount"),
        "ignore_algae_cost": _params(),
        "discount": _params("resource amount", "locations"),
        "surcharge": _params("resource amount", "locations"),
        "treat_as": _params("values amount", "locations"),
        "location_closed": _params("locations"),
        "fixed_die": _params("amount"),
        "barred_from": _params("locations"),
        "outside_dice_limit": _params(),
        "grant_tile": _params("tile"),
        "personal_events": _params("amount"),
        "mirror_punishment": _params(),
        "extra_delivery_reward": _params("amount"),
        "immediate_dice": _params("", "locations"),
        "double_fulfil": _params(),
        "refill_die": _params("amount"),
        "gem_substitute": _params("resource amount"),
        "second_faction_ability": _params(),
        "early_harvest": _params(),
        "gain_specialist": _params("amount"),
        "specialist_limit": _params("amount"),
        "reduce_dice_limit": _params("amount"),
        "unclaimed_advancement": _params(),
        "extra_advancements": _params("amount"),
        "outpost_board": _params(),
        "leader_board": _params("", "locations"),
        "hq_start_die": _params(),
        "double_hq_action": _params(),
        "radio_left": _params(),
    }
)

#: Kinds only the Specialists expansion resolves; base-game components may not use them.
SPECIALISTS_KINDS: frozenset[str] = frozenset(EFFECT_KINDS[EFFECT_KINDS.index("gem_substitute") :])
#: Kinds a ship may carry: they touch only the die sent, its garage's cost or its action's cost.
SHIP_KINDS: frozenset[str] = frozenset(
    {"flip_die", "raise_die", "lower_die", "nudge_die", "ignore_algae_cost", "discount"}
)
#: Kinds resolvable on the spot, as a faction ability or a reward is (C-NEGOT-4).
IMMEDIATE_KINDS: frozenset[str] = frozenset(
    {
        "gain", "pay", "gain_dice", "draw_contracts", "discard_contracts", "harvest_position",
        "free_ship_tile", "free_farm_tile", "trade", "move_harvester", "reveal_cache",
        "peek_cache", "points",
    }
)  # fmt: skip
#: Kinds an end-game contract bonus may use.
END_GAME_KINDS: frozenset[str] = frozenset({"points", "points_per"})

# --- what the summary names, each to be used by some component of the standard file (§13) ----

#: The seven ship effects (C-SHIP-1), each a set of (kind, resource, amount).
SHIP_EFFECTS: tuple[frozenset[tuple[str, str | None, int | None]], ...] = (
    frozenset({("flip_die", None, None)}),
    frozenset({("raise_die", None, 2)}),
    frozenset({("ignore_algae_cost", None, None)}),
    frozenset({("nudge_die", None, 1)}),
    frozenset(
        {("ignore_algae_cost", None, None), ("discount", "water", 5), ("flip_die", None, None)}
    ),
    frozenset({("discount", "water", 5)}),
    frozenset({("discount", "energy", 1)}),
)
#: The depository's three delivery rewards (C-DEPOT-3): (kind, amount).
DELIVERY_REWARDS: frozenset[tuple[str, int]] = frozenset(
    {("move_harvester", 1), ("gain_dice", 1), ("draw_contracts", 2)}
)
#: What planet spaces may yield (C-HARV-2).
PLANET_YIELDS: tuple[str, ...] = (*RESOURCES, "dice")

#: The expansion's factions: only a Specialists leader's effect may name them.
SPECIALISTS_FACTIONS: tuple[str, ...] = ("Oxataya", "Ahzuri")
FACTIONS: tuple[tuple[str, FactionPosition], ...] = (
    ("Leyrien", "left"),
    ("Zcharo", "middle"),
    ("Jrayek", "right"),
)
#: The leaders in rule order: C-LEADER-1..14 (base), then C-LEADER-15..26 (Specialists).
BASE_LEADERS: tuple[str, ...] = (
    "Akira", "Bjorg", "Dan", "Jakob", "Lysias", "Naira", "Renzo", "Roslyn", "Sable", "Sunari",
    "Troy", "Ul kah tal", "Zapporah", "Zoey",
)  # fmt: skip
SPECIALISTS_LEADERS: tuple[str, ...] = (
    "Amos", "Britta", "Charlene", "Corey", "Eden", "Garmon", "Hikaru", "Luna", "Melvan",
    "Michela", "Peyton", "Tariq",
)  # fmt: skip
END_OF_AN_ERA = "End of an Era"
SAL = "Sal"
SAL_VALUE = 3
HEADQUARTERS_SPACES = 4
DEPOSITORY_COLUMNS = 6
DICE_LIMIT = 5

# =============================================================================================
# Values
# =============================================================================================


@dataclass(frozen=True, slots=True)
class Bundle:
    """Resources (and dice, contracts) gained, paid or printed; every count is >= 0."""

    water: int = 0
    algae: int = 0
    energy: int = 0
    gems: int = 0
    dice: int = 0
    contracts: int = 0

    def items(self) -> tuple[tuple[str, int], ...]:
        """The non-zero entries, in file order."""
        pairs = (
            ("water", self.water), ("algae", self.algae), ("energy", self.energy),
            ("gems", self.gems), ("dice", self.dice), ("contracts", self.contracts),
        )  # fmt: skip
        return tuple((name, n) for name, n in pairs if n)

    @property
    def empty(self) -> bool:
        return not self.items()


@dataclass(frozen=True, slots=True)
class Effect:
    """One effect of a component; which parameters are set depends on `kind` (EFFECT_PARAMS)."""

    kind: EffectKind
    amount: int | None = None
    resource: Resource | None = None
    per: Countable | None = None
    values: tuple[int, ...] = ()
    locations: tuple[Location, ...] = ()
    faction: str | None = None
    tile: str | None = None
    when: When = "immediate"
    condition: Condition = "none"
    optional: bool = False

    @property
    def signature(self) -> tuple[str, str | None, int | None]:
        """What the effect does, without timing: compared with the summary's named effects."""
        return (self.kind, self.resource, self.amount)


@dataclass(frozen=True, slots=True)
class Garage:
    algae: int
    points: int


@dataclass(frozen=True, slots=True)
class ResearchBase:
    """The printed player board (C-ASSIGN-5, C-ASSIGN-6, C-SCORE-4)."""

    garages: tuple[Garage, ...]
    garage_full_points: int
    booster: int
    booster_max: int
    die_farms: tuple[tuple[Resource, ...], ...]
    farm_table: tuple[int, ...]
    foundation_points: tuple[int, ...]
    foundation_full_points: int
    source: Source


@dataclass(frozen=True, slots=True)
class FarmTile:
    """A farm tile (C-FARM-1); only the fields of its kind are set."""

    name: str
    kind: FarmKind
    points: int = 0
    resources: tuple[Resource, ...] = ()
    trades: int = 0
    produces: Bundle = field(default_factory=Bundle)
    source: Source = "reconstruction"


@dataclass(frozen=True, slots=True)
class ShipTile:
    name: str
    effects: tuple[Effect, ...]
    points: int = 0
    source: Source = "reconstruction"


@dataclass(frozen=True, slots=True)
class Contract:
    name: str
    cost: Bundle
    points: int
    trigger: ContractTrigger
    effects: tuple[Effect, ...] = ()
    faction: str | None = None
    text: str = ""
    source: Source = "reconstruction"


@dataclass(frozen=True, slots=True)
class Event:
    name: str
    timing: Phase
    effects: tuple[Effect, ...]
    final: bool = False
    text: str = ""
    source: Source = "reconstruction"


@dataclass(frozen=True, slots=True)
class FactionSide:
    side: str
    effects: tuple[Effect, ...]


@dataclass(frozen=True, slots=True)
class Faction:
    name: str
    position: FactionPosition
    sides: tuple[FactionSide, ...]
    source: Source


@dataclass(frozen=True, slots=True)
class NegotiationSpace:
    cost: Bundle
    points: int


@dataclass(frozen=True, slots=True)
class NegotiationColumn:
    faction: str
    spaces: tuple[NegotiationSpace, ...]


@dataclass(frozen=True, slots=True)
class NegotiationBoard:
    """One side of the negotiations board (C-NEGOT, C-ADV, C-SETBACK)."""

    players: int
    columns: tuple[NegotiationColumn, ...]
    setback_sums: tuple[int, ...]
    setback_same: tuple[int, ...]
    reward_slots: tuple[Reward, ...]
    punishment_slots: tuple[Punishment, ...]
    source: Source


@dataclass(frozen=True, slots=True)
class DepositoryRow:
    reward: Effect
    spaces: int


@dataclass(frozen=True, slots=True)
class Spaceport:
    """One side of the spaceport board: headquarters and depository (C-HQ, C-DEPOT)."""

    players: int
    headquarters_spaces: int
    headquarters_rewards: tuple[Effect, ...]
    depository_columns: int
    depository_rows: tuple[DepositoryRow, ...]
    source: Source


@dataclass(frozen=True, slots=True)
class Stations:
    """Space counts of the station boards for one player count."""

    players: int
    laboratory_pairs: int
    foundry_spaces: int
    control_room_spaces: int
    source: Source


@dataclass(frozen=True, slots=True)
class MiningSpace:
    name: str
    players: tuple[int, ...]
    sum: int
    gems: int
    source: Source


@dataclass(frozen=True, slots=True)
class Trade:
    pay: Bundle
    get: Bundle


@dataclass(frozen=True, slots=True)
class MarketSpace:
    name: str
    players: tuple[int, ...]
    trades: tuple[Trade, ...]
    source: Source


@dataclass(frozen=True, slots=True)
class AcademySpace:
    name: str
    players: tuple[int, ...]
    values: tuple[int, ...]
    resource: Resource
    price_one: int
    price_two: int
    source: Source


#: A space of the mining camp, market or academy (each lists the player counts printing it).
StationSpace = TypeVar("StationSpace", MiningSpace, MarketSpace, AcademySpace)


@dataclass(frozen=True, slots=True)
class StationCosts:
    """The either-or costs printed on three stations (C-LAB-1, C-FOUNDRY-1, C-CTRL-1)."""

    laboratory: tuple[Bundle, ...]
    foundry: tuple[Bundle, ...]
    control_room: tuple[Bundle, ...]
    source: Source


@dataclass(frozen=True, slots=True)
class PlanetSpace:
    id: str
    distance: int
    neighbours: Mapping[Direction, str]
    yields: Bundle
    start: Bundle = field(default_factory=Bundle)
    cache: bool = False


@dataclass(frozen=True, slots=True)
class Arrow:
    space: str
    direction: Direction
    to: str


@dataclass(frozen=True, slots=True)
class Planet:
    side: str
    centre: str
    spaces: tuple[PlanetSpace, ...]
    arrows: tuple[Arrow, ...]
    source: Source

    def space(self, space_id: str) -> PlanetSpace:
        return next(s for s in self.spaces if s.id == space_id)


@dataclass(frozen=True, slots=True)
class GemCache:
    name: str
    front: Bundle
    points: int
    source: Source


@dataclass(frozen=True, slots=True)
class LeaderTile:
    """A leader's own tile: Sal (a die), Renzo's events, Sunari's farm, Ul kah tal's ship."""

    name: str
    leader: str
    kind: LeaderTileKind
    value: int | None = None
    events: int = 0
    farm: FarmTile | None = None
    ship: ShipTile | None = None
    source: Source = "reconstruction"


@dataclass(frozen=True, slots=True)
class Leader:
    name: str
    expansion: Expansion
    effects: tuple[Effect, ...]
    tile: str | None = None
    source: Source = "summary"

    @property
    def rule(self) -> str:
        """The leader's rule ID in docs/circadians/rules.md (C-LEADER-1..26)."""
        order = (*BASE_LEADERS, *SPECIALISTS_LEADERS)
        return f"C-LEADER-{order.index(self.name) + 1}"


@dataclass(frozen=True, slots=True)
class Components:
    """Every component one game may use, loaded and checked from a component file."""

    schema_version: int
    name: str
    reconstructed: bool
    description: str
    players: tuple[int, ...]
    research_base: ResearchBase
    farm_tiles: tuple[FarmTile, ...]
    ship_tiles: tuple[ShipTile, ...]
    contracts: tuple[Contract, ...]
    events: tuple[Event, ...]
    factions: tuple[Faction, ...]
    negotiations: Mapping[int, NegotiationBoard]
    spaceport: Mapping[int, Spaceport]
    stations: Mapping[int, Stations]
    station_costs: StationCosts
    mining_spaces: tuple[MiningSpace, ...]
    market_spaces: tuple[MarketSpace, ...]
    academy_spaces: tuple[AcademySpace, ...]
    control_room: Mapping[int, Direction]
    planet: Mapping[str, Planet]
    gem_caches: tuple[GemCache, ...]
    leader_tiles: tuple[LeaderTile, ...]
    leaders: tuple[Leader, ...]
    sha256: str = ""

    def leader(self, name: str) -> Leader:
        return next(leader for leader in self.leaders if leader.name == name)

    def for_players(self, table: tuple[StationSpace, ...], n: int) -> tuple[StationSpace, ...]:
        """The entries of a station table printed on the side for `n` players."""
        return tuple(entry for entry in table if n in entry.players)
