"""Rendering: text and RGB pictures of random positions, and hidden information kept hidden
(R-BID-5 tile values face down, R-SETUP-2 face-down awards, the part deck's order)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from farlight_env.cards.model import FACILITIES
from farlight_env.env.render_paint import _text_sprite
from farlight_env.env.render_picture import (
    FACILITY_EFFECT_SIZE,
    FACILITY_NAME_SIZE,
    FACILITY_PAD,
    RGB_SIZE,
    STATION_BOX,
    facility_boxes,
    render_rgb,
)
from farlight_env.env.render_text import render_ansi
from farlight_env.game import FarlightGame, Phase
from farlight_env.view.model import FACILITY_EFFECTS

PLAYER_COUNTS = (2, 3, 4, 5)


def _positions(num_players: int, seed: int, every: int = 41) -> list[FarlightGame]:
    """Clones of one random game (seeded legal play) every `every` actions, ending game over."""
    game = FarlightGame(num_players, seed=seed)
    rng = np.random.default_rng(seed)
    snapshots = []
    step = 0
    while not game.is_over:
        if step % every == 0:
            snapshots.append(game.clone())
        la = game.legal_actions()
        game.apply(la[rng.integers(len(la))])
        step += 1
    snapshots.append(game)
    return snapshots


def _permute_tiles(game: FarlightGame, seat: int, rng: np.random.Generator) -> None:
    """Shuffle a seat's tile values between its hand and its tiles on the board, in place;
    targets, crew and the multiset of tiles stay as they were."""
    spots = [
        (slot, i)
        for slot, bids in enumerate(game.bids)
        for i, (p, _tile, _crew) in enumerate(bids)
        if p == seat
    ]
    values = [game.bids[slot][i][1] for slot, i in spots] + list(game.hands[seat])
    values = [int(v) for v in rng.permutation(values)]
    for (slot, i), value in zip(spots, values, strict=False):
        p, _tile, crew = game.bids[slot][i]
        game.bids[slot][i] = (p, value, crew)
    game.hands[seat] = sorted(values[len(spots) :])
    assert sorted(values) == [0, 1, 2, 3, 4]  # tiles in hand + on board = 5
    game.invalidate_cache()


def _scramble_hidden(game: FarlightGame, viewer: int | None, seed: int) -> FarlightGame:
    """A copy differing only in what `viewer` may not see: while bidding, the values of other
    seats' tiles on the board (swapped with their hands); the deck's order and the face-down
    awards' order. After bidding every tile is face up (R-BID-5), so values stay."""
    other = game.clone()
    rng = np.random.default_rng(seed)
    for seat in range(other.num_players):
        if seat != viewer and game.phase is Phase.BIDDING:
            _permute_tiles(other, seat, rng)
    rng.shuffle(other.deck)
    other.awards_down = [other.awards_down[i] for i in rng.permutation(len(other.awards_down))]
    return other


def _hidden_differs(a: FarlightGame, b: FarlightGame) -> bool:
    return (
        a.bids != b.bids
        or a.hands != b.hands
        or a.deck != b.deck
        or (a.awards_down != b.awards_down)
    )


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_render_random_positions(num_players: int) -> None:
    """Both renders work at many points of a random game, including game over."""
    positions = _positions(num_players, seed=100 + num_players)
    assert positions[-1].is_over
    width, height = RGB_SIZE
    for k, game in enumerate(positions):
        viewer = k % num_players
        text = render_ansi(game, viewer)
        assert isinstance(text, str) and text.endswith("\n")
        for part in game.spaces:
            if part is not None:
                assert game.cards.parts[part].name in text
        for stack in game.stacks:
            for mission in stack:
                assert game.cards.missions[mission].name in text
        for seat in range(num_players):
            for part in game.ship_parts[seat] + game.pending[seat]:
                assert game.cards.parts[part].name in text
        image = render_rgb(game, viewer)
        assert image.dtype == np.uint8
        assert image.shape == (height, width, 3)
        assert image.std() > 10  # a picture, not a blank canvas
        spectator = render_rgb(game, None)
        assert spectator.shape == (height, width, 3)
    final = render_ansi(positions[-1], 0)
    assert "GAME OVER" in final
    assert ("Winner:" in final) or ("Shared victory:" in final)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_renders_are_deterministic(num_players: int) -> None:
    game = _positions(num_players, seed=7, every=29)[1]
    assert render_ansi(game, 0) == render_ansi(game.clone(), 0)
    assert np.array_equal(render_rgb(game, 0), render_rgb(game.clone(), 0))


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_r_bid_5_hidden_information_never_changes_the_picture(num_players: int) -> None:
    """Opponents' tile values, the deck order and the face-down awards leave both renders
    unchanged, for every seat and for a spectator."""
    changed = bids_changed = 0
    for k, game in enumerate(_positions(num_players, seed=200 + num_players, every=13)):
        viewers: list[int | None] = [k % num_players, None]
        for viewer in viewers:
            other = _scramble_hidden(game, viewer, seed=k)
            changed += _hidden_differs(game, other)
            bids_changed += other.bids != game.bids
            assert render_ansi(other, viewer) == render_ansi(game, viewer)
            if k % 3 == 0 or game.is_over:  # rgb is slower: check a third of the positions
                assert np.array_equal(render_rgb(other, viewer), render_rgb(game, viewer))
    assert changed > 0 and bids_changed > 0  # the scrambles did touch hidden facts


