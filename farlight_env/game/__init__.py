"""The Farlight rules engine: pure Python, no PettingZoo, Gymnasium or tensors (DESIGN layers)."""

from farlight_env.game.actions import (
    Action,
    Bid,
    ChooseEngine,
    CompleteMission,
    Discard,
    Install,
    PassMission,
    RefitRemove,
    RefitStop,
    SelectPart,
    SkipEngine,
    Target,
    TargetKind,
    action_from_dict,
    action_to_dict,
)
from farlight_env.game.config import (
    GAME_OPTIONS,
    CardSetError,
    ConfigError,
    EndReason,
    GameConfig,
    IllegalActionError,
    Phase,
)
from farlight_env.game.facts import MAX_GRID_SIZE, MAX_PLAYERS, MIN_PLAYERS
from farlight_env.game.game import FarlightGame
from farlight_env.game.hidden import PlayerView
from farlight_env.game.rules_options import RuleOptionError, RuleOptions
from farlight_env.game.state import GameState

__all__ = [
    "GAME_OPTIONS",
    "MAX_GRID_SIZE",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "Action",
    "Bid",
    "ChooseEngine",
    "CompleteMission",
    "CardSetError",
    "ConfigError",
    "Discard",
    "EndReason",
    "FarlightGame",
    "GameConfig",
    "GameState",
    "IllegalActionError",
    "Install",
    "PassMission",
    "Phase",
    "PlayerView",
    "RefitRemove",
    "RefitStop",
    "RuleOptionError",
    "RuleOptions",
    "SelectPart",
    "SkipEngine",
    "Target",
    "TargetKind",
    "action_from_dict",
    "action_to_dict",
]
