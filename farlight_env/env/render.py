"""Pictures of a game as one seat may see it: a text board (`render_ansi`) and an image
(`render_rgb`, drawn with Pillow).

Both are pure functions of the game state and a viewer seat (None: a spectator). They show
only what that viewer may know (R-BID-5, R-SETUP-2): opponents' tiles on the board and in hand
appear as '?' or a count, the part deck only as a count, the face-down awards only as a count.
Public facts (station, dice, bonus crew, missions in the stacks, ships, crew, science, points,
who bid where and with crew) are shown in full. Same state and viewer give the same output.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from farlight_env.cards.model import FACILITIES, IconKind, MissionCard, PartCard, Timing
from farlight_env.game.game import EndReason, FarlightGame, Phase
from farlight_env.game.ship import CORE, CORE_MASK, DOWN, LEFT, RIGHT, UP

__all__ = ["RGB_SIZE", "render_ansi", "render_rgb"]

#: (width, height) of every `render_rgb` frame, whatever the player count.
RGB_SIZE: tuple[int, int] = (1280, 800)
STATION_BOX: tuple[int, int, int, int] = (8, 34, 812, 432)  # the station panel in the picture

FACILITY_EFFECTS: tuple[str, ...] = (
    "remove own parts",
    "+3 crew",
    "+1 science",
    "+1 to an engine",
)
FACILITY_NAME_SIZE = 13  # text sizes and inner margin of a facility box's header line
FACILITY_EFFECT_SIZE = 11
FACILITY_PAD = 9
END_REASONS: dict[EndReason, str] = {
    EndReason.CLIMACTIC: "a climactic mission was completed",
    EndReason.DECK: "the part deck ran out",
    EndReason.ROUND_CAP: "the round cap was reached (truncated)",
}


# ------------------------------------------------------------------------------ shared view
def _mask(game: FarlightGame, piece: int) -> int:
    return CORE_MASK if piece == CORE else game.part_masks[piece]


def _facility_slot(game: FarlightGame, index: int) -> int:
    return game.num_spaces + index


def _mission_slot(game: FarlightGame, stack: int) -> int:
    return game.num_spaces + len(FACILITIES) + stack


def _visible_bids(
    game: FarlightGame, slot: int, viewer: int | None
) -> list[tuple[int, list[tuple[int | None, bool]]]]:
    """Per seat (seat order) its tiles on a target as (value or None if hidden, crew on it).

    Values are hidden from others only while bidding; then all tiles are flipped (R-BID-5).
    """
    revealed = game.phase is not Phase.BIDDING
    per_seat: dict[int, list[tuple[int | None, bool]]] = {}
    for seat, tile, crew in game.bids[slot]:
        shown = tile if revealed or seat == viewer else None
        per_seat.setdefault(seat, []).append((shown, bool(crew)))
    return sorted(per_seat.items())


def _phase_note(game: FarlightGame) -> str:
    """What the acting player is deciding, in words (public information only)."""
    phase = game.phase
    parts = game.cards.parts
    if phase is Phase.BIDDING:
        return "placing bidding tiles"
    if phase is Phase.REFIT:
        return "Refit: removing parts"
    if phase is Phase.ENGINEER:
        return "Engineer: +1 to an engine"
    if phase is Phase.INSTALL:
        part = game.selected_part()
        return "choosing a pending part" if part is None else f"installing {parts[part].name}"
    if phase is Phase.UPGRADE:
        return "upgrade icon: +1 to an engine"
    if phase is Phase.OVERHAUL:
        return "overhaul icon: set an engine to 6"
    if phase is Phase.MISSION:
        mission = game.mission_being_resolved()
        name = "?" if mission is None else game.cards.missions[mission].name
        return f"complete or pass {name}"
    return END_REASONS.get(game.end_reason, "game over") if game.end_reason else "game over"


# --------------------------------------------------------------------------------- ansi
ARROWS: tuple[tuple[int, str], ...] = ((UP, "↑"), (RIGHT, "→"), (DOWN, "↓"), (LEFT, "←"))
ICON_ABBR: dict[IconKind, str] = {
    IconKind.CREW: "crew",
    IconKind.SCIENCE: "sci",
    IconKind.UPGRADE: "upg",
    IconKind.OVERHAUL: "ovh",
}
SHIP_LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _arrows(mask: int) -> str:
    return "".join(arrow if mask & bit else "·" for bit, arrow in ARROWS)


def _icons_text(part: PartCard) -> str:
    return " ".join(
        ("↻" if icon.timing is Timing.EVERY_ROUND else "1×") + ICON_ABBR[icon.kind]
        for icon in part.icons
    )


def _engines_text(game: FarlightGame, part: PartCard) -> str:
    return " ".join(f"⚙{game.engine_values.get(rank, '?')}" for rank in part.engines)


def _part_text(game: FarlightGame, part_id: int) -> str:
    """One-line description of a part card: name, connectors, cost, icons, bio, engines."""
    part = game.cards.parts[part_id]
    bits = [part.name, _arrows(game.part_masks[part_id]), f"cost {part.crew_cost}"]
    if part.icons:
        bits.append(_icons_text(part))
    if part.biotech:
        bits.append(f"bio {part.biotech}")
    if part.engines:
        bits.append(_engines_text(game, part))
    return " ".join(bits)


def _requirements_text(mission: MissionCard) -> str:
    bits = [f"⚙≥{v}" for v in sorted(mission.engines, reverse=True)]
    if mission.biotech:
        bits.append(f"bio {mission.biotech}")
    if mission.science:
        bits.append(f"sci {mission.science}")
    return " ".join(bits)


def _bids_text(game: FarlightGame, slot: int, viewer: int | None) -> str:
    groups = []
    for seat, tiles in _visible_bids(game, slot, viewer):
        shown = " ".join(
            ("?" if v is None else str(v)) + ("+" if crew else "") for v, crew in tiles
        )
        text = f"P{seat}[{shown}]"
        if seat == viewer or game.phase is not Phase.BIDDING:
            text += f"={game.bid_total(seat, slot)}"
        groups.append(text)
    return "  ".join(groups)


def _ansi_cell(game: FarlightGame, piece: int | None, label: str, in_grid: bool) -> list[str]:
    """3×3 characters: the piece's label in the centre, connector stubs on its sides."""
    if piece is None:
        return ["   ", " · " if in_grid else "   ", "   "]
    mask = _mask(game, piece)
    if piece == CORE:
        vert, horiz, dice = "┃", "━", ["", ""]
    else:
        vert, horiz = "│", "─"
        dice = [str(game.engine_values.get(r, "?")) for r in game.cards.parts[piece].engines]
        dice += ["", ""]
    top = " " + (vert if mask & UP else " ") + (dice[0] or " ")
    mid = (horiz if mask & LEFT else " ") + label + (horiz if mask & RIGHT else " ")
    bottom = " " + (vert if mask & DOWN else " ") + (dice[1] or " ")
    return [top, mid, bottom]


