"""The game a training run plays, checked by the engine's own validation before anything is
written or any worker starts (a worker that cannot build its environment ends the run in a
traceback from another process)."""

from __future__ import annotations

from typing import Any

from farlight_env.game.config import ConfigError, GameConfig

#: Run config fields that fix the game, with the command-line flag that sets each.
GAME_FLAGS = {"grid_size": "--grid-size", "max_rounds": "--max-rounds", "rule_options": "--rule"}


def check_game_options(config: Any) -> None:
    """ValueError naming the flag of the first game option the engine refuses (the card set
    is loaded, and so checked, by the run itself)."""
    for name, flag in GAME_FLAGS.items():
        try:
            GameConfig.from_options(**{name: getattr(config, name)})
        except ConfigError as exc:
            raise ValueError(f"{flag}: {exc}") from None
