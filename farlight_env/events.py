"""Moved to `farlight_env.view.events`; this name stays for code written against it."""

from farlight_env.view.events import *  # noqa: F403
from farlight_env.view.events import __all__  # noqa: F401
