"""Hidden information stays hidden in observations (R-BID-5, R-SETUP-2, DESIGN: observation).

A seat's observation must not change when only facts it may not know change: an opponent's
face-down tile values, the part deck's order, the face-down awards' order, the game's RNG. The
converse checks (own tiles, an opponent's crew, a face-up award) show the comparison can fail.
Also the documented layout: named fields tile the whole vector; absent seats are zero.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from farlight_env import farlight_v0
from farlight_env.encode import ObservationEncoder
from farlight_env.encode.codec import MAX_SPACES, NUM_TARGETS
from farlight_env.encode.layout import PLAYER_FEATURES
from farlight_env.game import MAX_PLAYERS, FarlightGame, Phase

PLAYER_COUNTS = (2, 3, 4, 5)
SEEDS = (0, 1, 2)
#: Every field the observation documents (encode/observation.py); users build networks on them.
DOCUMENTED_FIELDS = (
    "decision",
    "bidding_pass",
    "tiles_left_this_turn",
    "round",
    "num_players",
    "first_player",
    "players",
    "own_hand",
    "station",
    "missions",
    "mission_resolving",
    "bids",
    "ships",
    "pending",
    "engines",
    "awards",
    "deck",
)
#: Fields with one row per relative seat (index 0 = the observer).
PER_SEAT_FIELDS = ("first_player", "players", "ships", "pending", "engines")


def random_states(num_players: int, seed: int, every: int = 1) -> Iterator[FarlightGame]:
    """The live game at every `every`-th decision of one seeded random legal game."""
    game = FarlightGame(num_players, seed=seed)
    rng = np.random.default_rng(seed)
    step = 0
    while not game.is_over:
        if step % every == 0:
            yield game
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
        step += 1


def encoder_for(game: FarlightGame) -> ObservationEncoder:
    return ObservationEncoder(game.cards, game.config.grid_size)


def observations(encoder: ObservationEncoder, game: FarlightGame) -> list[bytes]:
    return [encoder.encode(game, seat).tobytes() for seat in range(game.num_players)]


def tile_spots(game: FarlightGame, seat: int) -> list[tuple[int, int]]:
    """(slot, position) of every tile `seat` has on the board."""
    return [
        (slot, i)
        for slot, placed in enumerate(game.bids)
        for i, (p, _tile, _crew) in enumerate(placed)
        if p == seat
    ]


def tiles_of(game: FarlightGame, seat: int) -> list[int]:
    board = [game.bids[slot][i][1] for slot, i in tile_spots(game, seat)]
    return sorted(board + game.hands[seat])


def swap_board_and_hand_tile(
    game: FarlightGame, seat: int, rng: np.random.Generator
) -> FarlightGame | None:
    """A clone where one of `seat`'s board tiles traded values with a tile in its hand (same
    targets, same crew, same counts); None if the seat has no tile on the board or in hand."""
    spots = tile_spots(game, seat)
    if not spots or not game.hands[seat]:
        return None
    other = game.clone()
    slot, i = spots[rng.integers(len(spots))]
    j = int(rng.integers(len(other.hands[seat])))
    p, board_value, crew = other.bids[slot][i]
    hand_value = other.hands[seat][j]
    other.bids[slot][i] = (p, hand_value, crew)
    other.hands[seat][j] = board_value
    other.hands[seat].sort()
    other.invalidate_cache()
    assert board_value != hand_value
    assert tiles_of(other, seat) == tiles_of(game, seat) == [0, 1, 2, 3, 4]
    assert len(other.hands[seat]) == len(game.hands[seat])
    return other


# --------------------------------------------------------------- (a) face-down tile values
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_r_bid_5_opponent_tile_values_are_invisible(num_players: int) -> None:
    """At bidding states, swapping an opponent's tile value between its hand and a bid leaves
    every other seat's observation byte-identical, while the owner's own one changes."""
    swaps = 0
    for seed in SEEDS:
        game0 = FarlightGame(num_players, seed=seed)
        encoder = encoder_for(game0)
        rng = np.random.default_rng(seed + 100)
        for game in random_states(num_players, seed, every=2):
            if game.phase is not Phase.BIDDING:
                continue  # values are face down until the bids resolve
            before = observations(encoder, game)
            for owner in range(num_players):
                other = swap_board_and_hand_tile(game, owner, rng)
                if other is None:
                    continue
                after = observations(encoder, other)
                for seat in range(num_players):
                    if seat == owner:
                        assert after[seat] != before[seat], "own tile values must be visible"
                    else:
                        assert after[seat] == before[seat], (
                            f"seat {seat} sees seat {owner}'s face-down tile values "
                            f"({game}, seed {seed})"
                        )
                swaps += 1
    assert swaps >= 200


# ------------------------------------------------------- (b)(c)(d) deck, awards, RNG state
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_deck_order_face_down_awards_and_rng_are_invisible(num_players: int) -> None:
    """R-SETUP-2 and R-SETUP-4: permuting the deck or the face-down awards, or moving the RNG,
    changes no seat's observation, in every phase."""
    checked = set()
    for seed in SEEDS:
        game0 = FarlightGame(num_players, seed=seed)
        encoder = encoder_for(game0)
        rng = np.random.default_rng(seed + 200)
        for game in random_states(num_players, seed, every=7):
            before = observations(encoder, game)

            deck = game.clone()
            while len(deck.deck) > 1 and deck.deck == game.deck:
                rng.shuffle(deck.deck)
            assert sorted(deck.deck) == sorted(game.deck)
            assert observations(encoder, deck) == before, f"deck order leaks ({game})"

            awards = game.clone()
            while awards.awards_down == game.awards_down:
                awards.awards_down = [awards.awards_down[k] for k in rng.permutation(4)]
            assert observations(encoder, awards) == before, f"face-down awards leak ({game})"

            moved = game.clone()
            moved.rng.integers(0, 6, size=int(rng.integers(1, 50)))
            assert moved.rng.bit_generator.state != game.rng.bit_generator.state
            assert observations(encoder, moved) == before, f"RNG state leaks ({game})"

            reseeded = game.clone()
            reseeded.rng = np.random.default_rng(seed + 12345)
            assert observations(encoder, reseeded) == before

            checked.add(game.phase)
    assert Phase.BIDDING in checked and Phase.INSTALL in checked


