"""What one seat may see of a game, as plain data: the single source every drawing uses.

`board_view(game, viewer)` builds a `BoardView` (frozen msgspec structs, JSON-serialisable with
`to_builtins`) from the seat's `PlayerView`, i.e. from a redacted copy of the game, so the
facts hidden from that seat never enter it (R-BID-5, R-SETUP-2): opponents' face-down tile
values and hand values, the part deck (a count), the face-down awards (a count). A spectator
(`viewer=None`) sees no tile values while bidding. The text renderer (`env/render_text.py`),
the picture renderer (`env/render_picture.py`) and the web page all draw from this model, and
the web API's game view is this model. Same state and viewer give the same model.
"""

from __future__ import annotations

from typing import Any

import msgspec

from farlight_env.cards.model import FACILITIES, MissionCard, PartCard, Timing
from farlight_env.game.config import EndReason, Phase
from farlight_env.game.game import FarlightGame
from farlight_env.game.hidden import PlayerView, redact
from farlight_env.game.ship import CORE, CORE_MASK

__all__ = [
    "END_REASONS",
    "FACILITY_EFFECTS",
    "BoardView",
    "board_view",
    "category",
    "to_builtins",
]

FACILITY_EFFECTS: tuple[str, ...] = (
    "remove own parts",
    "+3 crew",
    "+1 science",
    "+1 to an engine",
)
END_REASONS: dict[EndReason, str] = {
    EndReason.CLIMACTIC: "a climactic mission was completed",
    EndReason.DECK: "the part deck ran out",
    EndReason.ROUND_CAP: "the round cap was reached (truncated)",
}
SPECTATOR = -1  # redact() for a seat no one holds hides every seat's tiles


class IconView(msgspec.Struct, frozen=True):
    """A benefit icon: its kind (crew, science, upgrade, overhaul) and when it pays."""

    kind: str
    every_round: bool


class PartView(msgspec.Struct, frozen=True):
    """A part card as drawn: connectors as a mask (1 up, 2 right, 4 down, 8 left), dice shown."""

    id: int
    name: str
    mask: int
    cost: int
    icons: list[IconView]
    biotech: int
    dice: list[int | None]  # one per engine on the part, in rank order
    category: str  # the card colour: engine, bio, science, crew, tech or hull


class TileView(msgspec.Struct, frozen=True):
    """A bidding tile on a target: its value (None: face down to this viewer), crew on it."""

    value: int | None
    crew: bool


class BidGroup(msgspec.Struct, frozen=True):
    """One seat's tiles on one target; its total only when the viewer may know it."""

    seat: int
    tiles: list[TileView]
    total: int | None


class SpaceView(msgspec.Struct, frozen=True):
    slot: int
    part: PartView | None
    bonus: int
    bids: list[BidGroup]


class FacilityView(msgspec.Struct, frozen=True):
    index: int
    slot: int
    name: str
    effect: str
    bids: list[BidGroup]


class MissionView(msgspec.Struct, frozen=True):
    id: int
    name: str
    value: int
    climactic: bool
    engines: list[int]  # required engine values, highest first
    biotech: int
    science: int


class StackView(msgspec.Struct, frozen=True):
    """A mission stack, top card first; bids lie on the top card."""

    index: int
    slot: int
    missions: list[MissionView]
    bids: list[BidGroup]
    resolving: bool


class CellView(msgspec.Struct, frozen=True):
    """An occupied ship cell at (row, col) from the core; part None is the core."""

    row: int
    col: int
    mask: int
    part: PartView | None
    label: str  # the ship legend's letter ('◆' for the core)


class ShipView(msgspec.Struct, frozen=True):
    half: int  # the grid spans -half..half in both directions
    cells: list[CellView]


