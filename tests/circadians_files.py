"""Broken Circadians component files for tests/test_circadians_components.py: the standard
file parsed afresh, a small TOML writer, and one edit per constraint with the words its refusal
must contain (docs/circadians/components.md)."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from farlight_env.games.circadians.components import model as m
from farlight_env.games.circadians.components.schema import SCHEMA_VERSION

STANDARD = resources.files("farlight_env.games.circadians").joinpath("data/standard.toml")
Data = dict[str, Any]


def standard_data() -> Data:
    """A fresh copy of the parsed standard file, to break."""
    return copy.deepcopy(PARSED)


PARSED: Data = tomllib.loads(STANDARD.read_text(encoding="utf-8"))


# --- a small TOML writer: every top-level key on one line, inline tables and arrays ----------


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(type(value))


def to_toml(data: Data) -> str:
    return "".join(f"{_key(k)} = {_value(v)}\n" for k, v in data.items())


def write(tmp_path: Path, data: Data, name: str = "broken.toml") -> Path:
    path = tmp_path / name
    path.write_text(to_toml(data), encoding="utf-8")
    return path


def entry(data: Data, table: str, name: str) -> Data:
    return next(e for e in data[table] if e.get("name") == name)


def _set(table: str, name: str, field: str, value: Any) -> Callable[[Data], None]:
    def edit(data: Data) -> None:
        entry(data, table, name)[field] = value

    return edit


SCHEMA_CASES: list[tuple[str, Callable[[Data], None], tuple[str, ...]]] = [
    (
        "unknown field",
        _set("contract", "Ore Run", "colour", "red"),
        ("contract 'Ore Run': unknown field 'colour'; allowed: name, source",),
    ),
    (
        "unknown top-level table",
        lambda d: d.update(temple={"source": "summary"}),
        ("the file: unknown field 'temple'",),
    ),
    (
        "negative number",
        _set("contract", "Ore Run", "points", -1),
        ("contract 'Ore Run': points: must be >= 0, got -1",),
    ),
    (
        "number above its bound",
        _set("ship_tile", "Tanker", "points", 61),
        ("ship_tile 'Tanker': points: must be <= 60, got 61",),
    ),
    (
        "not an integer",
        _set("mining_space", "Ridge Seam", "sum", 9.5),
        ("mining_space 'Ridge Seam': sum: Expected int, got float",),
    ),
    (
        "a yield of no gems",
        _set("mining_space", "Surface Seam", "gems", 0),
        ("mining_space 'Surface Seam': gems: must be >= 1",),
    ),
    (
        "unknown effect kind",
        lambda d: entry(d, "ship_tile", "Tanker")["effects"][0].update(kind="teleport"),
        ("ship_tile 'Tanker': effects[0].kind: got 'teleport', must be one of",),
    ),
    (
        "missing source",
        lambda d: entry(d, "contract", "Ore Run").pop("source"),
        ("contract 'Ore Run': source: required field is missing",),
    ),
    (
        "missing schema version",
        lambda d: d.pop("schema_version"),
        ("the file: schema_version: required field is missing",),
    ),
    (
        "newer schema version",
        lambda d: d.update(schema_version=SCHEMA_VERSION + 1),
        ("the file: schema_version: must be <= 1",),
    ),
    (
        "missing full-row value",
        lambda d: d["research_base"].pop("garage_full_points"),
        ("research_base: garage_full_points: required field is missing",),
    ),
    (
        "a farm table without every face",
        lambda d: d["research_base"].update(farm_table=[1, 2, 3]),
        ("research_base: farm_table: must have length >= 6, got 3",),
    ),
    (
        "academy price for two dice omitted",
        lambda d: entry(d, "academy_space", "Cadet Hall").pop("price_two"),
        ("academy_space 'Cadet Hall': price_two: required field is missing",),
    ),
    (
        "event timing outside the round's phases",
        _set("event", "Monsoon", "timing", "night"),
        ("event 'Monsoon': timing: got 'night', must be one of",),
    ),
    (
        "unknown player count",
        lambda d: d["stations"].update({"5": d["stations"]["4"]}),
        ("stations: unknown key '5'; allowed: '2', '3', '4'",),
    ),
    (
        "an error inside a keyed table names its key",
        lambda d: d["negotiations"]["3"]["column"][1]["space"][0].update(points=-2),
        ("negotiations '3': column[1].space[0].points: must be >= 0",),
    ),
    (
        "a planet side names its side",
        lambda d: d["planet"]["b"]["spaces"][4].update(distance=-1),
        ("planet 'b': spaces[4].distance: must be >= 0",),
    ),
    (
        "a third planet side",
        lambda d: d["planet"].update(c=d["planet"]["a"]),
        ("planet: unknown key 'c'",),
    ),
]


def _no_algae_anywhere(d: Data) -> None:
    """Nothing on the planet, the market, a farm or the research base gives algae."""
    for planet in d["planet"].values():
        for space in planet["spaces"]:
            space.get("yield", {}).pop("algae", None)
    for space in d["market_space"]:
        space["trades"] = [t for t in space["trades"] if "algae" not in t["get"]]
    for farm in d["farm_tile"]:
        farm.get("produces", {}).pop("algae", None)
        if "produces" in farm and not farm["produces"]:
            farm["produces"] = {"water": 1}
        if "resources" in farm:
            farm["resources"] = ["water", "energy"]
    d["research_base"]["die_farms"] = [{"resources": ["water", "energy"]}] * 2


def _space(d: Data, side: str, space_id: str) -> Data:
    return next(s for s in d["planet"][side]["spaces"] if s["id"] == space_id)


def _effect(table: str, name: str, index: int = 0, **fields: Any) -> Callable[[Data], None]:
    def edit(d: Data) -> None:
        effect = entry(d, table, name)["effects"][index]
        effect.update(fields)
        for key in [k for k, v in fields.items() if v is None]:
            del effect[key]  # None: the field is left out

    return edit


def _negot(n: str, **fields: Any) -> Callable[[Data], None]:
    return lambda d: d["negotiations"][n].update(fields)


ALL_FILES_CASES: list[tuple[str, Callable[[Data], None], tuple[str, ...]]] = [
    # general: names, effects
    (
        "names unique ignoring case",
        _set("farm_tile", "Spore Vats", "name", "kelp terrace "),
        ("farm_tile 'kelp terrace ': name: must be unique",),
    ),
    (
        "planet space ids unique",
        lambda d: _space(d, "a", "inner-n").update(id="centre"),
        ("planet 'a': spaces.id[1]: must be unique",),
    ),
    (
        "an effect without a parameter its kind needs",
        lambda d: entry(d, "contract", "Greenhouse Grant")["effects"][0].pop("resource"),
        ("contract 'Greenhouse Grant': effects[0]: effect 'gain' needs resource",),
    ),
    (
        "an effect with a parameter its kind does not take",
        _effect("ship_tile", "Mirror Skiff", amount=2),
        ("ship_tile 'Mirror Skiff': effects[0].amount: effect 'flip_die' takes no amount",),
    ),
    (
        "an effect acting on a send without saying where",
        lambda d: entry(d, "leader", "Dan")["effects"][0].pop("locations"),
        ("leader 'Dan': effects[0]: effect 'extra_delivery_reward' needs locations",),
    ),
    (
        "a Specialists kind outside the Specialists leaders",
        _effect("contract", "Mobile Rig", kind="early_harvest", resource=None),
        ("contract 'Mobile Rig': effects[0]",),
    ),
    (
        "an effect naming an unknown faction",
        _effect("contract", "Greenhouse Grant", faction="Oxataya"),
        ("contract 'Greenhouse Grant': effects[0].faction: must name a faction",),
    ),
    (
        "an effect naming an unknown tile",
        _effect("leader", "Sunari", tile="Sunari's Orchard"),
        ("leader 'Sunari': effects[0].tile: must name a leader_tile",),
    ),
    # research base
    (
        "too few places for every die (C-ASSIGN-4)",
        lambda d: d["research_base"].update(garages=[{"algae": 0}, {"algae": 1}], die_farms=[]),
        ("research_base: garages: garages and die farms give 3 places; at least 6",),
    ),
    (
        "the printed ship's garage with an algae cost",
        lambda d: d["research_base"]["garages"][0].update(algae=1),
        ("research_base: garages[0].algae: the first garage",),
    ),
    # farm and ship tiles
    (
        "a farm with a field its kind lacks",
        _set("farm_tile", "Kelp Terrace", "produces", {"water": 1}),
        ("farm_tile 'Kelp Terrace': produces: a die_farm has no produces",),
    ),
    (
        "a farm without the field its kind needs",
        lambda d: entry(d, "farm_tile", "Crystal Garden").pop("produces"),
        ("farm_tile 'Crystal Garden': produces: a six_farm needs produces",),
    ),
    (
        "a die farm producing one resource twice",
        _set("farm_tile", "Spore Vats", "resources", ["algae", "algae"]),
        ("farm_tile 'Spore Vats': resources: must name two different resources",),
    ),
    (
        "a ship acting beyond its die and costs",
        _effect("ship_tile", "Tanker", kind="gain"),
        ("ship_tile 'Tanker': effects[0].kind: a ship may only use",),
    ),
    (
        "fewer ships than foundry stacks",
        lambda d: d.update(ship_tile=d["ship_tile"][:2]),
        ("ship_tile: needs at least 3 tiles, one per foundry stack",),
    ),
    # contracts
    (
        "too few contracts for a 4-player draft and Zoey",
        lambda d: d.update(contract=d["contract"][:18]),
        ("contract: needs at least 19 cards", "got 18"),
    ),
    (
        "a points-only card with effects",
        _set("contract", "Ore Run", "effects", [{"kind": "gain_dice", "amount": 1}]),
        ("contract 'Ore Run': effects: a card with trigger 'none' has no effects",),
    ),
    (
        "a faction card without a faction",
        lambda d: entry(d, "contract", "Zcharo Pact").pop("faction"),
        ("contract 'Zcharo Pact': faction: needs a faction",),
    ),
    (
        "a faction card naming another game's faction",
        _set("contract", "Zcharo Pact", "faction", "Ahzuri"),
        ("contract 'Zcharo Pact': faction: must name a faction of the file",),
    ),
    (
        "an end-game card acting in play",
        _effect("contract", "Gem Hoard", kind="gain_dice", per=None),
        ("contract 'Gem Hoard': effects[0].kind: an end-game card may only use",),
    ),
    (
        "a cost no player can gain",
        _no_algae_anywhere,
        ("contract 'Algae Shipment': cost.algae: algae is not yielded",),
    ),
    # events
    (
        "End of an Era missing",
        lambda d: d.update(event=[e for e in d["event"] if not e.get("final")]),
        ("event 'End of an Era': is missing",),
    ),
    (
        "End of an Era not final",
        _set("event", "End of an Era", "final", False),
        ("event 'End of an Era': final: must be true",),
    ),
    (
        "a second final event",
        _set("event", "Monsoon", "final", True),
        ("event 'Monsoon': final: only 'End of an Era' is final",),
    ),
    (
        "too few events for the pile and Renzo",
        lambda d: d.update(event=d["event"][:12]),
        ("event: needs at least 12 events besides 'End of an Era', got 11",),
    ),
    # factions
    (
        "a faction renamed",
        _set("faction", "Zcharo", "name", "Zcharon"),
        ("faction: name: must be exactly Leyrien (left), Zcharo (middle), Jrayek (right)",),
    ),
    (
        "factions in the wrong places",
        lambda d: [
            d["faction"][0].update(position="right"),
            d["faction"][2].update(position="left"),
        ],
        ("faction: name: must be exactly",),
    ),
    (
        "a faction with one side",
        lambda d: entry(d, "faction", "Jrayek")["side"].pop(),
        ("faction 'Jrayek': side: needs the sides 'a' and 'b', once each",),
    ),
    (
        "a faction ability that is not resolved at once",
        lambda d: entry(d, "faction", "Leyrien")["side"][1]["effects"][0].update(kind="flip_die"),
        ("faction 'Leyrien': side[1].effects[0]: a faction ability must resolve at once",),
    ),
    (
        "a faction ability of a lasting kind",
        lambda d: entry(d, "faction", "Zcharo")["side"][0]["effects"][0].update(when="always"),
        ("faction 'Zcharo': side[0].effects[0]: a faction ability must resolve at once",),
    ),
    # player counts
    (
        "a player count without its boards",
        lambda d: d.update(players=[2, 3]),
        ("negotiations: needs exactly the player counts [2, 3]",),
    ),
    (
        "a station space for an unsupported count",
        lambda d: [
            d.update(players=[3, 4]),
            [d[t].pop("2") for t in ("negotiations", "spaceport", "stations")],
        ],
        ("mining_space 'Surface Seam': players: must be among [3, 4]",),
    ),
    (
        "a player count listed twice",
        lambda d: d.update(players=[2, 3, 3]),
        ("the file: players: lists a player count twice",),
    ),
    # negotiations
    (
        "a faction without a column",
        lambda d: d["negotiations"]["2"]["column"].pop(),
        ("negotiations '2': column.faction: needs a column per faction",),
    ),
    (
        "a reward kind without a slot",
        _negot("3", reward_slots=["gain_gem"] * 7),
        ("negotiations '3': reward_slots: no slot for harvest_position",),
    ),
    (
        "a row too short for every token (C-SETBACK-5)",
        _negot("2", punishment_slots=list(m.PUNISHMENTS)[:5]),
        ("negotiations '2': punishment_slots: needs at least 6 slots", "got 5"),
    ),
    (
        "setback sums not increasing",
        _negot("4", setback_sums=[14, 20, 20, 32]),
        ("negotiations '4': setback_sums: must strictly increase",),
    ),
    (
        "a setback sum no column can reach",
        _negot("2", setback_sums=[10, 14, 18, 31]),
        ("negotiations '2': setback_sums: 31 cannot be reached with 5 dice of column 0",),
    ),
    (
        "a same-value count no column can hold",
        _negot("2", setback_same=[1, 5]),
        ("negotiations '2': setback_same: 5 same dice cannot already lie in column 0",),
    ),
    # spaceport and stations
    (
        "a headquarters of 3 spaces",
        lambda d: d["spaceport"]["3"].update(headquarters_spaces=3),
        ("spaceport '3': headquarters_spaces: must be 4",),
    ),
    (
        "a depository of 5 columns",
        lambda d: d["spaceport"]["2"].update(depository_columns=5),
        ("spaceport '2': depository_columns: must be 6",),
    ),
    (
        "a delivery reward twice",
        lambda d: d["spaceport"]["4"]["depository_rows"][2].update(
            reward={"kind": "gain_dice", "amount": 1}
        ),
        ("spaceport '4': depository_rows: needs 3 rows",),
    ),
    (
        "two laboratory pairs with 3 players (C-LAB-5)",
        lambda d: d["stations"]["3"].update(laboratory_pairs=2),
        ("stations '3': laboratory_pairs: must be 1 with 3 players",),
    ),
    (
        "a foundry without spaces",
        lambda d: d["stations"]["2"].update(foundry_spaces=0),
        ("stations '2': foundry_spaces: must be at least 1",),
    ),
    (
        "a die value no academy space takes",
        _set("academy_space", "Cadet Hall", "values", [2]),
        ("academy_space: values: with 2 players no space accepts 1",),
    ),
    (
        "a trade for nothing",
        lambda d: entry(d, "market_space", "Gem Broker")["trades"].append(
            {"pay": {}, "get": {"gems": 1}}
        ),
        ("market_space 'Gem Broker': trades[4]: pays or gets nothing",),
    ),
    (
        "a trade of a resource for itself",
        lambda d: entry(d, "market_space", "Water Exchange")["trades"].append(
            {"pay": {"water": 1}, "get": {"water": 2, "algae": 1}}
        ),
        ("market_space 'Water Exchange': trades[4]: names a resource on both sides",),
    ),
    (
        "trades that, repeated, create water",
        lambda d: entry(d, "market_space", "Water Exchange")["trades"].append(
            {"pay": {"algae": 1}, "get": {"water": 4}}
        ),
        ("market_space: trades: trading", "gains"),
    ),
    (
        "a control room that is not one to one",
        lambda d: d["control_room"]["directions"].update({"6": "n"}),
        ("control_room: directions: must map each die value 1-6 to a different",),
    ),
    (
        "a control room missing a value",
        lambda d: d["control_room"]["directions"].pop("4"),
        ("control_room: directions",),
    ),
    # planet
    (
        "one planet side",
        lambda d: d["planet"].pop("b"),
        ("planet: needs the sides 'a' and 'b'",),
    ),
    (
        "a centre away from distance 0",
        lambda d: d["planet"]["a"].update(centre="inner-n"),
        ("planet 'a': centre: must name a space at distance 0",),
    ),
    (
        "a neighbour that does not lead back",
        lambda d: _space(d, "b", "outer-n")["neighbours"].update(s="edge-n-ne"),
        ("planet 'b': spaces[inner-n].neighbours.n: 'outer-n' must lead back by s",),
    ),
    (
        "a neighbour that does not exist",
        lambda d: _space(d, "a", "outer-n")["neighbours"].update(n="space-station"),
        ("planet 'a': spaces[outer-n].neighbours.n: no space 'space-station'",),
    ),
    (
        "a space with no way towards the centre",
        lambda d: _space(d, "a", "edge-n-ne").update(distance=1),
        ("planet 'a': spaces[edge-n-ne].distance: every space but the centre needs",),
    ),
    (
        "a space the control room can never leave (C-CTRL-2)",
        lambda d: d["planet"]["a"].update(
            spaces=[{"id": "centre", "distance": 0, "neighbours": {}}], arrows=[]
        ),
        ("planet 'a': spaces[centre]: no control-room direction leads anywhere",),
    ),
    (
        "seven cache slots",
        lambda d: _space(d, "b", "inner-s").update(cache=True),
        ("planet 'b': spaces.cache: needs 6 cache slots, got 7",),
    ),
    (
        "five arrows",
        lambda d: d["planet"]["a"]["arrows"].pop(),
        ("planet 'a': arrows: needs 6 arrows, got 5",),
    ),
    (
        "an arrow onto the board",
        lambda d: d["planet"]["a"]["arrows"][0].update(direction="s"),
        ("planet 'a': arrows[0].direction: must point off the edge",),
    ),
    (
        "an arrow to nowhere",
        lambda d: d["planet"]["b"]["arrows"][3].update(to="beyond"),
        ("planet 'b': arrows[3]: must join two spaces of this side",),
    ),
    # gem caches
    (
        "five gem caches",
        lambda d: d["gem_cache"].pop(),
        ("gem_cache: needs exactly 6 tokens, got 5",),
    ),
    (
        "a cache front other than a gem and a die",
        _set("gem_cache", "Cache III", "front", {"gems": 2}),
        ("gem_cache 'Cache III': front: must show 1 gem and 1 die",),
    ),
    (
        "a cache back of negative points",
        _set("gem_cache", "Cache II", "points", -3),
        ("gem_cache 'Cache II': points: must be >= 0",),
    ),
    # leaders
    (
        "a leader missing",
        lambda d: d.update(leader=[x for x in d["leader"] if x["name"] != "Zoey"]),
        ("leader 'Zoey': is missing",),
    ),
    (
        "a base leader in the expansion",
        _set("leader", "Troy", "expansion", "specialists"),
        ("leader 'Troy': expansion: must be 'base'",),
    ),
    (
        "a leader the game does not have",
        lambda d: d["leader"].append(dict(d["leader"][0], name="Xander")),
        ("leader 'Xander': name: is not a leader of the game",),
    ),
    (
        "a Sal of another value",
        _set("leader_tile", "Sal", "value", 4),
        ("leader_tile 'Sal': value: Bjorg's Sal must be a die of value 3",),
    ),
    (
        "a leader's tile that belongs to another leader",
        _set("leader_tile", "Renzo's Tile", "leader", "Sunari"),
        ("leader 'Renzo': tile: must name a leader_tile of this leader",),
    ),
    (
        "a tile for no leader",
        lambda d: d["leader_tile"].append(
            {
                "name": "Spare",
                "leader": "Renata",
                "kind": "events",
                "events": 1,
                "source": "summary",
            }
        ),
        ("leader_tile 'Spare': leader: must name a leader of the file",),
    ),
    (
        "a die tile without its value",
        lambda d: entry(d, "leader_tile", "Sal").pop("value"),
        ("leader_tile 'Sal': value: a die tile needs value",),
    ),
    (
        "a unique farm breaking its kind's fields",
        lambda d: entry(d, "leader_tile", "Sunari's Farm")["farm"].update(trades=2),
        ('leader_tile "Sunari\'s Farm": farm.trades: a passive_farm has no trades',),
    ),
    (
        "a unique ship with a non-ship effect",
        lambda d: entry(d, "leader_tile", "Ul kah tal's Ship")["ship"]["effects"][0].update(
            kind="gain_dice"
        ),
        ('leader_tile "Ul kah tal\'s Ship": ship.effects[0].kind: a ship may only use',),
    ),
]
