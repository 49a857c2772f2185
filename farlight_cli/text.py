"""Moves, bids and outcomes in words, as a given viewer may know them (`play` and `replay`).

An opponent's bid during bidding shows where the tile went, never its value (R-BID-5); the
reveal of all tiles once bidding ends is described by `BiddingWatch` (R-BID-5, R-RES-2).
"""

from __future__ import annotations

from dataclasses import dataclass

from farlight_env.game import Action, Bid, ChooseEngine, FarlightGame, Phase, Target, TargetKind

#: A viewer: a seat, None (a spectator: no hidden values) or "all" (omniscient).
Viewer = int | str | None
ALL = "all"


def target_label(game: FarlightGame, target: Target) -> str:
    """A bidding target with what it holds now: 'part space 3 (Ion Drive)', 'Hire (+3 crew)'."""
    from farlight_env.env.render import FACILITY_EFFECTS  # Pillow: imported only when needed

    if target.kind is TargetKind.PART:
        part = game.spaces[target.index]
        name = "empty" if part is None else game.cards.parts[part].name
        return f"part space {target.index} ({name})"
    if target.kind is TargetKind.FACILITY:
        return f"{target} ({FACILITY_EFFECTS[target.index]})"
    stack = game.stacks[target.index]
    name = game.cards.missions[stack[0]].name if stack else "empty"
    return f"mission stack {target.index} ({name})"


def action_text(game: FarlightGame, action: Action) -> str:
    """The action in words for the player who takes it (`game` is the state before it)."""
    if isinstance(action, Bid):
        crew = " +crew" if action.crew else ""
        return f"bid {action.tile}{crew} on {target_label(game, action.target)}"
    if isinstance(action, ChooseEngine):
        value = game.engine_values.get(action.rank)
        return f"{action} (now {value})" if value is not None else str(action)
    return str(action)


def move_text(game: FarlightGame, seat: int, action: Action, viewer: Viewer) -> str:
    """Seat `seat`'s move as `viewer` may know it; `game` is the state before the move.

    During bidding a tile lies face down: only its owner (or an omniscient viewer) sees its
    value; everyone sees where it went and whether crew rides on it.
    """
    if isinstance(action, Bid) and viewer != ALL and viewer != seat:
        crew = " with crew" if action.crew else ""
        return f"P{seat} placed a tile on {target_label(game, action.target)}{crew}"
    return f"P{seat}: {action_text(game, action)}"


@dataclass
class _Snapshot:
    round: int
    first_player: int
    bids: list[list[tuple[int, int, bool]]]
    labels: list[str]


class BiddingWatch:
    """Notices the end of a bidding phase and describes the flipped tiles (R-BID-5, R-RES-2).

    Call `before(game, action)` before applying each action and `after(game)` just after.
    """

    def __init__(self) -> None:
        self._snap: _Snapshot | None = None

    def before(self, game: FarlightGame, action: Action) -> None:
        self._snap = None
        if game.phase is not Phase.BIDDING or not isinstance(action, Bid):
            return
        bids = [list(b) for b in game.bids]
        bids[game.target_slot[action.target]].append(
            (game.current_player, action.tile, action.crew)
        )
        labels = [target_label(game, t) for t in game.targets]
        self._snap = _Snapshot(game.round, game.first_player, bids, labels)

    def after(self, game: FarlightGame) -> list[str]:
        snap = self._snap
        self._snap = None
        if snap is None:
            return []
        if game.phase is Phase.BIDDING and game.round == snap.round and not game.is_over:
            return []  # still bidding
        n = game.num_players
        lines = ["  Bids revealed (all tiles flip):"]
        for slot, placed in enumerate(snap.bids):
            if not placed:
                continue
            totals: dict[int, int] = {}
            shown: dict[int, list[str]] = {}
            for seat, tile, crew in placed:
                totals[seat] = totals.get(seat, 0) + tile + int(crew)
                shown.setdefault(seat, []).append(f"{tile}{'+c' if crew else ''}")
            best = None
            for seat in sorted(totals, key=lambda s: (s - snap.first_player) % n):
                if totals[seat] >= 1 and (best is None or totals[seat] > totals[best]):
                    best = seat
            who = "no winner (no bid of 1 or more)" if best is None else f"P{best} wins"
            tiles = ", ".join(
                f"P{s} {' '.join(v)} (={totals[s]})" for s, v in sorted(shown.items())
            )
            lines.append(f"    {snap.labels[slot]}: {tiles} → {who}")
        return lines


def omniscient_text(game: FarlightGame) -> str:
    """Every hidden fact, for an omniscient replay (never shown to a player)."""
    out = ["ALL HIDDEN VALUES (omniscient replay view — no player sees this during the game)"]
    for seat in range(game.num_players):
        hand = " ".join(str(t) for t in sorted(game.hands[seat])) or "none"
        out.append(f"  P{seat} tiles in hand: {hand}")
    for slot, placed in enumerate(game.bids):
        if placed:
            tiles = "  ".join(f"P{s} {t}{'+c' if c else ''}" for s, t, c in placed)
            out.append(f"  tiles on {target_label(game, game.targets[slot])}: {tiles}")
    out.append(f"  face-down awards: {', '.join(game.awards_down) or 'none'}")
    upcoming = [game.cards.parts[p].name for p in reversed(game.deck[-5:])]
    out.append(f"  part deck ({len(game.deck)} cards), next: {', '.join(upcoming) or 'none'}")
    return "\n".join(out) + "\n"


def picture(game: FarlightGame, viewer: Viewer) -> str:
    """The board as `viewer` sees it (a seat, None for a spectator, "all" for everything)."""
    from farlight_env.env.render import render_ansi

    if viewer == ALL:
        return render_ansi(game, None) + omniscient_text(game)
    return render_ansi(game, viewer)  # type: ignore[arg-type]


def outcome_lines(game: FarlightGame, players: list[str]) -> list[str]:
    """Scores, winners and why the game ended (or that it did not)."""
    from farlight_env.env.render import END_REASONS

    names = [f"P{seat} ({name})" for seat, name in enumerate(players)]
    scores = ", ".join(f"{names[s]} {v}" for s, v in enumerate(game.scores()))
    if not game.is_over:
        return [
            f"game unfinished: stopped in round {game.round} ({game.phase.value}) after "
            f"{len(game.history)} recorded actions",
            f"points so far: {scores}",
        ]
    winners = game.winners()
    title = "winner" if len(winners) == 1 else "shared victory"
    reason = END_REASONS.get(game.end_reason, str(game.end_reason)) if game.end_reason else "?"
    return [
        f"final scores: {scores}",
        f"{title}: {', '.join(names[s] for s in winners)}",
        f"the game ended in round {game.round}: {reason}",
    ]
