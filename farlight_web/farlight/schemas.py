"""The new-game body (POST /api/games): who plays, and Farlight's options as fields of their own.

Its game options are derived from GameConfig: one field per option it offers, typed here and
checked (ranges, values) by GameConfig itself; another game's come as `"options"`, checked by
its declaration (`lineups`). Seats and players are bounded by Farlight's player range.
"""

from __future__ import annotations

from typing import Annotated, Any, Union

import msgspec

from farlight_env.game.config import (
    OFFERED_OPTIONS,
    OPTION_DEFAULTS,
    OPTION_SPECS,
    describe_options,
)
from farlight_env.game.facts import MAX_PLAYERS, MIN_PLAYERS
from farlight_env.game.options import members

Seat = Annotated[int, msgspec.Meta(ge=0, le=MAX_PLAYERS - 1)]
AgentName = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
GameName = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
OptionName = Annotated[str, msgspec.Meta(min_length=1, max_length=100)]
Scalar = Union[bool, int, float, Annotated[str, msgspec.Meta(max_length=1000)], None]  # noqa: UP007


class Lineup(msgspec.Struct, forbid_unknown_fields=True):
    """The part of POST /api/games that is not a game option: who plays, which seats are
    human (the creator sits at `seat`), the bots of the other seats and the seed."""

    players: Annotated[int, msgspec.Meta(ge=MIN_PLAYERS, le=MAX_PLAYERS)] = 2
    seat: Seat | None = None
    humans: Annotated[list[Seat], msgspec.Meta(min_length=1, max_length=MAX_PLAYERS)] | None = None
    #: The bots' names (absent: the game's default bot, Farlight's heuristic).
    opponents: Annotated[list[AgentName], msgspec.Meta(max_length=MAX_PLAYERS - 1)] | None = None
    seed: Annotated[int, msgspec.Meta(ge=0, le=2**63 - 1)] | None = None
    #: A registered game's name (absent: Farlight), and that game's options (not Farlight's,
    #: which are fields of their own), checked by its declaration (#50).
    game: GameName | None = None
    options: Annotated[dict[OptionName, Scalar], msgspec.Meta(max_length=64)] | None = None


def _member_value(group: type) -> Any:
    """The type of a group member's value: any type one of its members' defaults has."""
    kinds = {type(default) for _, default in members(group).values()}
    return Union[tuple(sorted(kinds, key=lambda k: k.__name__))]  # noqa: UP007


def _option_field(name: str) -> tuple[str, Any, Any]:
    """(name, type, default) of the body field of a game option: absent means its default (a
    group: a NAME -> value object of the members given)."""
    spec, default = OPTION_SPECS[name], OPTION_DEFAULTS[name]
    if spec.group is not None:
        return name, dict[str, _member_value(spec.group)], msgspec.field(default_factory=dict)
    return name, type(default) | None, None


#: POST /api/games: a Lineup plus one optional field per game option GameConfig offers
#: (grid_size, max_rounds, the rule options' group, ...).
NewGame = msgspec.defstruct(
    "NewGame",
    [_option_field(name) for name in OFFERED_OPTIONS],
    bases=(Lineup,),
    module=__name__,
    forbid_unknown_fields=True,
)


def new_game_options(spec: Any) -> dict[str, Any]:
    """The game options a NewGame body gives, as keyword arguments of FarlightGame and the
    envs (options left out keep their defaults; a group with no member given is left out)."""
    return {
        name: dict(value) if isinstance(value, dict) else value
        for name in OFFERED_OPTIONS
        if (value := getattr(spec, name)) is not None and value != {}
    }


def options_page() -> dict[str, Any]:
    """What /api/options says of the game: player bounds, each option's default (by name) and
    declaration (`game_options`)."""
    defaults = {
        name: OPTION_DEFAULTS[name] for name in OFFERED_OPTIONS if OPTION_SPECS[name].group is None
    }
    return {"players": [MIN_PLAYERS, MAX_PLAYERS], **defaults, "game_options": describe_options()}
