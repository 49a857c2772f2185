"""What one seat may know: `redact`, `determinize` and `PlayerView` (R-BID-5, R-SETUP-2).

Hidden from a seat: opponents' face-down tile values while bidding, the part deck's order, the
face-down awards' order and the game's RNG (future dice and draws). Two games that differ only
in those facts must give the same redacted copy and, for the same resampling seed, the same
determinization; everything public must survive both; the copies must be playable games.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import numpy as np
import pytest
from invariants import check_invariants

from farlight_env.game import FarlightGame, Phase
from farlight_env.game.hidden import PlayerView, determinize, redact

PLAYER_COUNTS = (2, 3, 4, 5)
SEEDS = (11, 12)
TILES = [0, 1, 2, 3, 4]  # R-SETUP-1


# ------------------------------------------------------------------------------ helpers
def random_states(
    num_players: int, seed: int, every: int = 1, **config: object
) -> Iterator[FarlightGame]:
    """The live game at every `every`-th decision of one seeded random legal game."""
    game = FarlightGame(num_players, seed=seed, **config)
    rng = np.random.default_rng(seed)
    step = 0
    while not game.is_over:
        if step % every == 0:
            yield game
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
        step += 1


def board_tiles(game: FarlightGame, seat: int) -> list[int]:
    """Values of `seat`'s tiles lying on the board, in slot order."""
    return [t for placed in game.bids for p, t, _ in placed if p == seat]


def with_other_hidden_facts(
    game: FarlightGame, seat: int, rng: np.random.Generator
) -> FarlightGame:
    """A copy of `game` that differs only in facts hidden from `seat`.

    While bidding, each opponent's tile values are shuffled between its hand and its face-down
    tiles on the board (targets, owners and crew stay); the deck order, the face-down awards'
    order, the RNG state and the seed are redrawn.
    """
    other = game.clone()
    if other.phase is Phase.BIDDING:
        for q in range(other.num_players):
            if q == seat:
                continue
            values = [int(v) for v in rng.permutation(TILES)]
            it = iter(values)
            for slot, placed in enumerate(other.bids):
                other.bids[slot] = [(p, next(it), c) if p == q else (p, t, c) for p, t, c in placed]
            other.hands[q] = sorted(it)
    other.deck = [other.deck[i] for i in rng.permutation(len(other.deck))]
    other.awards_down = [other.awards_down[i] for i in rng.permutation(len(other.awards_down))]
    other.rng = np.random.Generator(np.random.PCG64(int(rng.integers(2**63 - 1))))
    other.seed = int(rng.integers(2**63 - 1))
    other.invalidate_cache()
    return other


def opponent_tiles_differ(a: FarlightGame, b: FarlightGame, seat: int) -> bool:
    return any(
        board_tiles(a, q) != board_tiles(b, q)
        for q in range(a.num_players)
        if q != seat and board_tiles(a, q)
    )


def public_facts(game: FarlightGame, seat: int) -> dict[str, object]:
    """Everything `seat` may know about `game` (R-BID-5: owner, target and crew of every tile)."""
    bids = [
        [(p, t if p == seat or game.phase is not Phase.BIDDING else None, c) for p, t, c in slot]
        for slot in game.bids
    ]
    facts: dict[str, object] = {
        "round": game.round,
        "phase": game.phase,
        "current_player": game.current_player,
        "first_player": game.first_player,
        "own_hand": sorted(game.hands[seat]),
        "hand_sizes": [len(h) for h in game.hands],
        "tiles_on_board": [len(board_tiles(game, q)) for q in range(game.num_players)],
        "bids": bids,
        "crew": list(game.crew),
        "science": list(game.science),
        "points": list(game.points),
        "temp_biotech": list(game.temp_biotech),
        "spaces": list(game.spaces),
        "bonus": list(game.bonus),
        "engine_values": dict(game.engine_values),
        "ships": [dict(ship) for ship in game.ships],
        "ship_parts": [list(x) for x in game.ship_parts],
        "pending": [sorted(x) for x in game.pending],
        "stacks": [list(s) for s in game.stacks],
        "missions_out": sorted(game.missions_out),
        "out_of_game": list(game.out_of_game),
        "awards_up": list(game.awards_up),
        "deck_contents": sorted(game.deck),
        "awards_down_contents": sorted(game.awards_down),
        "selected_part": game.selected_part(),
        "mission": game.mission_being_resolved(),
        "is_over": game.is_over,
    }
    if game.phase is not Phase.BIDDING:  # tiles were turned face up at resolution
        facts["hands"] = [sorted(h) for h in game.hands]
    if game.current_player == seat:
        facts["legal_actions"] = game.legal_actions()
    return facts


def play_out(game: FarlightGame, seed: int) -> int:
    """Random legal play to the end, checking every invariant; returns the actions taken."""
    rng = np.random.default_rng(seed)
    check_invariants(game)
    steps = 0
    while not game.is_over:
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
        check_invariants(game)
        steps += 1
    return steps