def test_all_hidden_facts_at_once_are_invisible_to_the_other_seats() -> None:
    """Everything hidden from seat s changed together; s sees the same bytes."""
    rng = np.random.default_rng(7)
    for num_players in PLAYER_COUNTS:
        game0 = FarlightGame(num_players, seed=40 + num_players)
        encoder = encoder_for(game0)
        for game in random_states(num_players, 40 + num_players, every=5):
            if game.phase is not Phase.BIDDING:
                continue
            for viewer in range(num_players):
                other = game.clone()
                for owner in range(num_players):
                    if owner != viewer:
                        swapped = swap_board_and_hand_tile(other, owner, rng)
                        other = other if swapped is None else swapped
                rng.shuffle(other.deck)
                other.awards_down = [other.awards_down[k] for k in rng.permutation(4)]
                other.rng = np.random.default_rng(int(rng.integers(2**31)))
                assert encoder.encode(other, viewer).tobytes() == (
                    encoder.encode(game, viewer).tobytes()
                )


# ------------------------------------------------------------------ converse: visible facts
def _bidding_state_with_tiles_on_board(num_players: int, seed: int) -> FarlightGame:
    for game in random_states(num_players, seed):
        if (
            game.phase is Phase.BIDDING
            and game._bid_pass >= 1
            and all(tile_spots(game, p) and game.hands[p] for p in range(num_players))
        ):
            return game.clone()
    raise AssertionError("no bidding state with every seat's tiles on the board")


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_own_tile_values_are_visible(num_players: int) -> None:
    game = _bidding_state_with_tiles_on_board(num_players, seed=3)
    encoder = encoder_for(game)
    rng = np.random.default_rng(0)
    for seat in range(num_players):
        other = swap_board_and_hand_tile(game, seat, rng)
        assert other is not None
        before = encoder.encode(game, seat)
        after = encoder.encode(other, seat)
        assert before.tobytes() != after.tobytes()
        layout = encoder.layout()
        changed = {
            name
            for name, (sl, _shape) in layout.items()
            if not np.array_equal(before[sl], after[sl])
        }
        assert changed <= {"own_hand", "bids"} and "own_hand" in changed


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_opponent_crew_count_is_visible(num_players: int) -> None:
    game = _bidding_state_with_tiles_on_board(num_players, seed=4)
    encoder = encoder_for(game)
    for opponent in range(num_players):
        other = game.clone()
        other.crew[opponent] += 1
        other.invalidate_cache()
        for seat in range(num_players):
            assert encoder.encode(other, seat).tobytes() != encoder.encode(game, seat).tobytes()


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_crew_riding_on_an_opponent_tile_is_visible(num_players: int) -> None:
    """R-BID-5: whose tile and whether crew rides on it are public, only the value is hidden."""
    game = _bidding_state_with_tiles_on_board(num_players, seed=5)
    encoder = encoder_for(game)
    for owner in range(num_players):
        slot, i = tile_spots(game, owner)[0]
        other = game.clone()
        p, tile, crew = other.bids[slot][i]
        other.bids[slot][i] = (p, tile, not crew)
        other.crew[owner] += 1 if crew else -1  # the crew moves between supply and tile
        other.invalidate_cache()
        for seat in range(num_players):
            assert encoder.encode(other, seat).tobytes() != encoder.encode(game, seat).tobytes()


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_face_up_awards_are_visible(num_players: int) -> None:
    game = _bidding_state_with_tiles_on_board(num_players, seed=6)
    encoder = encoder_for(game)
    other = game.clone()
    other.awards_up[0], other.awards_down[0] = other.awards_down[0], other.awards_up[0]
    other.invalidate_cache()  # a direct edit, as in the tests above
    for seat in range(num_players):
        assert encoder.encode(other, seat).tobytes() != encoder.encode(game, seat).tobytes()


