"""The games the platform knows, by name: the built-in ones (imported when first asked for)
and any a user registers, e.g. a throw-away game in a test."""

from __future__ import annotations

import importlib

from farlight_env.platform.protocol import Game, GameError

#: Built-in games: name -> "module:attribute" of their declaration (imported on first use,
#: so naming a game never imports another game's engine).
BUILT_IN: dict[str, str] = {"farlight": "farlight_env.declaration:FARLIGHT"}
#: The game a command or function means when none is named.
DEFAULT_GAME = "farlight"

_registered: dict[str, Game] = {}


def register(game: Game, *, replace: bool = False) -> Game:
    """Make `game` known by its name; GameError if that name is taken (unless `replace`)."""
    if not isinstance(game, Game):
        raise GameError(f"register takes a platform Game declaration, got {type(game).__name__}")
    if not replace and (game.name in _registered or game.name in BUILT_IN):
        raise GameError(f"a game named {game.name!r} is already registered")
    _registered[game.name] = game
    return game


def unregister(name: str) -> None:
    """Forget a game a user registered (built-in games stay)."""
    _registered.pop(name, None)


def get_game(name: str = DEFAULT_GAME) -> Game:
    """The declaration of the game `name`; GameError listing the known games otherwise."""
    if name in _registered:
        return _registered[name]
    if name in BUILT_IN:
        module, _, attribute = BUILT_IN[name].partition(":")
        game = getattr(importlib.import_module(module), attribute)
        _registered[name] = game
        return game
    raise GameError(f"unknown game {name!r}; the games are {', '.join(game_names())}")


def game_names() -> list[str]:
    """Every game known now, built-in first."""
    return list(dict.fromkeys([*BUILT_IN, *_registered]))
