"""Readable labels for legal actions and for moves already made, as one seat may read them,
and what each move set off (`move_events`, `events_for`).

A label for someone else's bid during bidding never names the tile's value (R-BID-5).

A move's events come from `farlight_env.view.events.step_events`: the bid results once the round's
last tile is placed (every tile is then face up, R-BID-5), parts discarded automatically,
forced passes and Engineer raises (decisions outside bidding, on the public ships and crew),
the final tiebreak (at the end, when the face-down awards are open). Each is public once the
step is done, so every viewer gets the same events; only the event types listed in
`PUBLIC_EVENTS` are ever sent, so a new kind of event stays off the wire until someone has
checked what it reveals (tests/test_web_trust.py scrambles what each seat may not know and
compares).
"""

from __future__ import annotations

from typing import Any

from farlight_env.encode.codec import ActionCodec
from farlight_env.game import Action, Bid, FarlightGame, Install, Phase
from farlight_env.game.actions import TargetKind
from farlight_env.view.events import AutoDiscard, AutoMove, BidResult, Tiebreak, step_events
from farlight_env.view.events import to_builtins as events_to_builtins


def target_name(game: FarlightGame, bid: Bid) -> str:
    """'Cloning Vats (space 3)', 'Hire', 'mission Deep Survey (stack 1)'."""
    target = bid.target
    if target.kind is TargetKind.PART:
        part = game.spaces[target.index]
        name = "empty" if part is None else game.cards.parts[part].name
        return f"{name} (space {target.index})"
    if target.kind is TargetKind.MISSION:
        stack = game.stacks[target.index]
        name = game.cards.missions[stack[0]].name if stack else "empty stack"
        return f"mission {name} (stack {target.index})"
    return str(target)


def action_info(game: FarlightGame, codec: ActionCodec, index: int) -> dict[str, Any]:
    """{"index", "label", "kind", ...}: what a legal index means now, with the fields the page
    needs to put it on the board (a bid's target slot and tile, an install's cell)."""
    action = codec.decode(index, game)
    info: dict[str, Any] = {"index": index, "kind": type(action).__name__.lower()}
    if isinstance(action, Bid):
        crew = " with a crew" if action.crew else ""
        info["label"] = f"bid tile {action.tile}{crew} on {target_name(game, action)}"
        info.update(slot=game.target_slot[action.target], tile=action.tile, crew=action.crew)
    else:
        info["label"] = codec.describe(index, game)
        if isinstance(action, Install):
            info.update(row=action.row, col=action.col)
    return info


def move_label(game: FarlightGame, seat: int, action: Action, viewer: int | None) -> str:
    """A move by `seat` in `game` (the state before it), worded for `viewer`."""
    who = f"P{seat}"
    if isinstance(action, Bid):
        hidden = game.phase is Phase.BIDDING and seat != viewer
        tile = "a face-down tile" if hidden else f"tile {action.tile}"
        crew = " with a crew" if action.crew else ""
        return f"{who} placed {tile}{crew} on {target_name(game, action)}"
    return f"{who}: {action}"


#: The events a step may send: each is public once the step is done (see the module doc).
PUBLIC_EVENTS = (BidResult, AutoDiscard, AutoMove, Tiebreak)


def move_events(game: FarlightGame, action: Action) -> list[dict[str, Any]]:
    """What `action` in `game` (the state before it) sets off, as JSON-able dicts with a
    "type" tag and a "text" (the terminal's words); only the `PUBLIC_EVENTS` kinds."""
    events = [e for e in step_events(game, action) if isinstance(e, PUBLIC_EVENTS)]
    return events_to_builtins(events)


def _concerns(event: dict[str, Any], seat: int) -> bool:
    if event.get("seat") == seat or event.get("winner") == seat:
        return True
    if seat in event.get("tied", ()) or seat in event.get("order", ()):
        return True
    return any(bid.get("seat") == seat for bid in event.get("bids", ()))


def events_for(events: list[dict[str, Any]], viewer: int | None) -> list[dict[str, Any]]:
    """One move's events as `viewer` (None: a spectator) reads them: the same public facts for
    everyone, each marked `"you": true` when it concerns the viewer's seat (its bid, its part,
    its tie)."""
    return [{**e, "you": viewer is not None and _concerns(e, viewer)} for e in events]
