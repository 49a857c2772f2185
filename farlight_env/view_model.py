"""Moved to `farlight_env.view.model`; this name stays for code written against it."""

from farlight_env.view.model import *  # noqa: F403
from farlight_env.view.model import __all__  # noqa: F401
