"""A short `farlight train ppo` run stopped at its first update, for scripts that time or
inspect the update: the model comes back with one full rollout in its buffer, untrained."""

from __future__ import annotations

import contextlib
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


class _Collected(Exception):
    """Raised in place of the first update: the rollout it would learn from is in the buffer."""


def collected_model(**config: Any) -> Any:
    """The MaskablePPO model of a run with these `PPOConfig` fields (warm-started from the
    shipped policy, no evaluations or checkpoints unless given), before its first update."""
    import sb3_contrib

    from training.farlight.config import PPOConfig
    from training.farlight.sb3.train_ppo import train

    captured = {}
    original = sb3_contrib.MaskablePPO.train

    def capture(model: Any) -> None:
        captured["model"] = model
        raise _Collected

    sb3_contrib.MaskablePPO.train = capture
    try:
        with tempfile.TemporaryDirectory() as tmp:
            settings = {
                "init_from": str(ROOT / "agents" / "data" / "ppo.pt"),
                "total_steps": 2048,
                "eval_every": 0,
                "checkpoint_every": 0,
                **config,
            }
            with contextlib.suppress(_Collected):
                train(PPOConfig(run_dir=str(Path(tmp) / "run"), **settings), progress=False)
    finally:
        sb3_contrib.MaskablePPO.train = original
    return captured["model"]
