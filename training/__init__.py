"""Training: what every run shares (`run_config`, `checkpoints`, `curves`, `game_config`), SB3
for any game in `training.sb3`, and Farlight's own runs (its configs, envs, sub-games, datasets,
SB3 and RLlib) in `training.farlight`. Needs the `train` extra."""
