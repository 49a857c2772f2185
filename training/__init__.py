"""Training: shared run configs, game options, sub-games, envs, checkpoints and curves here;
Stable-Baselines3 in `training.sb3`, RLlib in `training.rllib`, Minari datasets in
`training.datasets`. Needs the `train` extra."""
