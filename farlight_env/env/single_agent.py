"""Gymnasium single-agent view: the learner holds one seat, given policies hold the others.

Registered as `farlight_env/Farlight-v0`; `action_masks()` serves sb3-contrib's MaskablePPO.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np

from farlight_env.env import aec_v1
from farlight_env.env.aec import raw_env
from farlight_env.env.autopilot import DEFAULT_AUTOPILOT
from farlight_env.env.subgame import FULL_GAME, LearnerDecisions, SubGame
from farlight_env.game.config import ConfigError
from farlight_env.platform.agents import named_opponent, opponent_for, reseed
from farlight_env.seeding import derive_seed, is_deal_key

#: An opponent: a callable (observation vector, action mask) -> action index, or an Agent
#: (an object with act(observation, action_mask, info) -> int, given info["view"]), or an
#: agent name / saved policy path, built through the `farlight_env.agents` entry point.
Policy = Callable[[np.ndarray, np.ndarray], int] | Any


class RandomPolicy:
    """Uniform over legal actions, with its own seeded Generator."""

    needs_observation = False  # the mask is enough

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.integers(len(legal))])


class FarlightSingleAgentEnv(gym.Env):
    """One learner seat against opponent policies; reward arrives when the game ends."""

    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2}
    #: The AEC env the games run in (farlight_v0's; `FarlightSingleAgentEnvV1` takes v1's).
    aec_class: type[raw_env] = raw_env

    def __init__(
        self,
        num_players: int = 2,
        learner_seat: int | str = "random",
        opponents: Policy | Sequence[Policy] | None = None,
        render_mode: str | None = None,
        illegal_action: str = "terminate",
        learner_decisions: LearnerDecisions | str | Iterable[str] | None = "all",
        autopilot: Any = DEFAULT_AUTOPILOT,
        infos: str = "full",
        deal_key: int | None = None,
        observation: str = "float",
        **env_config: Any,
    ) -> None:
        """`learner_decisions` and `autopilot` make a sub-game (docs/subgames.md): the learner
        is asked only for decisions of those kinds; `autopilot` plays its seat's others.
        Opponents play all their own decisions. `infos="numeric"`: the learner's info is
        "learner_seat" and `raw_env`'s numeric info (fixed keys and shapes; "illegal_action"
        is the offending seat or -1). `deal_key` (a wide secret seed) mixes into every game's
        seed one-way, so nobody without the key can tell which deals the env plays (held-out
        best responses train so). `observation="compact"`: observations are the exact uint8
        compact form (`raw_env`'s; opponents' and the autopilot's too). Other arguments:
        `raw_env`'s."""
        if deal_key is not None and not is_deal_key(deal_key):
            raise ConfigError(f"deal_key must be None or a wide seed (>= 2**64), got {deal_key!r}")
        self.deal_key = deal_key
        self.aec = self.aec_class(
            num_players=num_players,
            learner_decisions=FULL_GAME,  # the opponents play the full game; the sub-game is ours
            render_mode=render_mode,
            illegal_action=illegal_action,
            infos=infos,
            observation=observation,
            **env_config,
        )
        self.render_mode = render_mode
        self.num_players = num_players
        if learner_seat != "random" and (
            isinstance(learner_seat, bool)
            or not isinstance(learner_seat, int)
            or not 0 <= learner_seat < num_players
        ):
            raise ConfigError(
                f"learner_seat must be 'random' or a seat 0..{num_players - 1}, "
                f"got {learner_seat!r}"
            )
        self.learner_seat_option = learner_seat
        #: The learner's sub-game (its kinds parsed here, once): the one driver that plays
        #: the opponents' seats and the learner's other decisions.
        self.sub_game = SubGame(LearnerDecisions.of(learner_decisions), autopilot, num_players)
        self.learner_decisions = self.sub_game.decisions.kinds
        self.autopilot = self.sub_game.autopilot
        self.opponents = self._opponent_list(opponents)
        self.observation_space = self.aec.observation_space("player_0")["observation"]
        self.action_space = gym.spaces.Discrete(self.aec.codec.size)
        self.learner_seat = 0

    def _opponent_list(self, opponents: Policy | Sequence[Policy] | None) -> list[Policy | None]:
        """One policy per seat (None where the learner may sit); defaults to random play. A
        string is one agent name for every seat, never a sequence of one-letter names."""
        n = self.num_players
        self._named_opponents: list[tuple[int, Any]] = []
        if opponents is None:
            return [None] * n
        if isinstance(opponents, str):
            opponents = [opponents] * n
        elif callable(opponents) or hasattr(opponents, "act"):
            return [opponents] * n
        opponents = list(opponents)
        if len(opponents) not in (n - 1, n):
            raise ConfigError(
                f"opponents must be one policy or a list of {n - 1} (one per other seat), "
                f"got {len(opponents)}"
            )
        out: list[Policy | None] = []
        for i, policy in enumerate(opponents):
            if isinstance(policy, str) and policy:
                policy = self._named_opponent(policy, i)
            elif not callable(policy) and not hasattr(policy, "act"):
                raise ConfigError(
                    f"opponents[{i}] is neither an agent name, callable nor an Agent: {policy!r}"
                )
            out.append(policy)
        return out

    def _named_opponent(self, name: str, index: int) -> Any:
        """The agent called `name`, built here (one per seat) and reseeded from each game's
        seed in reset(), so seeded episodes repeat."""
        agent = named_opponent(name, index, ConfigError)
        self._named_opponents.append((index, agent))
        return agent

    @property
    def subgame(self) -> dict[str, str]:
        """The learner's sub-game as plain data (the inner AEC env plays the full game for the
        opponents: this env hands the learner's other decisions to its autopilot)."""
        return self.sub_game.describe()

    def set_opponents(self, opponents: Policy | Sequence[Policy] | None) -> None:
        """Replace the opponents from the next decision on (e.g. league training)."""
        self.opponents = self._opponent_list(opponents)

    def _policy_for(self, seat: int) -> Policy:
        policy = opponent_for(self.opponents, seat, self.learner_seat, self.num_players)
        return policy if policy is not None else self._random

    # --------------------------------------------------------------- api
    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        self.aec.reset(seed=self._game_seed(int(self.np_random.integers(2**31 - 1))))
        self._random = RandomPolicy(int(self.np_random.integers(2**31 - 1)))
        if self.learner_seat_option == "random":
            self.learner_seat = int(self.np_random.integers(self.num_players))
        else:
            self.learner_seat = int(self.learner_seat_option)
        self.sub_game.start(self.aec.game.seed, {self.learner_seat}, self._policy_for)
        for index, agent in self._named_opponents:
            if callable(getattr(agent, "reset", None)):
                agent.reset()
            reseed(agent, self.aec.game.seed % (2**63), index, 1)  # 1: not the autopilot's
        self._play_opponents()
        return self._observe(), self._info()

    def _game_seed(self, drawn: int) -> int:
        """The next game's seed: the draw itself, or with a deal key a wide seed drawn one-way
        from key and draw (farlight_env.seeding.derive_seed)."""
        return drawn if self.deal_key is None else derive_seed(self.deal_key, drawn)

    def step(self, action: int | np.integer) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Apply the learner's action, let opponents play; an illegal action ends the episode
        with `illegal_reward` unless illegal_action='raise'."""
        game = self.aec.game
        learner = self.aec.possible_agents[self.learner_seat]
        if game is None or self._episode_over():
            raise RuntimeError("step() after the episode ended; call reset()")
        self.aec.step(action)  # int or numpy integer; anything else raises TypeError
        if not self._episode_over():
            self._play_opponents()
        terminated = self.aec.terminations[learner]
        truncated = self.aec.truncations[learner]
        reward = float(self.aec.rewards[learner]) if terminated or truncated else 0.0
        return self._observe(), reward, terminated, truncated, self._info()

    def _episode_over(self) -> bool:
        learner = self.aec.possible_agents[self.learner_seat]
        return self.aec.terminations[learner] or self.aec.truncations[learner]

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now (all False once the episode is over)."""
        if self._episode_over():
            return np.zeros(self.aec.codec.size, dtype=bool)
        return self.aec.action_mask(self.aec.possible_agents[self.learner_seat]).astype(bool)

    def render(self) -> Any:
        return self.aec.render()

    # ------------------------------------------------------------ helpers
    def _play_opponents(self) -> None:
        """Let the other seats act, and the autopilot take the learner's decisions of other
        kinds, until the learner must decide or the game ends."""
        self.sub_game.advance(self.aec, self.aec.step)

    def _observe(self) -> np.ndarray:
        game = self.aec.game
        assert game is not None
        return self.aec.observation_vector(self.learner_seat)

    def _info(self) -> dict:
        game = self.aec.game
        assert game is not None
        if self.aec.info_mode == "numeric":
            learner = self.aec.possible_agents[self.learner_seat]
            return {"learner_seat": self.learner_seat, **self.aec.infos[learner]}
        phase = game.phase.value
        info: dict[str, Any] = {"learner_seat": self.learner_seat, "phase": phase}
        info["decision"] = phase
        learner = self.aec.possible_agents[self.learner_seat]
        offender = self.aec.infos[learner].get("illegal_action")
        if offender is not None:
            info["illegal_action"] = offender == learner  # False: an opponent broke the rules
        if game.is_over:
            info.update(
                scores=game.scores(), winners=game.winners(), end_reason=game.end_reason.value
            )
        return info


class FarlightSingleAgentEnvV1(FarlightSingleAgentEnv):
    """`farlight_env/Farlight-v1`: the same learner seat on `farlight_v1`'s AEC env (compact
    observations, numeric infos, any integer-like action). Opponents still get their view."""

    aec_class = aec_v1.raw_env

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """`FarlightSingleAgentEnv`'s arguments, with v1's defaults (`aec_v1.V1_DEFAULTS`)."""
        super().__init__(*args, **{**aec_v1.V1_DEFAULTS, **kwargs})
