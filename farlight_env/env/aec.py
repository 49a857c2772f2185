"""PettingZoo AEC environment for Farlight, following `pettingzoo.classic` conventions."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from farlight_env.cards.loader import load_card_set, standard_card_set
from farlight_env.cards.model import CardSet
from farlight_env.encode.codec import ActionCodec
from farlight_env.encode.observation import ObservationEncoder
from farlight_env.game.game import ConfigError, FarlightGame, GameConfig, IllegalActionError
from farlight_env.game.hidden import PlayerView

REWARD_MODES = ("win", "margin", "rank")
ILLEGAL_MODES = ("raise", "terminate")


def final_rewards(game: FarlightGame, mode: str) -> list[float]:
    """End-of-game reward per seat.

    win: +1 sole winner, 0 for each of several sharing the victory, -1 otherwise.
    margin: own final score minus the best opponent's. rank: +1 first .. -1 last, ties averaged.
    """
    n = game.num_players
    scores = game.scores()
    if mode == "win":
        winners = game.winners()
        sole = len(winners) == 1
        return [(1.0 if sole else 0.0) if p in winners else -1.0 for p in range(n)]
    if mode == "margin":
        return [float(scores[p] - max(scores[q] for q in range(n) if q != p)) for p in range(n)]
    if mode == "rank":
        rewards = []
        for p in range(n):
            above = sum(scores[q] > scores[p] for q in range(n))
            tied = sum(scores[q] == scores[p] for q in range(n))
            mean_rank = above + (tied - 1) / 2.0  # 0 = best
            rewards.append(1.0 - 2.0 * mean_rank / (n - 1))
        return rewards
    raise ConfigError(f"reward_mode must be one of {REWARD_MODES}, got {mode!r}")


def env(**kwargs: Any) -> AECEnv:
    """The wrapped environment: bounds-checked actions and enforced call order."""
    raw = raw_env(**kwargs)
    wrapped = wrappers.AssertOutOfBoundsWrapper(raw)
    return wrappers.OrderEnforcingWrapper(wrapped)


class raw_env(AECEnv, EzPickle):  # noqa: N801 - PettingZoo naming convention
    """Farlight for 2–5 players; one Discrete action space and masks for every decision."""

    metadata = {
        "name": "farlight_v0",
        "render_modes": ["ansi", "human", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        num_players: int = 4,
        card_set: CardSet | str | os.PathLike | None = None,
        grid_size: int = 13,
        max_rounds: int = 50,
        reward_mode: str = "win",
        render_mode: str | None = None,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        random_first_player: bool = False,
    ) -> None:
        EzPickle.__init__(
            self,
            num_players,
            card_set,
            grid_size,
            max_rounds,
            reward_mode,
            render_mode,
            illegal_action,
            illegal_reward,
            random_first_player,
        )
        super().__init__()
        GameConfig(num_players, grid_size, max_rounds, random_first_player).validate()
        if reward_mode not in REWARD_MODES:
            raise ConfigError(f"reward_mode must be one of {REWARD_MODES}, got {reward_mode!r}")
        if illegal_action not in ILLEGAL_MODES:
            raise ConfigError(
                f"illegal_action must be one of {ILLEGAL_MODES}, got {illegal_action!r}"
            )
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(
                f"render_mode must be None or one of {self.metadata['render_modes']}, "
                f"got {render_mode!r}"
            )
        if card_set is None:
            card_set = standard_card_set()
        elif not isinstance(card_set, CardSet):
            card_set = load_card_set(card_set)
        self.cards = card_set
        self.config = dict(
            num_players=num_players,
            grid_size=grid_size,
            max_rounds=max_rounds,
            random_first_player=random_first_player,
        )
        self.reward_mode = reward_mode
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.codec = ActionCodec(card_set, grid_size)
        self.encoder = ObservationEncoder(card_set, grid_size)
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, np.inf, (self.encoder.size,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self.codec.size,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.codec.size) for a in self.possible_agents}
        self.game: FarlightGame | None = None
        self._seed_rng = np.random.default_rng()

    # ----------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observation_layout(self) -> dict[str, tuple[slice, tuple[int, ...]]]:
        """name -> (slice, shape) of the flat observation vector."""
        return self.encoder.layout()

    # ------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seed_rng = np.random.default_rng(seed)
        game_seed = int(self._seed_rng.integers(2**63 - 1))
        self.game = FarlightGame(seed=game_seed, card_set=self.cards, **self.config)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.game.current_player]
        self._update_infos()

    # ---------------------------------------------------------- observe
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        game = self._require_game()
        seat = self.agent_name_mapping[agent]
        mask = np.zeros(self.codec.size, dtype=np.int8)
        if game.current_player == seat:
            self.codec.mask(game, mask)
        return {"observation": self.encoder.encode(game, seat), "action_mask": mask}

    def action_mask(self, agent: str) -> np.ndarray:
        """The agent's mask alone (cheaper than a full observation)."""
        game = self._require_game()
        mask = np.zeros(self.codec.size, dtype=np.int8)
        if game.current_player == self.agent_name_mapping[agent]:
            self.codec.mask(game, mask)
        return mask

    # ------------------------------------------------------------- step
    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self._require_game()
        self._cumulative_rewards[agent] = 0.0
        move = self.codec.decode(int(action), game) if action is not None else None
        try:
            if move is None:
                raise IllegalActionError("no action given")
            game.apply(move)  # checks legality once; an illegal move changes nothing
        except IllegalActionError:
            self._illegal(agent, action, move)
            return
        if game.is_over:
            self._finish()
        else:
            self.agent_selection = self.possible_agents[game.current_player]
        self._update_infos()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _illegal(self, agent: str, action: int | None, move: Any) -> None:
        game = self._require_game()
        if self.illegal_action == "raise":
            legal = [self.codec.encode(a) for a in game.legal_actions()]
            raise ValueError(
                f"illegal action {action} ({move}) for {agent} in phase {game.phase.value}; "
                f"legal indices: {legal[:12]}{' ...' if len(legal) > 12 else ''} "
                f"(see obs['action_mask'] or env.unwrapped.describe_action(i))"
            )
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = self.illegal_reward
        self.terminations = dict.fromkeys(self.agents, True)
        for a in self.agents:
            self.infos[a]["illegal_action"] = agent
        self._accumulate_rewards()

    def _finish(self) -> None:
        game = self._require_game()
        rewards = final_rewards(game, self.reward_mode)
        self.rewards = {a: rewards[i] for i, a in enumerate(self.possible_agents)}
        done = dict.fromkeys(self.agents, True)
        if game.is_truncated:
            self.truncations = done
        else:
            self.terminations = done

    def _update_infos(self) -> None:
        game = self._require_game()
        for a in self.possible_agents:
            info = self.infos[a]
            info["phase"] = game.phase.value
            info["round"] = game.round
            if game.is_over:
                info["scores"] = game.scores()
                info["winners"] = game.winners()
                info["end_reason"] = game.end_reason.value if game.end_reason else None

    # ------------------------------------------------------------ misc
    def player_view(self, agent: str) -> PlayerView:
        """The agent's window on the game (public facts only), for agents that plan on states."""
        return PlayerView(self._require_game(), self.agent_name_mapping[agent])

    def describe_action(self, index: int) -> str:
        """What action index `index` means in the current decision, for people."""
        return self.codec.describe(int(index), self._require_game())

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=...")
            return None
        from farlight_env.env.render import render_ansi, render_rgb

        game = self._require_game()
        viewer = game.current_player
        if self.render_mode == "rgb_array":
            return render_rgb(game, viewer)
        text = render_ansi(game, viewer)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    def _require_game(self) -> FarlightGame:
        if self.game is None:
            raise RuntimeError("call reset() before using the environment")
        return self.game
