"""Farlight on Stable-Baselines3: MaskablePPO (`train_ppo`), the league (`self_play`), the best
response of `farlight exploit` (`exploit`), and their networks, buffers and vector env."""
