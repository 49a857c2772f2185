"""The one loop that seats agents at a game's PettingZoo env and plays a game out (Farlight's
env, or the platform's generic one for any other game)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

#: Called after each decision: (seat, action index, wall seconds, CPU seconds the agent took).
DecisionHook = Callable[[int, int, float, float], None]


def play_episode(env: Any, seats: Sequence[Any], hook: DecisionHook | None = None) -> None:
    """Play the (already reset) env to its end; seat i is played by seats[i].

    Each agent gets `act(observation, action_mask, info)` with info["view"] (its PlayerView)
    and info["seat"], as the Agent protocol promises.
    """
    import time

    for agent_name in env.agent_iter():
        if env.terminations[agent_name] or env.truncations[agent_name]:
            env.step(None)
            continue
        seat = env.agent_name_mapping[agent_name]
        player = seats[seat]
        vector, mask = env.observe_for(agent_name, player)  # scripted agents skip encoding
        info = env.infos[agent_name]
        start, cpu = time.perf_counter(), time.process_time()
        action = player.act(
            vector, mask, {**info, "seat": seat, "view": env.player_view(agent_name)}
        )
        if hook is not None:
            hook(seat, action, time.perf_counter() - start, time.process_time() - cpu)
        env.step(action)
