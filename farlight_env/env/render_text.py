"""The text board (`render_ansi`): drawn from the seat's `BoardView`, nothing else.

What the viewer may know is decided once, in `farlight_env.view.model`; this module only lays
out text: opponents' face-down tiles appear as '?', hands of others as a count, the deck and
the face-down awards as counts. Same view gives the same text.
"""

from __future__ import annotations

from farlight_env.game.game import FarlightGame
from farlight_env.game.ship import DOWN, LEFT, RIGHT, UP
from farlight_env.view.model import (
    SHIP_LABELS,
    BidGroup,
    BoardView,
    MissionView,
    PartView,
    board_view,
)

__all__ = ["ARROWS", "ICON_ABBR", "WIDTH", "draw_text", "render_ansi"]

ARROWS: tuple[tuple[int, str], ...] = ((UP, "↑"), (RIGHT, "→"), (DOWN, "↓"), (LEFT, "←"))
ICON_ABBR: dict[str, str] = {
    "crew": "crew",
    "science": "sci",
    "upgrade": "upg",
    "overhaul": "ovh",
}


#: The text board is laid out for a terminal this wide (an 80x24 terminal's width).
WIDTH = 80


def render_ansi(game: FarlightGame, viewer: int | None, width: int = WIDTH) -> str:
    """The game as text, as seat `viewer` sees it (None: a spectator seeing no tile values),
    laid out in `width` columns (see `draw_text`)."""
    return draw_text(board_view(game, viewer), width)


def _wrap(parts: list[str], width: int, sep: str = " · ", indent: str = "    ") -> list[str]:
    """`parts` joined by `sep` into lines of at most `width` columns where they fit; a part is
    never cut, so one longer than a line gets a line of its own."""
    lines = [parts[0]]
    for part in parts[1:]:
        if len(lines[-1]) + len(sep) + len(part) <= width:
            lines[-1] += sep + part
        else:
            lines.append(indent + part)
    return lines


def _with_bids(row: str, groups: list[BidGroup], width: int, lead: str) -> list[str]:
    """A station or mission row with its bids after it, or on lines of their own below it
    when the row would pass `width` (each seat's tiles stay together)."""
    bids = _bids_text(groups)
    if not bids:
        return [row.rstrip()]
    joined = f"{row}{lead}{bids}".rstrip()
    if len(joined) <= width:
        return [joined]
    texts = [b for b in bids.split("  ") if b]
    return [row.rstrip(), *_wrap(["      bids:", *texts], width, sep=" ", indent="      ")]


def _arrows(mask: int) -> str:
    return "".join(arrow if mask & bit else "·" for bit, arrow in ARROWS)


def _icons_text(part: PartView) -> str:
    return " ".join(
        ("↻" if icon.every_round else "1×") + ICON_ABBR[icon.kind] for icon in part.icons
    )


def _engines_text(part: PartView) -> str:
    return " ".join(f"⚙{'?' if v is None else v}" for v in part.dice)


def _part_text(part: PartView) -> str:
    """One-line description of a part card: name, connectors, cost, icons, bio, engines."""
    bits = [part.name, _arrows(part.mask), f"cost {part.cost}"]
    if part.icons:
        bits.append(_icons_text(part))
    if part.biotech:
        bits.append(f"bio {part.biotech}")
    if part.dice:
        bits.append(_engines_text(part))
    return " ".join(bits)


def _requirements_text(mission: MissionView) -> str:
    bits = [f"⚙≥{v}" for v in mission.engines]
    if mission.biotech:
        bits.append(f"bio {mission.biotech}")
    if mission.science:
        bits.append(f"sci {mission.science}")
    return " ".join(bits)


def _bids_text(groups: list[BidGroup]) -> str:
    out = []
    for group in groups:
        shown = " ".join(
            ("?" if t.value is None else str(t.value)) + ("+" if t.crew else "")
            for t in group.tiles
        )
        text = f"P{group.seat}[{shown}]"
        if group.total is not None:
            text += f"={group.total}"
        out.append(text)
    return "  ".join(out)