# -------------------------------------------------------------------------------- layout
@pytest.mark.parametrize("grid_size", (5, 13))
def test_layout_fields_cover_the_whole_vector_without_overlap(grid_size: int) -> None:
    encoder = ObservationEncoder(FarlightGame(2, seed=0).cards, grid_size)
    layout = encoder.layout()
    spans = sorted((sl.start, sl.stop, name) for name, (sl, _shape) in layout.items())
    assert spans[0][0] == 0
    for (_a, stop, name), (start, _b, next_name) in zip(spans, spans[1:], strict=False):
        assert start == stop, f"gap or overlap between {name} and {next_name}"
    assert spans[-1][1] == encoder.size
    for name, (sl, shape) in layout.items():
        assert sl.step is None
        assert sl.stop - sl.start == int(np.prod(shape)) >= 1, name


def test_env_observation_layout_names_all_documented_fields() -> None:
    env = farlight_v0.env(num_players=3)
    env.reset(seed=0)
    layout = env.unwrapped.observation_layout()
    assert set(DOCUMENTED_FIELDS) <= set(layout)
    obs = env.observe(env.agent_selection)["observation"]
    space = env.observation_space(env.agent_selection)["observation"]
    assert obs.shape == space.shape == (sum(int(np.prod(s)) for _sl, s in layout.values()),)
    assert obs.dtype == np.float32
    for name, (sl, shape) in layout.items():
        assert obs[sl].reshape(shape).shape == shape, name
    assert layout["players"][1] == (MAX_PLAYERS, len(PLAYER_FEATURES))
    assert layout["bids"][1] == (NUM_TARGETS, MAX_PLAYERS, 3)
    assert layout["station"][1][0] == MAX_SPACES
    assert layout["own_hand"][1] == (5,)
    assert layout["awards"][1] == (7,)


