"""PettingZoo AEC environment for Farlight, following `pettingzoo.classic` conventions."""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from farlight_env.cards.model import CardSet
from farlight_env.encode.codec import ActionCodec
from farlight_env.encode.compact import CompactCodec
from farlight_env.encode.observation import ObservationEncoder
from farlight_env.env.autopilot import DEFAULT_AUTOPILOT, KIND_BLOCKS
from farlight_env.env.infos import (
    check_info_mode,
    end_facts,
    numeric_info,
    phase_index,
)
from farlight_env.env.order import FastOrderWrapper
from farlight_env.env.subgame import LearnerDecisions, SubGame
from farlight_env.game.config import ConfigError, GameConfig, IllegalActionError
from farlight_env.game.game import FarlightGame
from farlight_env.game.hidden import PlayerView
from farlight_env.game.scoring import REWARD_MODES, final_rewards
from farlight_env.game.tables import resolve_card_set
from farlight_env.seeding import draw_engine_seed, is_wide

ILLEGAL_MODES = ("raise", "terminate")
#: What `obs["observation"]` is: the float32 vector, or its exact uint8 compact form (#49).
OBSERVATION_FORMS = ("float", "compact")


def check_observation_form(observation: str) -> str:
    """The observation form, or a ConfigError naming the choices."""
    if not isinstance(observation, str) or observation not in OBSERVATION_FORMS:
        raise ConfigError(f"observation must be one of {OBSERVATION_FORMS}, got {observation!r}")
    return observation


class SeatView(PlayerView):
    """The `PlayerView` an agent finds in its `info["view"]`: built once per game, nothing per step.

    Two views are equal when the same seat would know the same facts (equal redacted games), so
    seeded runs compare equal (PettingZoo's seed test) without exposing anything hidden.
    """

    __hash__ = None  # type: ignore[assignment] - equality follows the live game

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PlayerView):
            return NotImplemented
        return self.seat == other.seat and self.redacted().to_json() == other.redacted().to_json()


