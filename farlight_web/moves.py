"""Readable labels for legal actions and for moves already made, as one seat may read them.

A label for someone else's bid during bidding never names the tile's value (R-BID-5).
"""

from __future__ import annotations

from typing import Any

from farlight_env.encode.codec import ActionCodec
from farlight_env.game import Action, Bid, FarlightGame, Install, Phase
from farlight_env.game.actions import TargetKind


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
