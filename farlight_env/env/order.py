"""PettingZoo's `OrderEnforcingWrapper` for Farlight, without the forwarding cost."""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

#: What the stock wrapper refuses to show before reset(), with its AttributeError.
GUARDED = ("rewards", "terminations", "truncations", "infos", "agent_selection", "agents")


def _guarded(name: str) -> property:
    def read(self: FastOrderWrapper) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    return property(read, doc=f"The raw env's `{name}` (AttributeError before reset).")


class FastOrderWrapper(wrappers.OrderEnforcingWrapper):
    """Raises and warns exactly as `OrderEnforcingWrapper` does (see its docstring): fields
    read before reset() raise AttributeError; render, step, observe, state and agent_iter
    before reset() raise; step() with no agents left warns.

    The fields the agent loop reads every step are properties on the raw env, and `step`,
    `observe` and `last` call it directly, instead of through two `__getattr__` layers.
    """

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped

    rewards = _guarded("rewards")
    terminations = _guarded("terminations")
    truncations = _guarded("truncations")
    infos = _guarded("infos")
    agent_selection = _guarded("agent_selection")
    agents = _guarded("agents")

    @property
    def _cumulative_rewards(self) -> dict:
        return self._raw._cumulative_rewards

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self._raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)

    def observe(self, agent: Any) -> Any:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self._raw.observe(agent)

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        agent = self.agent_selection  # AttributeError before reset, as before
        raw = self._raw
        observation = raw.observe(agent) if observe else None
        return (
            observation,
            raw._cumulative_rewards[agent],
            raw.terminations[agent],
            raw.truncations[agent],
            raw.infos[agent],
        )

    def __str__(self) -> str:
        return str(self.env)
