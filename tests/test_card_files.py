"""Card files (R-CARDS-5): the TOML and JSON format a card set is read from, every malformed
file refused in one line naming its field, round trips, and the size limits on files from others.
"""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from farlight_env.cards import (
    SIDES,
    CardFileError,
    CardSet,
    Icon,
    IconKind,
    MissionCard,
    PartCard,
    Side,
    Timing,
    card_set_from_dict,
    card_set_to_dict,
    load_card_set,
    standard_card_set,
    standard_constraints_report,
)

STD = standard_card_set()
ALL_COMBOS = {frozenset(combo) for n in range(1, 5) for combo in itertools.combinations(SIDES, n)}


# =============================================================================================
# R-CARDS-5: card files
# =============================================================================================


def toml_value(value: Any) -> str:
    """Just enough TOML writing for card files (the stdlib only reads TOML)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML for {value!r}")


def toml_text(data: dict[str, Any]) -> str:
    lines, tables = [], []
    for key, value in data.items():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            tables.append((key, value))
        else:
            lines.append(f"{key} = {toml_value(value)}")
    for key, rows in tables:
        for row in rows:
            lines += ["", f"[[{key}]]"] + [f"{k} = {toml_value(v)}" for k, v in row.items()]
    return "\n".join(lines) + "\n"


def write(tmp_path: Path, data: dict[str, Any], fmt: str, stem: str = "cards") -> Path:
    path = tmp_path / f"{stem}.{fmt}"
    text = toml_text(data) if fmt == "toml" else json.dumps(data, indent=1)
    path.write_text(text, encoding="utf-8")
    return path


def minimal_data() -> dict[str, Any]:
    """The standard set trimmed to the playability minimums: 13 parts, 9 regular, 3 climactic."""
    data = card_set_to_dict(STD)
    regular = [m for m in data["missions"] if not m["climactic"]][:9]
    climactic = [m for m in data["missions"] if m["climactic"]][:3]
    data.update(name="my cards", reconstructed=False, description="trimmed")
    data.update(parts=data["parts"][:13], missions=regular + climactic)
    return data


def card(data: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in data["parts"] + data["missions"] if c.get("name") == name)


def setter(name: str, key: str, value: Any) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        card(data, name)[key] = value

    return mutate


def deleter(name: str, key: str) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        del card(data, name)[key]

    return mutate


def top(key: str, value: Any = None, delete: bool = False) -> Callable[[dict[str, Any]], None]:
    def mutate(data: dict[str, Any]) -> None:
        if delete:
            del data[key]
        else:
            data[key] = value

    return mutate


def custom(fn: Callable[[dict[str, Any]], None]) -> Callable[[dict[str, Any]], None]:
    return fn


ION = "part 'Ion Drive'"
TRAINING = "mission 'Colonist Training'"
BOTH = ("toml", "json")

# id -> (mutation, substrings the message must contain, formats)
MALFORMED: dict[str, tuple[Callable[[dict[str, Any]], None], list[str], tuple[str, ...]]] = {
    "missing_connectors": (
        deleter("Ion Drive", "connectors"),
        [ION, "field 'connectors'", "missing", '"up", "right", "down", "left"'],
        BOTH,
    ),
    "missing_part_name": (
        custom(lambda d: d["parts"][3].pop("name")),
        ["part at index 3", "field 'name'", "missing"],
        BOTH,
    ),
    "missing_mission_value": (
        deleter("Colonist Training", "value"),
        [TRAINING, "field 'value'", "missing", "positive integer"],
        BOTH,
    ),
    "missing_top_level_parts": (top("parts", delete=True), ["field 'parts'", "missing"], BOTH),
    "missing_set_name": (top("name", delete=True), ["field 'name'", "missing"], BOTH),
    "crew_cost_string": (
        setter("Ion Drive", "crew_cost", "2"),
        [ION, "field 'crew_cost'", "integer 0..3", "string '2'"],
        BOTH,
    ),
    "crew_cost_bool": (
        setter("Ion Drive", "crew_cost", True),
        [ION, "field 'crew_cost'", "boolean true"],
        BOTH,
    ),
    "crew_cost_float": (
        setter("Ion Drive", "crew_cost", 1.0),
        [ION, "field 'crew_cost'", "number 1.0"],
        BOTH,
    ),
    "crew_cost_null": (
        setter("Ion Drive", "crew_cost", None),
        [ION, "crew_cost", "null"],
        ("json",),
    ),
    "crew_cost_out_of_range": (
        setter("Ion Drive", "crew_cost", 5),
        [f"{ION} field 'crew_cost': must be an integer 0..3, got 5"],
        BOTH,
    ),
    "crew_cost_negative": (
        setter("Ion Drive", "crew_cost", -1),
        [ION, "field 'crew_cost'", "got -1"],
        BOTH,
    ),
    "part_biotech_3": (
        setter("Ion Drive", "biotech", 3),
        [ION, "field 'biotech'", "integer 0..2", "got 3"],
        BOTH,
    ),
    "mission_value_0": (
        setter("Colonist Training", "value", 0),
        [TRAINING, "field 'value'", "integer 1..999", "got 0"],
        BOTH,
    ),
    "mission_biotech_6": (
        setter("Colonist Training", "biotech", 6),
        [TRAINING, "field 'biotech'", "0..5"],
        BOTH,
    ),
    "mission_science_7": (
        setter("Colonist Training", "science", 7),
        [TRAINING, "field 'science'", "0..6"],
        BOTH,
    ),
    "mission_die_7": (
        setter("Colonist Training", "engines", [7]),
        [TRAINING, "field 'engines'", "2..6", "got 7"],
        BOTH,
    ),
    "mission_die_1": (
        setter("Colonist Training", "engines", [1]),
        [TRAINING, "field 'engines'", "2..6", "got 1"],
        BOTH,
    ),
    "mission_four_engines": (
        setter("Colonist Training", "engines", [2, 2, 2, 2]),
        [TRAINING, "field 'engines'", "at most 3", "got 4 values"],
        BOTH,
    ),
    "climactic_not_bool": (
        setter("Colonist Training", "climactic", "yes"),
        [TRAINING, "field 'climactic'", "true or false"],
        BOTH,
    ),
    "bad_side": (
        setter("Ion Drive", "connectors", ["left", "top"]),
        [ION, "field 'connectors'", "string 'top'", '"up", "right", "down", "left"'],
        BOTH,
    ),
    "side_listed_twice": (
        setter("Ion Drive", "connectors", ["up", "up"]),
        [ION, "field 'connectors'", "listed twice"],
        BOTH,
    ),
    "no_connectors": (
        setter("Ion Drive", "connectors", []),
        [ION, "field 'connectors'", "non-empty", "empty list"],
        BOTH,
    ),
    "connectors_not_list": (
        setter("Ion Drive", "connectors", "up"),
        [ION, "field 'connectors'", "string 'up'"],
        BOTH,
    ),
    "duplicate_part_name": (
        custom(lambda d: d["parts"][5].update(name=d["parts"][1]["name"])),
        ["part 'Docking Clamp'", "field 'name'", "unique", "index 1", "index 5"],
        BOTH,
    ),
    "duplicate_mission_name": (
        setter("Colonist Training", "name", "Solar Flare Study"),
        ["mission 'Solar Flare Study'", "field 'name'", "unique"],
        BOTH,
    ),
    "empty_part_name": (
        setter("Ion Drive", "name", "  "),
        ["part at index 8", "field 'name'", "non-empty string"],
        BOTH,
    ),
    "mission_name_not_string": (
        custom(lambda d: d["missions"][0].update(name=42)),
        ["mission at index 0", "field 'name'", "got 42"],
        BOTH,
    ),
    "duplicate_engine_rank": (
        setter("Ion Drive", "engines", [1]),
        [ION, "field 'engines'", "rank 1", "already used by part 'Cold Gas Thrusters'"],
        BOTH,
    ),
    "rank_twice_in_one_part": (
        setter("Ion Drive", "engines", [40, 40]),
        [ION, "field 'engines'", "rank 40 appears twice"],
        BOTH,
    ),
    "rank_zero": (
        setter("Ion Drive", "engines", [0]),
        [ION, "field 'engines'", "positive integer", "got 0"],
        BOTH,
    ),
    "unknown_part_key": (
        setter("Ion Drive", "cost", 1),
        [ION, "field 'cost'", "unknown key", "crew_cost"],
        BOTH,
    ),
    "unknown_part_keys": (
        custom(lambda d: card(d, "Ion Drive").update(cost=1, side="up")),
        [ION, "fields 'cost', 'side'", "unknown keys"],
        BOTH,
    ),
    "unknown_mission_key": (
        setter("Colonist Training", "points", 5),
        [TRAINING, "field 'points'", "unknown key"],
        BOTH,
    ),
    "unknown_top_level_key": (top("version", 2), ["field 'version'", "unknown key"], BOTH),
    "bad_icon_kind": (
        setter("Ion Drive", "icons", [{"kind": "laser", "timing": "once"}]),
        [ION, "field 'icons[0].kind'", "string 'laser'", '"crew"', '"overhaul"'],
        BOTH,
    ),
    "bad_icon_timing": (
        setter(
            "Ion Drive",
            "icons",
            [{"kind": "crew", "timing": "once"}, {"kind": "crew", "timing": "often"}],
        ),
        [ION, "field 'icons[1].timing'", "string 'often'", '"every_round"'],
        BOTH,
    ),
    "icon_missing_timing": (
        setter("Ion Drive", "icons", [{"kind": "crew"}]),
        [ION, "field 'icons[0].timing'", "missing"],
        BOTH,
    ),
    "icon_unknown_key": (
        setter("Ion Drive", "icons", [{"kind": "crew", "timing": "once", "count": 2}]),
        [ION, "field 'icons[0].count'", "unknown key"],
        BOTH,
    ),
    "icon_not_table": (
        setter("Ion Drive", "icons", ["crew"]),
        [ION, "field 'icons[0]'", "string 'crew'"],
        BOTH,
    ),
    "mission_without_requirements": (
        custom(lambda d: card(d, "Colonist Training").update(engines=[], biotech=0, science=0)),
        [TRAINING, "fields 'engines', 'biotech', 'science'", "at least one requirement"],
        BOTH,
    ),
    "climactic_not_above_regular": (
        setter("Interstellar Ark", "value", 5),
        ["mission 'Interstellar Ark'", "field 'value'", "regular mission", "worth 5"],
        BOTH,
    ),
    "too_few_parts": (
        custom(lambda d: d["parts"].pop()),
        ["field 'parts'", "at least 13 parts", "got 12"],
        BOTH,
    ),
    "too_few_climactic": (
        custom(lambda d: d["missions"].pop()),
        ["field 'missions'", "at least 3 climactic", "got 2"],
        BOTH,
    ),
    "too_few_regular": (
        custom(lambda d: d["missions"].pop(0)),
        ["field 'missions'", "at least 9 regular", "got 8"],
        BOTH,
    ),
    "parts_not_list": (top("parts", "none"), ["field 'parts'", "list of part tables"], BOTH),
    "part_not_table": (
        custom(lambda d: d["parts"].__setitem__(4, "Hull Plate")),
        ["part at index 4", "must be a table", "string 'Hull Plate'"],
        BOTH,
    ),
    "reconstructed_not_bool": (
        top("reconstructed", "yes"),
        ["field 'reconstructed'", "true or false"],
        BOTH,
    ),
}
MALFORMED_CASES = [
    pytest.param(case_id, fmt, id=f"{case_id}-{fmt}")
    for case_id, (_, _, formats) in MALFORMED.items()
    for fmt in formats
]


def test_r_cards_5_minimal_base_is_valid_for_both_formats(tmp_path: Path) -> None:
    """The malformed cases below each break exactly one thing in this base."""
    data = minimal_data()
    expected = card_set_from_dict(data)
    assert load_card_set(write(tmp_path, data, "toml")) == expected
    assert load_card_set(write(tmp_path, data, "json")) == expected


@pytest.mark.parametrize(("case_id", "fmt"), MALFORMED_CASES)
def test_r_cards_5_malformed_file_is_refused(tmp_path: Path, case_id: str, fmt: str) -> None:
    mutate, expected, _ = MALFORMED[case_id]
    data = minimal_data()
    mutate(data)
    path = write(tmp_path, data, fmt)
    with pytest.raises(CardFileError) as err:
        load_card_set(path)
    message = str(err.value)
    assert message.startswith(f"{path}: ")
    for piece in expected:
        assert piece in message


@pytest.mark.parametrize("case_id", list(MALFORMED))
def test_r_cards_5_malformed_dict_is_refused(case_id: str) -> None:
    mutate, expected, _ = MALFORMED[case_id]
    data = minimal_data()
    mutate(data)
    with pytest.raises(CardFileError) as err:
        card_set_from_dict(data, source="mine")
    assert str(err.value).startswith("mine: ")
    assert all(piece in str(err.value) for piece in expected)


def test_r_cards_5_error_message_example(tmp_path: Path) -> None:
    data = card_set_to_dict(STD)
    card(data, "Ion Drive")["crew_cost"] = 5
    path = write(tmp_path, data, "toml", stem="standard")
    with pytest.raises(CardFileError) as err:
        load_card_set(path)
    assert str(err.value) == (
        f"{path}: part 'Ion Drive' field 'crew_cost': must be an integer 0..3, got 5"
    )


UNREADABLE: dict[str, tuple[str, bytes | None, list[str]]] = {
    "unparsable_toml": ("cards.toml", b"name = [\n", ["not valid TOML"]),
    "unparsable_json": ("cards.json", b'{"name": ', ["not valid JSON"]),
    "not_utf8": ("cards.toml", b'name = "\xff\xfe"\n', ["not UTF-8"]),
    "json_duplicate_key": (
        "cards.json",
        b'{"name": "a", "name": "b", "parts": [], "missions": []}',
        ["not valid JSON", "duplicate key 'name'"],
    ),
    "json_top_level_list": ("cards.json", b"[]", ["top level must be a table", "a list of 0"]),
    "unknown_suffix": ("cards.yaml", b"name: standard\n", ["unknown card file type '.yaml'"]),
    "no_suffix": ("cards", b"", ["unknown card file type '(none)'", ".toml or .json"]),
    "missing_file": ("nowhere.toml", None, ["no such card file"]),
    "directory": ("folder.json", b"dir", ["cannot read card file"]),
}


@pytest.mark.parametrize("case_id", list(UNREADABLE))
def test_r_cards_5_unreadable_file_is_refused(tmp_path: Path, case_id: str) -> None:
    filename, content, expected = UNREADABLE[case_id]
    path = tmp_path / filename
    if content == b"dir":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    with pytest.raises(CardFileError) as err:
        load_card_set(str(path))
    assert str(err.value).startswith(f"{path}: ")
    for piece in expected:
        assert piece in str(err.value)


def test_r_cards_5_card_file_error_is_a_value_error() -> None:
    assert issubclass(CardFileError, ValueError)


def test_r_cards_5_round_trip_dict() -> None:
    data = card_set_to_dict(STD)
    assert card_set_from_dict(data) == STD
    assert json.loads(json.dumps(data)) == data
    assert card_set_to_dict(card_set_from_dict(data)) == data
    assert data["parts"][0]["connectors"] == ["up"]
    assert card(data, "Proton Analyzer")["connectors"] == ["up", "right", "down"]


def test_r_cards_5_round_trip_json_file(tmp_path: Path) -> None:
    path = tmp_path / "standard.json"
    path.write_text(json.dumps(card_set_to_dict(STD), indent=2), encoding="utf-8")
    assert load_card_set(path) == STD
    assert load_card_set(str(path)) == STD


def test_r_cards_5_round_trip_toml_file(tmp_path: Path) -> None:
    path = write(tmp_path, card_set_to_dict(STD), "toml", stem="copy")
    assert load_card_set(path) == STD


def test_r_cards_5_suffix_is_case_insensitive(tmp_path: Path) -> None:
    path = tmp_path / "CARDS.JSON"
    path.write_text(json.dumps(card_set_to_dict(STD)), encoding="utf-8")
    assert load_card_set(path) == STD


def test_r_cards_5_user_file_at_minimums_loads(tmp_path: Path) -> None:
    path = write(tmp_path, minimal_data(), "toml", stem="mine")
    cs = load_card_set(path)
    assert cs.name == "my cards"
    assert cs.reconstructed is False
    assert cs.description == "trimmed"
    assert cs.parts == STD.parts[:13]
    assert len(cs.regular_missions) == 9
    assert len(cs.climactic_missions) == 3
    assert standard_constraints_report(cs) != []  # a user file need not meet R-CARDS-1..3


def test_r_cards_5_optional_fields_take_model_defaults(tmp_path: Path) -> None:
    data = minimal_data()
    data["parts"][0] = {"name": "Hull Plate", "connectors": ["left", "up"]}
    data["missions"][0] = {"name": "Quick Hop", "value": 1, "science": 1}
    del data["reconstructed"], data["description"]
    cs = load_card_set(write(tmp_path, data, "toml"))
    assert cs.parts[0] == PartCard(name="Hull Plate", connectors=frozenset({Side.LEFT, Side.UP}))
    assert cs.missions[0] == MissionCard(name="Quick Hop", value=1, science=1)
    assert cs.reconstructed is False
    assert cs.description == ""


# --- property: any valid card set survives the round trip ------------------------------------

names = st.text(alphabet="abcdefghijklmnopqrstuvwxyz '-", min_size=1, max_size=12).filter(
    lambda s: s.strip() != ""
)
icons = st.builds(Icon, st.sampled_from(list(IconKind)), st.sampled_from(list(Timing)))


def _name_key(name: str) -> str:
    """Names the loader treats as the same card (R-CARDS-5: case and surrounding spaces)."""
    return name.strip().casefold()


connector_sets = st.sampled_from(sorted(ALL_COMBOS, key=lambda c: sorted(s.value for s in c)))


@st.composite
def card_sets(draw: st.DrawFn) -> CardSet:
    part_names = draw(st.lists(names, min_size=13, max_size=20, unique_by=_name_key))
    engine_counts = draw(
        st.lists(st.integers(0, 2), min_size=len(part_names), max_size=len(part_names))
    )
    ranks = iter(draw(st.permutations(range(1, sum(engine_counts) + 1))))
    parts = tuple(
        PartCard(
            name=name,
            connectors=draw(connector_sets),
            crew_cost=draw(st.integers(0, 3)),
            icons=tuple(draw(st.lists(icons, max_size=3))),
            biotech=draw(st.integers(0, 2)),
            engines=tuple(next(ranks) for _ in range(n)),
        )
        for name, n in zip(part_names, engine_counts, strict=True)
    )
    mission_names = draw(st.lists(names, min_size=12, max_size=16, unique_by=_name_key))
    n_climactic = draw(st.integers(3, len(mission_names) - 9))
    missions = tuple(
        MissionCard(
            name=name,
            value=draw(st.integers(10, 20) if i < n_climactic else st.integers(1, 9)),
            climactic=i < n_climactic,
            engines=tuple(draw(st.lists(st.integers(2, 6), max_size=3))),
            biotech=draw(st.integers(0, 5)),
            science=draw(st.integers(1, 6)),
        )
        for i, name in enumerate(mission_names)
    )
    return CardSet(
        name=draw(names),
        parts=parts,
        missions=missions,
        reconstructed=draw(st.booleans()),
        description=draw(st.text(max_size=30)),
    )


@settings(max_examples=50, deadline=None)
@given(card_sets())
def test_r_cards_5_any_valid_card_set_round_trips(cs: CardSet) -> None:
    data = card_set_to_dict(cs)
    assert card_set_from_dict(copy.deepcopy(data)) == cs
    assert card_set_from_dict(json.loads(json.dumps(data))) == cs


# ------------------------------------------------------------------------- size limits (trust)
def _std() -> dict[str, Any]:
    return card_set_to_dict(STD)


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (lambda d: d["missions"][0].__setitem__("value", 10**400), ["field 'value'", "1..999"]),
        (lambda d: d["missions"][0].__setitem__("value", 1000), ["field 'value'", "got 1000"]),
        (lambda d: d["parts"][0].__setitem__("name", "x" * 81), ["field 'name'", "81 characters"]),
        (lambda d: d.__setitem__("name", "y" * 81), ["field 'name'", "at most 80"]),
        (lambda d: d.__setitem__("description", "z" * 10_001), ["field 'description'"]),
        (lambda d: d["parts"].extend(d["parts"][:1] * 256), ["field 'parts'", "at most 256"]),
        (lambda d: d["parts"][0].__setitem__("engines", [10**6]), ["field 'engines'", "999"]),
        (lambda d: d["parts"][0].__setitem__("engines", [91, 92, 93, 94, 95]), ["'engines'"]),
        (
            lambda d: d["parts"][0].__setitem__("icons", [{"kind": "crew", "timing": "once"}] * 9),
            ["field 'icons'", "at most 8"],
        ),
        (
            lambda d: d["parts"][1].__setitem__("name", " " + d["parts"][0]["name"].upper()),
            ["field 'name'", "unique (ignoring case", "index 0"],
        ),
        (
            lambda d: d["missions"][1].__setitem__("name", d["missions"][0]["name"] + "  "),
            ["field 'name'", "unique (ignoring case"],
        ),
    ],
)
def test_card_file_limits(edit, expected: list[str]) -> None:
    """Card files come from others: counts, name lengths and numbers are bounded, and names
    that a reader could not tell apart are duplicates."""
    data = _std()
    edit(data)
    with pytest.raises(CardFileError) as info:
        card_set_from_dict(data, "mine.json")
    message = str(info.value)
    assert message.startswith("mine.json: "), message
    assert all(part in message for part in expected), message


def test_card_file_larger_than_one_mib_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    data = _std()
    data["description"] = ""
    path.write_text(json.dumps(data) + " " * (1 << 20), encoding="utf-8")
    with pytest.raises(CardFileError, match=r"huge\.json: card file is larger than 1024 KiB"):
        load_card_set(path)


@pytest.mark.parametrize(
    ("suffix", "text"),
    [
        (".json", "[" * 100_000 + "]" * 100_000),
        (".toml", "a = " + "[" * 100_000 + "]" * 100_000),
        (".toml", "a = " + "{b = " * 100_000 + "1" + "}" * 100_000),
    ],
    ids=["json-lists", "toml-arrays", "toml-tables"],
)
def test_deeply_nested_card_file_is_a_card_file_error(tmp_path: Path, suffix, text) -> None:
    path = tmp_path / f"deep{suffix}"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CardFileError, match=r"deep\.(json|toml): not valid (JSON|TOML)"):
        load_card_set(path)


def test_r_cards_5_every_field_of_the_card_format_says_what_is_right() -> None:
    """Messages come from the schema (farlight_env.cards.schema): each field, and each item of
    a list, has a description or a type (integer range, boolean, enum) that gives one."""
    from msgspec import inspect as mi

    from farlight_env.cards.schema import CARD_FILE, _expected, _unwrap

    seen, todo = [], [_unwrap(mi.type_info(CARD_FILE))]
    while todo:
        kind, meta = todo.pop()
        seen.append(_expected(kind, meta))
        if isinstance(kind, mi.ListType):
            todo.append(_unwrap(kind.item_type))
        for field in getattr(kind, "fields", ()):
            todo.append(_unwrap(field.type))
    assert len(seen) == 26  # the top level, 19 fields of cards and icons, 6 list items
    assert all(" " in text and "Type(" not in text for text in seen), seen


def test_r_cards_5_a_key_that_spells_a_path_is_refused_in_one_line() -> None:
    """msgspec's path ends its message; an unknown key quoting one must not mislead or crash."""
    data = {"k - at `$.parts[999].x": 1, **_std()}  # the first problem msgspec meets
    data["parts"][2]["j` - at `$.missions"] = 1
    with pytest.raises(CardFileError) as info:
        card_set_from_dict(data, "mine.json")
    assert str(info.value).startswith("mine.json: ") and "unknown field" in str(info.value)
    del data["k - at `$.parts[999].x"]
    with pytest.raises(CardFileError) as info:
        card_set_from_dict(data, "mine.json")
    assert "part 'Cold Gas Thrusters' field 'j` - at `$.missions': unknown key" in str(info.value)
