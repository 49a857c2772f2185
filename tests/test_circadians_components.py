"""The Circadians component file (C-COMP-3, docs/circadians/components.md): the standard file
loads and meets every constraint; each *(all files)* constraint refuses a broken file with a
message naming the table, the entry and the field; the hash is the file's bytes."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

import msgspec
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from farlight_env.games.circadians.components import (
    ComponentFileError,
    components_from_dict,
    components_hash,
    load_components,
    reconstruction_report,
    schema,
    standard_components,
)
from farlight_env.games.circadians.components import model as m
from farlight_env.games.circadians.components.checks import arbitrage
from farlight_env.games.circadians.components.schema import MAX_FILE_BYTES, SCHEMA_VERSION
from farlight_env.untrusted.messages import MAX_MESSAGE_CHARS
from tests.circadians_files import (
    ALL_FILES_CASES,
    PARSED,
    SCHEMA_CASES,
    STANDARD,
    Data,
    entry,
    standard_data,
    write,
)
from tests.doc_snippets import run_page


def refused(tmp_path: Path, data: Data, *parts: str) -> str:
    """Loading `data` from a file fails with one line containing every part."""
    with pytest.raises(ComponentFileError) as caught:
        load_components(write(tmp_path, data))
    message = str(caught.value)
    assert "\n" not in message and len(message) <= MAX_MESSAGE_CHARS + 40
    for part in parts:
        assert part in message, f"{part!r} not in {message!r}"
    return message


# =============================================================================================
# The standard file
# =============================================================================================


def test_c_comp_3_the_standard_file_loads_with_its_version_and_player_counts() -> None:
    c = load_components()
    assert c.schema_version == SCHEMA_VERSION == PARSED["schema_version"]
    assert c.reconstructed and c.name == "standard"
    assert c.players == m.PLAYER_COUNTS
    assert sorted(c.negotiations) == sorted(c.spaceport) == sorted(c.stations) == [2, 3, 4]
    assert sorted(c.planet) == ["a", "b"]


def test_c_comp_3_the_writer_round_trips_the_standard_file(tmp_path: Path) -> None:
    """The tests' broken files are written by `to_toml`; unbroken, it gives the same components."""
    loaded = load_components(write(tmp_path, standard_data(), "copy.toml"))
    assert dataclasses.replace(loaded, sha256="") == dataclasses.replace(
        standard_components(), sha256=""
    )


def test_c_comp_3_the_reconstruction_constraints_hold_on_the_standard_file() -> None:
    assert reconstruction_report(standard_components()) == []


def test_every_entry_says_whether_it_is_summary_or_reconstruction() -> None:
    data = standard_data()
    entries = [data[t] for t in ("research_base", "station_costs", "control_room")]
    for table in ("negotiations", "spaceport", "stations", "planet"):
        entries += list(data[table].values())
    for value in data.values():
        if isinstance(value, list) and value and isinstance(value[0], dict):
            entries += value
    assert len(entries) > 100
    assert all(e["source"] in ("summary", "reconstruction") for e in entries)
    sources = {e["source"] for e in entries}
    assert sources == {"summary", "reconstruction"}


def test_the_reconstruction_report_names_what_a_file_breaks() -> None:
    """A transcription need not meet the reconstruction's own constraints: they are reported."""
    data = standard_data()
    data["contract"] = [c for c in data["contract"] if c["name"] != "Aqua Cannon"]
    data["gem_cache"] = [dict(c, points=2) for c in data["gem_cache"]]
    entry(data, "farm_tile", "Monument Grove")["points"] = 4
    report = reconstruction_report(components_from_dict(data))
    assert "contract: 'Aqua Cannon' is missing" in report
    assert "gem_cache: points: all backs are equal, so a cache is no gamble" in report
    assert "farm_tile 'Monument Grove': points: a point farm is worth 3" in report