class PlayerPanel(msgspec.Struct, frozen=True):
    """One seat's public facts; `hand` holds tile values only for the viewer's own seat."""

    seat: int
    you: bool
    first: bool
    acting: bool
    crew: int
    science: int
    points: int
    biotech: int
    temp_biotech: int
    hand: list[int] | None
    hand_count: int
    engines: list[int]
    connectors: list[int]  # open, linked, blocked
    pending: list[PartView]
    selected: int | None  # the pending part being placed
    ship: ShipView
    legend: list[PartView]  # installed parts in install order (labels A, B, ...)


class FinalRow(msgspec.Struct, frozen=True):
    seat: int
    missions: int
    awards: int
    tokens: int
    total: int


class AwardResult(msgspec.Struct, frozen=True):
    award: str
    holders: list[int]


class FinalView(msgspec.Struct, frozen=True):
    reason: str
    round: int
    awards: list[AwardResult]
    rows: list[FinalRow]
    winners: list[int]


class BoardView(msgspec.Struct, frozen=True):
    """Everything seat `viewer` (None: a spectator) may know of the game at this moment."""

    viewer: int | None
    num_players: int
    round: int
    phase: str
    current_player: int | None
    first_player: int
    note: str  # what the acting seat is deciding, in words
    awards_up: list[str]
    awards_down: int  # a count: which ones is hidden
    deck: int  # a count: the order is hidden
    num_spaces: int
    station: list[SpaceView]
    facilities: list[FacilityView]
    stacks: list[StackView]
    players: list[PlayerPanel]
    final: FinalView | None


SHIP_LABELS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def to_builtins(view: BoardView) -> dict[str, Any]:
    """The view as plain JSON-able data (dicts, lists, ints, strings, None)."""
    return msgspec.to_builtins(view)


def category(part: PartCard) -> str:
    """The card colour: what the part is mostly for."""
    kinds = {icon.kind.value for icon in part.icons}
    if part.engines:
        return "engine"
    if part.biotech:
        return "bio"
    if "science" in kinds:
        return "science"
    if "crew" in kinds:
        return "crew"
    if kinds:
        return "tech"
    return "hull"


def board_view(game: FarlightGame, viewer: int | None) -> BoardView:
    """The view of `viewer` (a seat, or None for a spectator), built from a redacted copy."""
    n = game.num_players
    if viewer is not None and not (isinstance(viewer, int) and 0 <= viewer < n):
        raise ValueError(f"viewer must be a seat 0..{n - 1} or None, got {viewer!r}")
    seen = PlayerView(game, viewer).redacted() if viewer is not None else redact(game, SPECTATOR)
    return _Builder(seen, viewer).build()


