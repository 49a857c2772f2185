"""Environment layer: PettingZoo AEC env, Gymnasium single-agent wrapper, rendering."""
