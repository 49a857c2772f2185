"""Farlight for RLlib: a MultiAgentEnv in which league opponents play inside the env.

Each game seats the learner (RLlib's shared policy) and, when it is not a pure self-play game,
opponents drawn from the league: the baselines by name (random, heuristic, ...) and frozen
snapshots of the learner (policy files). Scripted seats are played here, between the learner's
moves, because the project's baselines read the engine's `PlayerView` (`info["view"]`), which
no RLModule could receive; snapshots run here too so that every opponent, baseline or
snapshot, is one `Agent`. RLlib therefore sees only learner seats, all mapped to one policy.

Only learner seats get observations; a seat that moves several times in a row gets one
observation per move. At the end every learner seat that moved gets its final observation and
its reward. Illegal actions raise (the masked module never picks one). Needs the `rllib` extra.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from agents.registry import make_shared
from farlight_env.env.aec import raw_env
from farlight_env.env.autopilot import DEFAULT_AUTOPILOT
from farlight_env.env.subgame import FULL_GAME, LearnerDecisions, SubGame
from training.farlight.envs import TRAINING_OBSERVATION

#: League entries as shipped to env runners: (name, policy file bytes or None for a baseline).
LeagueEntry = tuple[str, bytes | None]


class LeagueEnv(MultiAgentEnv):
    """env_config: num_players, reward_mode, options (game options of `raw_env`), subgame
    (learner_decisions and autopilot: the learner seats' other decisions are the autopilot's),
    baselines, self_play_fraction, seed; RLlib's EnvContext adds worker_index (0: the driver's
    env runner, else a remote one)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        worker = int(getattr(config, "worker_index", 0) or 0)  # an EnvContext's, before dict()
        config = dict(config or {})
        self.aec = raw_env(
            num_players=int(config.get("num_players", 2)),
            reward_mode=config.get("reward_mode", "win"),
            observation=TRAINING_OBSERVATION,
            learner_decisions=FULL_GAME,  # the scripted seats play the full game
            **config.get("options", {}),
        )
        self.possible_agents = list(self.aec.possible_agents)
        subgame = dict(config.get("subgame") or {})
        #: The learner seats' sub-game (typed already when the run's config built it; parsed
        #: here otherwise), the one driver that plays scripted seats and the autopilot.
        self.sub_game = SubGame(
            LearnerDecisions.of(subgame.get("learner_decisions")),
            subgame.get("autopilot", DEFAULT_AUTOPILOT),
            len(self.possible_agents),
        )
        self.autopilot = self.sub_game.autopilot
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: self.aec.observation_space(a) for a in self.agents}
        self.action_spaces = {a: self.aec.action_space(a) for a in self.agents}
        self.self_play_fraction = float(config.get("self_play_fraction", 1.0))
        # RLlib's first reset passes the run's seed + the runner's index + the game's place in
        # the runner, which repeats across runners (runner 1's second game, runner 2's first):
        # the runner's index in the base keeps every game's stream its own.
        self.base_seed = int(config.get("seed", 0)) * 1_000_003 + worker * 1_000
        self.rng = np.random.default_rng(self.base_seed)
        self.league: list[LeagueEntry] = [(name, None) for name in config.get("baselines", [])]
        self._agents: dict[str, Any] = {}
        self._folder: Path | None = None
        self.learners: set[str] = set()
        self.scripted: dict[str, Any] = {}
        self.moved: set[str] = set()
        self.episodes = 0

    # ------------------------------------------------------------------ the league
    def set_league(self, entries: Sequence[LeagueEntry]) -> None:
        """Replace the league (baselines and snapshots); called on every env runner."""
        self.league = list(entries)

    def _agent(self, entry: LeagueEntry, seat: int) -> Any:
        name, payload = entry
        key = f"{name}/{seat}"
        if key not in self._agents:
            # policies play one network per file for every env and seat of this env runner
            if payload is None:
                self._agents[key] = make_shared(name, seed=self.base_seed + seat)
            else:
                self._agents[key] = make_shared(str(self._snapshot_file(name, payload)))
        agent = self._agents[key]
        agent.reset()
        return agent

    def _snapshot_file(self, name: str, payload: bytes) -> Path:
        """A snapshot's bytes as a file on this node, loaded like any policy file."""
        if self._folder is None:
            self._folder = Path(tempfile.mkdtemp(prefix="farlight-league-"))
        digest = hashlib.sha256(payload).hexdigest()[:16]
        path = self._folder / f"{digest}.pt"
        if not path.exists():
            path.write_bytes(payload)
        return path

    def _seat_players(self) -> None:
        agents = self.aec.possible_agents
        if not self.league or self.rng.random() < self.self_play_fraction:
            self.learners, self.scripted = set(agents), {}
            return
        learner = agents[int(self.rng.integers(len(agents)))]
        self.learners = {learner}
        self.scripted = {
            a: self._agent(self.league[int(self.rng.integers(len(self.league)))], seat)
            for seat, a in enumerate(agents)
            if a != learner
        }

    # ------------------------------------------------------------------ the game
    def _advance(self) -> str | None:
        """Play scripted seats until a learner seat is to move (its name) or the game ends."""
        seat = self.sub_game.advance(self.aec, self.aec.step)
        return None if seat is None else self.aec.possible_agents[seat]

    def _scripted_at(self, seat: int) -> Any:
        return self.scripted[self.aec.possible_agents[seat]]

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        if seed is not None:
            self.rng = np.random.default_rng([self.base_seed, seed])
        self.aec.reset(seed=int(self.rng.integers(2**31)))
        self._seat_players()
        learners = {self.aec.agent_name_mapping[a] for a in self.learners}
        self.sub_game.start(self.aec.game.seed, learners, self._scripted_at)
        self.moved = set()
        self.episodes += 1
        agent = self._advance()
        assert agent is not None, "a game ended before the learner's first move"
        return {agent: self.aec.observe(agent)}, {agent: {}}

    def step(self, action_dict: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        agent = self.aec.agent_selection
        self.moved.add(agent)
        self.aec.step(int(action_dict[agent]))
        nxt = self._advance()
        if nxt is not None:
            return (
                {nxt: self.aec.observe(nxt)},
                {nxt: 0.0},
                {"__all__": False},
                {"__all__": False},
                {},
            )
        aec = self.aec
        seats = sorted(self.moved)
        obs = {a: aec.observe(a) for a in seats}
        rewards = {a: float(aec.rewards[a]) for a in seats}
        terminated = {a: bool(aec.terminations[a]) for a in seats}
        truncated = {a: bool(aec.truncations[a]) and not terminated[a] for a in seats}
        terminated["__all__"] = all(terminated[a] for a in seats)
        truncated["__all__"] = not terminated["__all__"]
        return obs, rewards, terminated, truncated, {}
