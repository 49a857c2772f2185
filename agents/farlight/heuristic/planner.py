"""The heuristic's read of a position for one seat: target missions, how far off each
is (`gap`), and what parts, facilities and engine bumps bring towards them (`Planner`); the
keys its plans and valuations are cached on (`planner_key`, `valuation_key`).
"""

from __future__ import annotations

import functools

from farlight_env.cards.model import IconKind, PartCard, Timing
from farlight_env.game import FarlightGame
from farlight_env.game.facts import MAX_ENGINE, TEMP_BIOTECH_COST

ICON_WORTH = {
    (IconKind.SCIENCE, Timing.EVERY_ROUND): 2.2,
    (IconKind.CREW, Timing.EVERY_ROUND): 1.6,
    (IconKind.SCIENCE, Timing.ONCE): 1.0,
    (IconKind.CREW, Timing.ONCE): 0.6,
    (IconKind.UPGRADE, Timing.EVERY_ROUND): 1.6,
    (IconKind.UPGRADE, Timing.ONCE): 0.7,
    (IconKind.OVERHAUL, Timing.EVERY_ROUND): 2.5,
    (IconKind.OVERHAUL, Timing.ONCE): 1.4,
}


def engine_deficit(have: list[int] | tuple[int, ...], need: tuple[int, ...]) -> float:
    """Pips (and missing engines) short of matching required dice one-to-one (R-MIS-4)."""
    return _deficit(tuple(have), need)


@functools.lru_cache(maxsize=65536)
def _deficit(have: tuple[int, ...], need: tuple[int, ...]) -> float:
    """`engine_deficit` on tuples: few distinct dice sets and missions, so it is cached."""
    ordered = sorted(have, reverse=True)
    deficit = 0.0
    for i, req in enumerate(_descending(need)):
        deficit += max(0, req - ordered[i]) if i < len(ordered) else req + 1.0
    return deficit


@functools.lru_cache(maxsize=1024)
def _descending(need: tuple[int, ...]) -> tuple[int, ...]:
    """A mission's required dice, largest first (few distinct tuples: cached)."""
    return tuple(sorted(need, reverse=True))


#: id of a part card -> (that card, its `_icon_terms`): a card's icons never change, and the
#: card kept here keeps its id from being reused. Bounded (a cleared entry is a recount).
_ICON_TERMS: dict[int, tuple[PartCard, tuple[float, bool]]] = {}
ICON_TERMS_KEPT = 4096


def _icon_terms(card: PartCard) -> tuple[float, bool]:
    """The worth of a part's icons (ICON_WORTH summed in icon order) and whether any of them
    upgrades or overhauls: fixed per card, so counted once."""
    found = _ICON_TERMS.get(id(card))
    if found is not None and found[0] is card:
        return found[1]
    terms = (
        sum(ICON_WORTH[(i.kind, i.timing)] for i in card.icons),
        any(i.kind in (IconKind.UPGRADE, IconKind.OVERHAUL) for i in card.icons),
    )
    if len(_ICON_TERMS) >= ICON_TERMS_KEPT:
        _ICON_TERMS.clear()
    _ICON_TERMS[id(card)] = (card, terms)
    return terms


def planner_key(game: FarlightGame, seat: int) -> tuple:
    """Every fact a `Planner` for `seat` derives its targets from: equal keys, equal plans.

    The ship stamp stands for the ship's layout and engine dice (installability, bio-tech,
    engines); the seat's tokens and the missions on offer are listed.
    """
    return (*_seat_facts(game, seat), tuple(game.available_missions()))


def valuation_key(game: FarlightGame, seat: int) -> tuple:
    """Every public fact `target_values` reads for `seat`: the planner's plus the station."""
    return (*_seat_facts(game, seat), board_facts(game))


def _seat_facts(game: FarlightGame, seat: int) -> tuple:
    """The seat's part of `planner_key`: its ship stamp and tokens. Crew counts only in whole
    temporary bio-tech purchases (`gap`, `can_complete`, and "crew < 3" for Hire read nothing
    finer), so a crew bid that leaves that number alone keeps the plan and the valuations."""
    return (
        seat,
        game.ship_stamps[seat],
        game.crew[seat] // TEMP_BIOTECH_COST,
        game.science[seat],
        game.temp_biotech[seat],
    )


def board_facts(game: FarlightGame) -> tuple:
    """The board facts valuations read: missions on offer, part spaces, bonus crew, station."""
    parts = game.cards.parts
    dice = game.engine_values
    station = tuple(
        dice.get(r, 1) for part in game.spaces if part is not None for r in parts[part].engines
    )
    return tuple(game.available_missions()), tuple(game.spaces), tuple(game.bonus), station


