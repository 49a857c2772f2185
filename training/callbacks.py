"""SB3 callbacks of the training scripts: the value-head warm-up and the progress bar."""

from __future__ import annotations

from stable_baselines3.common.callbacks import BaseCallback

#: Parameter names of the critic; everything else is the actor (or features both share).
VALUE_PREFIXES = ("value_net.", "mlp_extractor.value_net.")


class ValueWarmup(BaseCallback):
    """Freezes all but the value head until `until` steps, then unfreezes: a warm-started actor
    is first judged by a critic that has learnt its values, not by a random one."""

    def __init__(self, until: int) -> None:
        super().__init__()
        self.until = until

    def _set_frozen(self, frozen: bool) -> None:
        for name, param in self.model.policy.named_parameters():
            if not name.startswith(VALUE_PREFIXES):
                param.requires_grad_(not frozen)

    def _on_rollout_end(self) -> None:
        # called after each rollout, before the update that learns from it
        self._set_frozen(self.model.num_timesteps < self.until)

    def _on_step(self) -> bool:
        return True

    def _on_training_end(self) -> None:
        self._set_frozen(False)


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
