"""Torch threads in a user's own MaskablePPO script (docs/training.md, "Torch threads in your
own scripts").

A MaskablePPO run of 2,048 steps on the Gymnasium env against a random opponent, written as a
user would (SB3's MlpPolicy: the library's thread default never runs here), with torch's
default thread count or the count given:

    python scripts/ppo_threads.py default
    python scripts/ppo_threads.py 1
"""

import sys
import time

import gymnasium
import torch
from sb3_contrib import MaskablePPO

import agents
import farlight_env  # noqa: F401  (registers the env)

threads = sys.argv[1] if len(sys.argv) > 1 else "default"
if threads != "default":
    torch.set_num_threads(int(threads))
opponent = agents.make("random", seed=1)
env = gymnasium.make("farlight_env/Farlight-v0", num_players=2, opponents=[opponent])
model = MaskablePPO(
    "MlpPolicy", env, n_steps=1024, batch_size=256, n_epochs=4, seed=0, device="cpu"
)
start = time.perf_counter()
model.learn(2048)
print(f"threads={torch.get_num_threads()} learn(2048) {time.perf_counter() - start:.1f} s")