def _ansi_ship(game: FarlightGame, seat: int) -> tuple[list[str], list[str]]:
    """The ship as text rows (bounding box plus a margin of 1) and its legend lines.

    Rows and columns are labelled with the (row, col) offsets from the core that install
    choices use ("install X at (-1,+0)": one row up, same column).
    """
    ship = game.ships[seat]
    labels = {CORE: "◆"}
    legend = []
    for i, part in enumerate(game.ship_parts[seat]):
        label = SHIP_LABELS[i % len(SHIP_LABELS)]
        labels[part] = label
        legend.append(f"{label} {_part_text(game, part)}")
    rows = [r for r, _ in ship]
    cols = [c for _, c in ship]
    half = game.half
    first, last = min(cols) - 1, max(cols) + 1
    lines = ["   " + "".join(f"{c:+d}".rjust(2).ljust(3) for c in range(first, last + 1))]
    for r in range(min(rows) - 1, max(rows) + 2):
        band = ["   ", f"{r:+d}".rjust(2).ljust(3), "   "]
        for c in range(first, last + 1):
            piece = ship.get((r, c))
            in_grid = -half <= r <= half and -half <= c <= half
            cell = _ansi_cell(game, piece, labels.get(piece, "?"), in_grid)
            for k in range(3):
                band[k] += cell[k]
        lines.extend(band)
    return lines, legend


def _player_info(game: FarlightGame, seat: int, viewer: int | None) -> list[str]:
    tags = []
    if seat == viewer:
        tags.append("you")
    if seat == game.first_player:
        tags.append("first player")
    if seat == game.current_player:
        tags.append("▶ to act")
    title = f"P{seat}" + (f" ({', '.join(tags)})" if tags else "")
    bio = f"bio-tech {game.biotech(seat)}"
    if game.temp_biotech[seat]:
        bio += f" (+{game.temp_biotech[seat]} temporary)"
    resources = (
        f"crew {game.crew[seat]}  science {game.science[seat]}  points {game.points[seat]}  {bio}"
    )
    hand = game.hands[seat]
    if seat == viewer:
        tiles = "tiles in hand: " + (" ".join(str(t) for t in sorted(hand)) or "none")
    else:
        tiles = f"tiles in hand: {len(hand)}"
    engines = [v for _, v in sorted(game.engines(seat))]
    if engines:
        engine_text = "engines: " + " ".join(f"⚙{v}" for v in engines) + f" (sum {sum(engines)})"
    else:
        engine_text = "engines: none"
    open_, linked, blocked = game.connectors(seat)
    lines = [
        title,
        resources,
        tiles,
        engine_text,
        f"connectors: {open_} open, {linked} linked, {blocked} blocked",
    ]
    selected = game.selected_part() if game.current_player == seat else None
    for part in game.pending[seat]:
        mark = " (selected)" if part == selected else ""
        lines.append(f"pending: {_part_text(game, part)}{mark}")
    return lines