def _cell(mask: int, part: PartView | None, label: str) -> list[str]:
    """3×3 characters: the piece's label in the centre, connector stubs on its sides."""
    if part is None:
        vert, horiz, dice = "┃", "━", ["", ""]
    else:
        vert, horiz = "│", "─"
        dice = ["?" if v is None else str(v) for v in part.dice] + ["", ""]
    top = " " + (vert if mask & UP else " ") + (dice[0] or " ")
    mid = (horiz if mask & LEFT else " ") + label + (horiz if mask & RIGHT else " ")
    bottom = " " + (vert if mask & DOWN else " ") + (dice[1] or " ")
    return [top, mid, bottom]


def _ship(view: BoardView, seat: int) -> tuple[list[str], list[str]]:
    """The ship as text rows (bounding box plus a margin of 1) and its legend lines.

    Rows and columns are labelled with the (row, col) offsets from the core that install
    choices use ("install X at (-1,+0)": one row up, same column).
    """
    ship = view.players[seat].ship
    cells = {(c.row, c.col): c for c in ship.cells}
    legend = [
        f"{SHIP_LABELS[i % len(SHIP_LABELS)]} {_part_text(part)}"
        for i, part in enumerate(view.players[seat].legend)
    ]
    rows = [r for r, _ in cells]
    cols = [c for _, c in cells]
    half = ship.half
    first, last = min(cols) - 1, max(cols) + 1
    lines = ["   " + "".join(f"{c:+d}".rjust(2).ljust(3) for c in range(first, last + 1))]
    for r in range(min(rows) - 1, max(rows) + 2):
        band = ["   ", f"{r:+d}".rjust(2).ljust(3), "   "]
        for c in range(first, last + 1):
            cell = cells.get((r, c))
            if cell is None:
                in_grid = -half <= r <= half and -half <= c <= half
                text = ["   ", " · " if in_grid else "   ", "   "]
            else:
                text = _cell(cell.mask, cell.part, cell.label)
            for k in range(3):
                band[k] += text[k]
        lines.extend(band)
    return lines, legend


def _player_info(view: BoardView, seat: int) -> list[str]:
    p = view.players[seat]
    tags = []
    if p.you:
        tags.append("you")
    if p.first:
        tags.append("first player")
    if p.acting:
        tags.append("▶ to act")
    title = f"P{seat}" + (f" ({', '.join(tags)})" if tags else "")
    bio = f"bio-tech {p.biotech}"
    if p.temp_biotech:
        bio += f" (+{p.temp_biotech} temporary)"
    resources = f"crew {p.crew}  science {p.science}  points {p.points}  {bio}"
    if p.hand is not None:
        tiles = "tiles in hand: " + (" ".join(str(t) for t in p.hand) or "none")
    else:
        tiles = f"tiles in hand: {p.hand_count}"
    if p.engines:
        engine_text = (
            "engines: " + " ".join(f"⚙{v}" for v in p.engines) + f" (sum {sum(p.engines)})"
        )
    else:
        engine_text = "engines: none"
    open_, linked, blocked = p.connectors
    lines = [
        title,
        resources,
        tiles,
        engine_text,
        f"connectors: {open_} open, {linked} linked, {blocked} blocked",
    ]
    for part in p.pending:
        mark = " (selected)" if part.id == p.selected else ""
        lines.append(f"pending: {_part_text(part)}{mark}")
    return lines


