"""The platform's contract with its games (#50): a `Game` declaration and a `State` per game,
a registry by name, and what is written once for every game on top of them (the generic
PettingZoo env, records)."""

from farlight_env.platform.protocol import (
    MAX_SEATS,
    Benchmark,
    Game,
    GameError,
    IllegalMove,
    Option,
    SeatView,
    State,
)
from farlight_env.platform.registry import DEFAULT_GAME, game_names, get_game, register

__all__ = [
    "DEFAULT_GAME",
    "MAX_SEATS",
    "Benchmark",
    "Game",
    "GameError",
    "IllegalMove",
    "Option",
    "SeatView",
    "State",
    "game_names",
    "get_game",
    "register",
]
