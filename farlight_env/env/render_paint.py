"""Pillow drawing kit for `render_picture`: colours, fonts, cached sprites and a painter.

Nothing here knows the game; it draws dice, tiles, icons, ship cells and text where asked.
Sprites are small pictures drawn once and pasted many times (text dominates the cost).
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from farlight_env.cards.model import IconKind
from farlight_env.game.ship import DOWN, LEFT, RIGHT, UP

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


def shade(colour: RGB, factor: float) -> RGB:
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
def text_width(text: str, size: int) -> float:
    return float(_font(size).getlength(text)) + _extra_space(size) * text.count(" ")


@lru_cache(maxsize=4096)
def _fit(text: str, size: int, max_width: int) -> str:
    """`text`, shortened with a trailing '.' until it is at most `max_width` pixels wide."""
    if text_width(text, size) <= max_width:
        return text
    while len(text) > 1 and text_width(text + ".", size) > max_width:
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
    advance = text_width(text, size)
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


def draw_stubs(
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
def ship_cell_sprite(
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
            box, radius=5, fill=shade(core_colour, 0.85), outline=(255, 255, 255), width=2
        )
        draw_stubs(d, box, mask, stub_len, stub_thick)
        d.text(
            ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2),
            "CORE",
            font=_font(max(7, int(size * 0.2))),
            fill=TEXT,
            anchor="mm",
        )
        return im
    colour = CATEGORY_COLOURS[category]
    d.rounded_rectangle(box, radius=5, fill=colour, outline=shade(colour, 1.7), width=2)
    draw_stubs(d, box, mask, stub_len, stub_thick)
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


class Painter:
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
        return text_width(text, size)

    def wrapped(
        self, x: float, y: float, width: float, text: str, size: int, fill: RGB, lines: int = 2
    ) -> None:
        """Centred text on up to `lines` lines (words kept whole when they fit)."""
        rows: list[str] = []
        for word in text.split():
            if rows and text_width(rows[-1] + " " + word, size) <= width:
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


@lru_cache(maxsize=64)
def requirement_sprite(size: int, value: int) -> Image.Image:
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
