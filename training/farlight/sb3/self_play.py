"""League self-play: the learner against its own frozen snapshots and the baselines.

    farlight train self-play --run-dir runs/league --total-steps 200000 --num-players 2
    farlight train self-play --run-dir runs/league --resume

Opponents are drawn per episode from the league with prioritised fictitious self-play weights
(those the learner beats least are drawn most); a snapshot joins every `snapshot_every` steps
and is rated (OpenSkill, as tournaments are) against the league; a learning-curve plot shows
the snapshots' ratings and win rate against the heuristic over steps. Resumable like PPO runs.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import msgspec
import numpy as np
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

from agents.farlight.policy import PolicyAgent
from agents.registry import make_shared
from agents.torch_threads import set_threads
from evaluation.arena import play_episode
from evaluation.collector import fewer_collections
from evaluation.tournament import placements
from farlight_env.env.aec import raw_env
from farlight_env.env.single_agent import FarlightSingleAgentEnv
from farlight_env.processes import die_with_parent
from farlight_env.untrusted.files import atomic_write, read_bounded
from training.checkpoints import CHECKPOINT, save_checkpoint
from training.curves import plot_league_curve
from training.farlight.config import (
    SelfPlayConfig,
    env_player_counts,
    eval_player_counts,
    ship_encoder_frozen,
)
from training.farlight.envs import env_options, probe_env, training_env_kwargs
from training.farlight.sb3.callbacks import FreezeShipEncoder, ValueWarmup
from training.farlight.sb3.live_eval import LivePolicy, evaluate_against
from training.farlight.sb3.ppo_model import build_model, export_policy, load_checkpoint
from training.farlight.sb3.train_ppo import actor_config as ppo_actor_config
from training.farlight.sb3.train_ppo import as_run_error, prepare, warm_start
from training.farlight.sb3.vec_env import SharedMemoryVecEnv
from training.farlight.subgame import as_learner
from training.run_config import stream_seed
from training.sb3.run_files import run_logger, write_run_config
from training.sb3.runs import ProgressCallback, close_env, crossed_multiple

LEAGUE_STATE = "league.json"


def league_agent(entry: str, base_dir: Path, seed: int) -> Any:
    """A league member: a baseline by name, or a snapshot stored relative to the run dir."""
    if entry.endswith(".pt"):  # one network per snapshot for all the process's games
        return PolicyAgent(base_dir / entry, seed=seed, shared=True)
    return make_shared(entry, seed=seed)


def pfsp_weights(
    stats: dict[str, list[float]],
    entries: Sequence[str],
    power: float,
    baselines: Sequence[str] = (),
    baseline_share: float = 0.0,
) -> list[float]:
    """Weight (1 - win rate)^power per entry; unplayed entries count as a coin flip.

    With a `baseline_share`, the baselines together are drawn that often and the snapshots the
    rest, each group by PFSP: a learner judged against a baseline it beats 90% of the time
    keeps meeting it instead of drifting into a league of its own snapshots.
    """
    raw = []
    for entry in entries:
        wins, games = stats.get(entry, [0.0, 0.0])
        rate = (wins + 1.0) / (games + 2.0)  # Laplace-smoothed learner win rate
        raw.append(max(1e-3, (1.0 - rate) ** power))
    fixed = [entry in baselines for entry in entries]
    if baseline_share > 0 and any(fixed) and not all(fixed):
        base = sum(w for w, b in zip(raw, fixed, strict=True) if b)
        rest = sum(raw) - base
        return [
            w * (baseline_share / base if b else (1.0 - baseline_share) / rest)
            for w, b in zip(raw, fixed, strict=True)
        ]
    total = sum(raw)
    return [w / total for w in raw]


class LeagueEnv(FarlightSingleAgentEnv):
    """The single-agent env with opponents drawn per episode from a weighted league."""

    def __init__(
        self, num_players: int, entries: Sequence[str], seed: int, base_dir: str = ".", **kw: Any
    ) -> None:
        super().__init__(num_players=num_players, **kw)
        self.base_dir = Path(base_dir)
        self.entries = list(entries)
        self.weights = [1.0 / len(self.entries)] * len(self.entries)
        self._agents: dict[str, Any] = {}
        self._league_rng = np.random.default_rng(seed)
        self.current: list[str] = []

    def set_league(self, entries: Sequence[str], weights: Sequence[float]) -> None:
        self.entries, self.weights = list(entries), list(weights)

    def _agent(self, entry: str) -> Any:
        if entry not in self._agents:
            seed = int(self._league_rng.integers(2**31 - 1))
            self._agents[entry] = league_agent(entry, self.base_dir, seed)
        return self._agents[entry]

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        picks = self._league_rng.choice(len(self.entries), self.num_players - 1, p=self.weights)
        self.current = [self.entries[i] for i in picks]
        self.set_opponents([self._agent(e) for e in self.current])
        return super().reset(seed=seed, options=options)

    def _info(self) -> dict:
        info = super()._info()
        info["league_opponents"] = list(self.current)
        return info


class League(BaseCallback):
    """Tracks results per league entry, re-weights opponents, snapshots, rates and plots."""

    def __init__(self, config: SelfPlayConfig, run_dir: Path, state: dict[str, Any]) -> None:
        super().__init__()
        self.config = config
        self.run_dir = run_dir
        self.state = state
        self.last_snapshot = 0
        self.last_checkpoint = 0

    def _on_training_start(self) -> None:
        self.last_snapshot = self.last_checkpoint = self.model.num_timesteps
        self.push_weights()

    def push_weights(self) -> None:
        weights = pfsp_weights(
            self.state["stats"],
            self.state["entries"],
            self.config.pfsp_power,
            self.config.baselines,
            self.config.baseline_share,
        )
        self.training_env.env_method("set_league", self.state["entries"], weights)

    def _on_step(self) -> bool:
        for info, done in zip(self.locals["infos"], self.locals["dones"], strict=True):
            if not done or "winners" not in info:
                continue
            won = info["learner_seat"] in info["winners"]
            share = 1.0 / len(info["winners"]) if won else 0.0
            for entry in info["league_opponents"]:
                stat = self.state["stats"].setdefault(entry, [0.0, 0.0])
                stat[0] += share
                stat[1] += 1
        return True

    def _on_rollout_start(self) -> None:
        steps = self.model.num_timesteps
        if crossed_multiple(self.last_snapshot, steps, self.config.snapshot_every):
            self.snapshot(steps)
            self.last_snapshot = steps
        if crossed_multiple(self.last_checkpoint, steps, self.config.checkpoint_every):
            self.checkpoint()
            self.last_checkpoint = steps
        self.push_weights()

    def snapshot(self, steps: int) -> None:
        path = self.run_dir / "pool" / f"snapshot_{steps:09d}.pt"
        export_policy(self.model, path, actor_config(self.model, self.config))
        entry = str(path.relative_to(self.run_dir))  # the run dir may move between resumes
        self.state["entries"].append(entry)
        rating = rate_snapshot(entry, self.state, self.config, seed=steps, base_dir=self.run_dir)
        rates = {
            seats: evaluate_against(
                as_learner(LivePolicy(self.model), self.config),
                "heuristic",
                self.config.eval_games,
                seats,
                seed=20_000 + steps,
                options=env_options(self.config),
            )
            for seats in eval_player_counts(self.config)
        }
        win_rate = float(np.mean(list(rates.values())))
        per_count = (
            {f"win_rate_vs_heuristic_{n}p": r for n, r in rates.items()} if len(rates) > 1 else {}
        )
        self.state["history"].append(
            {
                "steps": steps,
                "snapshot": entry,
                "win_rate_vs_heuristic": win_rate,
                **per_count,
                **rating,
            }
        )
        self.logger.record("league/win_rate_vs_heuristic", win_rate)
        for key, rate in per_count.items():
            self.logger.record(f"league/{key}", rate)
        self.logger.record("league/snapshot_rating", rating["rating"])
        self.logger.record("league/pool_size", len(self.state["entries"]))
        self.logger.record("time/total_timesteps", steps)
        self.logger.dump(steps)
        plot_league_curve(self.state["history"], self.run_dir / "learning_curve.png")

    def checkpoint(self) -> None:
        save_checkpoint(self.model, self.run_dir)
        export_policy(self.model, self.run_dir / "policy.pt", actor_config(self.model, self.config))
        save_league_state(self.run_dir, self.state)


def actor_config(model: Any, config: SelfPlayConfig) -> dict[str, Any]:
    return ppo_actor_config(model, config, name="league")


def rate_snapshot(
    entry: str, state: dict[str, Any], config: SelfPlayConfig, seed: int, base_dir: Path
) -> dict[str, float]:
    """Play the new snapshot against league members and update everyone's OpenSkill rating."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {k: model.rating(mu=v[0], sigma=v[1], name=k) for k, v in state["ratings"].items()}
    for name in state["entries"]:
        ratings.setdefault(name, model.rating(name=name))
    rng = np.random.default_rng(seed)
    others = [e for e in state["entries"] if e != entry]
    counts = eval_player_counts(config)
    for g in range(config.rating_games):
        n = counts[g % len(counts)]
        lineup = [entry] + [others[i] for i in rng.choice(len(others), n - 1)]
        lineup = lineup[g % n :] + lineup[: g % n]  # rotate seats
        record = _play(lineup, n, seed + g, base_dir, env_options(config))
        teams = [[ratings[name]] for name in lineup]
        updated = model.rate(teams, ranks=placements(record))
        fresh: dict[str, list[Any]] = {}
        for name, team in zip(lineup, updated, strict=True):
            fresh.setdefault(name, []).append(team[0])
        for name, values in fresh.items():
            ratings[name] = model.rating(
                mu=float(np.mean([v.mu for v in values])),
                sigma=float(np.mean([v.sigma for v in values])),
                name=name,
            )
    state["ratings"] = {k: [r.mu, r.sigma] for k, r in ratings.items()}
    r = ratings[entry]
    return {"rating_mu": r.mu, "rating_sigma": r.sigma, "rating": r.ordinal()}


