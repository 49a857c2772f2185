"""Legal actions: what the acting seat may do now, cached per decision, and the cheap checks
`apply` makes (R-BID-2/3, R-INST-3..5, R-RES-5, R-BEN-3, R-MIS-4/5)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from farlight_env.cards.model import FACILITIES
from farlight_env.game.actions import (
    Action,
    Bid,
    ChooseEngine,
    CompleteMission,
    Discard,
    Install,
    PassMission,
    RefitRemove,
    RefitStop,
    SelectPart,
    SkipEngine,
    Target,
)
from farlight_env.game.changes import renew_stamps
from farlight_env.game.config import Phase
from farlight_env.game.facts import MAX_ENGINE, TEMP_BIOTECH_COST
from farlight_env.game.queries import biotech, engines, legal_cells
from farlight_env.game.tables import BID_BLOCKS_KEPT, CREW_CHOICES

if TYPE_CHECKING:
    from farlight_env.game.game import FarlightGame


@functools.lru_cache(maxsize=8192)
def _action(kind: type[Action], *args: Any) -> Action:
    """One shared instance per action value: actions are immutable, and making one validates
    its fields, which legal-action lists would otherwise repeat at every decision."""
    return kind(*args)


def legal_actions(g: FarlightGame) -> list[Action]:
    """Every action the current player may take now; empty when the game is over."""
    if g.legal_cache is None and g.phase is Phase.BIDDING:  # fresh from cached blocks
        return legal_bids(g, g.current)
    if g.legal_cache is None:
        g.legal_cache = compute_legal(g)
    return list(g.legal_cache)


def compute_legal(g: FarlightGame) -> list[Action]:
    phase = g.phase
    p = g.current
    if phase is Phase.OVER or p is None:
        return []
    if phase is Phase.INSTALL:  # the commonest decisions first
        return legal_installs(g, p)
    if phase is Phase.MISSION:
        name = g.cards.missions[g.mission].name
        if can_complete(g, p, g.mission):
            return [_action(CompleteMission, name), _action(PassMission, name)]
        return [_action(PassMission, name)]
    if phase is Phase.BIDDING:
        return legal_bids(g, p)
    if phase is Phase.REFIT:
        parts = g.cards.parts
        removals: list[Action] = [
            _action(RefitRemove, parts[i].name) for i in sorted(g.ship_parts[p])
        ]
        return [*removals, _action(RefitStop)]
    if phase is Phase.ENGINEER:
        return engine_choices(g, p)
    if phase in (Phase.UPGRADE, Phase.OVERHAUL):
        return [*engine_choices(g, p), _action(SkipEngine)]
    raise AssertionError(f"unknown phase {phase}")


def engine_choices(g: FarlightGame, p: int) -> list[Action]:
    """R-BEN-3, R-RES-5: any engine of the seat's ship below the top value."""
    return [
        _action(ChooseEngine, rank) for rank, value in sorted(engines(g, p)) if value < MAX_ENGINE
    ]


def legal_bids(g: FarlightGame, p: int) -> list[Action]:
    """R-BID-2/3: a tile in hand on a filled part space, a facility or an available mission."""
    crew_ok = g.crew[p] >= 1
    blocks = g.phase_bid_blocks
    legal: list[Action] = []
    for tile in g.hands[p]:
        block = blocks.get((tile, crew_ok))
        if block is None:
            block = blocks[(tile, crew_ok)] = bid_block(g, tile, crew_ok)
        legal += block
    return legal


def bid_block(g: FarlightGame, tile: int, crew_ok: bool) -> list[Action]:
    """One tile's bids on every open target; the targets stay fixed through a bidding phase.

    Blocks are shared by every game with these tables (rounds often open the same targets).
    """
    slots = g.open_slots
    if slots is None:
        found = [i for i, part in enumerate(g.spaces) if part is not None]
        found += range(g.num_spaces, g.num_spaces + len(FACILITIES))
        first = g.num_spaces + len(FACILITIES)
        found += [first + s for s, stack in enumerate(g.stacks) if stack]
        g.open_slots = slots = tuple(found)
    key = (slots, tile, crew_ok)
    block = g.bid_blocks.get(key)
    if block is None:
        if len(g.bid_blocks) >= BID_BLOCKS_KEPT:
            g.bid_blocks.clear()
        crews = CREW_CHOICES[crew_ok]
        table = g.bid_actions
        block = [table[(tile, slot, crew)] for slot in slots for crew in crews]
        g.bid_blocks[key] = block
    return block