# ------------------------------------------------------------------------------ redact
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_r_bid_5_redact_is_blind_to_hidden_facts(num_players: int) -> None:
    rng = np.random.default_rng(num_players)
    compared = tiles_swapped = 0
    for seed in SEEDS:
        for game in random_states(num_players, seed, every=4):
            for seat in range(num_players):
                other = with_other_hidden_facts(game, seat, rng)
                assert other.rng.bit_generator.state != game.rng.bit_generator.state
                tiles_swapped += opponent_tiles_differ(game, other, seat)
                assert redact(game, seat).to_json() == redact(other, seat).to_json(), (
                    f"{num_players}p seed {seed} round {game.round} {game.phase.value}: "
                    f"seat {seat}'s redacted copy depends on hidden facts"
                )
                compared += 1
    assert compared > 60
    assert tiles_swapped > 15, "too few states where an opponent's face-down values differed"


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_redact_keeps_every_public_fact(num_players: int) -> None:
    for game in random_states(num_players, seed=21, every=3):
        for seat in range(num_players):
            copy = redact(game, seat)
            assert public_facts(copy, seat) == public_facts(game, seat)
            assert copy.history == [] and copy.seed == 0  # documented: nothing to replay from


def test_redact_hides_opponent_values_behind_a_canonical_stand_in() -> None:
    """While bidding, an opponent's values are replaced: tiles on the board first 0, 1, ..."""
    seen = 0
    for game in random_states(3, seed=5):
        if game.phase is not Phase.BIDDING:
            continue
        for seat in range(3):
            copy = redact(game, seat)
            for q in range(3):
                if q == seat:
                    assert board_tiles(copy, q) == board_tiles(game, q)
                    continue
                placed = len(board_tiles(game, q))
                assert board_tiles(copy, q) == TILES[:placed]
                assert copy.hands[q] == TILES[placed:]
                seen += placed > 0
    assert seen > 10


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_redact_keeps_true_tile_values_after_bidding(num_players: int) -> None:
    """Once bids are resolved every tile is face up: the redacted copy keeps the real values."""
    on_board = 0
    for seed in SEEDS:
        for game in random_states(num_players, seed):
            if game.phase is Phase.BIDDING:
                continue
            for seat in range(num_players):
                copy = redact(game, seat)
                assert copy.bids == game.bids
                assert copy.hands == game.hands
            on_board += any(game.bids)
    assert on_board > 0, "no state after bidding with tiles still on the board (missions)"


def test_redact_leaves_the_game_unchanged() -> None:
    for game in random_states(4, seed=3, every=5):
        before = game.to_json()
        for seat in range(4):
            redact(game, seat)
            determinize(game, seat, np.random.default_rng(seat))
        assert game.to_json() == before


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_a_shared_redacted_copy_equals_a_full_one(num_players: int) -> None:
    """R-BID-5: `redact(share=True)` gives the same copy as `redact` (same `to_json`: blind to
    hidden facts alike) at every kind of decision, and leaves the live game unchanged."""
    phases = set()
    for game in random_states(num_players, seed=31, every=2):
        before = game.to_json()
        for seat in range(num_players):
            assert redact(game, seat, share=True).to_json() == redact(game, seat).to_json()
        assert game.to_json() == before
        phases.add(game.phase)
    assert len(phases) >= 4


def test_a_shared_redacted_copy_never_shows_later_hidden_facts() -> None:
    """A shared copy kept past its decision follows later public changes only: bids placed
    afterwards (their tile values hidden) and the deck's order never show through it."""
    game = FarlightGame(3, seed=8)
    kept = redact(game, 0, share=True)
    rng = np.random.default_rng(0)
    while game.phase is Phase.BIDDING and game.current_player is not None:
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
        if game.phase is Phase.BIDDING:
            assert not any(kept.bids) and kept.hands[1] == kept.hands[2] == TILES
            assert kept.deck == sorted(kept.deck) and kept.history == []


def test_the_heuristic_decides_on_shared_copies_as_on_full_ones() -> None:
    """`act` hands the heuristic (reads_only) a shared copy: the same moves as on full copies,
    and the live game is untouched by its decisions."""
    from agents.farlight.engine_agent import EngineAgent
    from agents.farlight.heuristic import HeuristicAgent
    from farlight_env.encode.codec import ActionCodec

    class FullCopies(HeuristicAgent):
        reads_only = False

    for seed in (1, 2):
        game = FarlightGame(3, seed=seed)
        shared, full = HeuristicAgent(seed), FullCopies(seed)
        codec = ActionCodec(game.cards, game.config.grid_size)
        assert shared.reads_only and not EngineAgent.reads_only
        while not game.is_over:
            view, mask, before = (
                PlayerView(game, game.current_player),
                codec.mask(game),
                game.to_json(),
            )
            index = shared.act(None, mask, {"view": view})
            assert game.to_json() == before
            assert full.act(None, mask, {"view": view}) == index
            game.apply(codec.decode(index, game))