def env(**kwargs: Any) -> AECEnv:
    """The wrapped environment: enforced call order, as PettingZoo's `OrderEnforcingWrapper`.

    `FastOrderWrapper` raises that wrapper's errors but reads the raw env directly (faster).
    `raw_env.step` itself refuses actions that are not int indices in range (TypeError /
    ValueError), so PettingZoo's `AssertOutOfBoundsWrapper`, which checks with `assert`, is
    not needed.
    """
    return FastOrderWrapper(raw_env(**kwargs))


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
        *,
        reward_mode: str = "win",
        render_mode: str | None = None,
        illegal_action: str = "raise",
        illegal_reward: float = -1.0,
        learner_decisions: LearnerDecisions | str | Iterable[str] | None = "all",
        autopilot: Any = DEFAULT_AUTOPILOT,
        infos: str = "full",
        observation: str = "float",
        **game_options: Any,
    ) -> None:
        """Args:
        num_players: agents player_0..player_{n-1}, 2..5.
        card_set: a CardSet, a card file path or None for the standard set.
        reward_mode: "win", "margin" or "rank" (see `final_rewards`).
        render_mode: None, "ansi", "human" or "rgb_array".
        illegal_action: "raise" (ValueError) or "terminate" (end the game, penalise the actor).
        illegal_reward: the actor's reward when illegal_action="terminate".
        learner_decisions: the decision kinds the agents are asked for ("all", or a set of
            bidding, refit, engineer, install, upgrade, overhaul, mission, or a parsed
            `LearnerDecisions`); every other decision is played inside the env by
            `autopilot` (docs/subgames.md).
        autopilot: who plays the other decisions: an agent name ("heuristic", "ismcts@N",
            ...), a saved policy path or an Agent object; it sees only its seat's view.
        infos: "full": each agent's info holds its `SeatView` ("view", what planning agents
            read), "phase"/"decision" and "round", and at the end "scores", "winners" and
            "end_reason" (strings and lists). "numeric": numbers only, with the same keys,
            shapes and dtypes from reset on (`farlight_env.env.infos`), for libraries that
            make tensors of infos (TorchRL); the view is `env.unwrapped.player_view(agent)`.
        observation: "float": `obs["observation"]` is the float32 vector; "compact": its
            exact uint8 form, a quarter the size (`compact_codec.expand` gives the floats
            back bit for bit; docs/environment.md#compact-observation).
        **game_options: the other `GameConfig` fields (grid_size, max_rounds,
            random_first_player, rule_options: a mapping of rule options, see docs/rules.md).
        """
        EzPickle.__init__(
            self,
            num_players=num_players,
            card_set=card_set,
            reward_mode=reward_mode,
            render_mode=render_mode,
            illegal_action=illegal_action,
            illegal_reward=illegal_reward,
            learner_decisions=learner_decisions,
            autopilot=autopilot,
            infos=infos,
            observation=observation,
            **game_options,
        )
        super().__init__()
        #: The game's options, validated once here; every game of this env is given this object.
        self.game_config = GameConfig.from_options(num_players=num_players, **game_options)
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
        #: "full" or "numeric" (see `farlight_env.env.infos`).
        self.info_mode = check_info_mode(infos)
        #: "float" or "compact": what `obs["observation"]` holds.
        self.observation_form = check_observation_form(observation)
        card_set = resolve_card_set(card_set)
        grid_size = self.game_config.grid_size
        self.cards = card_set
        self.reward_mode = reward_mode
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.codec = ActionCodec(card_set, grid_size)
        self.encoder = ObservationEncoder(card_set, grid_size)
        self._compact: CompactCodec | None = None
        if self.observation_form == "compact":
            self._compact = self.compact_codec
            self._blank_observation = np.zeros(self._compact.compact_size, dtype=np.uint8)
            vector_space = self._compact.space()
        else:
            self._blank_observation = np.zeros(self.encoder.size, dtype=np.float32)
            vector_space = spaces.Box(0.0, np.inf, (self.encoder.size,), dtype=np.float32)
        self._blank_observation.flags.writeable = False
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        #: The sub-game every seat plays: the learners' kinds (parsed here, once) and the
        #: autopilot that plays their other decisions (inactive for "all").
        self.sub_game = SubGame(LearnerDecisions.of(learner_decisions), autopilot, num_players)
        self.learner_decisions = self.sub_game.decisions.kinds
        self.autopilot = self.sub_game.autopilot
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        obs_space = spaces.Dict(
            {
                "observation": vector_space,
                "action_mask": spaces.Box(0, 1, (self.codec.size,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.codec.size) for a in self.possible_agents}
        self.game: FarlightGame | None = None
        self._seed_rng = np.random.default_rng()
        self._wide_seeds = True  # unseeded: 128-bit engine seeds from the OS's entropy

    @property
    def config(self) -> dict[str, Any]:
        """The game options as plain data (keyword arguments of FarlightGame), derived from
        `game_config`, which every game of this env shares."""
        return self.game_config.as_dict()

    # ----------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observation_layout(self) -> dict[str, tuple[slice, tuple[int, ...]]]:
        """name -> (slice, shape) of the flat observation vector (the float one; a compact
        vector has each element in the same place, two-byte counts' high bytes after them)."""
        return self.encoder.layout()

    @functools.cached_property
    def compact_codec(self) -> CompactCodec:
        """`compact(float vector)` and `expand(compact vector)` for this env's observations,
        whichever form it gives; also their bounded spaces (`space()`, `float_space()`)."""
        return CompactCodec(self.encoder.fields)

    # ------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game, its engine seed drawn from `seed`'s generator; `options={"game_seed": n}`
        gives the engine seed itself (any below 2**128: the web server's own 128-bit seeds)."""
        if seed is not None:
            self._seed_rng = np.random.default_rng(seed)
            self._wide_seeds = is_wide(seed)
        game_seed = (options or {}).get("game_seed")
        if game_seed is None:
            game_seed = draw_engine_seed(self._seed_rng, self._wide_seeds)
        self.game = FarlightGame(seed=game_seed, card_set=self.cards, config=self.game_config)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        #: Each seat's window on this game, built once; full infos carry it as info["view"].
        self._views = [SeatView(self.game, i) for i in range(len(self.possible_agents))]
        self.infos = {a: self._blank_info(i) for i, a in enumerate(self.agents)}
        self._info_key: tuple | None = None
        if self.sub_game.active:
            self.sub_game.start(game_seed)
            self._run_autopilot()
        if self.game.is_over:  # possible only when the autopilot plays whole games
            self._finish()
        self.agent_selection = self.possible_agents[self.game.current_player or 0]
        self._update_infos()

    # ---------------------------------------------------------- observe
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        game = self._require_game()
        seat = self.agent_name_mapping[agent]
        if game.current_player == seat:
            mask = self.codec.mask(game)
        else:
            mask = np.zeros(self.codec.size, dtype=np.int8)
        return {"observation": self.observation_vector(seat), "action_mask": mask}

    def observation_vector(self, seat: int) -> np.ndarray:
        """`seat`'s observation vector in this env's form (float32, or compact uint8)."""
        vector = self.encoder.encode(self._require_game(), seat)
        return vector if self._compact is None else self._compact.compact(vector)

    def observe_for(self, agent: str, player: Any) -> tuple[np.ndarray, np.ndarray]:
        """(observation vector, action mask) for `player` acting as `agent`.

        A player with `needs_observation = False` (scripted agents) gets a blank read-only
        vector instead of an encoded one: game loops need not pay for what it ignores.
        """
        if getattr(player, "needs_observation", True):
            obs = self.observe(agent)
            return obs["observation"], obs["action_mask"]
        return self._blank_observation, self.action_mask(agent)

    def action_mask(self, agent: str) -> np.ndarray:
        """The agent's mask alone (cheaper than a full observation)."""
        game = self._require_game()
        if game.current_player == self.agent_name_mapping[agent]:
            return self.codec.mask(game)
        return np.zeros(self.codec.size, dtype=np.int8)

    # ------------------------------------------------------------- step
    def step(self, action: int | np.integer | None) -> None:
        """Apply the selected agent's action index; None only for an agent that is done.

        Raises TypeError for anything but an int or numpy integer (bools, floats, strings and
        None are refused, never cast) and ValueError for an index out of range; an illegal
        index raises ValueError or ends the game, as `illegal_action` says.
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self._require_game()
        if type(action) is not int and not isinstance(action, np.integer):
            raise TypeError(
                f"the action of {agent} in phase {game.phase.value} must be an int index "
                f"0..{self.codec.size - 1} (numpy integers too), got {action!r} "
                f"({type(action).__name__}); None is only for an agent that is done"
            )
        move = self.codec.decode(action, game)  # ValueError when out of range
        self._cumulative_rewards[agent] = 0.0
        try:
            game.apply(move)  # checks legality once; an illegal move changes nothing
        except IllegalActionError:
            self._illegal(agent, action, move)
            return
        if self.sub_game.active:
            self._run_autopilot()
        if game.is_over:
            self._finish()
            self._update_infos()
            self._accumulate_rewards()
        else:  # rewards stay 0 until the end: nothing to accumulate
            self.agent_selection = self.possible_agents[game.current_player]
            self._update_infos()
        if self.render_mode == "human":
            self.render()

    def _run_autopilot(self) -> None:
        """Play the decisions that are not the learners' until one is, or the game ends."""
        game = self._require_game()
        self.sub_game.advance(self, lambda index: game.apply(self.codec.decode(index, game)))

    def _illegal(self, agent: str, action: int | np.integer, move: Any) -> None:
        game = self._require_game()
        if self.illegal_action == "raise":
            legal = [self.codec.encode(a) for a in game.legal_actions()]
            raise IllegalActionError(
                f"illegal action {action} ({move}) for {agent} in phase {game.phase.value}; "
                f"legal indices: {legal[:12]}{' ...' if len(legal) > 12 else ''} "
                f"(see obs['action_mask'] or env.unwrapped.describe_action(i))"
            )
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = self.illegal_reward
        self.terminations = dict.fromkeys(self.agents, True)
        offender = agent if self.info_mode == "full" else self.agent_name_mapping[agent]
        for a in self.agents:
            self.infos[a] = {**self.infos[a], "illegal_action": offender}
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
        key = (game.phase, game.round)
        if key == self._info_key and not game.is_over:
            return  # phase and round already written
        self._info_key = key
        numeric = self.info_mode == "numeric"
        phase = phase_index(game.phase) if numeric else game.phase.value
        for a in self.possible_agents:  # a fresh dict: an info kept from an earlier step
            info = self.infos[a] = dict(self.infos[a])  # (RLlib's episodes) keeps its values
            info["phase"] = info["decision"] = phase
            info["round"] = game.round
        if game.is_over:
            self._write_end(game, numeric)

    def _write_end(self, game: FarlightGame, numeric: bool) -> None:
        """The end-of-game facts, once per game (fresh arrays for each agent; the dicts are
        fresh already, `_update_infos`)."""
        for a in self.possible_agents:
            if numeric:
                self.infos[a].update(end_facts(game))
            else:
                info = self.infos[a]
                info["scores"] = game.scores()
                info["winners"] = game.winners()
                info["end_reason"] = game.end_reason.value if game.end_reason else None

    def _blank_info(self, seat: int) -> dict[str, Any]:
        """A seat's info at reset: its view (full infos) or every numeric key (numeric)."""
        if self.info_mode == "numeric":
            return numeric_info(self._require_game())
        return {"view": self._views[seat]}

    # ------------------------------------------------------------ misc
    def player_view(self, agent: str) -> PlayerView:
        """The agent's window on the game (public facts only), for agents that plan on states;
        the same object as `infos[agent]["view"]` in full infos, built once per game."""
        self._require_game()
        return self._views[self.agent_name_mapping[agent]]

    def agent_info(self, agent: str) -> dict[str, Any]:
        """What a planning agent's `act(observation, mask, info)` reads: its seat, its view
        and the decision kind, whatever `infos` this env serves (farlight_v1's are numbers)."""
        game = self._require_game()
        seat = self.agent_name_mapping[agent]
        return {"seat": seat, "view": self._views[seat], "decision": game.phase.value}

    def action_blocks(self) -> dict[str, list[tuple[int, int]]]:
        """Decision kind -> the [start, stop) index ranges its actions come from, for a learner
        that uses a smaller head per kind; every legal action of a decision of that kind lies
        in them (tested against the engine)."""
        blocks = self.codec.blocks
        return {
            kind: [(blocks[b].start, blocks[b].stop) for b in names]
            for kind, names in KIND_BLOCKS.items()
        }

    @property
    def subgame(self) -> dict[str, Any]:
        """The sub-game as plain data (`SubGame.describe`)."""
        return self.sub_game.describe()

    def describe_action(self, index: int) -> str:
        """What action index `index` means in the current decision, for people."""
        return self.codec.describe(int(index), self._require_game())

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=...")
            return None
        from farlight_env.env.render_picture import render_rgb
        from farlight_env.env.render_text import render_ansi

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
