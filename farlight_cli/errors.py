"""The failures a user can cause, which `farlight` reports in a line instead of a traceback."""

from __future__ import annotations

from agents.farlight.fit import AgentUnfit
from agents.torch_device import DeviceError
from agents.torch_threads import ThreadSettingError
from farlight_env.platform import GameError


class InputError(Exception):
    """A command's input cannot be used (a corrupt policy file, a bad combination of options);
    the message says what is wrong and, where it helps, what to do."""


#: Raised by a user's input, never by a bug: printed as one line, exit status 2.
EXPECTED_ERRORS: tuple[type[BaseException], ...] = (
    InputError,
    AgentUnfit,
    ThreadSettingError,
    DeviceError,
    GameError,  # any game's bad option, card or component file, record or saved state
    FileNotFoundError,
    FileExistsError,
    IsADirectoryError,
    NotADirectoryError,
    PermissionError,
)


#: The extra that provides each optional top-level module, and how to install it.
EXTRA_OF_MODULE = {
    "torch": "train",
    "stable_baselines3": "train",
    "sb3_contrib": "train",
    "tensorboard": "train",
    "ray": "ray",
    "minari": "interop",
    "pyarrow": "interop",  # minari[arrow]: the parquet and arrow formats
    "h5py": "interop",  # minari[hdf5]
    "supersuit": "interop",
    "starlette": "web",
    "uvicorn": "web",
    "mkdocs": "dev",  # farlight docs
}
#: Extras that pull in torch, which is installed first so that pip takes the pinned CPU build
#: rather than a multi-GB CUDA one (docs/quickstart.md).
TORCH_FIRST = frozenset({"train", "rllib", "interop"})
TORCH_VERSION = "2.13.0"  # as pinned in pyproject.toml's extras


def install_line(extra: str) -> str:
    """The command that installs `extra`, as the README writes it."""
    first = f"pip install torch=={TORCH_VERSION} && " if extra in TORCH_FIRST else ""
    return f"{first}pip install -e '.[{extra}]'"


def needs_extra(extra: str, missing: str, what: str = "") -> str:
    """'[WHAT ]needs the EXTRA extra (MISSING is not installed): pip install ...': every hint
    about a missing extra, in one form (WHAT left out where the command is the subject)."""
    subject = f"{what} " if what else ""
    return f"{subject}needs the {extra} extra ({missing} is not installed): {install_line(extra)}"


INSTALL_EXTRA = {
    extra: install_line(extra) for extra in ("train", "ray", "rllib", "interop", "web", "dev")
}


def missing_extra_message(command: str, exc: ModuleNotFoundError) -> str | None:
    """One line naming the extra a missing optional module belongs to, or None when the
    missing module is not one of an extra's (then it is a bug and keeps its traceback)."""
    root = (exc.name or "").split(".")[0]
    extra = EXTRA_OF_MODULE.get(root)
    if extra is None:
        return None
    if "needs the" in str(exc):  # already says which extra (agents.registry)
        return f"{command}: error: {exc}"
    return f"{command}: error: {needs_extra(extra, root)}"