def draw_text(view: BoardView, width: int = WIDTH) -> str:
    """The text board of a `BoardView` in `width` columns: long lines wrap, bids move under
    their row and a player's details under the ship when they do not fit beside it. Only a
    ship too wide for `width` (a large grid) can pass it; then the first line says how many
    columns the board needs."""
    out: list[str] = []
    acting = "-" if view.current_player is None else f"P{view.current_player}"
    out += _wrap(
        [
            f"═══ Farlight · round {view.round}",
            view.phase,
            f"to act: {acting} ({view.note})",
            f"first player: P{view.first_player} ═══",
        ],
        width,
    )
    who = "spectator (no tile values)" if view.viewer is None else f"P{view.viewer}"
    out += _wrap(
        [
            f"view: {who}",
            f"awards face up: {', '.join(view.awards_up)} (+{view.awards_down} face down)",
            f"part deck: {view.deck} cards",
        ],
        width,
    )
    out.append("")

    # -- station
    out.append("STATION  (conn ↑→↓←; icons ↻ every round, 1× once; bids: ? hidden, + crew)")
    out.append(f" #  {'part':<25} conn  cost  {'icons':<13}  bio  {'engines':<7}  bonus")
    for space in view.station:
        part = space.part
        if part is None:
            out.append(f"{space.slot:>2}  (empty)")
            continue
        bonus = f"+{space.bonus}" if space.bonus else "-"
        row = (
            f"{space.slot:>2}  {part.name:<25} {_arrows(part.mask)}  "
            f"{part.cost:>3}   {_icons_text(part) or '-':<13}  {part.biotech or '-':>3}  "
            f"{_engines_text(part) or '-':<7}  {bonus:>5}"
        )
        out += _with_bids(row, space.bids, width, "  ")
    out.append("FACILITIES")
    for facility in view.facilities:
        row = f"    {facility.name:<9} {facility.effect:<17}"
        out += _with_bids(row, facility.bids, width, " ")
    out.append("")

    # -- missions
    out.append("MISSIONS  (▶ available top card, ★ climactic)")
    for stack in view.stacks:
        s = stack.index
        if not stack.missions:
            out.append(f" stack {s}  (empty)")
            continue
        for depth, m in enumerate(stack.missions):
            head = f" stack {s}  ▶ " if depth == 0 else "            "
            star = "★" if m.climactic else " "
            row = f"{head}{m.name:<27}{star} {m.value:>2}  {_requirements_text(m):<22}"
            if depth == 0 and stack.resolving:
                row = f"{row.rstrip()}  ◆ resolving "
            if depth == 0 and stack.bids:
                out += _with_bids(row, stack.bids, width, "bids: ")
            else:
                out.append(row.rstrip())
    out.append("")

    # -- players
    out.append("PLAYERS  (ship: ◆ core, letters = parts, digits = engine dice)")
    for seat in range(view.num_players):
        ship_lines, legend = _ship(view, seat)
        info = [
            line
            for text in _player_info(view, seat) + legend
            for line in _wrap(text.split(" "), width - 2, sep=" ", indent="    ")
        ]
        ship_width = max(len(line) for line in ship_lines)
        if 2 + ship_width + 3 + max(len(line) for line in info) <= width:
            for k in range(max(len(ship_lines), len(info))):
                left = ship_lines[k] if k < len(ship_lines) else " " * ship_width
                right = info[k] if k < len(info) else ""
                out.append(f"  {left}   {right}".rstrip())
        else:  # too wide side by side: the details under the ship
            out += [f"  {line}".rstrip() for line in ship_lines]
            out += [f"  {line}" for line in info]
        out.append("")

    # -- end of game
    final = view.final
    if final is not None:
        out.append(f"GAME OVER · {final.reason} · round {final.round}")
        for award in final.awards:
            holders = " ".join(f"P{s}" for s in award.holders)
            out.append(f"  award {award.award:<11} → {holders}")
        out.append("  player  missions  awards  tokens  total")
        for row in final.rows:
            out.append(
                f"  P{row.seat:<6}{row.missions:>9}{row.awards:>8}{row.tokens:>8}{row.total:>7}"
            )
        names = ", ".join(f"P{s}" for s in final.winners)
        out.append(f"  {'Winner' if len(final.winners) == 1 else 'Shared victory'}: {names}")
    needed = max(len(line) for line in out)
    if needed > width:
        out.insert(0, f"(this board needs {needed} columns; the terminal is taken to have {width})")
    return "\n".join(out).rstrip() + "\n"