def _play(
    lineup: Sequence[str],
    num_players: int,
    seed: int,
    base_dir: Path,
    options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    env = raw_env(num_players=num_players, **(options or {}))
    env.reset(seed=seed)
    agents = [league_agent(e, base_dir, seed + s) for s, e in enumerate(lineup)]
    play_episode(env, agents)
    game = env.game
    return {"scores": game.scores(), "winners": game.winners()}


def save_league_state(run_dir: Path, state: dict[str, Any]) -> None:
    atomic_write(run_dir / LEAGUE_STATE, json.dumps(state, indent=1, sort_keys=True))


class LeagueState(msgspec.Struct, forbid_unknown_fields=True):
    """league.json: the pool, the learner's results and ratings per entry, the history."""

    entries: list[str]
    stats: dict[str, Annotated[list[float], msgspec.Meta(min_length=2, max_length=2)]]
    ratings: dict[str, Annotated[list[float], msgspec.Meta(min_length=2, max_length=2)]]
    history: list[dict[str, str | float | int]]


def load_league_state(run_dir: Path) -> dict[str, Any]:
    """The league state, size-bounded and type-checked; entries must be baselines by name or
    snapshots inside the run's pool folder."""
    path = run_dir / LEAGUE_STATE
    try:
        state = msgspec.json.decode(read_bounded(path), type=LeagueState)
    except (OSError, ValueError, msgspec.DecodeError) as exc:
        raise ValueError(f"{path}: missing or corrupt league state ({exc})") from exc
    for entry in state.entries:
        if entry.endswith(".pt") and not (
            entry.startswith("pool/") and ".." not in Path(entry).parts
        ):
            raise ValueError(f"{path}: league entry {entry!r} is not a snapshot in pool/")
    return msgspec.to_builtins(state)


def build_env(config: SelfPlayConfig, entries: Sequence[str]):
    parent = os.getpid()

    def factory(rank: int):
        def build():
            if os.getpid() != parent:
                die_with_parent(parent)
            env = LeagueEnv(
                env_player_counts(config)[rank],
                entries,
                seed=config.seed * 1000 + rank,
                base_dir=str(Path(config.run_dir).resolve()),
                **training_env_kwargs(config),
            )
            env.reset(seed=config.seed * 1000 + rank)
            return env

        return build

    fns = [factory(rank) for rank in range(config.n_envs)]
    if config.vec_env == "subproc" and config.n_envs > 1:
        # observations and masks in shared memory, as for `farlight train ppo`
        probe = probe_env(config)
        start = "fork" if sys.platform != "win32" else "spawn"
        return VecMonitor(
            SharedMemoryVecEnv(fns, probe.observation_space, probe.action_space, start)
        )
    return VecMonitor(DummyVecEnv(fns))


@fewer_collections()  # the whole run: evaluation/collector.py
def train(
    config: SelfPlayConfig,
    resume: bool = False,
    progress: bool = True,
    given: Sequence[str] | None = None,
) -> MaskablePPO:
    """Run (or resume) a league; returns the model. A run that cannot start: RunError."""
    try:
        config = prepare(config, resume, given, cls=SelfPlayConfig)
        run_dir = Path(config.run_dir)
        if resume:
            state = load_league_state(run_dir)
        else:
            state = {"entries": list(config.baselines), "stats": {}, "ratings": {}, "history": []}
    except (ValueError, OSError) as exc:
        raise as_run_error(exc) from exc
    set_threads(config.torch_threads)  # deliberate: the library default leaves it alone
    if not resume:
        run_dir.mkdir(parents=True, exist_ok=True)
        write_run_config(run_dir, config)
        save_league_state(run_dir, state)
    env = build_env(config, state["entries"])
    try:
        checkpoint = run_dir / CHECKPOINT
        try:
            if resume:
                model = load_checkpoint(checkpoint, env, config)
                model.set_random_seed(stream_seed(config.seed, model.num_timesteps))  # new deals
            else:
                model = build_model(config, env)
                if config.init_from:
                    warm_start(model, Path(config.init_from))
        except (ValueError, OSError) as exc:
            raise as_run_error(exc) from exc
        if resume:
            write_run_config(run_dir, config)  # the new budget and resumable overrides
        model.set_logger(run_logger(run_dir, model.num_timesteps if resume else None))
        league = League(config, run_dir, state)
        callbacks = CallbackList(
            [
                league,
                FreezeShipEncoder(ship_encoder_frozen(config)),
                ValueWarmup(config.value_warmup_steps),
                *([ProgressCallback(config.total_steps, model.num_timesteps)] if progress else []),
            ]
        )
        remaining = config.total_steps - model.num_timesteps
        if remaining > 0:
            model.learn(remaining, callback=callbacks, reset_num_timesteps=False)
        if not any(h["steps"] == model.num_timesteps for h in state["history"]):
            league.snapshot(model.num_timesteps)
        league.checkpoint()
    finally:
        close_env(env)
    return model