def _bidding_position(num_players: int, seed: int, viewer: int) -> FarlightGame:
    """A bidding position in which `viewer` and another seat have tiles on the board."""
    game = FarlightGame(num_players, seed=seed)
    rng = np.random.default_rng(seed)
    while True:
        on_board = {p for bids in game.bids for p, _t, _c in bids}
        if game.phase.value == "bidding" and viewer in on_board and len(on_board) >= 2:
            return game
        la = game.legal_actions()
        game.apply(la[rng.integers(len(la))])


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_viewer_sees_own_tile_values_and_not_others(num_players: int) -> None:
    viewer = 1
    game = _bidding_position(num_players, seed=31 + num_players, viewer=viewer)
    text = render_ansi(game, viewer)
    for slot, bids in enumerate(game.bids):
        own = [(t, c) for p, t, c in bids if p == viewer]
        if own:
            shown = " ".join(f"{t}{'+' if c else ''}" for t, c in own)
            assert f"P{viewer}[{shown}]={game.bid_total(viewer, slot)}" in text
        for seat in {p for p, _t, _c in bids if p != viewer}:
            hidden = " ".join("?+" if c else "?" for p, _t, c in bids if p == seat)
            assert f"P{seat}[{hidden}]" in text
    hand = " ".join(str(t) for t in sorted(game.hands[viewer]))
    assert f"tiles in hand: {hand}" in text
    # a spectator sees no value at all
    spectator = render_ansi(game, None)
    assert f"P{viewer}[?" in spectator
    assert "]=" not in spectator
    assert f"tiles in hand: {len(game.hands[viewer])}" in spectator
    # scrambling the viewer's OWN tiles does change what it sees, in text and picture
    rng = np.random.default_rng(0)
    mine = game.clone()
    while mine.bids == game.bids:
        _permute_tiles(mine, viewer, rng)
    assert render_ansi(mine, viewer) != text
    assert render_ansi(mine, None) == spectator
    assert not np.array_equal(render_rgb(mine, viewer), render_rgb(game, viewer))


def test_deck_and_face_down_awards_never_named() -> None:
    for game in _positions(4, seed=3, every=37):
        text = render_ansi(game, 0)
        for part in game.deck:
            assert game.cards.parts[part].name not in text
        awards_line = next(line for line in text.splitlines() if "awards face up" in line)
        for award in game.awards_down:
            assert award not in awards_line
        assert f"+{len(game.awards_down)} face down" in awards_line


def test_ship_is_drawn_as_a_cropped_grid() -> None:
    """A lone core is its bounding box plus a margin of 1: 3×3 cells of 3×3 characters, with
    the (row, col) offsets install choices use as row and column labels."""
    game = FarlightGame(2, seed=0)
    lines = render_ansi(game, 0).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("PLAYERS"))
    block = [line[2:14].ljust(12) for line in lines[start + 1 : start + 11]]
    assert block[0] == "   -1 +0 +1 "
    assert block[4] == "       ┃    "
    assert block[5] == "+0  · ━◆━ · "
    assert block[6] == "       ┃    "
    assert block[2].startswith("-1 ") and block[8].startswith("+1 ")


