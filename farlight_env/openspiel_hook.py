"""The OpenSpiel game "python_farlight" known by name in every process that imports
farlight_env: registered at once if pyspiel is imported already, else by an import hook the
moment it is, without farlight_env importing pyspiel itself (its import stays light)."""

from __future__ import annotations

import sys
import warnings


def register_openspiel() -> None:
    """Register the OpenSpiel game "python_farlight" now (imports pyspiel); for processes that
    name the game without importing farlight_env, e.g. Ray's `worker_process_setup_hook`."""
    import farlight_env.openspiel  # noqa: F401 - registers on import


class _PyspielHook:
    """A meta-path finder that registers "python_farlight" right after pyspiel is imported,
    so any process that imported farlight_env finds the game by name, without importing
    pyspiel itself (importing this package stays light)."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> object:
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
            warnings.warn(f"farlight_env: python_farlight not registered: {exc}", stacklevel=2)


def register_when_imported() -> None:
    """Register now if pyspiel is imported already, else when it is (never if it is blocked,
    `sys.modules["pyspiel"] = None`)."""
    if "pyspiel" not in sys.modules:
        if not any(isinstance(f, _PyspielHook) for f in sys.meta_path):
            sys.meta_path.insert(0, _PyspielHook())
    elif sys.modules["pyspiel"] is not None:
        register_openspiel()
