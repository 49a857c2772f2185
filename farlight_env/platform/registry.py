"""The games the platform knows, by name: the built-in ones, those other packages declare
through the `farlight_env.games` entry point (name = "module:ATTRIBUTE"), and any registered
in this process (a throw-away game in a test). A declaration is imported only when its name is
first asked for, so naming one game never imports another's engine."""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points

from farlight_env.platform.protocol import Game, GameError

#: Built-in games: name -> "module:attribute" of their declaration.
BUILT_IN: dict[str, str] = {"farlight": "farlight_env.declaration:FARLIGHT"}
#: The entry-point group through which an installed package declares its games.
ENTRY_POINT = "farlight_env.games"
#: The game a command or function means when none is named.
DEFAULT_GAME = "farlight"

_registered: dict[str, Game] = {}


def register(game: Game, *, replace: bool = False) -> Game:
    """Make `game` known by its name; GameError if that name is taken (unless `replace`)."""
    if not isinstance(game, Game):
        raise GameError(f"register takes a platform Game declaration, got {type(game).__name__}")
    if not replace and (game.name in _registered or game.name in _declared()):
        raise GameError(f"a game named {game.name!r} is already registered")
    _registered[game.name] = game
    return game


def unregister(name: str) -> None:
    """Forget a game registered in this process (built-in and installed games stay)."""
    _registered.pop(name, None)


def get_game(name: str = DEFAULT_GAME) -> Game:
    """The declaration of the game `name`; GameError listing the known games otherwise."""
    if name in _registered:
        return _registered[name]
    where = _declared().get(name)
    if where is None:
        raise GameError(f"unknown game {name!r}; the games are {', '.join(game_names())}")
    game = _load(name, where)
    _registered[name] = game
    return game


def game_names() -> list[str]:
    """Every game known now: built-in, then installed, then registered here."""
    return list(dict.fromkeys([*_declared(), *_registered]))


def _declared() -> dict[str, str]:
    """Built-in and installed games: name -> "module:attribute" (built-in names win)."""
    installed = {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT)}
    return {**BUILT_IN, **{n: w for n, w in installed.items() if n not in BUILT_IN}}


def _load(name: str, where: str) -> Game:
    """The declaration at "module:attribute", checked to be the game `name` declares."""
    module, _, attribute = where.partition(":")
    try:
        game = getattr(importlib.import_module(module), attribute)
    except (ImportError, AttributeError) as exc:
        raise GameError(f"game {name!r} ({where}) cannot be loaded: {exc}") from None
    if not isinstance(game, Game) or game.name != name:
        raise GameError(f"{where} is not the declaration of a game named {name!r}")
    return game