@pytest.mark.parametrize("grid_size", (7, 13))
def test_ship_planes_reshape_to_seats_channels_grid_grid(grid_size: int) -> None:
    env = farlight_v0.raw_env(num_players=4, grid_size=grid_size)
    env.reset(seed=1)
    channels = env.encoder.ship_channel_names()
    sl, shape = env.observation_layout()["ships"]
    assert shape == (MAX_PLAYERS, len(channels), grid_size, grid_size)
    planes = env.observe("player_0")["observation"][sl].reshape(shape)
    centre = grid_size // 2
    core = channels.index("core")
    occupied = channels.index("occupied")
    for seat in range(MAX_PLAYERS):
        present = seat < 4
        assert planes[seat, core, centre, centre] == float(present)
        assert planes[seat, occupied].sum() == float(present)  # a fresh ship is just the core
        assert planes[seat, core].sum() == float(present)


@pytest.mark.parametrize("seed", (0, 1))
def test_absent_seats_are_zero_in_a_two_player_game(seed: int) -> None:
    game0 = FarlightGame(2, seed=seed)
    encoder = encoder_for(game0)
    layout = encoder.layout()
    states = 0
    for game in random_states(2, seed, every=4):
        for seat in (0, 1):
            obs = encoder.encode(game, seat)
            view = {name: obs[sl].reshape(shape) for name, (sl, shape) in layout.items()}
            for name in PER_SEAT_FIELDS:
                assert not view[name][2:].any(), f"{name} of an absent seat is not zero"
                assert view[name].shape[0] == MAX_PLAYERS
            assert not view["bids"][:, 2:, :].any()
            assert (view["players"][:2, PLAYER_FEATURES.index("present")] == 1.0).all()
            crew = PLAYER_FEATURES.index("crew")
            assert view["players"][0, crew] == pytest.approx(game.crew[seat] / 10.0)
            assert view["players"][1, crew] == pytest.approx(game.crew[1 - seat] / 10.0)
            assert view["num_players"].tolist() == [1.0, 0.0, 0.0, 0.0]
            states += 1
    assert states > 50


def test_observation_is_relative_to_the_observer() -> None:
    """Own seat first: rotating the viewer rotates the per-seat rows (R-COMP-1 seats)."""
    game = _bidding_state_with_tiles_on_board(4, seed=8)
    encoder = encoder_for(game)
    sl, shape = encoder.layout()["players"]
    rows = {seat: encoder.encode(game, seat)[sl].reshape(shape) for seat in range(4)}
    for seat in range(4):
        for rel in range(4):
            np.testing.assert_array_equal(rows[seat][rel], rows[0][(seat + rel) % 4])


def test_tile_values_are_face_up_once_bidding_ends() -> None:
    """R-BID-5 [decision]: values flip face up when bidding ends, so mission tiles still on the
    board during assembly show their values to every seat."""
    rng = np.random.default_rng(0)
    found = 0
    for game in random_states(3, 9, every=1):
        if game.phase is Phase.BIDDING or game.phase is Phase.MISSION:
            continue
        encoder = encoder_for(game)
        for owner in range(3):
            other = swap_board_and_hand_tile(game, owner, rng)
            if other is None:
                continue
            for seat in range(3):
                assert encoder.encode(other, seat).tobytes() != (
                    encoder.encode(game, seat).tobytes()
                )
            found += 1
        if found >= 5:
            break
    assert found >= 5


# ---------------------------------------------------------------- the view in env infos
def test_info_view_shows_each_seat_only_what_it_may_know() -> None:
    """`info["view"]` exposes redacted copies only: a game and its clone with every fact hidden
    from a seat changed give that seat equal views (and equal redacted games)."""
    from farlight_env.env.aec import SeatView

    rng = np.random.default_rng(11)
    compared = 0
    for game in random_states(3, 21, every=4):
        if game.phase is not Phase.BIDDING:
            continue
        for viewer in range(3):
            other = game.clone()
            for owner in range(3):
                if owner != viewer:
                    swapped = swap_board_and_hand_tile(other, owner, rng)
                    other = other if swapped is None else swapped
            rng.shuffle(other.deck)
            other.rng = np.random.default_rng(int(rng.integers(2**31)))
            assert other.to_json() != game.to_json()
            assert SeatView(game, viewer) == SeatView(other, viewer)
            compared += 1
    assert compared >= 10