class _Builder:
    """Reads a redacted game into a BoardView; never touches deck order or award order."""

    def __init__(self, game: FarlightGame, viewer: int | None) -> None:
        self.game = game
        self.viewer = viewer
        self.revealed = game.phase is not Phase.BIDDING

    def build(self) -> BoardView:
        g = self.game
        spaces = [
            SpaceView(
                slot=slot,
                part=None if pid is None else self.part(pid),
                bonus=int(g.bonus[slot]),
                bids=self.bids(slot),
            )
            for slot, pid in enumerate(g.spaces)
        ]
        facilities = [
            FacilityView(
                index=i,
                slot=g.num_spaces + i,
                name=name,
                effect=FACILITY_EFFECTS[i],
                bids=self.bids(g.num_spaces + i),
            )
            for i, name in enumerate(FACILITIES)
        ]
        resolving = g.mission_being_resolved()
        stacks = []
        for s, stack in enumerate(g.stacks):
            slot = g.num_spaces + len(FACILITIES) + s
            stacks.append(
                StackView(
                    index=s,
                    slot=slot,
                    missions=[self.mission(g.cards.missions[m], m) for m in stack],
                    bids=self.bids(slot) if stack else [],
                    resolving=bool(stack) and stack[0] == resolving,
                )
            )
        return BoardView(
            viewer=self.viewer,
            num_players=g.num_players,
            round=g.round,
            phase=g.phase.value,
            current_player=g.current_player,
            first_player=g.first_player,
            note=phase_note(g),
            awards_up=list(g.awards_up),
            awards_down=len(g.awards_down),
            deck=len(g.deck),
            num_spaces=g.num_spaces,
            station=spaces,
            facilities=facilities,
            stacks=stacks,
            players=[self.player(seat) for seat in range(g.num_players)],
            final=self.final(),
        )

    def part(self, part_id: int) -> PartView:
        g = self.game
        card = g.cards.parts[part_id]
        return PartView(
            id=part_id,
            name=card.name,
            mask=int(g.part_masks[part_id]),
            cost=card.crew_cost,
            icons=[IconView(i.kind.value, i.timing is Timing.EVERY_ROUND) for i in card.icons],
            biotech=card.biotech,
            dice=[g.engine_values.get(rank) for rank in card.engines],
            category=category(card),
        )

    @staticmethod
    def mission(card: MissionCard, mission_id: int) -> MissionView:
        return MissionView(
            id=mission_id,
            name=card.name,
            value=card.value,
            climactic=card.climactic,
            engines=sorted(card.engines, reverse=True),
            biotech=card.biotech,
            science=card.science,
        )

    def bids(self, slot: int) -> list[BidGroup]:
        """Per seat (seat order) its tiles on a target; values hidden from others while bidding."""
        g = self.game
        per_seat: dict[int, list[TileView]] = {}
        for seat, tile, crew in g.bids[slot]:
            shown = int(tile) if self.revealed or seat == self.viewer else None
            per_seat.setdefault(seat, []).append(TileView(shown, bool(crew)))
        return [
            BidGroup(
                seat=seat,
                tiles=tiles,
                total=g.bid_total(seat, slot) if self.revealed or seat == self.viewer else None,
            )
            for seat, tiles in sorted(per_seat.items())
        ]

    def player(self, seat: int) -> PlayerPanel:
        g = self.game
        legend = [self.part(p) for p in g.ship_parts[seat]]
        labels = {CORE: "◆"}
        for i, p in enumerate(g.ship_parts[seat]):
            labels[p] = SHIP_LABELS[i % len(SHIP_LABELS)]
        cells = [
            CellView(
                row=r,
                col=c,
                mask=CORE_MASK if piece == CORE else int(g.part_masks[piece]),
                part=None if piece == CORE else self.part(piece),
                label=labels.get(piece, "?"),
            )
            for (r, c), piece in sorted(g.ships[seat].items())
        ]
        acting = seat == g.current_player
        own = seat == self.viewer
        return PlayerPanel(
            seat=seat,
            you=own,
            first=seat == g.first_player,
            acting=acting,
            crew=int(g.crew[seat]),
            science=int(g.science[seat]),
            points=int(g.points[seat]),
            biotech=g.biotech(seat),
            temp_biotech=int(g.temp_biotech[seat]),
            hand=sorted(int(t) for t in g.hands[seat]) if own else None,
            hand_count=len(g.hands[seat]),
            engines=[v for _, v in sorted(g.engines(seat))],
            connectors=list(g.connectors(seat)),
            pending=[self.part(p) for p in g.pending[seat]],
            selected=g.selected_part() if acting else None,
            ship=ShipView(half=g.half, cells=cells),
            legend=legend,
        )

    def final(self) -> FinalView | None:
        g = self.game
        if not g.is_over or g.final_breakdown is None:
            return None
        return FinalView(
            reason=END_REASONS.get(g.end_reason, "") if g.end_reason else "",
            round=g.round,
            awards=[AwardResult(a, list(g.award_holders(a))) for a in g.awards_up],
            rows=[
                FinalRow(seat, row["missions"], row["awards"], row["tokens"], g.points[seat])
                for seat, row in enumerate(g.final_breakdown)
            ],
            winners=list(g.winners()),
        )


def phase_note(game: FarlightGame) -> str:
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
