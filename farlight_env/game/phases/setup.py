"""R-SETUP: a new game's awards, mission stacks, deck, station and dice."""

from __future__ import annotations

from typing import TYPE_CHECKING

from farlight_env.cards.model import AWARDS
from farlight_env.game.changes import renew_ship_stamps, renew_stamps, set_station_dice
from farlight_env.game.facts import NUM_FACE_UP_AWARDS, NUM_STACKS, REGULAR_PER_STACK
from farlight_env.game.phases.bidding import start_bidding
from farlight_env.game.phases.missions import mission_order
from farlight_env.game.state import set_initial

if TYPE_CHECKING:
    from farlight_env.game.game import FarlightGame


def setup(g: FarlightGame) -> None:
    """Deal a new game (R-SETUP-1..6) from the game's RNG and start the first round's bidding.

    Fields with a declared initial value (state.FIELDS: crew, hands, ships, ...) get it first;
    the rules below set the rest, drawing chance in the rulebook's order."""
    n = g.num_players
    rng = g.rng
    cards = g.cards
    set_initial(g, n)
    renew_ship_stamps(g)
    renew_stamps(g)
    # R-SETUP-2: awards
    order = rng.permutation(len(AWARDS))
    g.awards_up = [AWARDS[i] for i in order[:NUM_FACE_UP_AWARDS]]
    g.awards_down = [AWARDS[i] for i in order[NUM_FACE_UP_AWARDS:]]
    # R-SETUP-3: mission stacks
    climactic = [i for i, m in enumerate(cards.missions) if m.climactic]
    regular = [i for i, m in enumerate(cards.missions) if not m.climactic]
    chosen_climactic = [climactic[i] for i in rng.choice(len(climactic), NUM_STACKS, replace=False)]
    shuffled_regular = [regular[i] for i in rng.permutation(len(regular))]
    per_stack = REGULAR_PER_STACK[n]
    g.stacks = []
    for s in range(NUM_STACKS):
        stack = shuffled_regular[s * per_stack : (s + 1) * per_stack] + [chosen_climactic[s]]
        stack.sort(key=lambda m: mission_order(cards.missions[m]))
        g.stacks.append(stack)
    used = {m for stack in g.stacks for m in stack}
    g.missions_out = [m for m in range(len(cards.missions)) if m not in used]
    # R-SETUP-4: part deck (top of deck = end of list) and spaces
    g.deck = [int(i) for i in rng.permutation(len(cards.parts))]
    g.spaces = [g.deck.pop() for _ in range(g.num_spaces)]
    g.bonus = [0] * g.num_spaces
    # R-SETUP-6
    g.first_player = int(rng.integers(n)) if g.config.random_first_player else 0
    # R-SETUP-5
    roll_station_dice(g)
    g.bids = [[] for _ in g.targets]
    start_bidding(g)
    g._advance()


def roll_station_dice(g: FarlightGame) -> None:
    """Roll one die per engine icon on the station; highest die to highest rank (R-SETUP-5)."""
    ranks = sorted(
        (rank for part in g.spaces if part is not None for rank in g.cards.parts[part].engines),
        reverse=True,
    )
    if not ranks:
        return
    dice = sorted(g.rng.integers(1, 7, size=len(ranks)).tolist(), reverse=True)
    set_station_dice(g, dict(zip(ranks, dice, strict=True)))