def test_bad_viewer_is_refused() -> None:
    game = FarlightGame(3, seed=1)
    with pytest.raises(ValueError, match="viewer"):
        render_ansi(game, 3)
    with pytest.raises(ValueError, match="viewer"):
        render_rgb(game, -1)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_r_bid_5_tiles_are_face_up_after_bidding(num_players: int) -> None:
    """Once bidding ends all tiles are flipped: every seat's mission bid values are shown."""
    game = FarlightGame(num_players, seed=77 + num_players)
    rng = np.random.default_rng(num_players)
    while not (game.phase is Phase.MISSION and any(game.bids)):
        if game.is_over:
            pytest.skip("no mission phase with bids in this seed")  # pragma: no cover
        la = game.legal_actions()
        game.apply(la[rng.integers(len(la))])
    text = render_ansi(game, None)  # even a spectator sees the flipped values
    for slot, bids in enumerate(game.bids):
        for seat in {p for p, _t, _c in bids}:
            shown = " ".join(f"{t}{'+' if c else ''}" for p, t, c in bids if p == seat)
            assert f"P{seat}[{shown}]={game.bid_total(seat, slot)}" in text


def _ink_columns(text: str, size: int) -> np.ndarray:
    """Which pixel columns of `text`, drawn as the renderer draws it, hold ink."""
    mask, _left, _top = _text_sprite(text, size, "la")
    return (np.asarray(mask) > 64).any(axis=0)


def _blank_runs(columns: np.ndarray) -> list[int]:
    """Widths of the blank stretches between inked columns."""
    runs, blank, inked = [], 0, False
    for ink in columns:
        if ink:
            if inked and blank:
                runs.append(blank)
            blank, inked = 0, True
        else:
            blank += 1
    return runs


def test_facility_labels_fit_their_boxes_side_by_side() -> None:
    """Name (left) and effect (right) of every facility fit on the box's header line, apart."""
    font_name = ImageFont.load_default(size=FACILITY_NAME_SIZE)
    for (x0, _y0, x1, _y1), name, effect in zip(
        facility_boxes(STATION_BOX, 0), FACILITIES, FACILITY_EFFECTS, strict=True
    ):
        name_w = ImageDraw.Draw(Image.new("L", (1, 1))).textbbox((0, 0), name, font=font_name)[2]
        effect_w = int(_ink_columns(effect, FACILITY_EFFECT_SIZE).size)
        room = (x1 - x0) - 2 * FACILITY_PAD
        assert name_w + 12 + effect_w <= room, (name, effect, name_w, effect_w, room)


@pytest.mark.parametrize("size", [FACILITY_EFFECT_SIZE, 10, 9])
def test_small_labels_keep_their_words_apart(size: int) -> None:
    """Each space shows as a gap wider than any gap between letters ('+1 to an engine' once
    rendered as '+1 toan engine'): exactly one wide blank run per space."""
    for effect in FACILITY_EFFECTS:
        runs = _blank_runs(_ink_columns(effect, size))
        letters = _blank_runs(_ink_columns(effect.replace(" ", ""), size))
        wide = [run for run in runs if run > max(letters, default=0)]
        assert len(wide) == effect.count(" "), (effect, size, runs, letters)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_the_text_board_fits_80_columns(num_players: int) -> None:
    """`farlight play`'s full board (`b`) and every render_ansi fit an 80-column terminal
    (issue #26: lines reached 113): long lines wrap, bids go under their row and a player's
    details under the ship when they do not fit beside it."""
    for k, game in enumerate(_positions(num_players, seed=300 + num_players, every=7)):
        for viewer in (k % num_players, None):
            lines = render_ansi(game, viewer).splitlines()
            assert max(len(line) for line in lines) <= 80, max(lines, key=len)
            assert not lines[0].startswith("(this board needs")


def test_a_board_too_wide_for_the_terminal_says_how_wide_it_needs() -> None:
    """Only a ship wider than the terminal can pass its width; the first line then says so."""
    from farlight_env.env.render_text import draw_text
    from farlight_env.view.model import board_view

    game = _positions(3, seed=5, every=50)[-1]
    lines = draw_text(board_view(game, 0), width=30).splitlines()
    needed = max(len(line) for line in lines[1:])
    assert needed > 30
    assert lines[0] == f"(this board needs {needed} columns; the terminal is taken to have 30)"
