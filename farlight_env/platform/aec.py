"""One PettingZoo AEC env for any declared game (#50), with the conventions of PettingZoo's
classic games: `{"observation", "action_mask"}` observations, infos of plain numbers, an
illegal action ends the game at -1 for the offender and 0 for the others, and +1 for each
winner and -1 for each other seat at the end (0 for all when every seat shares it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from farlight_env.platform.protocol import Game, IllegalMove, SeatView, State
from farlight_env.platform.registry import get_game


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's name for the unwrapped env
    """The game `game` (a name or a declaration) for `num_players` seats; other keywords are
    the game's options, checked by its declaration before anything is built.
    `illegal_action="raise"` raises IllegalMove instead of ending the game (debugging, and
    tournaments, which name the faulty agent)."""

    metadata = {"render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(
        self,
        game: str | Game,
        num_players: int | None = None,
        render_mode: str | None = None,
        illegal_action: str = "terminate",
        **options: Any,
    ) -> None:
        super().__init__()
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(
                f"illegal_action must be 'terminate' or 'raise', got {illegal_action!r}"
            )
        self.illegal_action_mode = illegal_action
        self.declaration = get_game(game) if isinstance(game, str) else game
        players = self.declaration.min_players if num_players is None else num_players
        self.num_players = self.declaration.check_players(players)
        self.options = self.declaration.checked_options(options)
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"{self.declaration.name}_platform"}
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        size = self.declaration.action_size(self.num_players, self.options)
        width = self.declaration.observation_size(self.num_players, self.options)
        self._action_space = spaces.Discrete(size)
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(-np.inf, np.inf, (width,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (size,), dtype=np.int8),
            }
        )
        self.state: State | None = None
        #: The seed the current game was dealt from (drawn from reset's seed).
        self.game_seed: int | None = None
        self._seed_rng = np.random.default_rng()

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seed_rng = np.random.default_rng(seed)
        self.game_seed = int(self._seed_rng.integers(2**63))
        self.state = self.declaration.new_state(self.num_players, self.game_seed, self.options)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.illegal_action = -1
        self._select()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        state, seat = self._state(), self.agent_name_mapping[agent]
        mask = (
            state.legal_mask()
            if state.current_player == seat
            else np.zeros(self._action_space.n, dtype=np.int8)
        )
        observation = np.asarray(state.observation(seat), dtype=np.float32)  # no copy if float32
        return {"observation": observation, "action_mask": mask}

    def observe_for(self, agent: str, player: Any) -> tuple[np.ndarray, np.ndarray]:
        """(observation, mask) for `agent`: what `evaluation.arena.play_episode` hands a player."""
        observed = self.observe(agent)
        return observed["observation"], observed["action_mask"]

    def player_view(self, agent: str) -> SeatView:
        """The seat's redacted view and a determinized stand-in, for agents that search."""
        return SeatView.of(self._state(), self.agent_name_mapping[agent])

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._state()
        self._clear_rewards()
        try:
            state.apply_action(int(action))
        except (IllegalMove, TypeError, ValueError):
            if self.illegal_action_mode == "raise":
                raise
            self.illegal_action = self.agent_name_mapping[agent]
            self._end({a: (-1.0 if a == agent else 0.0) for a in self.agents})
            return
        if state.is_over:
            winners = set(state.winners())
            everyone = len(winners) == self.num_players
            self._end(
                {
                    a: 0.0 if everyone else (1.0 if self.agent_name_mapping[a] in winners else -1.0)
                    for a in self.agents
                }
            )
            return
        self._select()
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        return self._state().render_text(None)

    def close(self) -> None:
        pass

    # ------------------------------------------------------------ helpers
    def _state(self) -> State:
        if self.state is None:
            raise RuntimeError("call reset() before using the env")
        return self.state

    def _select(self) -> None:
        seat = self._state().current_player
        self.agent_selection = self.possible_agents[seat if seat is not None else 0]
        self.infos = {a: self._info(a) for a in self.agents}

    def _info(self, agent: str) -> dict[str, Any]:
        state = self._state()
        return {
            "seat": self.agent_name_mapping[agent],
            "to_act": -1 if state.current_player is None else int(state.current_player),
            "moves": len(state.history),
            "illegal_action": self.illegal_action,
        }

    def _end(self, rewards: dict[str, float]) -> None:
        self.rewards = rewards
        self.terminations = dict.fromkeys(self.agents, True)
        self.infos = {a: self._info(a) for a in self.agents}
        self._accumulate_rewards()


def env(game: str | Game, **kwargs: Any) -> AECEnv:
    """The wrapped env (PettingZoo's call-order checks), as `pettingzoo.classic` builds theirs."""
    return wrappers.OrderEnforcingWrapper(raw_env(game, **kwargs))


def play_env(game: Game, config: Mapping[str, Any]) -> Any:
    """The env platform code plays `game` through: its own, or the generic one (raising on
    an illegal action, as tournaments want a faulty agent named)."""
    if game.make_env is not None:
        return game.make_env(**config)
    return raw_env(game, illegal_action="raise", **config)
