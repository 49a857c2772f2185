"""Checks over a whole deck: unique names and engine ranks, climactic missions worth more,
enough cards for any player count (every card file); and the standard set's own constraints
(R-COMP-3, R-CARDS-1..3), reported rather than enforced."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from farlight_env.cards.model import CardSet, MissionCard, PartCard, Side
from farlight_env.cards.schema import (
    MAX_CREW_COST,
    MAX_MISSION_BIOTECH,
    MAX_MISSION_DIE,
    MAX_MISSION_ENGINES,
    MAX_MISSION_SCIENCE,
    MAX_PART_BIOTECH,
    MIN_MISSION_DIE,
    CardFileError,
    CardSetFile,
    MissionFile,
)
from farlight_env.untrusted.messages import short

# --- playability minimums for any player count (R-SETUP-3, R-SETUP-4) --------------------------
MIN_CLIMACTIC = 3  # one at the bottom of each of the 3 stacks
MIN_REGULAR = 9  # 3 per stack with 4-5 players
MIN_PARTS = 13  # 12 station spaces with 5 players, plus one refill

# --- constraints on the shipped standard set only (R-COMP-3, R-CARDS-1..3) ---------------------
STANDARD_PARTS = 57
STANDARD_MISSIONS = 23
STANDARD_ENGINE_ICONS = (16, 20)
STANDARD_CLIMACTIC = (5, 7)


# =============================================================================================
# One card's fields together, then the whole deck
# =============================================================================================


def check_cards(card_file: CardSetFile, source: str) -> None:
    """Each card's fields together: sides and ranks listed once, a mission's requirement."""
    for part in card_file.parts:
        where = f"{source}: part {short(part.name)!r} field"
        sides: set[Side] = set()
        for side in part.connectors:
            if side in sides:
                raise CardFileError(
                    f"{where} 'connectors': side {side.value!r} is listed twice; "
                    "list each side once"
                )
            sides.add(side)
        repeated = [rank for rank, n in Counter(part.engines).items() if n > 1]
        if repeated:
            raise CardFileError(
                f"{where} 'engines': rank {repeated[0]} appears twice; ranks must be unique "
                "across the deck"
            )
    for mission in card_file.missions:
        if not has_requirement(mission):
            raise CardFileError(
                f"{source}: mission {short(mission.name)!r} fields 'engines', 'biotech', "
                "'science': a mission needs at least one requirement, but it has no engines, "
                "0 bio-tech and 0 science"
            )


def has_requirement(mission: MissionCard | MissionFile) -> bool:
    return bool(mission.engines) or mission.biotech > 0 or mission.science > 0


def check_unique_names(
    what: str, cards: Sequence[PartCard] | Sequence[MissionCard], source: str
) -> None:
    """Names that differ only by case or surrounding spaces are the same card to a reader."""
    first: dict[str, int] = {}
    for index, card in enumerate(cards):
        key = card.name.strip().casefold()
        if key in first:
            raise CardFileError(
                f"{source}: {what} {card.name!r} field 'name': must be unique (ignoring case and "
                f"surrounding spaces), but the {what} at index {first[key]} has the same name "
                f"(this one is at index {index})"
            )
        first[key] = index


def check_unique_ranks(parts: Sequence[PartCard], source: str) -> None:
    owner: dict[int, str] = {}
    for part in parts:
        for rank in part.engines:
            if rank in owner:
                raise CardFileError(
                    f"{source}: part {part.name!r} field 'engines': rank {rank} is already used "
                    f"by part {owner[rank]!r}; engine ranks must be unique across the deck"
                )
            owner[rank] = part.name


def check_climactic_above_regular(missions: Sequence[MissionCard], source: str) -> None:
    regular = [m for m in missions if not m.climactic]
    climactic = [m for m in missions if m.climactic]
    if not regular or not climactic:
        return
    top = max(regular, key=lambda m: m.value)
    low = min(climactic, key=lambda m: m.value)
    if low.value <= top.value:
        raise CardFileError(
            f"{source}: mission {low.name!r} field 'value': a climactic mission must be worth "
            f"more than every regular mission, got {low.value} but regular mission "
            f"{top.name!r} is worth {top.value}"
        )


def check_playable(parts: Sequence[PartCard], missions: Sequence[MissionCard], source: str) -> None:
    """Enough cards to set up a game of any size (R-SETUP-3, R-SETUP-4)."""
    climactic = sum(m.climactic for m in missions)
    regular = len(missions) - climactic
    if len(parts) < MIN_PARTS:
        raise CardFileError(
            f"{source}: field 'parts': needs at least {MIN_PARTS} parts (12 station spaces with "
            f"5 players plus one refill), got {len(parts)}"
        )
    if climactic < MIN_CLIMACTIC:
        raise CardFileError(
            f"{source}: field 'missions': needs at least {MIN_CLIMACTIC} climactic missions "
            f"(one per stack), got {climactic}"
        )
    if regular < MIN_REGULAR:
        raise CardFileError(
            f"{source}: field 'missions': needs at least {MIN_REGULAR} regular missions "
            f"(3 per stack with 4-5 players), got {regular}"
        )


def standard_constraints_report(cs: CardSet) -> list[str]:
    """Every R-CARDS-1..3 constraint of the standard set that `cs` violates; empty when it meets
    them all. User card files need not meet these (only the loader's checks)."""
    return [*_report_parts(cs), *_report_missions(cs), *_report_rulebook_names(cs)]


# =============================================================================================
# Standard-set constraints (R-COMP-3, R-CARDS-1..3)
# =============================================================================================


def _duplicates(names: Sequence[str]) -> list[str]:
    return sorted(name for name, n in Counter(names).items() if n > 1)


def _report_parts(cs: CardSet) -> list[str]:
    """R-CARDS-1: count, names, connectors, costs, bio-tech, engine icons and ranks."""
    out: list[str] = []
    parts = cs.parts
    if len(parts) != STANDARD_PARTS:
        out.append(f"R-CARDS-1: {STANDARD_PARTS} parts expected, got {len(parts)}")
    if dup := _duplicates([p.name for p in parts]):
        out.append(f"R-CARDS-1: part names must be unique; repeated: {', '.join(dup)}")
    combos = {p.connectors for p in parts if p.connectors}
    if len(combos) != 15:
        out.append(f"R-CARDS-1: all 15 connector combinations must appear, got {len(combos)}")
    for p in parts:
        if not p.connectors:
            out.append(f"R-CARDS-1: part {p.name!r} has no connectors")
        if not 0 <= p.crew_cost <= MAX_CREW_COST:
            out.append(f"R-CARDS-1: part {p.name!r} crew cost {p.crew_cost} is not 0..3")
        if not 0 <= p.biotech <= MAX_PART_BIOTECH:
            out.append(f"R-CARDS-1: part {p.name!r} bio-tech {p.biotech} is not 0..2")
    ranks = sorted(r for p in parts for r in p.engines)
    low, high = STANDARD_ENGINE_ICONS
    if not low <= len(ranks) <= high:
        out.append(f"R-CARDS-1: {low}-{high} engine icons expected, got {len(ranks)}")
    if ranks != list(range(1, len(ranks) + 1)):
        out.append(f"R-CARDS-1: engine ranks must be exactly 1..{len(ranks)}, each once")
    return out


def _report_missions(cs: CardSet) -> list[str]:
    """R-CARDS-2: count, names, climactic share and values, requirement ranges."""
    out: list[str] = []
    missions = cs.missions
    if len(missions) != STANDARD_MISSIONS:
        out.append(f"R-CARDS-2: {STANDARD_MISSIONS} missions expected, got {len(missions)}")
    if dup := _duplicates([m.name for m in missions]):
        out.append(f"R-CARDS-2: mission names must be unique; repeated: {', '.join(dup)}")
    climactic, regular = cs.climactic_missions, cs.regular_missions
    low, high = STANDARD_CLIMACTIC
    if not low <= len(climactic) <= high:
        out.append(f"R-CARDS-2: {low}-{high} climactic missions expected, got {len(climactic)}")
    if climactic and regular and min(m.value for m in climactic) <= max(m.value for m in regular):
        out.append("R-CARDS-2: every climactic value must be higher than every regular value")
    for m in missions:
        out.extend(_report_mission_ranges(m))
    return out


def _report_mission_ranges(m: MissionCard) -> list[str]:
    out: list[str] = []
    if m.value < 1:
        out.append(f"R-CARDS-2: mission {m.name!r} value {m.value} is not positive")
    if len(m.engines) > MAX_MISSION_ENGINES or any(
        not MIN_MISSION_DIE <= d <= MAX_MISSION_DIE for d in m.engines
    ):
        out.append(f"R-CARDS-2: mission {m.name!r} engines {list(m.engines)} are not 0-3 dice 2..6")
    if not 0 <= m.biotech <= MAX_MISSION_BIOTECH:
        out.append(f"R-CARDS-2: mission {m.name!r} bio-tech {m.biotech} is not 0..5")
    if not 0 <= m.science <= MAX_MISSION_SCIENCE:
        out.append(f"R-CARDS-2: mission {m.name!r} science {m.science} is not 0..6")
    if not has_requirement(m):
        out.append(f"R-CARDS-2: mission {m.name!r} has no requirement")
    return out


def _report_rulebook_names(cs: CardSet) -> list[str]:
    """R-CARDS-3: the cards the rulebook names exist with the facts it gives."""
    out: list[str] = []
    if not any(p.name == "Proton Analyzer" for p in cs.parts):
        out.append("R-CARDS-3: part 'Proton Analyzer' is missing")
    missions = {m.name: m for m in cs.missions}
    training = missions.get("Colonist Training")
    expected = MissionCard("Colonist Training", value=5, biotech=1, science=1)
    if training != expected:
        out.append(
            "R-CARDS-3: mission 'Colonist Training' must be regular, worth 5, with 1 bio-tech, "
            f"1 science and no engines; got {training}"
        )
    pair = [missions.get("Cleomedes Moon Colony"), missions.get("Mars Elevator")]
    if any(m is None or m.climactic for m in pair):
        out.append("R-CARDS-3: regular missions 'Cleomedes Moon Colony' and 'Mars Elevator' needed")
    elif pair[0] is not None and pair[1] is not None and pair[0].value != pair[1].value:
        out.append("R-CARDS-3: 'Cleomedes Moon Colony' and 'Mars Elevator' must be worth the same")
    return out
