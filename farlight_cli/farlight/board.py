"""The compact board `farlight play` shows at each decision: it fits an 80×24 terminal.

One line per player, the bidding targets in two columns (each with a fixed letter), or the
person's ship as a small map labelled with the (row, col) offsets install choices use beside
the numbered options. The full board (`render_ansi`) is one key away in `farlight play`.
"""

from __future__ import annotations

import textwrap

from farlight_cli.farlight.text import target_label
from farlight_env.cards.model import PartCard, Side
from farlight_env.game import FarlightGame, Phase, Target, TargetKind
from farlight_env.game.ship import CORE

WIDTH = 80
#: Lines the board may use so that it and the prompt fit a 24-line terminal.
HEIGHT = 23
TARGET_LETTERS = "abcdefghijklmnopqrstuvwxyz"
ARROWS = ((Side.UP, "↑"), (Side.RIGHT, "→"), (Side.DOWN, "↓"), (Side.LEFT, "←"))


def clip(text: str, width: int) -> str:
    """`text` cut to `width` characters, with '…' when something was cut."""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def wrap(line: str, width: int = WIDTH) -> list[str]:
    """`line` broken at spaces into lines of at most `width` characters, the continuations
    indented two more than the line; a word (a path) longer than a line is left whole."""
    if len(line) <= width:
        return [line]
    indent = line[: len(line) - len(line.lstrip())]
    return textwrap.wrap(
        line.strip(),
        width,
        initial_indent=indent,
        subsequent_indent=indent + "  ",
        break_long_words=False,
        break_on_hyphens=False,
    )


def header(game: FarlightGame, seat: int) -> str:
    acting = game.current_player
    return clip(
        f"Farlight · round {game.round}/{game.config.max_rounds} · {game.phase.value} · "
        f"P{acting} to act · first player P{game.first_player} · you are P{seat}",
        WIDTH,
    )


def player_line(game: FarlightGame, seat: int, viewer: int) -> str:
    engines = " ".join(f"⚙{v}" for _, v in sorted(game.engines(seat))) or "none"
    hand = game.hands[seat]
    if seat == viewer:
        tiles = "tiles " + (" ".join(str(t) for t in sorted(hand)) or "none")
    else:
        tiles = f"{len(hand)} tile{'' if len(hand) == 1 else 's'}"
    who = f"P{seat}{'*' if seat == viewer else ' '}"
    text = (
        f"{who} crew {game.crew[seat]:>2} sci {game.science[seat]:>2} pts {game.points[seat]:>2} "
        f"bio {game.biotech(seat)} · {tiles} · engines {engines}"
    )
    if game.pending[seat]:
        text += f" · {len(game.pending[seat])} pending"
    return clip(text, WIDTH)


def target_letter(game: FarlightGame, target: Target) -> str:
    return TARGET_LETTERS[game.target_slot[target]]


def connector_arrows(part: PartCard) -> str:
    """'↑→·←': the part's connectors, in the full board's notation."""
    return "".join(arrow if side in part.connectors else "·" for side, arrow in ARROWS)


def short_label(game: FarlightGame, target: Target) -> str:
    """A target in a few words: the part on offer, the facility, the mission on top."""
    if target.kind is TargetKind.PART:
        part = game.spaces[target.index]
        if part is None:
            return "(empty space)"
        card = game.cards.parts[part]
        return f"{card.name} {connector_arrows(card)} c{card.crew_cost}"
    if target.kind is TargetKind.FACILITY:
        return target_label(game, target)
    stack = game.stacks[target.index]
    return f"mission {game.cards.missions[stack[0]].name}" if stack else "(empty stack)"


def bid_rows(game: FarlightGame, viewer: int) -> list[str]:
    """Every bidding target with its letter and the tiles on it (values only where known)."""
    cells = []
    for slot, target in enumerate(game.targets):
        by_seat: dict[int, list[str]] = {}
        for seat, tile, crew in game.bids[slot]:
            value = str(tile) if seat == viewer else "?"
            by_seat.setdefault(seat, []).append(f"{value}{'+' if crew else ''}")
        bids = " ".join(f"P{seat}:{','.join(tiles)}" for seat, tiles in by_seat.items())
        label = short_label(game, target)
        column = (WIDTH - 2) // 2 - 3
        if bids:
            label = clip(label, max(8, column - len(bids) - 3)) + f" [{bids}]"
        cells.append(f"{TARGET_LETTERS[slot]} {label}")
    half = (len(cells) + 1) // 2
    column = (WIDTH - 2) // 2
    rows = []
    for i in range(half):
        left = clip(cells[i], column - 1).ljust(column)
        right = clip(cells[i + half], column - 1) if i + half < len(cells) else ""
        rows.append(f" {left} {right}".rstrip())
    return rows


def ship_map(game: FarlightGame, seat: int) -> list[str]:
    """The ship, one character per cell (◆ core, letters = parts in installation order),
    with row and column labels as (row, col) offsets from the core."""
    ship = game.ships[seat]
    letters = {CORE: "◆"}
    for i, part in enumerate(game.ship_parts[seat]):
        letters[part] = TARGET_LETTERS.upper()[i % 26]
    rows = [r for r, _ in ship]
    cols = [c for _, c in ship]
    half = game.half
    first = max(-half, min(cols) - 1)
    last = min(half, max(cols) + 1)
    lines = ["   " + "".join(f"{c:+d}".rjust(3) for c in range(first, last + 1))]
    for r in range(max(-half, min(rows) - 1), min(half, max(rows) + 1) + 1):
        cells = "".join(
            letters.get(ship[(r, c)], "?").rjust(3) if (r, c) in ship else "·".rjust(3)
            for c in range(first, last + 1)
        )
        lines.append(f"{r:+d}".rjust(3) + cells)
    return lines


#: Characters of a part's name in the ship legend ('A Quantum Vacuum Thruster' fits).
LEGEND_NAME = 26


def ship_legend(game: FarlightGame, seat: int, width: int = WIDTH) -> list[str]:
    """'A Quantum Vacuum Thruster  B Algae Farm ...': the installed parts by the letters of the
    ship map, as many to a line of `width` as fit, each name cut to LEGEND_NAME characters."""
    names = [
        clip(f"{TARGET_LETTERS.upper()[i % 26]} {game.cards.parts[part].name}", LEGEND_NAME)
        for i, part in enumerate(game.ship_parts[seat])
    ]
    lines: list[str] = []
    for name in names:
        if lines and len(lines[-1]) + 2 + len(name) <= width:
            lines[-1] += "  " + name
        else:
            lines.append(name)
    return lines


def compact_board(game: FarlightGame, seat: int) -> list[str]:
    """The board for `seat`'s decision, without the options: at most about 12 lines."""
    lines = [header(game, seat)]
    lines += [player_line(game, s, seat) for s in range(game.num_players)]
    if game.phase is Phase.BIDDING:
        lines.append("targets (letter, part connectors and crew cost; tiles: ? face down, + crew)")
        lines += bid_rows(game, seat)
    return lines


def beside(left: list[str], right: list[str], gap: int = 3) -> list[str]:
    """Two blocks of lines side by side; `right` clipped to the terminal width."""
    width = max((len(line) for line in left), default=0)
    out = []
    for k in range(max(len(left), len(right))):
        a = left[k] if k < len(left) else ""
        b = right[k] if k < len(right) else ""
        room = WIDTH - width - gap
        out.append((a.ljust(width) + " " * gap + clip(b, room)).rstrip())
    return out
