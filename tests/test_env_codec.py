"""The action codec: one Discrete(N) index space <-> engine actions, and its masks.

Proves over many random states of 2–5 player games, in every kind of decision (bidding, refit,
engineer, install: select / place-or-discard, upgrade, overhaul, mission), that the mask marks
exactly the legal actions in both directions, that encode and decode are inverse on legal
actions, and that the block layout is gapless and the same for every player count.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from farlight_env.cards.model import FACILITIES
from farlight_env.encode import ActionCodec
from farlight_env.encode.codec import MAX_SPACES, NUM_TARGETS
from farlight_env.env.aec import raw_env
from farlight_env.game import (
    Bid,
    ChooseEngine,
    Discard,
    FarlightGame,
    Install,
    Phase,
    RefitRemove,
    SelectPart,
    Target,
    TargetKind,
)
from farlight_env.game.facts import NUM_STACKS, TILES

PLAYER_COUNTS = (2, 3, 4, 5)
#: Every kind of decision the codec must serve; INSTALL splits into its two sub-decisions.
DECISION_KINDS = (
    "bidding",
    "refit",
    "engineer",
    "install_select",
    "install_place",
    "upgrade",
    "overhaul",
    "mission",
)
BLOCK_NAMES = (
    "bid",
    "select",
    "install",
    "discard",
    "refit",
    "refit_stop",
    "engine",
    "skip",
    "complete",
    "pass",
)
#: States of each kind fully checked per player count before sampling sparsely.
CHECKS_PER_KIND = 20
MAX_GAMES = 150
#: Random games played per player count at least, even once every kind was seen.
MIN_GAMES = 10


def decision_kind(game: FarlightGame) -> str:
    if game.phase is Phase.INSTALL:
        return "install_select" if game.selected_part() is None else "install_place"
    return game.phase.value


def random_states(num_players: int, seed: int, **config: object) -> Iterator[FarlightGame]:
    """The live game at every decision of one seeded random legal game (do not keep them)."""
    game = FarlightGame(num_players, seed=seed, **config)
    rng = np.random.default_rng(seed)
    while not game.is_over:
        yield game
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])


def check_mask_matches_legal(codec: ActionCodec, game: FarlightGame) -> None:
    """mask[i] == 1 <=> decode(i) is legal, for every index; encode/decode inverse on legal."""
    mask = codec.mask(game)
    legal = game.legal_actions()
    legal_set = set(legal)
    context = f"{game} ({decision_kind(game)})"
    assert mask.dtype == np.int8 and mask.shape == (codec.size,), context
    assert set(np.unique(mask).tolist()) <= {0, 1}, context
    assert len(legal_set) == len(legal), f"duplicate legal actions in {context}"
    assert int(mask.sum()) == len(legal), context
    # every legal action encodes to a set bit and decodes back to itself
    for action in legal:
        index = codec.encode(action)
        assert 0 <= index < codec.size, (action, context)
        assert mask[index] == 1, f"legal {action} -> index {index} not set in {context}"
        assert codec.decode(index, game) == action, (action, index, context)
    # every index: set bit <=> its decoding is legal (both by set membership and is_legal)
    for index in range(codec.size):
        action = codec.decode(index, game)
        assert (action in legal_set) == bool(mask[index]), (index, action, context)
        if mask[index]:
            assert game.is_legal(action), (index, action, context)
            assert codec.encode(action) == index, (index, action, context)
    # the `out=` path overwrites whatever the buffer held
    out = np.ones(codec.size, dtype=np.int8)
    assert codec.mask(game, out) is out
    np.testing.assert_array_equal(out, mask)


# --------------------------------------------------------------------------- masks <=> legal
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_mask_equals_legal_actions_in_every_decision_kind(num_players: int) -> None:
    """Random games until every decision kind was checked at least once (most many times)."""
    game0 = FarlightGame(num_players, seed=0)
    codec = ActionCodec(game0.cards, game0.config.grid_size)
    checked: Counter[str] = Counter()
    sampler = np.random.default_rng(1000 + num_players)
    games = 0
    saw_install_cell = saw_refit_remove = False
    for seed in range(MAX_GAMES):
        games += 1
        for game in random_states(num_players, seed):
            kind = decision_kind(game)
            if checked[kind] >= CHECKS_PER_KIND and sampler.random() > 0.02:
                continue
            check_mask_matches_legal(codec, game)
            checked[kind] += 1
            legal = game.legal_actions()
            saw_install_cell |= any(isinstance(a, Install) for a in legal)
            saw_refit_remove |= any(isinstance(a, RefitRemove) for a in legal)
        if games >= MIN_GAMES and all(checked[k] for k in DECISION_KINDS):
            break
    missing = [k for k in DECISION_KINDS if not checked[k]]
    assert not missing, f"{num_players} players: no {missing} state in {games} random games"
    assert saw_install_cell and saw_refit_remove


@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(
    num_players=st.sampled_from(PLAYER_COUNTS),
    seed=st.integers(0, 2**32 - 1),
    grid_size=st.sampled_from((5, 7, 13)),
    stride=st.integers(3, 11),
)
def test_mask_equals_legal_actions_hypothesis(
    num_players: int, seed: int, grid_size: int, stride: int
) -> None:
    """Any seed, player count and grid size (small grids fill up and hit the edge)."""
    game0 = FarlightGame(num_players, seed=seed, grid_size=grid_size)
    codec = ActionCodec(game0.cards, grid_size)
    for step, game in enumerate(random_states(num_players, seed, grid_size=grid_size)):
        if game.phase is not Phase.BIDDING or step % stride == 0:
            check_mask_matches_legal(codec, game)


def test_mask_is_all_zero_when_the_game_is_over() -> None:
    game = FarlightGame(3, seed=5)
    while not game.is_over:
        game.apply(game.legal_actions()[0])
    codec = ActionCodec(game.cards, game.config.grid_size)
    assert game.legal_actions() == []
    assert not codec.mask(game).any()


def test_decoding_numpy_integer_indices_gives_legal_actions() -> None:
    """Indices often come from numpy (np.flatnonzero(mask), argmax): np.int64 must work too."""
    for num_players in PLAYER_COUNTS:
        game = FarlightGame(num_players, seed=num_players)
        codec = ActionCodec(game.cards, game.config.grid_size)
        for index in np.flatnonzero(codec.mask(game))[:25]:
            action = codec.decode(index, game)
            assert action == codec.decode(int(index), game)
            assert game.is_legal(action), (
                f"decode(np.int64({index})) = {action!r} is not legal although its mask bit "
                f"is set (Bid.tile is {type(getattr(action, 'tile', None)).__name__})"
            )


# ------------------------------------------------------------------------- round trips
def test_bid_indices_round_trip_for_every_tile_target_and_crew() -> None:
    """The bid block is tile x fixed target position x crew, independent of the player count."""
    game = FarlightGame(5, seed=3)
    codec = ActionCodec(game.cards, 13)
    seen = set()
    targets = (
        [Target(TargetKind.PART, i) for i in range(MAX_SPACES)]
        + [Target(TargetKind.FACILITY, i) for i in range(len(FACILITIES))]
        + [Target(TargetKind.MISSION, i) for i in range(NUM_STACKS)]
    )
    assert len(targets) == NUM_TARGETS == 19
    for tile in TILES:
        for target in targets:
            for crew in (False, True):
                bid = Bid(tile, target, crew)
                index = codec.encode(bid)
                assert index in codec.blocks["bid"]
                assert codec.decode(index, game) == bid
                seen.add(index)
    assert seen == set(range(codec.blocks["bid"].start, codec.blocks["bid"].stop))


def test_every_non_bid_index_round_trips_through_decode_and_encode() -> None:
    """encode(decode(i)) == i for every index, in a state that names a selected part."""
    for game in random_states(2, 11):
        if game.phase is Phase.INSTALL and game.selected_part() is not None:
            break
    else:  # pragma: no cover - seed 11 reaches an install decision
        pytest.fail("no install decision in the game")
    codec = ActionCodec(game.cards, game.config.grid_size)
    for index in range(codec.size):
        assert codec.encode(codec.decode(index, game)) == index


# ------------------------------------------------------------------------------ layout
@pytest.mark.parametrize("grid_size", (3, 7, 13, 21))
def test_blocks_cover_the_whole_range_without_gaps(grid_size: int) -> None:
    game = FarlightGame(2, seed=0)
    codec = ActionCodec(game.cards, grid_size)
    blocks = sorted(codec.blocks.values(), key=lambda b: b.start)
    assert tuple(b.name for b in blocks) == BLOCK_NAMES
    assert blocks[0].start == 0
    for before, after in zip(blocks, blocks[1:], strict=False):
        assert before.size >= 1
        assert after.start == before.stop, f"gap or overlap between {before} and {after}"
    assert blocks[-1].stop == codec.size
    covered = np.zeros(codec.size, dtype=int)
    for block in blocks:
        covered[block.start : block.stop] += 1
    assert (covered == 1).all()
    num_parts = len(game.cards.parts)
    num_engines = sum(len(p.engines) for p in game.cards.parts)
    sizes = {b.name: b.size for b in blocks}
    assert sizes == {
        "bid": len(TILES) * NUM_TARGETS * 2,
        "select": num_parts,
        "install": grid_size * grid_size,
        "discard": 1,
        "refit": num_parts,
        "refit_stop": 1,
        "engine": num_engines,
        "skip": 1,
        "complete": 1,
        "pass": 1,
    }
    assert codec.size == sum(sizes.values())


def test_size_is_below_2000_and_the_same_for_every_player_count() -> None:
    sizes = set()
    for num_players in PLAYER_COUNTS:
        env = raw_env(num_players=num_players)
        assert env.codec.size < 2000
        assert env.action_space("player_0").n == env.codec.size
        sizes.add(env.codec.size)
    assert len(sizes) == 1
    # standard card set, 13x13 grid: 190 + 57 + 169 + 1 + 57 + 1 + 18 + 1 + 1 + 1
    assert sizes == {496}


# ------------------------------------------------------------------------------ errors
@pytest.mark.parametrize("cell", [(7, 0), (0, -7), (-7, -7), (100, 0)])
def test_encode_of_out_of_grid_install_raises(cell: tuple[int, int]) -> None:
    game = FarlightGame(2, seed=0)
    codec = ActionCodec(game.cards, 13)
    name = game.cards.parts[0].name
    assert codec.encode(Install(name, 6, -6)) in codec.blocks["install"]  # the corner is fine
    with pytest.raises(ValueError, match=rf"\({cell[0]},{cell[1]}\).*outside the grid"):
        codec.encode(Install(name, *cell))


def test_encode_of_out_of_grid_install_on_a_small_grid_raises() -> None:
    game = FarlightGame(2, seed=0, grid_size=5)
    codec = ActionCodec(game.cards, 5)
    name = game.cards.parts[0].name
    assert codec.encode(Install(name, 2, 2)) == codec.blocks["install"].stop - 1
    with pytest.raises(ValueError, match="outside the grid"):
        codec.encode(Install(name, 3, 0))


@pytest.mark.parametrize("where", ["below", "at_size", "far"])
def test_decode_out_of_range_raises(where: str) -> None:
    game = FarlightGame(2, seed=0)
    codec = ActionCodec(game.cards, 13)
    index = {"below": -1, "at_size": codec.size, "far": 10**6}[where]
    with pytest.raises(
        ValueError, match=rf"action index {index} out of range 0\.\.{codec.size - 1}"
    ):
        codec.decode(index, game)


def test_encode_of_a_non_action_raises_value_error() -> None:
    game = FarlightGame(2, seed=0)
    codec = ActionCodec(game.cards, 13)
    with pytest.raises(ValueError, match="not a Farlight action"):
        codec.encode("bid 3 on Hire")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "action",
    [SelectPart("No Such Part"), RefitRemove("No Such Part"), ChooseEngine(999)],
    ids=["select", "refit", "engine"],
)
def test_encode_of_an_unknown_card_or_rank_raises_value_error(action: object) -> None:
    """The docstring promises ValueError for actions outside the layout, not a bare KeyError."""
    game = FarlightGame(2, seed=0)
    codec = ActionCodec(game.cards, 13)
    with pytest.raises(ValueError):
        codec.encode(action)  # type: ignore[arg-type]


def test_discard_and_install_decode_the_selected_part() -> None:
    for game in random_states(3, 2):
        if game.phase is Phase.INSTALL and game.selected_part() is not None:
            break
    else:  # pragma: no cover
        pytest.fail("no install decision in the game")
    codec = ActionCodec(game.cards, game.config.grid_size)
    name = game.cards.parts[game.selected_part()].name
    assert codec.decode(codec.blocks["discard"].start, game) == Discard(name)
    centre = codec.blocks["install"].start + codec.half * codec.grid_size + codec.half
    assert codec.decode(centre, game) == Install(name, 0, 0)


@pytest.mark.parametrize("index", [True, 1.5, "3", None], ids=["bool", "float", "str", "none"])
def test_decode_of_a_non_integer_index_raises(index: object) -> None:
    game = FarlightGame(2, seed=0)
    codec = ActionCodec(game.cards, 13)
    with pytest.raises(ValueError, match="integer"):
        codec.decode(index, game)  # type: ignore[arg-type]
