"""The picture (`render_rgb`, drawn with Pillow): drawn from the seat's `BoardView`, nothing else.

What the viewer may know is decided once, in `farlight_env.view.model`; this module only lays
out shapes and text at a fixed size (RGB_SIZE): the station, the missions, and each seat's
panel with its ship (connectors and dice). The web page draws the same layout in SVG.
Same view gives the same picture.
"""

from __future__ import annotations

import numpy as np
from PIL import Image

from farlight_env.cards.model import FACILITIES, IconKind
from farlight_env.env.render_paint import (
    BACKGROUND,
    BIO_COLOUR,
    CATEGORY_COLOURS,
    CLIMACTIC_MISSION,
    DIM,
    GOLD,
    HIGHLIGHT,
    ICON_COLOURS,
    INK,
    PANEL,
    PANEL_EDGE,
    REGULAR_MISSION,
    SEAT_COLOURS,
    TEXT,
    Box,
    Painter,
    draw_stubs,
    requirement_sprite,
    shade,
    ship_cell_sprite,
    text_width,
)
from farlight_env.game.game import FarlightGame
from farlight_env.view.model import (
    BidGroup,
    BoardView,
    MissionView,
    PlayerPanel,
    SpaceView,
    board_view,
)

__all__ = [
    "FACILITY_EFFECT_SIZE",
    "FACILITY_NAME_SIZE",
    "FACILITY_PAD",
    "RGB_SIZE",
    "STATION_BOX",
    "draw_picture",
    "facility_boxes",
    "render_rgb",
]

#: (width, height) of every `render_rgb` frame, whatever the player count.
RGB_SIZE: tuple[int, int] = (1280, 800)
STATION_BOX: tuple[int, int, int, int] = (8, 34, 812, 432)  # the station panel in the picture
FACILITY_NAME_SIZE = 13  # text sizes and inner margin of a facility box's header line
FACILITY_EFFECT_SIZE = 11
FACILITY_PAD = 9