def render_ansi(game: FarlightGame, viewer: int | None) -> str:
    """The game as text, as seat `viewer` sees it (None: a spectator seeing no tile values)."""
    n = game.num_players
    if viewer is not None and not 0 <= viewer < n:
        raise ValueError(f"viewer must be a seat 0..{n - 1} or None, got {viewer!r}")
    parts = game.cards.parts
    missions = game.cards.missions
    out: list[str] = []
    acting = "-" if game.current_player is None else f"P{game.current_player}"
    out.append(
        f"═══ Farlight · round {game.round} · {game.phase.value} · to act: {acting} "
        f"({_phase_note(game)}) · first player: P{game.first_player} ═══"
    )
    who = "spectator (no tile values)" if viewer is None else f"P{viewer}"
    out.append(
        f"view: {who} · awards face up: {', '.join(game.awards_up)} "
        f"(+{len(game.awards_down)} face down) · part deck: {len(game.deck)} cards"
    )
    out.append("")

    # -- station
    out.append("STATION  (conn ↑→↓←; icons ↻ every round, 1× once; bids: ? hidden, + crew on tile)")
    out.append(f" #  {'part':<25} conn  cost  {'icons':<13}  bio  {'engines':<7}  bonus  bids")
    for slot, part_id in enumerate(game.spaces):
        if part_id is None:
            out.append(f"{slot:>2}  (empty)")
            continue
        part = parts[part_id]
        bonus = f"+{game.bonus[slot]}" if game.bonus[slot] else "-"
        row = (
            f"{slot:>2}  {part.name:<25} {_arrows(game.part_masks[part_id])}  "
            f"{part.crew_cost:>3}   {_icons_text(part) or '-':<13}  {part.biotech or '-':>3}  "
            f"{_engines_text(game, part) or '-':<7}  {bonus:>5}  {_bids_text(game, slot, viewer)}"
        )
        out.append(row.rstrip())
    out.append("FACILITIES")
    for index, name in enumerate(FACILITIES):
        bids = _bids_text(game, _facility_slot(game, index), viewer)
        out.append(f"    {name:<9} {FACILITY_EFFECTS[index]:<17} {bids}".rstrip())
    out.append("")

    # -- missions
    out.append("MISSIONS  (▶ available top card, ★ climactic)")
    resolving = game.mission_being_resolved()
    for s, stack in enumerate(game.stacks):
        if not stack:
            out.append(f" stack {s}  (empty)")
            continue
        for depth, mission_id in enumerate(stack):
            m = missions[mission_id]
            head = f" stack {s}  ▶ " if depth == 0 else "            "
            star = "★" if m.climactic else " "
            row = f"{head}{m.name:<27}{star} {m.value:>2}  {_requirements_text(m):<22}"
            if depth == 0:
                bids = _bids_text(game, _mission_slot(game, s), viewer)
                if bids:
                    row += f" bids: {bids}"
                if mission_id == resolving:
                    row += "  ◆ resolving"
            out.append(row.rstrip())
    out.append("")

    # -- players
    out.append("PLAYERS  (ship: ◆ core, letters = parts, digits = engine dice)")
    for seat in range(n):
        ship_lines, legend = _ansi_ship(game, seat)
        info = _player_info(game, seat, viewer) + legend
        width = max(len(line) for line in ship_lines)
        for k in range(max(len(ship_lines), len(info))):
            left = ship_lines[k] if k < len(ship_lines) else " " * width
            right = info[k] if k < len(info) else ""
            out.append(f"  {left}   {right}".rstrip())
        out.append("")

    # -- end of game
    if game.is_over and game.final_breakdown is not None:
        reason = END_REASONS.get(game.end_reason, "") if game.end_reason else ""
        out.append(f"GAME OVER · {reason} · round {game.round}")
        for award in game.awards_up:
            holders = " ".join(f"P{s}" for s in game.award_holders(award))
            out.append(f"  award {award:<11} → {holders}")
        out.append("  player  missions  awards  tokens  total")
        for seat, parts_of in enumerate(game.final_breakdown):
            out.append(
                f"  P{seat:<6}{parts_of['missions']:>9}{parts_of['awards']:>8}"
                f"{parts_of['tokens']:>8}{game.points[seat]:>7}"
            )
        winners = game.winners()
        names = ", ".join(f"P{s}" for s in winners)
        out.append(f"  {'Winner' if len(winners) == 1 else 'Shared victory'}: {names}")
    return "\n".join(out).rstrip() + "\n"


# ---------------------------------------------------------------------------------- rgb
RGB = tuple[int, int, int]
Box = tuple[float, float, float, float]
BACKGROUND: RGB = (16, 20, 34)
PANEL: RGB = (28, 34, 54)
PANEL_EDGE: RGB = (58, 68, 100)
TEXT: RGB = (236, 240, 248)
DIM: RGB = (146, 156, 182)
INK: RGB = (18, 18, 18)
STUB: RGB = (250, 210, 90)
GOLD: RGB = (246, 206, 84)
HIGHLIGHT: RGB = (255, 226, 120)
SEAT_COLOURS: tuple[RGB, ...] = (
    (226, 78, 78),
    (72, 140, 238),
    (70, 190, 100),
    (236, 190, 48),
    (182, 100, 226),
)
CATEGORY_COLOURS: dict[str, RGB] = {
    "engine": (168, 84, 44),
    "bio": (44, 120, 68),
    "science": (44, 88, 164),
    "crew": (132, 104, 50),
    "tech": (110, 64, 146),
    "hull": (86, 92, 108),
}
ICON_COLOURS: dict[IconKind, RGB] = {
    IconKind.CREW: GOLD,
    IconKind.SCIENCE: (110, 196, 255),
    IconKind.UPGRADE: (255, 150, 64),
    IconKind.OVERHAUL: (250, 86, 86),
}
ICON_LETTERS: dict[IconKind, str] = {
    IconKind.CREW: "C",
    IconKind.SCIENCE: "S",
    IconKind.UPGRADE: "U",
    IconKind.OVERHAUL: "O",
}
BIO_COLOUR: RGB = (120, 226, 120)
REGULAR_MISSION: RGB = (28, 92, 102)
CLIMACTIC_MISSION: RGB = (124, 38, 112)
PIPS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.27, 0.27), (0.73, 0.73)),
    3: ((0.27, 0.27), (0.5, 0.5), (0.73, 0.73)),
    4: ((0.27, 0.27), (0.73, 0.27), (0.27, 0.73), (0.73, 0.73)),
    5: ((0.27, 0.27), (0.73, 0.27), (0.5, 0.5), (0.27, 0.73), (0.73, 0.73)),
    6: ((0.27, 0.24), (0.73, 0.24), (0.27, 0.5), (0.73, 0.5), (0.27, 0.76), (0.73, 0.76)),
}


def _category(part: PartCard) -> str:
    """The card colour: what the part is mostly for."""
    kinds = {icon.kind for icon in part.icons}
    if part.engines:
        return "engine"
    if part.biotech:
        return "bio"
    if IconKind.SCIENCE in kinds:
        return "science"
    if IconKind.CREW in kinds:
        return "crew"
    if kinds:
        return "tech"
    return "hull"


def _shade(colour: RGB, factor: float) -> RGB:
    r, g, b = (max(0, min(255, int(c * factor))) for c in colour)
    return r, g, b


# Sprites: small pictures drawn once and pasted many times (text rendering dominates the cost).
@lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, ImportError, OSError):  # Pillow without FreeType: the fixed bitmap font
        return ImageFont.load_default()


@lru_cache(maxsize=64)
def _extra_space(size: int) -> int:
    """Pixels added to each space: the default font's space is 2 px up to 11 px, which runs
    small words together ("+1 toan engine"); a space of 0.4 of the size reads well."""
    font = _font(size)
    if not isinstance(font, ImageFont.FreeTypeFont):
        return 0
    return max(0, round(size * 0.4) - round(font.getlength(" ")))


@lru_cache(maxsize=4096)
def _text_width(text: str, size: int) -> float:
    return float(_font(size).getlength(text)) + _extra_space(size) * text.count(" ")


