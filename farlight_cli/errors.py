"""The failures a user can cause, which `farlight` reports in a line instead of a traceback."""

from __future__ import annotations

from farlight_env.cards.loader import CardFileError
from farlight_env.game.game import ConfigError
from farlight_env.record import RecordError


class InputError(Exception):
    """A command's input cannot be used (a corrupt policy file, a bad combination of options);
    the message says what is wrong and, where it helps, what to do."""


#: Raised by a user's input, never by a bug: printed as one line, exit status 2.
EXPECTED_ERRORS: tuple[type[BaseException], ...] = (
    InputError,
    ConfigError,
    CardFileError,
    RecordError,
    FileNotFoundError,
    IsADirectoryError,
    NotADirectoryError,
    PermissionError,
)