class Planner:
    """One seat's read of a (redacted) game: target missions and what things are worth."""

    def __init__(self, game: FarlightGame, seat: int) -> None:
        #: The game planned on; None once a cached plan has let go of it (HeuristicAgent).
        self.game: FarlightGame = game
        self.seat = seat
        self.engine_values = [v for _, v in game.engines(seat)]
        self.biotech = game.biotech(seat) + game.temp_biotech[seat]
        self._science = game.science[seat]
        self._bought = game.crew[seat] // TEMP_BIOTECH_COST  # bio-tech the crew could buy
        self._gaps: dict[int, float] = {}  # each target's gap as things stand
        self.targets = self._target_missions()
        missions = game.cards.missions
        #: Per target, what `progress` reads: (value, 1 / (1 + gap now), dice, bio-tech, science)
        self._target_facts = [
            (m.value, 1.0 / (1.0 + self._gaps[mission_id]), m.engines, m.biotech, m.science)
            for mission_id, _weight in self.targets
            for m in (missions[mission_id],)
        ]
        self._part_values: dict[tuple[int, tuple[int, ...]], float] = {}

    def gap(
        self,
        mission_id: int,
        engines: list[int] | None = None,
        biotech: int = 0,
        science: int = 0,
        crew: int = 0,
    ) -> float:
        """Rough cost to complete a mission, in 'things still to get'."""
        m = self.game.cards.missions[mission_id]
        have = tuple(self.engine_values if engines is None else engines)
        return self._gap(have, m.engines, m.biotech - biotech, m.science - science, crew)

    def _gap(
        self, have: tuple[int, ...], need: tuple[int, ...], bio: int, sci: int, crew: int
    ) -> float:
        """`gap` of a mission needing `need` dice, `bio` bio-tech and `sci` science (less what a
        change brings) with dice `have`: each float operation as the rule of thumb reads."""
        eng = _deficit(have, need)
        bio_short = max(0, bio - self.biotech)
        bought = self._bought
        if crew:
            bought = (self.game.crew[self.seat] + crew) // TEMP_BIOTECH_COST
        bio_cost = max(0.0, bio_short - bought) * 1.5 + min(bio_short, bought) * 0.5
        sci_short = max(0, sci - self._science)
        return eng * 0.8 + bio_cost + sci_short * 1.0

    def _target_missions(self) -> list[tuple[int, float]]:
        """Available missions with a weight: value discounted by how far off they are."""
        out = []
        for mission_id in self.game.available_missions():
            if mission_id is None:
                continue
            value = self.game.cards.missions[mission_id].value
            gap = self._gaps[mission_id] = self.gap(mission_id)
            out.append((mission_id, value / (1.0 + gap)))
        out.sort(key=lambda t: -t[1])
        return out

    def progress(
        self,
        engines: list[int] | None = None,
        biotech: int = 0,
        science: int = 0,
        crew: int = 0,
    ) -> float:
        """Value of a change in resources towards the target missions.

        `_gap` per target, written out (this loop is the valuations' hottest): the same
        integer steps and float operations in the same order, so the same floats."""
        have = tuple(self.engine_values if engines is None else engines)
        own_bio, own_sci = self.biotech + biotech, self._science + science
        bought = self._bought
        if crew:
            bought = (self.game.crew[self.seat] + crew) // TEMP_BIOTECH_COST
        total = 0.0
        for value, inverse_before, need, bio, sci in self._target_facts:
            bio_short = bio - own_bio
            if bio_short < 0:
                bio_short = 0
            extra = bio_short - bought  # max(0.0, extra) and min(bio_short, bought), as _gap
            bio_cost = (extra if extra > 0.0 else 0.0) * 1.5 + (
                bio_short if bio_short <= bought else bought
            ) * 0.5
            sci_short = sci - own_sci
            if sci_short < 0:
                sci_short = 0
            after = _deficit(have, need) * 0.8 + bio_cost + sci_short * 1.0
            total += value * (1.0 / (1.0 + after) - inverse_before)
        return total

    def part_value(self, part_id: int) -> float:
        """What a part brings this seat; memoised on the part and the dice on its engines."""
        dice = tuple(
            self.game.engine_values.get(r, 1) for r in self.game.cards.parts[part_id].engines
        )
        key = (part_id, dice)
        value = self._part_values.get(key)
        if value is None:
            value = self._part_values[key] = self._part_value(part_id, list(dice))
        return value

    def _part_value(self, part_id: int, dice: list[int]) -> float:
        game = self.game
        card = game.cards.parts[part_id]
        if not self.installable(part_id):
            return 0.0
        value, boosts = _icon_terms(card)
        if boosts and not self.engine_values and not card.engines:
            value *= 0.3
        value += sum(0.4 + 0.25 * d for d in dice) + 1.2 * card.biotech
        value += self.progress(engines=self.engine_values + dice, biotech=card.biotech)
        return max(0.0, value - 0.6 * card.crew_cost)

    def installable(self, part_id: int) -> bool:
        return self.game.can_install(self.seat, part_id)

    def engineer_value(self) -> float:
        if not any(v < MAX_ENGINE for v in self.engine_values):
            return 0.0
        return 0.5 + max(self.progress(engines=e) for e in self.bumped_engines())

    def bumped_engines(self) -> list[list[int]]:
        """Every way to add 1 to one engine below 6."""
        out = []
        for i, v in enumerate(self.engine_values):
            if v < MAX_ENGINE:
                bumped = list(self.engine_values)
                bumped[i] = v + 1
                out.append(bumped)
        return out or [list(self.engine_values)]

    def can_complete(self, mission_id: int) -> bool:
        return self.gap(mission_id) == 0 or self.game.can_complete(self.seat, mission_id)


def mission_targets(game: FarlightGame, seat: int) -> list[int]:
    """The mission ids the heuristic is aiming at, best first (for inspection and tests)."""
    return [m for m, _ in Planner(game, seat).targets]