@lru_cache(maxsize=4096)
def _fit(text: str, size: int, max_width: int) -> str:
    """`text`, shortened with a trailing '.' until it is at most `max_width` pixels wide."""
    if _text_width(text, size) <= max_width:
        return text
    while len(text) > 1 and _text_width(text + ".", size) > max_width:
        text = text[:-1]
    return text.rstrip() + "."


@lru_cache(maxsize=8192)
def _text_sprite(text: str, size: int, anchor: str) -> tuple[Image.Image, int, int]:
    """A text mask and its offset from the anchor point."""
    font = _font(size)
    extra = _extra_space(size)
    if extra and " " in text.strip():
        return _spaced_text_sprite(text, size, anchor, extra)
    try:
        left, top, right, bottom = font.getbbox(text, anchor=anchor)
    except (ValueError, TypeError):  # bitmap fonts know no anchors
        left, top, right, bottom = font.getbbox(text)
        anchor = "la"
    mask = Image.new("L", (max(1, right - left), max(1, bottom - top)))
    ImageDraw.Draw(mask).text((-left, -top), text, font=font, fill=255, anchor=anchor)
    return mask, left, top


def _spaced_text_sprite(
    text: str, size: int, anchor: str, extra: int
) -> tuple[Image.Image, int, int]:
    """Like `_text_sprite`, with `extra` pixels after every space (word by word)."""
    font = _font(size)
    assert isinstance(font, ImageFont.FreeTypeFont)
    line_anchor = "l" + anchor[1]
    left, top, right, bottom = font.getbbox(text, anchor=line_anchor)
    grow = extra * text.count(" ")
    advance = _text_width(text, size)
    mask = Image.new("L", (max(1, right - left + grow), max(1, bottom - top)))
    draw = ImageDraw.Draw(mask)
    x = float(-left)
    for word in text.split(" "):
        if word:
            draw.text((x, -top), word, font=font, fill=255, anchor=line_anchor)
        x += font.getlength(word + " ") + extra
    shift = {"l": 0.0, "m": advance / 2, "r": advance}[anchor[0]]
    return mask, round(left - shift), top


