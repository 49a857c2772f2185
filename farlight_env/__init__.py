"""Farlight-Env: the board game Farlight as a reinforcement-learning environment.

Layers: ``farlight_env.cards`` (card set), ``farlight_env.game`` (rules engine); the
PettingZoo and Gymnasium environments come later. Importing this package stays light:
it never imports torch, ``agents`` or ``training``.
"""

__version__ = "0.1.0"

__all__ = ["__version__"]