def test_c_leader_all_26_leaders_are_present_by_name_expansion_and_rule() -> None:
    c = standard_components()
    names = tuple(leader.name for leader in c.leaders)
    assert names == m.BASE_LEADERS + m.SPECIALISTS_LEADERS and len(names) == 26
    assert [c.leader(n).expansion for n in m.BASE_LEADERS] == ["base"] * 14
    assert [c.leader(n).expansion for n in m.SPECIALISTS_LEADERS] == ["specialists"] * 12
    assert c.leader("Akira").rule == "C-LEADER-1" and c.leader("Zoey").rule == "C-LEADER-14"
    assert c.leader("Amos").rule == "C-LEADER-15" and c.leader("Tariq").rule == "C-LEADER-26"


def test_c_leader_the_leader_tiles_belong_to_their_leaders() -> None:
    c = standard_components()
    tiles = {t.name: t for t in c.leader_tiles}
    assert tiles["Sal"].kind == "die" and tiles["Sal"].value == 3 and tiles["Sal"].leader == "Bjorg"
    assert c.leader("Sunari").tile == "Sunari's Farm" and tiles["Sunari's Farm"].farm is not None
    ship = tiles["Ul kah tal's Ship"].ship
    assert ship is not None and {e.kind for e in ship.effects} <= m.SHIP_KINDS
    assert tiles["Renzo's Tile"].events == 6


def _effects(c: m.Components, leader: str) -> set[tuple]:
    return {(e.kind, e.resource, e.amount, e.when) for e in c.leader(leader).effects}


def test_c_leader_abilities_are_written_as_effect_kinds() -> None:
    """The summary's numbers for the base leaders reach the file (C-LEADER-1..14)."""
    c = standard_components()
    akira = c.leader("Akira").effects[0]
    assert akira.kind == "treat_as" and akira.values == (1, 2, 3) and akira.amount == 6
    assert set(akira.locations) == {"farms", "mining_camp"}
    assert ("fixed_die", None, 3, "always") in _effects(c, "Bjorg")
    assert ("outside_dice_limit", None, None, "always") in _effects(c, "Bjorg")
    assert ("extra_delivery_reward", None, 1, "on_send") in _effects(c, "Dan")
    assert ("free_ship_tile", None, None, "on_gain_farm_tile") in _effects(c, "Jakob")
    assert ("mirror_punishment", None, None, "always") in _effects(c, "Lysias")
    assert ("ignore_algae_cost", None, None, "always") in _effects(c, "Naira")
    assert {("personal_events", None, 6, "setup"), ("gain", "water", 2, "event_choice")} <= (
        _effects(c, "Renzo")
    )
    assert ("refill_die", None, 1, "rest_end") in _effects(c, "Roslyn")
    assert ("move_harvester", None, 1, "harvest_end") in _effects(c, "Sable")
    troy = {(e.resource, e.amount) for e in c.leader("Troy").effects if e.kind == "discount"}
    assert troy == {("gems", 1), ("energy", 2), ("algae", 3)}
    assert ("immediate_dice", None, None, "execute") in _effects(c, "Zapporah")
    assert ("draw_contracts", None, 3, "after_draft") in _effects(c, "Zoey")
    assert ("double_fulfil", None, None, "on_send") in _effects(c, "Zoey")


def test_every_effect_the_summary_names_appears_in_the_standard_file() -> None:
    """Ships, farm kinds, rewards, punishments, delivery rewards, headquarters rewards, yields."""
    c = standard_components()
    ships = {frozenset(e.signature for e in ship.effects) for ship in c.ship_tiles}
    assert all(effect in ships for effect in m.SHIP_EFFECTS)
    assert {f.kind for f in c.farm_tiles} == set(m.FARM_KINDS)
    assert {f.points for f in c.farm_tiles if f.kind == "point_farm"} == {3}
    for board in c.negotiations.values():
        assert set(board.reward_slots) == set(m.REWARDS)
        assert set(board.punishment_slots) == set(m.PUNISHMENTS)
    for port in c.spaceport.values():
        rows = {(r.reward.kind, r.reward.amount) for r in port.depository_rows}
        assert rows == m.DELIVERY_REWARDS
        hq = {(e.kind, e.resource, e.amount) for e in port.headquarters_rewards}
        assert hq == {("draw_contracts", None, 2), ("gain", "water", 5)}
    for planet in c.planet.values():
        yields = {name for s in planet.spaces for name, _ in s.yields.items()}
        assert yields >= set(m.PLANET_YIELDS)
        assert {name for s in planet.spaces for name, _ in s.start.items()} == {"water", "gems"}
    assert {cache.front for cache in c.gem_caches} == {m.Bundle(gems=1, dice=1)}
    assert any(card.name == "Aqua Cannon" for card in c.contracts)
    costs = c.station_costs
    assert costs.laboratory == (m.Bundle(algae=3), m.Bundle(water=10))
    assert costs.foundry == costs.control_room == (m.Bundle(energy=2), m.Bundle(water=10))