@lru_cache(maxsize=512)
def _die_sprite(size: int, value: int | None, pips: bool) -> Image.Image:
    """A white die showing `value` with pips (or its number when small or unknown)."""
    im = Image.new("RGBA", (size + 1, size + 1), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    d.rounded_rectangle(
        (0, 0, size, size),
        radius=max(2, size // 5),
        fill=(250, 250, 244, 255),
        outline=(40, 40, 40, 255),
    )
    if value is not None and 1 <= value <= 6 and pips and size >= 13:
        r = max(1.2, size / 10)
        for px, py in PIPS[value]:
            cx, cy = px * size, py * size
            d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=INK)
    else:
        label = "?" if value is None else str(value)
        d.text(
            (size / 2, size / 2 + 1),
            label,
            font=_font(max(7, int(size * 0.75))),
            fill=INK,
            anchor="mm",
        )
    return im


@lru_cache(maxsize=256)
def _icon_sprite(size: int, kind: IconKind, every_round: bool) -> Image.Image:
    """Every-round icons are rounded squares, one-time icons circles, with the kind's letter."""
    im = Image.new("RGBA", (size + 1, size + 1), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    box = (0, 0, size, size)
    if every_round:
        d.rounded_rectangle(box, radius=max(2, size // 5), fill=ICON_COLOURS[kind], outline=INK)
    else:
        d.ellipse(box, fill=ICON_COLOURS[kind], outline=INK)
    d.text(
        (size / 2, size / 2 + 1),
        ICON_LETTERS[kind],
        font=_font(max(7, int(size * 0.68))),
        fill=INK,
        anchor="mm",
    )
    return im


@lru_cache(maxsize=128)
def _bio_sprite(size: int, count: int) -> Image.Image:
    """Bio-tech: green leaves, one per icon."""
    step = int(size * 0.55)
    width = int(size * 0.8) + step * (count - 1)
    im = Image.new("RGBA", (width + 2, size + 1), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    for i in range(count):
        x = i * step
        d.ellipse((x, 0, x + int(size * 0.8), size), fill=BIO_COLOUR, outline=(20, 70, 20))
        d.line(
            (x + size * 0.4, size * 0.2, x + size * 0.4, size * 0.85), fill=(30, 110, 40), width=1
        )
    return im


@lru_cache(maxsize=1024)
def _tile_sprite(w: int, h: int, seat: int, label: str, crew: bool) -> Image.Image:
    """A bidding tile in seat colour with its value or '?', a white dot when crew rides on it."""
    im = Image.new("RGBA", (w + 1, h + 1), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    d.rounded_rectangle((0, 0, w, h), radius=3, fill=SEAT_COLOURS[seat % 5], outline=(10, 10, 10))
    size = max(7, min(13, int(h * 0.55), int(w * 0.95)))
    d.text(
        (w / 2, h / 2 - (3 if crew else 0) + 1),
        label,
        font=_font(size),
        fill=(10, 10, 10),
        anchor="mm",
    )
    if crew:
        r = max(1.5, min(w, h) / 7)
        cx, cy = w / 2, h - r - 2
        d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(255, 255, 255), outline=(0, 0, 0))
    return im


def _draw_stubs(
    d: ImageDraw.ImageDraw, box: Box, mask: int, length: float, thick: float, colour: RGB = STUB
) -> None:
    """Connector stubs straddling the middle of each connected edge of `box`."""
    x0, y0, x1, y1 = box
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    hl, ht = length / 2, thick / 2
    if mask & UP:
        d.rectangle((cx - hl, y0 - ht, cx + hl, y0 + ht), fill=colour)
    if mask & DOWN:
        d.rectangle((cx - hl, y1 - ht, cx + hl, y1 + ht), fill=colour)
    if mask & LEFT:
        d.rectangle((x0 - ht, cy - hl, x0 + ht, cy + hl), fill=colour)
    if mask & RIGHT:
        d.rectangle((x1 - ht, cy - hl, x1 + ht, cy + hl), fill=colour)


def _initials(name: str) -> str:
    words = [w for w in name.replace("-", " ").split() if w[0].isalnum()]
    return "".join(w[0] for w in words[:3]).upper()


@lru_cache(maxsize=2048)
def _ship_cell_sprite(
    size: int,
    name: str,
    mask: int,
    category: str,
    dice: tuple[int | None, ...],
    biotech: int,
    icon: tuple[IconKind, bool] | None,
    core_colour: RGB | None,
) -> Image.Image:
    """One ship cell (size × size): a small card with connector stubs, initials and dice."""
    im = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    inset = max(3, round(size * 0.1))
    box = (inset, inset, size - 1 - inset, size - 1 - inset)
    inner = box[2] - box[0]
    stub_len, stub_thick = size * 0.34, max(3.0, size * 0.11)
    if core_colour is not None:
        d.rounded_rectangle(
            box, radius=5, fill=_shade(core_colour, 0.85), outline=(255, 255, 255), width=2
        )
        _draw_stubs(d, box, mask, stub_len, stub_thick)
        d.text(
            ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2),
            "CORE",
            font=_font(max(7, int(size * 0.2))),
            fill=TEXT,
            anchor="mm",
        )
        return im
    colour = CATEGORY_COLOURS[category]
    d.rounded_rectangle(box, radius=5, fill=colour, outline=_shade(colour, 1.7), width=2)
    _draw_stubs(d, box, mask, stub_len, stub_thick)
    if size >= 34:
        d.text((box[0] + 4, box[1] + 3), _initials(name), font=_font(int(size * 0.2)), fill=TEXT)
    if dice:
        ds = int(min(inner * 0.44, 20))
        for i, value in enumerate(dice):
            die = _die_sprite(ds, value, ds >= 14)
            x = int(box[2] - 3 - ds - i * (ds + 2))
            im.alpha_composite(die, (max(0, x), int(box[3] - 3 - ds)))
    elif biotech:
        leaf = _bio_sprite(max(6, int(inner * 0.32)), biotech)
        im.alpha_composite(leaf, (int(box[0] + 4), int(box[3] - 3 - inner * 0.32)))
    elif icon is not None:
        isz = max(6, int(inner * 0.32))
        im.alpha_composite(
            _icon_sprite(isz, icon[0], icon[1]), (int(box[0] + 4), int(box[3] - 3 - isz))
        )
    return im


class _Painter:
    """Draws on one image: shapes through ImageDraw, text and glyphs pasted from sprites."""

    def __init__(self, image: Image.Image) -> None:
        self.image = image
        self.d = ImageDraw.Draw(image)

    def paste(self, sprite: Image.Image, x: float, y: float) -> None:
        self.image.paste(sprite, (round(x), round(y)), sprite)

    def text(
        self,
        xy: tuple[float, float],
        text: str,
        size: int = 11,
        fill: RGB = TEXT,
        anchor: str = "la",
        max_width: float | None = None,
    ) -> None:
        if max_width is not None:
            text = _fit(text, size, int(max_width))
        if not text:
            return
        mask, left, top = _text_sprite(text, size, anchor)
        self.image.paste(fill, (round(xy[0]) + left, round(xy[1]) + top), mask)

    def width(self, text: str, size: int) -> float:
        return _text_width(text, size)

    def wrapped(
        self, x: float, y: float, width: float, text: str, size: int, fill: RGB, lines: int = 2
    ) -> None:
        """Centred text on up to `lines` lines (words kept whole when they fit)."""
        rows: list[str] = []
        for word in text.split():
            if rows and _text_width(rows[-1] + " " + word, size) <= width:
                rows[-1] += " " + word
            else:
                rows.append(word)
        if len(rows) > lines:
            rows = rows[: lines - 1] + [" ".join(rows[lines - 1 :])]
        for i, row in enumerate(rows):
            self.text((x + width / 2, y + i * (size + 3)), row, size, fill, "ma", width)

    def die(self, x: float, y: float, size: float, value: int | None, pips: bool = True) -> None:
        self.paste(_die_sprite(int(size), value, pips), x, y)

    def icon(self, x: float, y: float, size: float, kind: IconKind, every_round: bool) -> None:
        self.paste(_icon_sprite(int(size), kind, every_round), x, y)

    def bio(self, x: float, y: float, size: float, count: int) -> float:
        sprite = _bio_sprite(int(size), count)
        self.paste(sprite, x, y)
        return sprite.width

    def tile(
        self, x: float, y: float, w: float, h: float, seat: int, value: int | None, crew: bool
    ) -> None:
        label = "?" if value is None else str(value)
        self.paste(_tile_sprite(int(w), int(h), seat, label, crew), x, y)

    def pill(
        self,
        x: float,
        y: float,
        text: str,
        fill: RGB,
        ink: RGB = INK,
        size: int = 10,
        anchor_right: bool = False,
    ) -> float:
        """A small rounded label; returns its width."""
        w = self.width(text, size) + 10
        if anchor_right:
            x -= w
        self.d.rounded_rectangle((x, y, x + w, y + size + 6), radius=(size + 6) // 2, fill=fill)
        self.text((x + w / 2, y + (size + 6) / 2 + 1), text, size, ink, "mm")
        return w


def _draw_bids(
    p: _Painter, game: FarlightGame, slot: int, viewer: int | None, box: Box, tile_w: float = 17
) -> None:
    """The bids on a target as seat-coloured tiles, grouped by seat, filling `box`."""
    groups = _visible_bids(game, slot, viewer)
    if not groups:
        return
    x0, y0, x1, y1 = box
    count = sum(len(tiles) for _, tiles in groups)
    gap_seat = 5
    avail = (x1 - x0) - gap_seat * (len(groups) - 1)
    rows = 1 if count * (tile_w + 2) <= avail else 2
    h = min(24.0, (y1 - y0) if rows == 1 else (y1 - y0 - 2) / 2)
    per_row = -(-count // rows)
    w = min(tile_w, (avail - 2 * per_row) / per_row)
    x, y, placed = x0, y0, 0
    for seat, tiles in groups:
        for value, crew in tiles:
            if rows == 2 and placed == per_row:
                x, y = x0, y0 + h + 2
            p.tile(x, y, w, h, seat, value, crew)
            x += w + 2
            placed += 1
        x += gap_seat


def _draw_part_card(
    p: _Painter, game: FarlightGame, slot: int, viewer: int | None, box: Box
) -> None:
    x0, y0, x1, y1 = box
    w = x1 - x0
    part_id = game.spaces[slot]
    if part_id is None:
        p.d.rounded_rectangle(box, radius=8, outline=PANEL_EDGE, width=2)
        p.text((x0 + w / 2, (y0 + y1) / 2), f"#{slot}  empty", 11, DIM, "mm")
        return
    part = game.cards.parts[part_id]
    colour = CATEGORY_COLOURS[_category(part)]
    p.d.rounded_rectangle(box, radius=8, fill=colour, outline=_shade(colour, 1.7), width=2)
    p.d.rounded_rectangle((x0 + 3, y0 + 3, x1 - 3, y0 + 40), radius=6, fill=_shade(colour, 0.68))
    _draw_stubs(p.d, box, game.part_masks[part_id], 28, 8)
    two_lines = _text_width(part.name, 12) > w - 14
    p.wrapped(x0 + 7, y0 + 7 if two_lines else y0 + 15, w - 14, part.name, 12, TEXT)
    # right end of the icon row: space number and crew cost (a gold coin)
    rx = x1 - 8
    if part.crew_cost:
        cx, cy = rx - 10, y0 + 57
        p.d.ellipse((cx - 10, cy - 10, cx + 10, cy + 10), fill=GOLD, outline=(70, 48, 0), width=2)
        p.text((cx, cy + 1), str(part.crew_cost), 12, (50, 32, 0), "mm")
        rx -= 24
    p.text((rx, y0 + 52), f"#{slot}", 10, _shade(TEXT, 0.8), "ra")
    ix = x0 + 9
    for icon in part.icons:
        p.icon(ix, y0 + 47, 20, icon.kind, icon.timing is Timing.EVERY_ROUND)
        ix += 24
    if part.biotech:
        p.bio(ix + 2, y0 + 47, 20, part.biotech)
    dx = x0 + 9
    for rank in part.engines:
        p.die(dx, y0 + 72, 24, game.engine_values.get(rank))
        dx += 29
    if game.bonus[slot]:  # bonus crew lying on the space
        p.pill(x1 - 8, y0 + 77, f"+{game.bonus[slot]} crew", GOLD, (50, 32, 0), 10, True)
    _draw_bids(p, game, slot, viewer, (x0 + 8, y1 - 29, x1 - 8, y1 - 7))


def _draw_station(p: _Painter, game: FarlightGame, viewer: int | None, box: Box) -> None:
    x0, y0, x1, y1 = box
    p.d.rounded_rectangle(box, radius=10, fill=PANEL, outline=PANEL_EDGE)
    p.text((x0 + 12, y0 + 7), "STATION", 14, TEXT)
    p.text((x0 + 84, y0 + 10), f"deck {len(game.deck)}", 10, DIM)
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
    cols = -(-game.num_spaces // 2)
    gap = 14
    card_w = (x1 - x0 - 24 - gap * (cols - 1)) / cols
    card_h = 132
    top = y0 + 32
    for slot in range(game.num_spaces):
        r, c = divmod(slot, cols)
        cx = x0 + 12 + c * (card_w + gap)
        cy = top + r * (card_h + gap)
        _draw_part_card(p, game, slot, viewer, (cx, cy, cx + card_w, cy + card_h))
    fy = top + 2 * (card_h + gap) - 2
    for index, (name, fbox) in enumerate(zip(FACILITIES, facility_boxes(box, fy), strict=True)):
        fx, fy, fx1, fy1 = fbox
        p.d.rounded_rectangle(fbox, radius=8, fill=(52, 58, 80), outline=(112, 122, 152), width=2)
        p.text((fx + FACILITY_PAD, fy + 7), name, FACILITY_NAME_SIZE, TEXT)
        p.text(
            (fx1 - FACILITY_PAD, fy + 9), FACILITY_EFFECTS[index], FACILITY_EFFECT_SIZE, DIM, "ra"
        )
        _draw_bids(
            p,
            game,
            _facility_slot(game, index),
            viewer,
            (fx + FACILITY_PAD, fy + 27, fx1 - FACILITY_PAD, fy1 - 7),
        )


def facility_boxes(station: Box, top: float, gap: int = 14) -> list[Box]:
    """The four facility boxes, side by side across the station panel's width from `top`."""
    x0, _y0, x1, y1 = station
    width = (x1 - x0 - 24 - gap * 3) / 4
    return [
        (x0 + 12 + i * (width + gap), top, x0 + 12 + i * (width + gap) + width, y1 - 8)
        for i in range(len(FACILITIES))
    ]


@lru_cache(maxsize=64)
def _requirement_sprite(size: int, value: int) -> Image.Image:
    """A required engine: a white die-like box reading e.g. '5+'."""
    w = int(size * 1.45)
    im = Image.new("RGBA", (w + 1, size + 1), (0, 0, 0, 0))
    d = ImageDraw.Draw(im)
    d.rounded_rectangle(
        (0, 0, w, size), radius=max(2, size // 5), fill=(250, 250, 244), outline=(40, 40, 40)
    )
    d.text(
        (w / 2, size / 2 + 1),
        f"{value}+",
        font=_font(max(7, int(size * 0.72))),
        fill=INK,
        anchor="mm",
    )
    return im


def _draw_requirements(
    p: _Painter, x: float, y: float, mission: MissionCard, size: int, max_width: float
) -> None:
    """Engine minima as 'n+' dice, bio-tech and science as glyphs with counts, shrunk to fit."""
    engines = sorted(mission.engines, reverse=True)
    while size > 10:
        text = int(size * 0.65)
        width = len(engines) * (int(size * 1.45) + 3)
        if mission.biotech:
            width += int(size * 0.8) + 2 + _text_width(f"x{mission.biotech}", text) + 5
        if mission.science:
            width += size + 2 + _text_width(f"x{mission.science}", text)
        if width <= max_width:
            break
        size -= 1
    text = max(9, int(size * 0.65))
    for value in engines:
        sprite = _requirement_sprite(size, value)
        p.paste(sprite, x, y)
        x += sprite.width + 3
    if mission.biotech:
        x += p.bio(x, y, size, 1) + 1
        p.text((x, y + size / 2 + 1), f"x{mission.biotech}", text, TEXT, "lm")
        x += _text_width(f"x{mission.biotech}", text) + 5
    if mission.science:
        p.icon(x, y, size, IconKind.SCIENCE, True)
        p.text((x + size + 2, y + size / 2 + 1), f"x{mission.science}", text, TEXT, "lm")


def _draw_missions(p: _Painter, game: FarlightGame, viewer: int | None, box: Box) -> None:
    x0, y0, x1, y1 = box
    p.d.rounded_rectangle(box, radius=10, fill=PANEL, outline=PANEL_EDGE)
    p.text((x0 + 12, y0 + 7), "MISSIONS", 14, TEXT)
    p.text((x1 - 12, y0 + 10), "gold frame: available   purple: climactic", 10, DIM, "ra")
    missions = game.cards.missions
    resolving = game.mission_being_resolved()
    gap = 10
    col_w = (x1 - x0 - 20 - 2 * gap) / 3
    for s, stack in enumerate(game.stacks):
        cx = x0 + 10 + s * (col_w + gap)
        cy = y0 + 32
        if not stack:
            p.d.rounded_rectangle(
                (cx, cy, cx + col_w, cy + 172), radius=8, outline=PANEL_EDGE, width=2
            )
            p.text((cx + col_w / 2, cy + 86), "stack empty", 11, DIM, "mm")
            continue
        top_id = stack[0]
        m = missions[top_id]
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
        if top_id == resolving:
            p.d.rounded_rectangle(
                (cx + 8, cy + 126, cx + col_w - 8, cy + 141), radius=5, fill=(220, 60, 60)
            )
            p.text((cx + col_w / 2, cy + 133), "RESOLVING", 10, TEXT, "mm")
        _draw_bids(
            p, game, _mission_slot(game, s), viewer, (cx + 9, cy + 144, cx + col_w - 9, cy + 166)
        )
        ny = cy + 180
        for mission_id in stack[1:]:
            below = missions[mission_id]
            fill = CLIMACTIC_MISSION if below.climactic else REGULAR_MISSION
            p.d.rounded_rectangle(
                (cx + 4, ny, cx + col_w - 4, ny + 52),
                radius=6,
                fill=_shade(fill, 0.78),
                outline=_shade(fill, 1.5),
            )
            p.text((cx + 11, ny + 6), below.name, 10, TEXT, max_width=col_w - 44)
            p.text((cx + col_w - 11, ny + 4), str(below.value), 14, (250, 240, 200), "ra")
            _draw_requirements(p, cx + 11, ny + 26, below, 17, col_w - 22)
            ny += 58


def _draw_ship(p: _Painter, game: FarlightGame, seat: int, box: Box) -> None:
    """The ship's bounding box plus a margin of 1, scaled to fit `box`."""
    x0, y0, x1, y1 = box
    ship = game.ships[seat]
    rows_used = [r for r, _ in ship]
    cols_used = [c for _, c in ship]
    r0, r1 = min(rows_used) - 1, max(rows_used) + 1
    c0, c1 = min(cols_used) - 1, max(cols_used) + 1
    rows, cols = r1 - r0 + 1, c1 - c0 + 1
    cell = int(min(76.0, (x1 - x0) / cols, (y1 - y0) / rows))
    ox = x0 + ((x1 - x0) - cell * cols) / 2
    oy = y0 + ((y1 - y0) - cell * rows) / 2
    seat_colour = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
    parts = game.cards.parts
    half = game.half
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
            if piece == CORE:
                sprite = _ship_cell_sprite(cell, "", CORE_MASK, "", (), 0, None, seat_colour)
            else:
                part = parts[piece]
                icon = (
                    (part.icons[0].kind, part.icons[0].timing is Timing.EVERY_ROUND)
                    if part.icons
                    else None
                )
                dice = tuple(game.engine_values.get(rank) for rank in part.engines)
                sprite = _ship_cell_sprite(
                    cell,
                    part.name,
                    game.part_masks[piece],
                    _category(part),
                    dice,
                    part.biotech,
                    icon,
                    None,
                )
            p.paste(sprite, gx, gy)


def _draw_player(p: _Painter, game: FarlightGame, seat: int, viewer: int | None, box: Box) -> None:
    x0, y0, x1, y1 = box
    colour = SEAT_COLOURS[seat % len(SEAT_COLOURS)]
    acting = seat == game.current_player
    p.d.rounded_rectangle(
        box,
        radius=10,
        fill=PANEL,
        outline=HIGHLIGHT if acting else colour,
        width=3 if acting else 2,
    )
    p.d.rounded_rectangle((x0 + 3, y0 + 3, x1 - 3, y0 + 27), radius=8, fill=_shade(colour, 0.72))
    title = f"P{seat}" + ("  (you)" if seat == viewer else "")
    p.text((x0 + 11, y0 + 8), title, 13, TEXT)
    tx = x0 + 11 + p.width(title, 13) + 10
    if seat == game.first_player:
        tx += p.pill(tx, y0 + 8, "FIRST", (235, 235, 245), INK, 9) + 5
    if acting:
        p.pill(tx, y0 + 8, "TO ACT", HIGHLIGHT, INK, 9)
    p.text((x1 - 11, y0 + 6), f"{game.points[seat]} pts", 15, TEXT, "ra")
    # resources: crew, science, bio-tech, then engines as dice
    y = y0 + 34
    x = x0 + 11
    bio = str(game.biotech(seat))
    if game.temp_biotech[seat]:
        bio += f" (+{game.temp_biotech[seat]})"
    for swatch, label in (
        (GOLD, f"crew {game.crew[seat]}"),
        (ICON_COLOURS[IconKind.SCIENCE], f"sci {game.science[seat]}"),
        (BIO_COLOUR, f"bio {bio}"),
    ):
        p.d.ellipse((x, y + 1, x + 10, y + 11), fill=swatch)
        p.text((x + 14, y), label, 11, TEXT)
        x += 14 + p.width(label, 11) + 10
    engines = [v for _, v in sorted(game.engines(seat))]
    if engines:
        p.text((x, y), "eng", 11, DIM)
        x += p.width("eng", 11) + 4
        for v in engines:
            if x + 14 > x1 - 8:
                break
            p.die(x, y - 1, 14, v, pips=False)
            x += 16
    # tiles in hand (values only for the viewer) and connector counts
    y += 19
    p.text((x0 + 11, y + 3), "hand", 10, DIM)
    tx = x0 + 42
    for t in sorted(game.hands[seat]):
        p.tile(tx, y, 15, 17, seat, t if seat == viewer else None, False)
        tx += 17
    open_, linked, blocked = game.connectors(seat)
    conn = f"open {open_}  linked {linked}  blocked {blocked}"
    if tx + 8 + p.width(conn, 10) <= x1 - 11:
        p.text((x1 - 11, y + 3), conn, 10, DIM, "ra")
    else:  # a narrow panel: the connector counts get their own line
        y += 20
        p.text((x0 + 11, y), "connectors: " + conn, 10, DIM, max_width=x1 - x0 - 22)
        y -= 4
    y += 22
    if game.pending[seat]:
        selected = game.selected_part() if acting else None
        names = [
            game.cards.parts[i].name + (" (placing)" if i == selected else "")
            for i in game.pending[seat]
        ]
        p.text((x0 + 11, y), "pending: " + ", ".join(names), 10, HIGHLIGHT, max_width=x1 - x0 - 22)
        y += 14
    _draw_ship(p, game, seat, (x0 + 6, y + 2, x1 - 6, y1 - 6))


def _draw_header(p: _Painter, game: FarlightGame, viewer: int | None, width: int) -> None:
    p.d.rectangle((0, 0, width, 28), fill=(10, 12, 22))
    p.text((12, 5), "FARLIGHT", 16, HIGHLIGHT)
    if game.current_player is None:
        status = f"Round {game.round}   |   game over: {_phase_note(game)}"
    else:
        status = (
            f"Round {game.round}   |   {game.phase.value}   |   to act: P{game.current_player} "
            f"({_phase_note(game)})   |   first: P{game.first_player}"
        )
    p.text((104, 8), status, 12, TEXT, max_width=560)
    awards = "Awards: " + ", ".join(game.awards_up) + f"  (+{len(game.awards_down)} face down)"
    view = "spectator" if viewer is None else f"view of P{viewer}"
    p.text((width - 12, 8), f"{awards}   |   {view}", 12, TEXT, "ra")


def _draw_game_over(p: _Painter, game: FarlightGame, box: Box) -> None:
    if not game.is_over or game.final_breakdown is None:
        return
    x0, y0, x1, y1 = box
    p.d.rounded_rectangle(box, radius=12, fill=(12, 14, 26), outline=HIGHLIGHT, width=3)
    reason = END_REASONS.get(game.end_reason, "") if game.end_reason else ""
    p.text(((x0 + x1) / 2, y0 + 12), "GAME OVER", 20, HIGHLIGHT, "ma")
    p.text(((x0 + x1) / 2, y0 + 40), f"{reason} (round {game.round})", 11, DIM, "ma")
    heads = ("player", "missions", "awards", "tokens", "total")
    cols = [x0 + 40 + i * ((x1 - x0 - 60) / 5) for i in range(5)]
    y = y0 + 64
    for cx, head in zip(cols, heads, strict=True):
        p.text((cx, y), head, 11, DIM)
    winners = set(game.winners())
    for seat, row in enumerate(game.final_breakdown):
        y += 21
        values = (
            f"P{seat}" + ("  WIN" if seat in winners else ""),
            row["missions"],
            row["awards"],
            row["tokens"],
            game.points[seat],
        )
        for i, (cx, value) in enumerate(zip(cols, values, strict=True)):
            p.text((cx, y), str(value), 13, SEAT_COLOURS[seat % 5] if i == 0 else TEXT)
    names = ", ".join(f"P{s}" for s in sorted(winners))
    label = "Winner" if len(winners) == 1 else "Shared victory"
    p.text(((x0 + x1) / 2, y + 30), f"{label}: {names}", 15, HIGHLIGHT, "ma")


def render_rgb(game: FarlightGame, viewer: int | None) -> np.ndarray:
    """The game as an RGB picture (uint8, RGB_SIZE[1] × RGB_SIZE[0] × 3) for seat `viewer`."""
    n = game.num_players
    if viewer is not None and not 0 <= viewer < n:
        raise ValueError(f"viewer must be a seat 0..{n - 1} or None, got {viewer!r}")
    width, height = RGB_SIZE
    image = Image.new("RGB", (width, height), BACKGROUND)
    p = _Painter(image)
    _draw_header(p, game, viewer, width)
    top, split = STATION_BOX[1], STATION_BOX[3]
    _draw_station(p, game, viewer, STATION_BOX)
    _draw_missions(p, game, viewer, (820, top, width - 8, split))
    gap = 8
    panel_w = (width - 16 - gap * (n - 1)) / n
    for seat in range(n):
        px = 8 + seat * (panel_w + gap)
        _draw_player(p, game, seat, viewer, (px, split + 8, px + panel_w, height - 8))
    _draw_game_over(p, game, (width / 2 - 240, 110, width / 2 + 240, 110 + 124 + 21 * n))
    return np.array(image, dtype=np.uint8)
