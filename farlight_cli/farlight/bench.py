"""Farlight's `farlight bench`: its engine and env beside PettingZoo's Connect Four, then the
ismcts search speed and a short fixed MaskablePPO run (figures of agents and training, which
`farlight_env` never imports)."""

from __future__ import annotations

import argparse
import importlib.util
import time
from typing import Any

from farlight_cli.errors import needs_extra
from farlight_cli.farlight import game_flags
from farlight_env.measure import timing
from farlight_env.tools import bench

#: ismcts: decision points timed per player count.
SEARCH_POSITIONS = 12
#: The fixed training run: environment steps of MaskablePPO (n_steps x 1 env) on 2 players.
TRAIN_STEPS = 1024


def run(args: argparse.Namespace, budget: str) -> int:
    """Farlight's bench as the flags ask: engine, env, then the search and training figures."""
    print(f"machine: {timing.machine_line()}")
    print(f"game: {game_flags.describe_game_config(args)}")
    if not args.env_only:
        _run_engine(args, budget)
    if not args.engine_only:
        if not args.env_only:
            print()
        _run_env(args, budget)
    if not (args.engine_only or args.env_only):
        print()
        print(ismcts_figure(args))
        print(train_figure(args))
    return 0


def _measured(args: argparse.Namespace) -> dict[str, Any]:
    """What both suites take from the flags: a game count or a time budget, the seed, the
    progress bars and the game, read in one place so the two measure alike."""
    return {
        "seconds": None if args.games is not None else args.seconds,
        "games": args.games,
        "seed": args.seed,
        "progress": not args.no_progress,
        "config": game_flags.game_config(args),
    }


def _run_engine(args: argparse.Namespace, budget: str) -> None:
    print(
        f"engine benchmark: random legal play, {budget} per player count"
        f"{timing.slices_note(args.games)}, seed {args.seed}"
    )
    results = bench.bench_engine_suite(args.players, **_measured(args))
    print(timing.format_results(results))
    print()
    for r in results:
        print(
            f"engine at {r.num_players} players: {r.actions_per_cpu_s:,.0f} actions per "
            f"CPU-second ({r.actions_per_s:,.0f} per wall second)"
        )


def connect_four_missing() -> str | None:
    """Why Connect Four cannot be the yardstick here (pygame missing: the dev extra), said
    before the benchmark names it; None when it can."""
    try:
        timing.connect_four_env().close()
    except timing.ConnectFourUnavailable as exc:
        if getattr(exc.__cause__, "name", None) == "pygame":
            return f"Connect Four skipped: {needs_extra('dev', 'pygame')}"
        return f"Connect Four skipped: {exc}"
    return None


def _run_env(args: argparse.Namespace, budget: str) -> None:
    with_c4 = not args.no_connect_four
    missing = connect_four_missing() if with_c4 else None
    if missing is not None:
        print(missing)
        with_c4 = False
    versus = f" and {timing.CONNECT_FOUR}.env()" if with_c4 else ""
    print(
        f"env benchmark: random masked play through {bench.FARLIGHT}.env(){versus}, observation "
        f"and action mask every step\n{budget} per measurement{timing.slices_note(args.games)}, "
        f"seed {args.seed}"
    )
    suite = bench.bench_env_suite(args.players, connect_four=with_c4, **_measured(args))
    if suite.note:
        print(suite.note)
    print(timing.format_env_results(suite))
    for r in suite.farlight:
        ratio = suite.ratio(r)
        if r.num_players == bench.REFERENCE_PLAYERS and ratio is not None:
            verdict = timing.target_verdict(ratio, suite.turn_ratios(r), bench.TARGET_RATIO)
            print(
                f"Farlight at {r.num_players} players runs at {ratio:.2f}x Connect Four's "
                f"steps/s ({verdict})"
            )
        print(
            f"env at {r.num_players} players: {r.steps_per_cpu_s:,.0f} steps per CPU-second "
            f"({r.steps_per_s:,.0f} per wall second)"
        )


def search_positions(num_players: int, count: int, seed: int) -> list:
    """Decision points from heuristic self-play: the positions ismcts is timed on."""
    from agents.farlight.heuristic import HeuristicAgent
    from farlight_env.game import FarlightGame

    out, game_seed = [], seed
    while len(out) < count:
        game, policy, step = FarlightGame(num_players, seed=game_seed), HeuristicAgent(1), 0
        while not game.is_over and len(out) < count:
            if step % 9 == 0 and len(game.legal_actions()) > 1:
                out.append(game.clone())
            game.apply(policy.choose(game, game.current_player))
            step += 1
        game_seed += 1
    return out


def ismcts_figure(args: argparse.Namespace) -> str:
    """ismcts iterations per CPU-second at its default budget, at 2 and 4 players."""
    from agents.farlight.ismcts import ISMCTSAgent
    from farlight_env.game.hidden import PlayerView

    parts = []
    for n in (2, 4):
        agent = ISMCTSAgent(seed=args.seed)
        iterations, cpu = 0, 0.0
        for game in search_positions(n, SEARCH_POSITIONS, args.seed):
            start = time.thread_time()
            agent.search(PlayerView(game, game.current_player))
            cpu += time.thread_time() - start
            iterations += agent.iterations
        parts.append(f"{iterations / cpu:,.0f} at {n} players")
    return (
        f"ismcts: iterations per CPU-second ({SEARCH_POSITIONS} positions each, "
        f"{ISMCTSAgent().iterations} per decision): " + ", ".join(parts)
    )


def train_figure(args: argparse.Namespace) -> str:
    """Learner steps per second of a short fixed MaskablePPO run, if torch and SB3 are here."""
    missing = [m for m in ("torch", "sb3_contrib") if importlib.util.find_spec(m) is None]
    if missing:
        return f"training: skipped: {needs_extra('train', missing[0])}"
    from training.farlight.config import PPOConfig
    from training.farlight.sb3.train_ppo import build_env, build_model

    config = PPOConfig(
        num_players=2,
        n_envs=1,
        vec_env="dummy",
        n_steps=TRAIN_STEPS,
        batch_size=min(256, TRAIN_STEPS),
        seed=args.seed,
        device="cpu",  # the figure is of this machine's CPU, GPU or not
    )
    env = build_env(config)
    model = build_model(config, env)
    start, cpu = time.perf_counter(), time.process_time()
    model.learn(total_timesteps=TRAIN_STEPS, progress_bar=False)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    env.close()
    return (
        f"training: MaskablePPO, {TRAIN_STEPS} learner steps (2 players, 1 env): "
        f"{TRAIN_STEPS / wall:,.0f} steps/s wall, {TRAIN_STEPS / cpu:,.0f} per process CPU-second"
    )
