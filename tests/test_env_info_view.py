"""`env.last()`'s info works with every agent: the standard PettingZoo loop, nothing added.

Planning agents (heuristic, ismcts) read `info["view"]`, the acting seat's `PlayerView`; the
env puts it there, so `agent.act(obs["observation"], obs["action_mask"], info)` is all a user
writes, as in the README and notebook 03.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agents import make
from farlight_env import farlight_v0
from farlight_env.game.hidden import PlayerView

AGENT_KWARGS = {"random": {}, "heuristic": {}, "ismcts": {"iterations": 4}, "ppo": {}}


def standard_loop(agent_name: str, num_players: int, seed: int) -> list[int]:
    """The README's loop for one kind of agent: one agent object per seat, info straight from
    last()."""
    env = farlight_v0.env(num_players=num_players)
    env.reset(seed=seed)
    players = {
        name: make(agent_name, seed=seed + i, **AGENT_KWARGS[agent_name])
        for i, name in enumerate(env.possible_agents)
    }
    for agent in env.agent_iter():
        obs, _reward, termination, truncation, info = env.last()
        if termination or truncation:
            action = None
        else:
            action = players[agent].act(obs["observation"], obs["action_mask"], info)
        env.step(action)
    game = env.unwrapped.game
    assert game.is_over
    return game.scores()


@pytest.mark.parametrize("agent_name", ["random", "heuristic", "ismcts", "ppo"])
def test_standard_loop_plays_a_full_game_with_every_agent(agent_name: str) -> None:
    if agent_name == "ppo":
        pytest.importorskip("torch")
    scores = standard_loop(agent_name, 2, seed=3)
    assert len(scores) == 2


def test_the_view_in_info_is_the_acting_seats_own() -> None:
    env = farlight_v0.env(num_players=3)
    env.reset(seed=5)
    for step, agent in enumerate(env.agent_iter()):
        obs, _reward, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        view = info["view"]
        assert isinstance(view, PlayerView)
        assert view.seat == env.unwrapped.agent_name_mapping[agent]
        assert view is env.unwrapped.player_view(agent)
        if step > 60:
            break
        legal = obs["action_mask"].nonzero()[0]
        env.step(int(legal[0]))


def test_the_readme_loop_runs_verbatim_to_the_end_of_a_game() -> None:
    """The code block of the README's "The API in ten lines", executed as printed (heuristic,
    ismcts, random and heuristic at one table; about 8 CPU-seconds)."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = readme.split("## The API in ten lines", 1)[1].split("```python", 1)[1]
    code = block.split("```", 1)[0]
    assert 'act(obs["observation"], obs["action_mask"], view)' in code
    assert "farlight_v1.env(" in code and "agent_info(agent)" in code
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    env = namespace["env"]
    assert env.unwrapped.game.is_over
    assert {b.name for b in namespace["bots"]} == {"heuristic", "ismcts", "random"}
