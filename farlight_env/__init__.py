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
    try:
        import pettingzoo
    except ImportError:  # pragma: no cover - pettingzoo is a core dependency
        return
    registry = getattr(pettingzoo, "aec_registry", None)
    if registry is not None and PETTINGZOO_ID not in registry:
        pettingzoo.register("aec", PETTINGZOO_ID, entry_point="farlight_env.env.aec:env")
    if registry is not None and PETTINGZOO_ID_V1 not in registry:
        pettingzoo.register("aec", PETTINGZOO_ID_V1, entry_point="farlight_env.env.aec_v1:env")


def register_openspiel() -> None:
    """Register the OpenSpiel game "python_farlight" now (imports pyspiel); for processes that
    name the game without importing farlight_env, e.g. Ray's `worker_process_setup_hook`."""
    import farlight_env.openspiel  # noqa: F401 - registers on import


class _PyspielHook:
    """A meta-path finder that registers "python_farlight" right after pyspiel is imported,
    so any process that imported farlight_env finds the game by name, without importing
    pyspiel itself (importing this package stays light)."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> object:
        import sys

        if name != "pyspiel":
            return None
        sys.meta_path.remove(self)  # once, and not for our own lookup below
        for finder in sys.meta_path:
            spec = getattr(finder, "find_spec", lambda *a: None)(name, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _RegisteringLoader(spec.loader)
                return spec
        return None


class _RegisteringLoader:
    """pyspiel's own loader, then the game's registration (a failure there only warns: the
    user's import of pyspiel must not break because of Farlight)."""

    def __init__(self, loader: object) -> None:
        self.loader = loader

    def create_module(self, spec: object) -> object:
        return self.loader.create_module(spec)  # type: ignore[attr-defined]

    def exec_module(self, module: object) -> None:
        self.loader.exec_module(module)  # type: ignore[attr-defined]
        try:
            register_openspiel()
        except Exception as exc:  # noqa: BLE001 - reported, never raised into pyspiel's import
            import warnings

            warnings.warn(f"farlight_env: python_farlight not registered: {exc}", stacklevel=2)


def _register_openspiel_on_import() -> None:
    """Register now if pyspiel is imported already, else when it is (never if it is blocked,
    `sys.modules["pyspiel"] = None`)."""
    import sys

    if "pyspiel" not in sys.modules:
        if not any(isinstance(f, _PyspielHook) for f in sys.meta_path):
            sys.meta_path.insert(0, _PyspielHook())
    elif sys.modules["pyspiel"] is not None:
        register_openspiel()


_register()
_register_openspiel_on_import()

__all__ = [
    "GYM_ID",
    "GYM_ID_V1",
    "PETTINGZOO_ID",
    "PETTINGZOO_ID_V1",
    "__version__",
    "register_openspiel",
]
