"""The view model (farlight_env.view.model): one plain description of what a seat may see,
from which the text, the picture and the web page are drawn (R-BID-5, R-SETUP-2)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from test_render import PLAYER_COUNTS, _hidden_differs, _positions, _scramble_hidden

from farlight_env.env.render_picture import draw_picture, render_rgb
from farlight_env.env.render_text import draw_text, render_ansi
from farlight_env.game import Phase
from farlight_env.view.model import board_view, to_builtins


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_r_bid_5_hidden_facts_never_enter_the_view(num_players: int) -> None:
    """Opponents' tile values, the deck order and the face-down awards: changing them leaves
    the view's JSON identical, for every seat and for a spectator."""
    changed = 0
    for k, game in enumerate(_positions(num_players, seed=300 + num_players, every=11)):
        for viewer in [*range(num_players), None]:
            other = _scramble_hidden(game, viewer, seed=k)
            changed += _hidden_differs(game, other)
            a = json.dumps(to_builtins(board_view(game, viewer)), sort_keys=True)
            b = json.dumps(to_builtins(board_view(other, viewer)), sort_keys=True)
            assert a == b
    assert changed > 0


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_the_view_holds_own_tiles_only_and_counts_for_the_rest(num_players: int) -> None:
    for game in _positions(num_players, seed=400 + num_players, every=17):
        for viewer in [0, None]:
            view = to_builtins(board_view(game, viewer))
            assert view["deck"] == len(game.deck)
            assert view["awards_down"] == len(game.awards_down)
            for panel in view["players"]:
                own = panel["seat"] == viewer
                assert (
                    (panel["hand"] == sorted(game.hands[panel["seat"]]))
                    if own
                    else (panel["hand"] is None)
                )
                assert panel["hand_count"] == len(game.hands[panel["seat"]])
            bidding = game.phase is Phase.BIDDING
            groups = [
                g
                for target in view["station"] + view["facilities"] + view["stacks"]
                for g in target["bids"]
            ]
            for g in groups:
                hidden = bidding and g["seat"] != viewer
                assert all((t["value"] is None) == hidden for t in g["tiles"])
                assert (g["total"] is None) == hidden


def test_text_and_picture_are_drawn_from_the_view() -> None:
    game = _positions(3, seed=5, every=40)[2]
    for viewer in (1, None):
        view = board_view(game, viewer)
        assert draw_text(view) == render_ansi(game, viewer)
        assert np.array_equal(draw_picture(view), render_rgb(game, viewer))


def test_a_bad_viewer_is_refused() -> None:
    game = _positions(2, seed=1, every=1000)[0]
    for viewer in (2, -1, "0"):
        with pytest.raises(ValueError, match="viewer must be a seat 0..1 or None"):
            board_view(game, viewer)  # type: ignore[arg-type]