def _draw_bids(p: Painter, groups: list[BidGroup], box: Box, tile_w: float = 17) -> None:
    """The bids on a target as seat-coloured tiles, grouped by seat, filling `box`."""
    if not groups:
        return
    x0, y0, x1, y1 = box
    count = sum(len(group.tiles) for group in groups)
    gap_seat = 5
    avail = (x1 - x0) - gap_seat * (len(groups) - 1)
    rows = 1 if count * (tile_w + 2) <= avail else 2
    h = min(24.0, (y1 - y0) if rows == 1 else (y1 - y0 - 2) / 2)
    per_row = -(-count // rows)
    w = min(tile_w, (avail - 2 * per_row) / per_row)
    x, y, placed = x0, y0, 0
    for group in groups:
        for tile in group.tiles:
            if rows == 2 and placed == per_row:
                x, y = x0, y0 + h + 2
            p.tile(x, y, w, h, group.seat, tile.value, tile.crew)
            x += w + 2
            placed += 1
        x += gap_seat


def _draw_part_card(p: Painter, space: SpaceView, box: Box) -> None:
    x0, y0, x1, y1 = box
    w = x1 - x0
    slot = space.slot
    part = space.part
    if part is None:
        p.d.rounded_rectangle(box, radius=8, outline=PANEL_EDGE, width=2)
        p.text((x0 + w / 2, (y0 + y1) / 2), f"#{slot}  empty", 11, DIM, "mm")
        return
    colour = CATEGORY_COLOURS[part.category]
    p.d.rounded_rectangle(box, radius=8, fill=colour, outline=shade(colour, 1.7), width=2)
    p.d.rounded_rectangle((x0 + 3, y0 + 3, x1 - 3, y0 + 40), radius=6, fill=shade(colour, 0.68))
    draw_stubs(p.d, box, part.mask, 28, 8)
    two_lines = text_width(part.name, 12) > w - 14
    p.wrapped(x0 + 7, y0 + 7 if two_lines else y0 + 15, w - 14, part.name, 12, TEXT)
    # right end of the icon row: space number and crew cost (a gold coin)
    rx = x1 - 8
    if part.cost:
        cx, cy = rx - 10, y0 + 57
        p.d.ellipse((cx - 10, cy - 10, cx + 10, cy + 10), fill=GOLD, outline=(70, 48, 0), width=2)
        p.text((cx, cy + 1), str(part.cost), 12, (50, 32, 0), "mm")
        rx -= 24
    p.text((rx, y0 + 52), f"#{slot}", 10, shade(TEXT, 0.8), "ra")
    ix = x0 + 9
    for icon in part.icons:
        p.icon(ix, y0 + 47, 20, IconKind(icon.kind), icon.every_round)
        ix += 24
    if part.biotech:
        p.bio(ix + 2, y0 + 47, 20, part.biotech)
    dx = x0 + 9
    for value in part.dice:
        p.die(dx, y0 + 72, 24, value)
        dx += 29
    if space.bonus:  # bonus crew lying on the space
        p.pill(x1 - 8, y0 + 77, f"+{space.bonus} crew", GOLD, (50, 32, 0), 10, True)
    _draw_bids(p, space.bids, (x0 + 8, y1 - 29, x1 - 8, y1 - 7))


def _draw_station(p: Painter, view: BoardView, box: Box) -> None:
    x0, y0, x1, y1 = box
    p.d.rounded_rectangle(box, radius=10, fill=PANEL, outline=PANEL_EDGE)
    p.text((x0 + 12, y0 + 7), "STATION", 14, TEXT)
    p.text((x0 + 84, y0 + 10), f"deck {view.deck}", 10, DIM)
    # legend: icon kinds, bio-tech, shapes
    lx = x0 + 140
    for kind in IconKind:
        p.icon(lx, y0 + 8, 14, kind, True)
        p.text((lx + 17, y0 + 10), kind.value, 10, DIM)
        lx += 17 + p.width(kind.value, 10) + 9
    lx += p.bio(lx, y0 + 8, 14, 1) + 3
    p.text((lx, y0 + 10), "bio-tech", 10, DIM)
    p.text(
        (x1 - 12, y0 + 10),
        "square: every round   circle: once   coin: crew to install",
        10,
        DIM,
        "ra",
    )
    cols = -(-view.num_spaces // 2)
    gap = 14
    card_w = (x1 - x0 - 24 - gap * (cols - 1)) / cols
    card_h = 132
    top = y0 + 32
    for slot, space in enumerate(view.station):
        r, c = divmod(slot, cols)
        cx = x0 + 12 + c * (card_w + gap)
        cy = top + r * (card_h + gap)
        _draw_part_card(p, space, (cx, cy, cx + card_w, cy + card_h))
    fy = top + 2 * (card_h + gap) - 2
    for facility, fbox in zip(view.facilities, facility_boxes(box, fy), strict=True):
        fx, fy, fx1, fy1 = fbox
        p.d.rounded_rectangle(fbox, radius=8, fill=(52, 58, 80), outline=(112, 122, 152), width=2)
        p.text((fx + FACILITY_PAD, fy + 7), facility.name, FACILITY_NAME_SIZE, TEXT)
        p.text((fx1 - FACILITY_PAD, fy + 9), facility.effect, FACILITY_EFFECT_SIZE, DIM, "ra")
        _draw_bids(p, facility.bids, (fx + FACILITY_PAD, fy + 27, fx1 - FACILITY_PAD, fy1 - 7))


def facility_boxes(station: Box, top: float, gap: int = 14) -> list[Box]:
    """The four facility boxes, side by side across the station panel's width from `top`."""
    x0, _y0, x1, y1 = station
    width = (x1 - x0 - 24 - gap * 3) / 4
    return [
        (x0 + 12 + i * (width + gap), top, x0 + 12 + i * (width + gap) + width, y1 - 8)
        for i in range(len(FACILITIES))
    ]


def _draw_requirements(
    p: Painter, x: float, y: float, mission: MissionView, size: int, max_width: float
) -> None:
    """Engine minima as 'n+' dice, bio-tech and science as glyphs with counts, shrunk to fit."""
    engines = mission.engines
    while size > 10:
        text = int(size * 0.65)
        width = len(engines) * (int(size * 1.45) + 3)
        if mission.biotech:
            width += int(size * 0.8) + 2 + text_width(f"x{mission.biotech}", text) + 5
        if mission.science:
            width += size + 2 + text_width(f"x{mission.science}", text)
        if width <= max_width:
            break
        size -= 1
    text = max(9, int(size * 0.65))
    for value in engines:
        sprite = requirement_sprite(size, value)
        p.paste(sprite, x, y)
        x += sprite.width + 3
    if mission.biotech:
        x += p.bio(x, y, size, 1) + 1
        p.text((x, y + size / 2 + 1), f"x{mission.biotech}", text, TEXT, "lm")
        x += text_width(f"x{mission.biotech}", text) + 5
    if mission.science:
        p.icon(x, y, size, IconKind.SCIENCE, True)
        p.text((x + size + 2, y + size / 2 + 1), f"x{mission.science}", text, TEXT, "lm")


def _draw_missions(p: Painter, view: BoardView, box: Box) -> None:
    x0, y0, x1, y1 = box
    p.d.rounded_rectangle(box, radius=10, fill=PANEL, outline=PANEL_EDGE)
    p.text((x0 + 12, y0 + 7), "MISSIONS", 14, TEXT)
    p.text((x1 - 12, y0 + 10), "gold frame: available   purple: climactic", 10, DIM, "ra")
    gap = 10
    col_w = (x1 - x0 - 20 - 2 * gap) / 3
    for s, stack in enumerate(view.stacks):
        cx = x0 + 10 + s * (col_w + gap)
        cy = y0 + 32
        if not stack.missions:
            p.d.rounded_rectangle(
                (cx, cy, cx + col_w, cy + 172), radius=8, outline=PANEL_EDGE, width=2
            )
            p.text((cx + col_w / 2, cy + 86), "stack empty", 11, DIM, "mm")
            continue
        m = stack.missions[0]
        fill = CLIMACTIC_MISSION if m.climactic else REGULAR_MISSION
        p.d.rounded_rectangle(
            (cx, cy, cx + col_w, cy + 172), radius=8, fill=fill, outline=HIGHLIGHT, width=3
        )
        p.text((cx + 9, cy + 7), f"stack {s}", 10, DIM)
        if m.climactic:
            p.text((cx + col_w - 9, cy + 7), "CLIMACTIC", 10, (255, 176, 240), "ra")
        p.wrapped(cx + 6, cy + 22, col_w - 12, m.name, 12, TEXT)
        mx, my = cx + col_w / 2, cy + 76
        p.d.ellipse(
            (mx - 18, my - 18, mx + 18, my + 18),
            fill=(250, 240, 200),
            outline=(90, 70, 20),
            width=2,
        )
        p.text((mx, my + 1), str(m.value), 20, (50, 36, 0), "mm")
        _draw_requirements(p, cx + 9, cy + 102, m, 20, col_w - 18)
        if stack.resolving:
            p.d.rounded_rectangle(
                (cx + 8, cy + 126, cx + col_w - 8, cy + 141), radius=5, fill=(220, 60, 60)
            )
            p.text((cx + col_w / 2, cy + 133), "RESOLVING", 10, TEXT, "mm")
        _draw_bids(p, stack.bids, (cx + 9, cy + 144, cx + col_w - 9, cy + 166))
        ny = cy + 180
        for below in stack.missions[1:]:
            fill = CLIMACTIC_MISSION if below.climactic else REGULAR_MISSION
            p.d.rounded_rectangle(
                (cx + 4, ny, cx + col_w - 4, ny + 52),
                radius=6,
                fill=shade(fill, 0.78),
                outline=shade(fill, 1.5),
            )
            p.text((cx + 11, ny + 6), below.name, 10, TEXT, max_width=col_w - 44)
            p.text((cx + col_w - 11, ny + 4), str(below.value), 14, (250, 240, 200), "ra")
            _draw_requirements(p, cx + 11, ny + 26, below, 17, col_w - 22)
            ny += 58


def _draw_ship(p: Painter, panel: PlayerPanel, box: Box) -> None:
    """The ship's bounding box plus a margin of 1, scaled to fit `box`."""
    x0, y0, x1, y1 = box
    ship = {(cell.row, cell.col): cell for cell in panel.ship.cells}
    rows_used = [r for r, _ in ship]
    cols_used = [c for _, c in ship]
    r0, r1 = min(rows_used) - 1, max(rows_used) + 1
    c0, c1 = min(cols_used) - 1, max(cols_used) + 1
    rows, cols = r1 - r0 + 1, c1 - c0 + 1
    cell = int(min(76.0, (x1 - x0) / cols, (y1 - y0) / rows))
    ox = x0 + ((x1 - x0) - cell * cols) / 2
    oy = y0 + ((y1 - y0) - cell * rows) / 2
    seat_colour = SEAT_COLOURS[panel.seat % len(SEAT_COLOURS)]
    half = panel.ship.half
    inset = max(3, round(cell * 0.1))
    for r in range(r0, r1 + 1):
        for c in range(c0, c1 + 1):
            gx = ox + (c - c0) * cell
            gy = oy + (r - r0) * cell
            piece = ship.get((r, c))
            if piece is None:
                if -half <= r <= half and -half <= c <= half:
                    p.d.rectangle(
                        (gx + inset, gy + inset, gx + cell - 1 - inset, gy + cell - 1 - inset),
                        outline=(40, 47, 72),
                    )
                continue
            part = piece.part
            if part is None:
                sprite = ship_cell_sprite(cell, "", piece.mask, "", (), 0, None, seat_colour)
            else:
                first = part.icons[0] if part.icons else None
                icon = None if first is None else (IconKind(first.kind), first.every_round)
                sprite = ship_cell_sprite(
                    cell,
                    part.name,
                    part.mask,
                    part.category,
                    tuple(part.dice),
                    part.biotech,
                    icon,
                    None,
                )
            p.paste(sprite, gx, gy)


def _draw_player(p: Painter, panel: PlayerPanel, box: Box) -> None:
    x0, y0, x1, y1 = box
    seat = panel.seat
    colour = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
    acting = panel.acting
    p.d.rounded_rectangle(
        box,
        radius=10,
        fill=PANEL,
        outline=HIGHLIGHT if acting else colour,
        width=3 if acting else 2,
    )
    p.d.rounded_rectangle((x0 + 3, y0 + 3, x1 - 3, y0 + 27), radius=8, fill=shade(colour, 0.72))
    title = f"P{seat}" + ("  (you)" if panel.you else "")
    p.text((x0 + 11, y0 + 8), title, 13, TEXT)
    tx = x0 + 11 + p.width(title, 13) + 10
    if panel.first:
        tx += p.pill(tx, y0 + 8, "FIRST", (235, 235, 245), INK, 9) + 5
    if acting:
        p.pill(tx, y0 + 8, "TO ACT", HIGHLIGHT, INK, 9)
    p.text((x1 - 11, y0 + 6), f"{panel.points} pts", 15, TEXT, "ra")
    # resources: crew, science, bio-tech, then engines as dice
    y = y0 + 34
    x = x0 + 11
    bio = str(panel.biotech)
    if panel.temp_biotech:
        bio += f" (+{panel.temp_biotech})"
    for swatch, label in (
        (GOLD, f"crew {panel.crew}"),
        (ICON_COLOURS[IconKind.SCIENCE], f"sci {panel.science}"),
        (BIO_COLOUR, f"bio {bio}"),
    ):
        p.d.ellipse((x, y + 1, x + 10, y + 11), fill=swatch)
        p.text((x + 14, y), label, 11, TEXT)
        x += 14 + p.width(label, 11) + 10
    if panel.engines:
        p.text((x, y), "eng", 11, DIM)
        x += p.width("eng", 11) + 4
        for v in panel.engines:
            if x + 14 > x1 - 8:
                break
            p.die(x, y - 1, 14, v, pips=False)
            x += 16
    # tiles in hand (values only for the viewer) and connector counts
    y += 19
    p.text((x0 + 11, y + 3), "hand", 10, DIM)
    tx = x0 + 42
    hand: list[int | None] = list(panel.hand) if panel.hand is not None else []
    hand += [None] * (panel.hand_count - len(hand))
    for t in hand:
        p.tile(tx, y, 15, 17, seat, t, False)
        tx += 17
    open_, linked, blocked = panel.connectors
    conn = f"open {open_}  linked {linked}  blocked {blocked}"
    if tx + 8 + p.width(conn, 10) <= x1 - 11:
        p.text((x1 - 11, y + 3), conn, 10, DIM, "ra")
    else:  # a narrow panel: the connector counts get their own line
        y += 20
        p.text((x0 + 11, y), "connectors: " + conn, 10, DIM, max_width=x1 - x0 - 22)
        y -= 4
    y += 22
    if panel.pending:
        names = [
            part.name + (" (placing)" if part.id == panel.selected else "")
            for part in panel.pending
        ]
        p.text((x0 + 11, y), "pending: " + ", ".join(names), 10, HIGHLIGHT, max_width=x1 - x0 - 22)
        y += 14
    _draw_ship(p, panel, (x0 + 6, y + 2, x1 - 6, y1 - 6))


def _draw_header(p: Painter, view: BoardView, width: int) -> None:
    p.d.rectangle((0, 0, width, 28), fill=(10, 12, 22))
    p.text((12, 5), "FARLIGHT", 16, HIGHLIGHT)
    if view.current_player is None:
        status = f"Round {view.round}   |   game over: {view.note}"
    else:
        status = (
            f"Round {view.round}   |   {view.phase}   |   to act: P{view.current_player} "
            f"({view.note})   |   first: P{view.first_player}"
        )
    p.text((104, 8), status, 12, TEXT, max_width=560)
    awards = "Awards: " + ", ".join(view.awards_up) + f"  (+{view.awards_down} face down)"
    who = "spectator" if view.viewer is None else f"view of P{view.viewer}"
    p.text((width - 12, 8), f"{awards}   |   {who}", 12, TEXT, "ra")


def _draw_game_over(p: Painter, view: BoardView, box: Box) -> None:
    final = view.final
    if final is None:
        return
    x0, y0, x1, y1 = box
    p.d.rounded_rectangle(box, radius=12, fill=(12, 14, 26), outline=HIGHLIGHT, width=3)
    p.text(((x0 + x1) / 2, y0 + 12), "GAME OVER", 20, HIGHLIGHT, "ma")
    p.text(((x0 + x1) / 2, y0 + 40), f"{final.reason} (round {final.round})", 11, DIM, "ma")
    heads = ("player", "missions", "awards", "tokens", "total")
    cols = [x0 + 40 + i * ((x1 - x0 - 60) / 5) for i in range(5)]
    y = y0 + 64
    for cx, head in zip(cols, heads, strict=True):
        p.text((cx, y), head, 11, DIM)
    winners = set(final.winners)
    for row in final.rows:
        y += 21
        seat = row.seat
        values = (
            f"P{seat}" + ("  WIN" if seat in winners else ""),
            row.missions,
            row.awards,
            row.tokens,
            row.total,
        )
        for i, (cx, value) in enumerate(zip(cols, values, strict=True)):
            p.text((cx, y), str(value), 13, SEAT_COLOURS[seat % 5] if i == 0 else TEXT)
    names = ", ".join(f"P{s}" for s in sorted(winners))
    label = "Winner" if len(winners) == 1 else "Shared victory"
    p.text(((x0 + x1) / 2, y + 30), f"{label}: {names}", 15, HIGHLIGHT, "ma")


def render_rgb(game: FarlightGame, viewer: int | None) -> np.ndarray:
    """The game as an RGB picture (uint8, RGB_SIZE[1] × RGB_SIZE[0] × 3) for seat `viewer`."""
    return draw_picture(board_view(game, viewer))


def draw_picture(view: BoardView) -> np.ndarray:
    """The picture of a `BoardView` (uint8, RGB_SIZE[1] × RGB_SIZE[0] × 3)."""
    n = view.num_players
    width, height = RGB_SIZE
    image = Image.new("RGB", (width, height), BACKGROUND)
    p = Painter(image)
    _draw_header(p, view, width)
    top, split = STATION_BOX[1], STATION_BOX[3]
    _draw_station(p, view, STATION_BOX)
    _draw_missions(p, view, (820, top, width - 8, split))
    gap = 8
    panel_w = (width - 16 - gap * (n - 1)) / n
    for seat, panel in enumerate(view.players):
        px = 8 + seat * (panel_w + gap)
        _draw_player(p, panel, (px, split + 8, px + panel_w, height - 8))
    _draw_game_over(p, view, (width / 2 - 240, 110, width / 2 + 240, 110 + 124 + 21 * n))
    return np.array(image, dtype=np.uint8)
