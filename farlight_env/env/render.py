"""Pictures of a game as one seat may see it: a text board (`render_ansi`) and an image
(`render_rgb`, drawn with Pillow).

Both draw from one view model, `farlight_env.view.model.BoardView`, which decides once what a
viewer (a seat, or None for a spectator) may know (R-BID-5, R-SETUP-2): opponents' tiles on the
board and in hand appear as '?' or a count, the part deck and the face-down awards only as
counts. The text renderer lives in `render_text`, the picture in `render_picture` (with its
drawing kit in `render_paint`); this module keeps the import paths callers use.
"""

from __future__ import annotations

from farlight_env.cards.model import FACILITIES
from farlight_env.env.render_paint import _text_sprite
from farlight_env.env.render_picture import (
    FACILITY_EFFECT_SIZE,
    FACILITY_NAME_SIZE,
    FACILITY_PAD,
    RGB_SIZE,
    STATION_BOX,
    draw_picture,
    facility_boxes,
    render_rgb,
)
from farlight_env.env.render_text import draw_text, render_ansi
from farlight_env.view.model import END_REASONS, FACILITY_EFFECTS, BoardView, board_view

__all__ = [
    "END_REASONS",
    "FACILITIES",
    "FACILITY_EFFECTS",
    "FACILITY_EFFECT_SIZE",
    "FACILITY_NAME_SIZE",
    "FACILITY_PAD",
    "RGB_SIZE",
    "STATION_BOX",
    "BoardView",
    "_text_sprite",
    "board_view",
    "draw_picture",
    "draw_text",
    "facility_boxes",
    "render_ansi",
    "render_rgb",
]