def reset_bid_cache(g: FarlightGame) -> None:
    """Forget the open targets and bid blocks: a new bidding phase, or an edited state."""
    g.open_slots = None
    g.phase_bid_blocks = {}


def legal_installs(g: FarlightGame, p: int) -> list[Action]:
    parts = g.cards.parts
    if g.selected is None:
        return [_action(SelectPart, parts[i].name) for i in sorted(g.pending[p])]
    part = g.selected
    card = parts[part]
    installs: list[Action] = []
    if g.crew[p] >= card.crew_cost:  # R-INST-5
        cells = legal_cells(g, p, part)
        table = g.install_actions
        for cell in cells:
            action = table.get((part, *cell))
            if action is None:
                action = table[(part, *cell)] = Install(card.name, *cell)
            installs.append(action)
    return [*installs, _action(Discard, card.name)]


def can_complete(g: FarlightGame, p: int, mission_id: int) -> bool:
    """Whether seat `p` could complete mission `mission_id` now (R-MIS-4/5): engines matched
    one-to-one, bio-tech with bought temporaries, science paid."""
    mission = g.cards.missions[mission_id]
    if g.science[p] < mission.science:
        return False
    if mission.engines:
        have = sorted((v for _, v in engines(g, p)), reverse=True)
        need = sorted(mission.engines, reverse=True)
        if len(have) < len(need) or any(h < r for h, r in zip(have, need, strict=False)):
            return False
    return g.crew[p] >= TEMP_BIOTECH_COST * biotech_shortfall(g, p, mission.biotech)


def biotech_shortfall(g: FarlightGame, p: int, required: int) -> int:
    """Temporary bio-tech seat `p` would buy to have `required` bio-tech (R-MIS-5)."""
    return max(0, required - biotech(g, p) - g.temp_biotech[p])


def invalidate_cache(g: FarlightGame) -> None:
    """Forget cached legal actions and renew the change stamps; call after editing state
    directly (tests, search). Ship edits also need `renew_ship_stamps()`.

    Change stamps let observers skip what did not change (process-wide unique ints, as
    ship stamps): `seat_stamps[p]` is renewed whenever seat p's crew, science, points,
    hand, temporary bio-tech or pending parts change; `board_stamp` when the part spaces,
    their bonus crew or dice, the deck, the face-up awards or the mission stacks change;
    `bid_stamp` at the start of every bidding phase (a clone takes a new one too), and
    under one bid stamp bids change only as `bid_log` says, in order: `slot` for a bid
    placed on that target, `~slot` for a target whose bids were all taken back.
    """
    g.legal_cache = None
    g.legal_set_cache = None
    reset_bid_cache(g)
    renew_stamps(g)


def is_legal(g: FarlightGame, action: object) -> bool:
    """Whether `action` is legal now; cheap for bids, which dominate play."""
    if isinstance(action, Bid) and g.phase is Phase.BIDDING:
        return legal_bid_slot(g, action) is not None
    if g.legal_cache is None:
        g.legal_cache = compute_legal(g)
    return action in g.legal_cache


def legal_bid_slot(g: FarlightGame, bid: Bid) -> int | None:
    """The target slot of a legal bid in the bidding phase, None if the bid is illegal."""
    known = g.bid_slots.get(id(bid))
    if known is not None and known[0] is bid:  # one of ours: fields known to be sound
        slot = known[1]
    else:
        if type(bid.tile) is not int or type(bid.crew) is not bool:
            return None
        if not isinstance(bid.target, Target) or isinstance(bid.target.index, bool):
            return None
        slot = g.target_slot.get(bid.target)
        if slot is None:
            return None
    if bid.tile not in g.hands[g.current]:
        return None
    if bid.crew and g.crew[g.current] < 1:
        return None
    if slot < g.num_spaces:
        return slot if g.spaces[slot] is not None else None
    if slot >= g.num_spaces + len(FACILITIES):
        return slot if g.stacks[slot - g.num_spaces - len(FACILITIES)] else None
    return slot


def legal_actions_set(g: FarlightGame) -> frozenset[Action]:
    if g.legal_set_cache is None:
        if g.legal_cache is None:
            g.legal_cache = compute_legal(g)
        g.legal_set_cache = frozenset(g.legal_cache)
    return g.legal_set_cache


def illegal_message(g: FarlightGame, action: Any) -> str:
    legal = legal_actions(g)
    shown = ", ".join(str(a) for a in legal[:8]) + (" ..." if len(legal) > 8 else "")
    return (
        f"illegal action {action!r} for player {g.current} in phase "
        f"{g.phase.value} (round {g.round}); {len(legal)} legal actions, e.g. {shown}"
    )
