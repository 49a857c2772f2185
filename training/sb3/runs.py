"""What every SB3 run shares, whatever its game: its one-line error, schedules that stay on the
same steps across resumes, closing its env when its workers died, and its progress bar."""

from __future__ import annotations

import contextlib
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback


class RunError(ValueError):
    """A run that cannot start as asked (bad option, file or folder): one line for the user."""


def crossed_multiple(last: int, now: int, every: int) -> bool:
    """Whether a multiple of `every` lies in (last, now]: schedules stay on the same steps
    however often a run is resumed (0 = never)."""
    return every > 0 and now // every > last // every


def close_env(env: Any) -> None:
    """Close the vectorised env, also when its workers already died (Ctrl-C reaches the whole
    process group): the interrupt, not a broken pipe, is what the user should hear about."""
    with contextlib.suppress(EOFError, BrokenPipeError, ConnectionResetError):
        env.close()


class ProgressCallback(BaseCallback):
    """A tqdm bar over timesteps (SB3's own bar needs `rich`)."""

    def __init__(self, total: int, start: int = 0) -> None:
        super().__init__()
        self.total = total
        self.start = start
        self.bar = None

    def _on_training_start(self) -> None:
        from tqdm.auto import tqdm

        self.bar = tqdm(total=self.total, initial=self.start, unit="step", desc="training")

    def _on_step(self) -> bool:
        assert self.bar is not None
        done = min(self.model.num_timesteps, self.total)
        if done > self.bar.n:
            self.bar.update(done - self.bar.n)  # tqdm throttles redraws
        return True

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()
