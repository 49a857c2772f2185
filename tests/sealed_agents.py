"""Agents for tests/test_sealed.py, built inside a sealed child as "tests.sealed_agents:NAME".

`Spy` plays exactly as the random agent with its seed, and meanwhile tries every way Python
offers to reach hidden state: `info["view"]._game`, `vars(view)`, `gc.get_referents` from the
view, `__dict__` walks, every object in its process (`gc.get_objects`); it also vandalises
every game it finds. It writes what it found to `log` (one JSON line per decision).
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import time
import types
from typing import Any

from agents.random_agent import RandomAgent
from farlight_env.game import FarlightGame


def hidden_facts(game: FarlightGame) -> dict[str, Any]:
    """What a spy wants: the deck's order, the face-down awards' order, every hand, the bids'
    tile values and the chance generator's state."""
    return {
        "deck": list(game.deck),
        "awards_down": list(game.awards_down),
        "hands": [list(hand) for hand in game.hands],
        "bids": [[list(b) for b in placed] for placed in game.bids],
        "rng": game.rng.bit_generator.state["state"]["state"],
    }


#: Not walked through: from a class or a module everything in the process is reachable, which
#: `all_games` covers (gc.get_objects) every few decisions.
OPAQUE = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)


def games_reachable(root: Any, limit: int = 200_000) -> list[FarlightGame]:
    """Every FarlightGame reachable from `root` by gc.get_referents, vars() and __dict__
    (through instances and containers)."""
    found, seen, todo = [], set(), [root]
    while todo and len(seen) < limit:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, OPAQUE):
            continue
        seen.add(id(obj))
        if isinstance(obj, FarlightGame):
            found.append(obj)
        todo.extend(gc.get_referents(obj))
        with contextlib.suppress(TypeError):  # no __dict__
            todo.extend(vars(obj).values())
    return found


def all_games() -> list[FarlightGame]:
    return [obj for obj in gc.get_objects() if isinstance(obj, FarlightGame)]


class Spy:
    """Plays as RandomAgent(seed); looks for hidden state and vandalises what it finds."""

    name = "spy"
    needs_observation = False

    def __init__(
        self, seed: int | None = None, log: str = "", vandal: bool = True, every: int = 5
    ) -> None:
        self.inner = RandomAgent(seed=seed)
        self.log = log
        self.vandal = vandal
        self.every = every  # search the whole process every `every` decisions (0: never)
        self.decisions = 0

    def reset(self) -> None:
        self.inner.reset()

    def act(self, observation: Any, action_mask: Any, info: Any) -> int:
        view = info["view"]
        direct = [view._game] + [v for v in vars(view).values() if isinstance(v, FarlightGame)]
        reachable = games_reachable(info)
        look = self.every and self.decisions % self.every == 0
        self.decisions += 1
        anywhere = all_games() if look else []
        report = {
            "view": type(view).__name__,
            "seat": view.seat,
            "direct": [g.to_json() for g in direct],
            "reachable": [g.to_json() for g in reachable],
            "anywhere": [hidden_facts(g) for g in anywhere],
        }
        if self.log:
            with open(self.log, "a") as fh:
                fh.write(json.dumps(report) + "\n")
        action = self.inner.act(observation, action_mask, info)
        found = {id(g): g for g in direct + reachable + anywhere}
        for game in found.values() if self.vandal else ():
            game.deck.reverse()
            game.crew[:] = [99] * len(game.crew)
            game.hands[view.seat] = []
        return action


class Crash:
    """Raises on its first decision."""

    name = "crash"
    needs_observation = False

    def __init__(self, seed: int | None = None, how: str = "raise") -> None:
        self.how = how

    def reset(self) -> None:
        pass

    def act(self, observation: Any, action_mask: Any, info: Any) -> int:
        if self.how == "exit":
            os._exit(3)
        if self.how == "sleep":
            time.sleep(30)
        if self.how == "illegal":
            return int(action_mask.argmin())  # a forbidden index
        raise ValueError("the crash agent crashed\nsecond line")
