"""The reconstructed standard card set (R-COMP-3, R-COMP-4, R-CARDS-1..3); card files, the
format any set is read from (R-CARDS-5), are tests/test_card_files.py.

R-CARDS-4 (playability, measured with the heuristic agent) is not tested here: it needs the
rules engine and the agents.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections import Counter
from importlib import resources

from farlight_env.cards import (
    AWARDS,
    FACILITIES,
    SIDES,
    Icon,
    IconKind,
    MissionCard,
    PartCard,
    Side,
    Timing,
    load_card_set,
    standard_card_set,
    standard_constraints_report,
)

STD = standard_card_set()
ALL_COMBOS = {frozenset(combo) for n in range(1, 5) for combo in itertools.combinations(SIDES, n)}
# Rough benefit weights, only to check that crew cost rises with strength (R-CARDS-1).
ICON_WEIGHT = {
    (IconKind.CREW, Timing.ONCE): 1.0,
    (IconKind.SCIENCE, Timing.ONCE): 1.25,
    (IconKind.UPGRADE, Timing.ONCE): 1.25,
    (IconKind.OVERHAUL, Timing.ONCE): 2.5,
    (IconKind.CREW, Timing.EVERY_ROUND): 3.0,
    (IconKind.SCIENCE, Timing.EVERY_ROUND): 3.5,
    (IconKind.UPGRADE, Timing.EVERY_ROUND): 3.0,
    (IconKind.OVERHAUL, Timing.EVERY_ROUND): 5.0,
}


def part(name: str) -> PartCard:
    return next(p for p in STD.parts if p.name == name)


def mission(name: str) -> MissionCard:
    return next(m for m in STD.missions if m.name == name)


def strength(p: PartCard) -> float:
    return (
        2.5 * len(p.engines) + 2 * p.biotech + sum(ICON_WEIGHT[i.kind, i.timing] for i in p.icons)
    )


# =============================================================================================
# R-COMP-3 / R-COMP-4
# =============================================================================================


def test_r_comp_3_counts() -> None:
    assert len(STD.parts) == 57
    assert len(STD.missions) == 23
    assert len(STD.climactic_missions) == 6
    assert len(STD.regular_missions) == 17
    assert sorted(AWARDS) == [
        "Colonist",
        "Commander",
        "Efficiency",
        "Juggernaut",
        "Potential",
        "Researcher",
        "Rocketeer",
    ]
    assert FACILITIES == ("Refit", "Hire", "Discover", "Engineer")


def test_r_comp_4_standard_set_says_reconstructed() -> None:
    assert STD.name == "standard"
    assert STD.reconstructed is True
    text = STD.description.lower()
    assert "reconstructed" in text
    assert "not available" in text
    file_text = (
        resources.files("farlight_env.cards").joinpath("data").joinpath("standard.toml")
    ).read_text(encoding="utf-8")
    first_comment = file_text.splitlines()[0]
    assert first_comment.startswith("#")
    assert "RECONSTRUCTED" in first_comment
    assert "not available" in file_text


def test_r_comp_4_none_loads_the_cached_standard_set() -> None:
    assert load_card_set() == STD
    assert load_card_set(None) == STD
    assert standard_card_set() is standard_card_set()


# =============================================================================================
# R-CARDS-1: parts
# =============================================================================================


def test_r_cards_1_57_parts_unique_names() -> None:
    names = [p.name for p in STD.parts]
    assert len(names) == 57
    assert len(set(names)) == 57
    assert all(name.strip() == name and name for name in names)


def test_r_cards_1_all_15_connector_combinations() -> None:
    combos = {p.connectors for p in STD.parts}
    assert len(ALL_COMBOS) == 15
    assert combos == ALL_COMBOS


def test_r_cards_1_connectors_weighted_to_two_and_three() -> None:
    by_size = Counter(len(p.connectors) for p in STD.parts)
    assert by_size == {1: 4, 2: 24, 3: 26, 4: 3}
    assert all(isinstance(p.connectors, frozenset) for p in STD.parts)
    assert all(isinstance(side, Side) for p in STD.parts for side in p.connectors)


def test_r_cards_1_engine_icons_16_to_20_unique_ranks() -> None:
    ranks = [rank for p in STD.parts for rank in p.engines]
    assert len(ranks) == 18
    assert 16 <= len(ranks) <= 20
    assert sorted(ranks) == list(range(1, 19))
    assert sum(1 for p in STD.parts if p.engines) == 15
    assert sum(1 for p in STD.parts if len(p.engines) == 2) == 3


def test_r_cards_1_crew_cost_0_to_3_mostly_low() -> None:
    costs = Counter(p.crew_cost for p in STD.parts)
    assert set(costs) == {0, 1, 2, 3}
    assert costs[0] + costs[1] > 57 / 2
    assert costs == {0: 12, 1: 27, 2: 13, 3: 5}


def test_r_cards_1_biotech_0_to_2_on_a_good_share() -> None:
    assert all(0 <= p.biotech <= 2 for p in STD.parts)
    assert sum(1 for p in STD.parts if p.biotech) == 16
    assert sum(p.biotech for p in STD.parts) == 20
    assert sum(1 for p in STD.parts if p.biotech == 2) == 4


def test_r_cards_1_icon_mix() -> None:
    icons = Counter(icon for p in STD.parts for icon in p.icons)
    every_round_income = [
        p
        for p in STD.parts
        if any(
            i.timing is Timing.EVERY_ROUND and i.kind in (IconKind.CREW, IconKind.SCIENCE)
            for i in p.icons
        )
    ]
    assert len(every_round_income) == 17  # about a third of the deck
    assert icons[Icon(IconKind.SCIENCE, Timing.EVERY_ROUND)] == 11
    assert icons[Icon(IconKind.CREW, Timing.EVERY_ROUND)] == 7
    assert icons[Icon(IconKind.CREW, Timing.ONCE)] == 12
    assert icons[Icon(IconKind.SCIENCE, Timing.ONCE)] == 8
    assert icons[Icon(IconKind.UPGRADE, Timing.ONCE)] == 7
    assert icons[Icon(IconKind.UPGRADE, Timing.EVERY_ROUND)] == 3
    assert icons[Icon(IconKind.OVERHAUL, Timing.ONCE)] == 3
    assert icons[Icon(IconKind.OVERHAUL, Timing.EVERY_ROUND)] == 1


def test_r_cards_1_stronger_parts_cost_more() -> None:
    by_cost: dict[int, list[float]] = {}
    for p in STD.parts:
        by_cost.setdefault(p.crew_cost, []).append(strength(p))
    means = [sum(v) / len(v) for _, v in sorted(by_cost.items())]
    assert means == sorted(means)
    assert min(by_cost[3]) >= max(by_cost[0])


# =============================================================================================
# R-CARDS-2: missions
# =============================================================================================


def test_r_cards_2_23_missions_unique_names() -> None:
    names = [m.name for m in STD.missions]
    assert len(names) == 23
    assert len(set(names)) == 23


def test_r_cards_2_climactic_5_to_7_worth_more_than_every_regular() -> None:
    climactic = sorted(m.value for m in STD.climactic_missions)
    regular = sorted(m.value for m in STD.regular_missions)
    assert 5 <= len(climactic) <= 7
    assert climactic == [10, 11, 12, 12, 13, 14]
    assert (regular[0], regular[-1]) == (2, 9)
    assert min(climactic) > max(regular)


def test_r_cards_2_requirements_in_range_and_never_empty() -> None:
    for m in STD.missions:
        assert 0 <= len(m.engines) <= 3, m.name
        assert all(2 <= d <= 6 for d in m.engines), m.name
        assert 0 <= m.biotech <= 5, m.name
        assert 0 <= m.science <= 6, m.name
        assert m.engines or m.biotech or m.science, m.name


def test_r_cards_2_regular_modest_climactic_harder() -> None:
    for m in STD.regular_missions:
        assert len(m.engines) <= 2 and all(d <= 5 for d in m.engines), m.name
        assert m.biotech <= 3 and m.science <= 4, m.name
    for m in STD.climactic_missions:
        assert 2 <= len(m.engines) <= 3, m.name
    assert max(m.biotech for m in STD.climactic_missions) == 5
    assert max(m.science for m in STD.climactic_missions) == 6
    assert max(d for m in STD.climactic_missions for d in m.engines) == 6


# =============================================================================================
# R-CARDS-3: names and facts from the rulebook
# =============================================================================================


def test_r_cards_3_colonist_training() -> None:
    assert mission("Colonist Training") == MissionCard(
        name="Colonist Training", value=5, climactic=False, engines=(), biotech=1, science=1
    )


def test_r_cards_3_cleomedes_and_mars_elevator_equal_value() -> None:
    cleomedes, elevator = mission("Cleomedes Moon Colony"), mission("Mars Elevator")
    assert not cleomedes.climactic and not elevator.climactic
    assert cleomedes.value == elevator.value == 7


def test_r_cards_3_proton_analyzer_exists() -> None:
    assert sum(1 for p in STD.parts if p.name == "Proton Analyzer") == 1
    assert part("Proton Analyzer").crew_cost == 1


def test_r_cards_1_to_3_standard_constraints_report_is_empty() -> None:
    assert standard_constraints_report(STD) == []


def test_r_cards_1_to_3_standard_constraints_report_names_violations() -> None:
    broken = dataclasses.replace(
        STD,
        parts=STD.parts[1:],
        missions=tuple(
            dataclasses.replace(m, value=6) if m.name == "Mars Elevator" else m
            for m in STD.missions
            if m.name != "Colonist Training"
        ),
    )
    report = standard_constraints_report(broken)
    assert "R-CARDS-1: 57 parts expected, got 56" in report
    assert "R-CARDS-1: all 15 connector combinations must appear, got 14" in report
    assert "R-CARDS-2: 23 missions expected, got 22" in report
    assert "R-CARDS-3: 'Cleomedes Moon Colony' and 'Mars Elevator' must be worth the same" in report
    assert any(line.startswith("R-CARDS-3: mission 'Colonist Training'") for line in report)
    no_analyzer = dataclasses.replace(
        STD, parts=tuple(p for p in STD.parts if p.name != "Proton Analyzer") + (STD.parts[0],)
    )
    report = standard_constraints_report(no_analyzer)
    assert "R-CARDS-3: part 'Proton Analyzer' is missing" in report
    assert "R-CARDS-1: part names must be unique; repeated: Deep Field Telescope" in report
