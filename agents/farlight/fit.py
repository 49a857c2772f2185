"""Whether an agent can play a given game at all: a saved policy's network reads observations
and scores actions of the sizes its card set and grid give (the shipped ones: grid 13, the
standard cards), so `ppo` cannot sit at a grid-7 table. Checked before the first game, by the
command line and the web server alike, instead of failing at the policy's first decision."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any


class AgentUnfit(ValueError):
    """An agent that cannot play this game (a policy built for another grid or card set)."""


def unfit(bot: Any, observation_size: int, actions: int) -> str | None:
    """Why `bot` cannot play observations/actions of these sizes (a saved policy's shapes, its
    own or the one a search agent such as `rollout` plays out with), or None when it can."""
    from agents.farlight.policy import PolicyAgent

    for agent in (bot, getattr(bot, "policy", None)):
        if isinstance(agent, PolicyAgent):
            try:
                agent._check_shapes(observation_size, actions)
            except ValueError as exc:
                return str(exc)
    return None


def game_sizes(num_players: int, game_config: Mapping[str, Any]) -> tuple[int, int]:
    """(observation length, number of actions) of a game with these options."""
    from farlight_env.env.aec import raw_env

    env = raw_env(num_players=num_players, **game_config)
    return env.observation_space(env.possible_agents[0])["observation"].shape[0], env.codec.size


def trained_grid(bot: Any) -> int | None:
    """The grid size a policy agent's network was built for (its observation layout's ship
    planes are grid x grid), or None for an agent without one."""
    from agents.farlight.policy import PolicyAgent

    for agent in (bot, getattr(bot, "policy", None)):
        if isinstance(agent, PolicyAgent):
            ships = agent.config.get("layout", {}).get("ships")
            return int(ships[2][-1]) if ships else None
    return None


def check_fit(names: Iterable[str], num_players: int, game_config: Mapping[str, Any]) -> None:
    """AgentUnfit naming the first agent that cannot play this game (and the grid it plays,
    when that is why); agents without a network (random, heuristic, ismcts) play any game."""
    from agents.registry import make, needs_torch

    networks = [name for name in dict.fromkeys(names) if needs_torch(name)]
    if not networks:
        return
    sizes = game_sizes(num_players, game_config)
    for name in networks:
        bot = make(name)
        problem = unfit(bot, *sizes)
        if problem is None:
            continue
        grid = trained_grid(bot)
        if grid is not None and grid != game_config.get("grid_size", grid):
            problem = f"its network plays --grid-size {grid} only"
        raise AgentUnfit(f"agent {name} cannot play this game: {problem}")
