"""Stable-Baselines3 for any registered game: MaskablePPO on a game's generic env (`game_ppo`),
and what every SB3 run shares (`runs`, `run_files`). Farlight's own runs:
`training.farlight.sb3`."""
