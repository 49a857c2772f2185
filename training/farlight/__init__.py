"""Farlight's own training: its run configs and game options, sub-games, training envs and
Minari datasets; MaskablePPO, the league and the best response on Stable-Baselines3 (`sb3`);
the league on RLlib (`rllib`). The rest of `training` serves any registered game."""