# ------------------------------------------------------------------------------ determinize
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_determinize_is_blind_to_hidden_facts(num_players: int) -> None:
    rng = np.random.default_rng(100 + num_players)
    compared = 0
    for game in random_states(num_players, seed=31, every=6):
        for seat in range(num_players):
            other = with_other_hidden_facts(game, seat, rng)
            for draw_seed in (0, 1):
                a = determinize(game, seat, np.random.default_rng(draw_seed))
                b = determinize(other, seat, np.random.default_rng(draw_seed))
                assert a.to_json() == b.to_json(), (
                    f"{num_players}p round {game.round} {game.phase.value}: seat {seat}'s "
                    f"determinization (rng seed {draw_seed}) depends on hidden facts"
                )
                compared += 1
    assert compared > 30


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_determinize_keeps_every_public_fact(num_players: int) -> None:
    for game in random_states(num_players, seed=41, every=3):
        for seat in range(num_players):
            copy = determinize(game, seat, np.random.default_rng(seat))
            assert public_facts(copy, seat) == public_facts(game, seat)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_determinize_resamples_hidden_facts(num_players: int) -> None:
    """Different resampling seeds give different decks, award orders, opponents' tiles, dice."""
    decks: Counter[str] = Counter()
    checked = 0
    for game in random_states(num_players, seed=51, every=7):
        seat = 0
        copies = [determinize(game, seat, np.random.default_rng(s)) for s in range(8)]
        if len(game.deck) > 1:
            assert len({tuple(c.deck) for c in copies}) > 1, "deck order never resampled"
            decks["deck"] += 1
        assert len({tuple(c.awards_down) for c in copies}) > 1, "award order never resampled"
        states = {str(c.rng.bit_generator.state) for c in copies}
        assert len(states) == len(copies), "the RNG (future dice) is not resampled"
        if game.phase is Phase.BIDDING and any(board_tiles(game, q) for q in range(1, num_players)):
            layouts = {
                tuple(tuple(board_tiles(c, q)) for q in range(1, num_players)) for c in copies
            }
            assert len(layouts) > 1, "opponents' face-down tiles never resampled"
            decks["tiles"] += 1
        checked += 1
    assert checked > 5 and decks["deck"] > 0 and decks["tiles"] > 0


def test_determinize_same_rng_seed_same_copy() -> None:
    for game in random_states(3, seed=61, every=9):
        for seat in range(3):
            a = determinize(game, seat, np.random.default_rng(7))
            b = determinize(game, seat, np.random.default_rng(7))
            assert a.to_json() == b.to_json()


def test_determinizer_draws_equal_fresh_determinize_calls() -> None:
    """Search draws many copies from one redaction: each equals a fresh `determinize` on the
    same random stream, even after the earlier copies were played on."""
    for i, game in enumerate(random_states(3, seed=62, every=11)):
        seat = i % 3
        draw = PlayerView(game, seat).determinizer()
        mine, fresh = np.random.default_rng(i), np.random.default_rng(i)
        for _ in range(3):
            copy = draw(mine)
            assert copy.to_json() == determinize(game, seat, fresh).to_json()
            play_out(copy, seed=i)


# ------------------------------------------------------------------------------ playable copies
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_redacted_and_determinized_copies_play_to_the_end(num_players: int) -> None:
    """Search plays on these copies: every invariant holds after every action to the end."""
    played = Counter()
    for i, game in enumerate(random_states(num_players, seed=71, every=17, max_rounds=6)):
        seat = i % num_players
        play_out(redact(game, seat), seed=i)
        play_out(determinize(game, seat, np.random.default_rng(i)), seed=i)
        played[game.phase] += 1
    assert played[Phase.BIDDING] > 0 and sum(played.values()) > 3


# ------------------------------------------------------------------------------ PlayerView
def test_player_view_exposes_seat_cards_grid_and_players() -> None:
    game = FarlightGame(3, seed=4, grid_size=11)
    view = PlayerView(game, 2)
    assert view.seat == 2
    assert view.cards is game.cards
    assert view.grid_size == 11
    assert view.num_players == 3
    assert view.redacted().to_json() == redact(game, 2).to_json()
    assert (
        view.determinize(np.random.default_rng(3)).to_json()
        == determinize(game, 2, np.random.default_rng(3)).to_json()
    )


def test_player_view_follows_the_live_game() -> None:
    """A view holds no copy: after the game moves on, it shows the new public state."""
    game = FarlightGame(2, seed=8)
    view = PlayerView(game, 1)
    before = view.redacted().to_json()
    game.apply(game.legal_actions()[0])
    after = view.redacted()
    assert after.to_json() != before
    assert public_facts(after, 1) == public_facts(game, 1)
