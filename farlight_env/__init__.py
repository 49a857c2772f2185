"""Farlight-Env: the board game Farlight as a reinforcement-learning environment.

Layers: ``farlight_env.cards`` (card set), ``farlight_env.game`` (rules engine),
``farlight_env.encode`` (action codec, observations), ``farlight_env.env`` (PettingZoo AEC env,
Gymnasium single-agent env, rendering). Importing this package stays light: it registers the
environments by name only and never imports torch, ``agents`` or ``training``.
"""

from __future__ import annotations

__version__ = "0.1.0"

GYM_ID = "farlight_env/Farlight-v0"
PETTINGZOO_ID = "farlight_env/Farlight-v0"
#: farlight_v1's ids: the classic games' defaults (docs/environment.md, "Versions").
GYM_ID_V1 = "farlight_env/Farlight-v1"
PETTINGZOO_ID_V1 = "farlight_env/Farlight-v1"
#: Any declared game's single-agent env: `gymnasium.make(GAME_GYM_ID, game="duel")`.
GAME_GYM_ID = "farlight_env/Game-v0"


def _register() -> None:
    """Make `gymnasium.make(GYM_ID)` and `pettingzoo.make("aec", PETTINGZOO_ID)` work (the
    latter from pettingzoo 1.27, whose registry older versions lack: AgileRL pins <1.27)."""
    import gymnasium

    if GYM_ID not in gymnasium.registry:
        gymnasium.register(
            id=GYM_ID, entry_point="farlight_env.env.single_agent:FarlightSingleAgentEnv"
        )
    if GYM_ID_V1 not in gymnasium.registry:
        gymnasium.register(
            id=GYM_ID_V1,
            entry_point="farlight_env.env.single_agent:FarlightSingleAgentEnvV1",
            vector_entry_point="farlight_env.vector:make_vector_env_v1",
        )
    if GAME_GYM_ID not in gymnasium.registry:
        gymnasium.register(
            id=GAME_GYM_ID, entry_point="farlight_env.platform.gym:PlatformSingleAgentEnv"
        )
    try:
        import pettingzoo
    except ImportError:  # pragma: no cover - pettingzoo is a core dependency
        return
    registry = getattr(pettingzoo, "aec_registry", None)
    if registry is not None and PETTINGZOO_ID not in registry:
        pettingzoo.register("aec", PETTINGZOO_ID, entry_point="farlight_env.env.aec:env")
    if registry is not None and PETTINGZOO_ID_V1 not in registry:
        pettingzoo.register("aec", PETTINGZOO_ID_V1, entry_point="farlight_env.env.aec_v1:env")


_register()

from farlight_env.openspiel_hook import register_openspiel, register_when_imported  # noqa: E402

register_when_imported()

__all__ = [
    "GYM_ID",
    "GYM_ID_V1",
    "PETTINGZOO_ID",
    "PETTINGZOO_ID_V1",
    "__version__",
    "register_openspiel",
]
