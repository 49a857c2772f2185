"""Training scripts (MaskablePPO, self-play league, evaluation); needs the `train` extra."""
