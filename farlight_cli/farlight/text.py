"""Moves, bids and outcomes in words, as a given viewer may know them (`play` and `replay`).

An opponent's bid during bidding shows where the tile went, never its value (R-BID-5); what a
move sets off besides itself (all tiles flipping once bidding ends, with each target's winner
and price; parts discarded automatically; the tiebreak) comes from `farlight_env.view.events`.
"""

from __future__ import annotations

from farlight_env.game import Action, Bid, ChooseEngine, FarlightGame
from farlight_env.view.events import target_label

#: A viewer: a seat, None (a spectator: no hidden values) or "all" (omniscient).
Viewer = int | str | None
ALL = "all"


def action_text(game: FarlightGame, action: Action) -> str:
    """The action in words for the player who takes it (`game` is the state before it)."""
    if isinstance(action, Bid):
        crew = " +crew" if action.crew else ""
        return f"bid {action.tile}{crew} on {target_label(game, action.target)}"
    if isinstance(action, ChooseEngine):
        from farlight_env.encode.codec import engine_choice_text

        return engine_choice_text(game, action)
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


def event_lines(game: FarlightGame, action: Action) -> list[str]:
    """What applying `action` to `game` sets off besides the action, in words (call before
    applying it): the tiles flipping at the end of bidding with each target's winner and price
    (R-BID-5, R-RES-2), parts discarded automatically, forced passes, the tiebreak (R-END-4).
    All of it is public, so every viewer reads the same lines."""
    from farlight_env.view.events import BidResult, step_events

    lines: list[str] = []
    for event in step_events(game, action):
        if isinstance(event, BidResult):
            if not lines or not lines[0].startswith("  Bids revealed"):
                lines.insert(0, "  Bids revealed (all tiles flip):")
            lines.append(f"    {event.text}")
        else:
            lines.append(f"  {event.text}")
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
    from farlight_env.env.render_text import render_ansi

    if viewer == ALL:
        return render_ansi(game, None) + omniscient_text(game)
    return render_ansi(game, viewer)  # type: ignore[arg-type]


def outcome_lines(game: FarlightGame, players: list[str]) -> list[str]:
    """Scores, winners and why the game ended (or that it did not)."""
    from farlight_env.view.model import END_REASONS

    names = [f"P{seat} ({name})" for seat, name in enumerate(players)]
    scores = ", ".join(f"{names[s]} {v}" for s, v in enumerate(game.scores()))
    if not game.is_over:
        return [
            f"game unfinished: stopped in round {game.round} ({game.phase.value}) after "
            f"{len(game.history)} recorded actions",
            f"points so far: {scores}",
        ]
    from farlight_env.view.events import final_tiebreak

    winners = game.winners()
    title = "winner" if len(winners) == 1 else "shared victory"
    reason = END_REASONS.get(game.end_reason, str(game.end_reason)) if game.end_reason else "?"
    lines = [
        f"final scores: {scores}",
        f"{title}: {', '.join(names[s] for s in winners)}",
        f"the game ended in round {game.round}: {reason}",
    ]
    tiebreak = final_tiebreak(game)
    if tiebreak is not None:
        lines.append(f"tiebreak: {tiebreak.text}")
    return lines
