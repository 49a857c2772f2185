"""Farlight's own measurements: the auction diagnostics of its records and what its scorecards
say of its card set and rule options. The rest of `evaluation` serves any registered game."""