def test_c_comp_3_the_component_page_code_runs_on_a_transcription(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/circadians/components.md loads `my_game.toml` (here a copy of the standard file)."""
    (tmp_path / "my_game.toml").write_bytes(STANDARD.read_bytes())
    monkeypatch.chdir(tmp_path)
    assert run_page("docs/circadians/components.md", expected_blocks=1) == "[]\n"


def test_the_components_are_frozen_and_the_standard_set_is_parsed_once() -> None:
    c = standard_components()
    assert standard_components() is c
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.contracts[0].points = 99  # type: ignore[misc]
    with pytest.raises(TypeError):
        c.negotiations[2] = c.negotiations[3]  # type: ignore[index]
    with pytest.raises(TypeError):
        c.planet["a"].spaces[0].neighbours["n"] = "centre"  # type: ignore[index]


# =============================================================================================
# The hash
# =============================================================================================


def test_c_comp_3_the_hash_is_the_sha256_of_the_file_bytes(tmp_path: Path) -> None:
    raw = STANDARD.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    assert components_hash() == components_hash() == digest == standard_components().sha256
    copied = tmp_path / "copy.toml"
    copied.write_bytes(raw)
    assert components_hash(copied) == digest == load_components(copied).sha256


def test_c_comp_3_the_hash_changes_when_one_byte_changes(tmp_path: Path) -> None:
    """Even a byte in a comment: the record names the exact file that was played."""
    raw = STANDARD.read_bytes()
    assert raw.startswith(b"#")
    changed = tmp_path / "changed.toml"
    assert raw[1:2] == b" "
    changed.write_bytes(raw[:1] + b"!" + raw[2:])  # one byte of the first comment line
    assert len(changed.read_bytes()) == len(raw)
    assert components_hash(changed) != components_hash()
    loaded = load_components(changed)
    assert loaded.sha256 == components_hash(changed)
    assert dataclasses.replace(loaded, sha256="") == dataclasses.replace(
        standard_components(), sha256=""
    )


# =============================================================================================
# Reading the file: size, encoding, syntax, schema
# =============================================================================================


def test_c_comp_3_an_oversize_file_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    path = tmp_path / "big.toml"
    path.write_bytes(STANDARD.read_bytes() + b"#" * MAX_FILE_BYTES)
    with pytest.raises(ComponentFileError, match="larger than 256 KiB"):
        load_components(path)
    with pytest.raises(ComponentFileError, match="larger than"):
        components_hash(path)


def test_c_comp_3_unreadable_files_are_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ComponentFileError, match="no such component file"):
        load_components(tmp_path / "absent.toml")
    (tmp_path / "latin.toml").write_bytes(b"name = '\xe9'\n")
    with pytest.raises(ComponentFileError, match="not UTF-8"):
        load_components(tmp_path / "latin.toml")
    (tmp_path / "bad.toml").write_text("schema_version = = 1\n")
    with pytest.raises(ComponentFileError, match="not valid TOML"):
        load_components(tmp_path / "bad.toml")


@pytest.mark.parametrize(
    ("edit", "parts"), [c[1:] for c in SCHEMA_CASES], ids=[c[0] for c in SCHEMA_CASES]
)
def test_c_comp_3_the_schema_refuses_with_table_entry_and_field(
    tmp_path: Path, edit: Callable[[Data], None], parts: tuple[str, ...]
) -> None:
    data = standard_data()
    edit(data)
    refused(tmp_path, data, *parts)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, 24), points=st.integers(max_value=-1))
def test_c_comp_3_any_negative_number_names_its_entry_and_field(index: int, points: int) -> None:
    """Every number is non-negative: a negative one anywhere is named, whatever its value."""
    data = standard_data()
    card = data["contract"][index]
    card["points"] = points
    with pytest.raises(ComponentFileError) as caught:
        components_from_dict(data)
    assert f"contract {card['name']!r}: points: must be >= 0" in str(caught.value)


FIELD_NAME = st.from_regex(r"[a-z][a-z_]{0,15}", fullmatch=True)
TABLES = {
    "farm_tile": schema.FarmTileFile, "ship_tile": schema.ShipTileFile,
    "event": schema.EventFile, "leader": schema.LeaderFile, "gem_cache": schema.GemCacheFile,
}  # fmt: skip


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=st.sampled_from(sorted(TABLES)), key=FIELD_NAME)
def test_c_comp_3_any_unknown_field_is_refused(table: str, key: str) -> None:
    assume(key not in {f.encode_name for f in msgspec.structs.fields(TABLES[table])})
    data = standard_data()
    data[table][-1][key] = 1
    with pytest.raises(ComponentFileError, match=f"{table} .*: unknown field '{key}'"):
        components_from_dict(data)


# =============================================================================================
# The *(all files)* constraints of components.md, one broken file each
# =============================================================================================


@pytest.mark.parametrize(
    ("edit", "parts"), [c[1:] for c in ALL_FILES_CASES], ids=[c[0] for c in ALL_FILES_CASES]
)
def test_c_comp_3_every_all_files_constraint_refuses_a_broken_file(
    tmp_path: Path, edit: Callable[[Data], None], parts: tuple[str, ...]
) -> None:
    data = standard_data()
    edit(data)
    refused(tmp_path, data, *parts)


def test_a_specialists_leader_may_name_the_expansion_faction_and_kinds() -> None:
    """Luna's ability names Ahzuri and Garmon's uses gem_substitute; both load (recorded only)."""
    c = standard_components()
    assert any(e.faction == "Ahzuri" for e in c.leader("Luna").effects)
    assert any(e.kind in m.SPECIALISTS_KINDS for e in c.leader("Garmon").effects)


# =============================================================================================
# Properties
# =============================================================================================

RATES = st.dictionaries(
    st.tuples(st.sampled_from(m.RESOURCES), st.sampled_from(m.RESOURCES)).filter(
        lambda e: e[0] != e[1]
    ),
    st.fractions(min_value=Fraction(1, 6), max_value=6, max_denominator=6),
    max_size=12,
)


def _product(path: list[str], rates: dict[tuple[str, str], Fraction]) -> Fraction:
    product = Fraction(1)
    for edge in zip(path, path[1:], strict=False):
        product *= rates[edge]
    return product


@settings(max_examples=200, deadline=None)
@given(rates=RATES)
def test_c_comp_3_a_reported_trade_cycle_gains_and_an_unreported_one_does_not(
    rates: dict[tuple[str, str], Fraction],
) -> None:
    """The market check finds a gaining cycle exactly when one exists (cycles of 2 to 4)."""
    cycle = arbitrage(rates)
    if cycle:
        assert cycle[0] == cycle[-1] and _product(cycle, rates) > 1
        return
    for a, b in rates:
        assert _product([a, b, a], rates) <= 1 if (b, a) in rates else True
        for c in m.RESOURCES:
            if (b, c) in rates and (c, a) in rates:
                assert _product([a, b, c, a], rates) <= 1


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sums=st.lists(st.integers(1, 60), min_size=4, max_size=4),
    n=st.sampled_from(["2", "3", "4"]),
)
def test_c_setback_1_sums_load_exactly_when_increasing_and_reachable(
    sums: list[int], n: str
) -> None:
    data = standard_data()
    data["negotiations"][n]["setback_sums"] = sums
    spaces = min(len(col["space"]) for col in data["negotiations"][n]["column"])
    fine = all(a < b for a, b in zip(sums, sums[1:], strict=False)) and sums[-1] <= 6 * spaces
    if fine:
        assert components_from_dict(data).negotiations[int(n)].setback_sums == tuple(sums)
    else:
        with pytest.raises(ComponentFileError, match=f"negotiations '{n}': setback_sums"):
            components_from_dict(data)
