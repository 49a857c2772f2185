"""One Gymnasium env for any declared game (#50): the learner holds one seat, given policies
hold the others, on the platform's generic PettingZoo env (`platform.aec.raw_env`).

Registered as `farlight_env/Game-v0` (`gymnasium.make("farlight_env/Game-v0", game="duel")`,
and `gymnasium.make_vec` for several); `action_masks()` serves sb3-contrib's MaskablePPO. The
reward arrives when the game ends: +1 if the learner is among the winners, -1 if not, 0 when
every seat wins, -1 for the learner's illegal action.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from farlight_env.platform.aec import raw_env
from farlight_env.platform.agents import named_opponent, opponent_for
from farlight_env.platform.protocol import Game, GameError

#: An opponent: a callable (observation, action mask) -> action index, an Agent (an object with
#: act(observation, action_mask, info) -> int, given info["view"], a SeatView), or an agent name
#: built through the `farlight_env.agents` entry point (one that plays any game: random, ismcts).
Policy = Callable[[np.ndarray, np.ndarray], int] | Any


def _uniform(rng: np.random.Generator) -> Callable[[np.ndarray, np.ndarray], int]:
    def pick(_observation: np.ndarray, mask: np.ndarray) -> int:
        legal = np.flatnonzero(mask)
        return int(legal[rng.integers(len(legal))])

    return pick


class PlatformSingleAgentEnv(gym.Env):
    """One learner seat of `game` (a name or a declaration) against opponent policies; other
    keywords are the game's options, checked by its declaration."""

    metadata = {"render_modes": ["ansi"], "render_fps": 2}

    def __init__(
        self,
        game: str | Game = "duel",
        num_players: int | None = None,
        learner_seat: int | str = "random",
        opponents: Policy | Sequence[Policy] | None = None,
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        self.aec = raw_env(game, num_players=num_players, render_mode=render_mode, **options)
        self.num_players = self.aec.num_players
        self.render_mode = render_mode
        if learner_seat != "random" and (
            isinstance(learner_seat, bool)
            or not isinstance(learner_seat, int)
            or not 0 <= learner_seat < self.num_players
        ):
            raise GameError(
                f"learner_seat must be 'random' or a seat 0..{self.num_players - 1}, "
                f"got {learner_seat!r}"
            )
        self.learner_seat_option = learner_seat
        self.opponents = self._opponent_list(opponents)
        self.observation_space = self.aec.observation_space("player_0")["observation"]
        self.action_space = self.aec.action_space("player_0")
        self.learner_seat = 0
        self._random = _uniform(np.random.default_rng())

    # ------------------------------------------------------------ opponents
    def _opponent_list(self, opponents: Policy | Sequence[Policy] | None) -> list[Any]:
        """One policy per seat (None: random play); a string is one agent name for them all."""
        n = self.num_players
        self._named: list[tuple[int, Any]] = []
        if opponents is None:
            return [None] * n
        if isinstance(opponents, str) or callable(opponents) or hasattr(opponents, "act"):
            opponents = [opponents] * n
        opponents = list(opponents)
        if len(opponents) not in (n - 1, n):
            raise GameError(
                f"opponents must be one policy or a list of {n - 1} (one per other seat), "
                f"got {len(opponents)}"
            )
        return [self._policy(p, i) for i, p in enumerate(opponents)]

    def _policy(self, policy: Any, index: int) -> Any:
        if isinstance(policy, str) and policy:
            agent = named_opponent(policy, index, GameError)
            self._check_plays(agent, index)
            self._named.append((index, agent))
            return agent
        if policy is not None and not callable(policy) and not hasattr(policy, "act"):
            raise GameError(f"opponents[{index}] is neither an agent name, callable nor an Agent")
        return policy

    def _check_plays(self, agent: Any, index: int) -> None:
        """An agent of one game (a game policy file) refuses any other game, here, by name."""
        check = getattr(agent, "check_game", None)
        if callable(check):
            try:
                check(self.aec.declaration.name, self.num_players)
            except ValueError as exc:
                raise GameError(f"opponents[{index}]: {exc}") from exc

    def _policy_for(self, seat: int) -> Any:
        policy = opponent_for(self.opponents, seat, self.learner_seat, self.num_players)
        return policy if policy is not None else self._random

    # ------------------------------------------------------------ the api
    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        self.aec.reset(seed=int(self.np_random.integers(2**31 - 1)))
        self._random = _uniform(np.random.default_rng(int(self.np_random.integers(2**31 - 1))))
        for index, agent in self._named:  # each game's own seeds: seeded episodes repeat
            agent.reset()
            if hasattr(agent, "rng"):
                agent.rng = np.random.default_rng([self.aec.game_seed or 0, index])
        if self.learner_seat_option == "random":
            self.learner_seat = int(self.np_random.integers(self.num_players))
        else:
            self.learner_seat = int(self.learner_seat_option)
        self._play_opponents()
        return self._observe(), self._info()

    def step(self, action: int | np.integer) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Apply the learner's action, then the opponents'; an illegal action ends the episode
        at -1 for the learner."""
        if self.aec.state is None or self._over():
            raise RuntimeError("step() after the episode ended; call reset()")
        self.aec.step(action)
        self._play_opponents()
        learner = self._learner()
        terminated = self.aec.terminations[learner]
        reward = float(self.aec.rewards[learner]) if terminated else 0.0
        return self._observe(), reward, terminated, False, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now (all False once the episode is over)."""
        return self.aec.observe(self._learner())["action_mask"].astype(bool)

    def render(self) -> str | None:
        return self.aec.render()

    # ------------------------------------------------------------ helpers
    def _learner(self) -> str:
        return self.aec.possible_agents[self.learner_seat]

    def _over(self) -> bool:
        return self.aec.terminations[self._learner()]

    def _play_opponents(self) -> None:
        """Let the other seats act until the learner must decide or the game ends."""
        while not self._over() and self.aec.agent_selection != self._learner():
            agent = self.aec.agent_selection
            seat = self.aec.agent_name_mapping[agent]
            policy = self._policy_for(seat)
            observed = self.aec.observe(agent)
            vector, mask = observed["observation"], observed["action_mask"]
            if hasattr(policy, "act"):
                info = {**self.aec.infos[agent], "seat": seat, "view": self.aec.player_view(agent)}
                action = policy.act(vector, mask, info)
            else:
                action = policy(vector, mask)
            self.aec.step(int(action))

    def _observe(self) -> np.ndarray:
        return self.aec.observe(self._learner())["observation"]

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {
            "learner_seat": self.learner_seat,
            "illegal_action": self.aec.illegal_action,
        }
        state = self.aec.state
        if state is not None and state.is_over:
            info.update(scores=state.scores(), winners=state.winners())
        return info
