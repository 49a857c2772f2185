"""`farlight bench`: engine and env speed, with PettingZoo's Connect Four as a yardstick, plus
ismcts search speed and a short fixed MaskablePPO run.

`farlight_env.tools.bench` measures the engine and env; the search and training figures live here
because `farlight_env` never imports `agents` or `training`.
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from typing import Any

from farlight_cli import argtypes, flags
from farlight_cli.errors import InputError, needs_extra
from farlight_cli.farlight import game_flags
from farlight_env.game.facts import MAX_PLAYERS, MIN_PLAYERS
from farlight_env.platform import DEFAULT_GAME
from farlight_env.tools import bench

#: ismcts: decision points timed per player count.
SEARCH_POSITIONS = 12
#: The fixed training run: environment steps of MaskablePPO (n_steps x 1 env) on 2 players.
TRAIN_STEPS = 1024


HELP = "measure engine and env speed (vs Connect Four)"
DESCRIPTION = """\
Benchmark the rules engine (legal_actions + apply per action) and the wrapped PettingZoo env
(observation and mask every step), with PettingZoo's Connect Four measured in the same run as a
yardstick; prints steps/s, games/s and the ratio. With --game NAME, another declared game: its
platform state (legal_actions + apply_action) and the platform's generic env, side by side.
"""

#: Flags of Farlight's bench only: another game measures its state and env side by side.
FARLIGHT_ONLY = ("engine_only", "env_only", "no_connect_four")


def add(p: argparse.ArgumentParser) -> None:
    which = p.add_mutually_exclusive_group()
    which.add_argument(
        "--engine-only",
        "--engine",
        dest="engine_only",
        action="store_true",
        help="only the rules engine (legal_actions + apply); default: engine and env",
    )
    which.add_argument(
        "--env-only",
        action="store_true",
        help="only the PettingZoo env (observation and mask every step) and Connect Four",
    )
    p.add_argument(
        "--no-connect-four",
        action="store_true",
        help="skip PettingZoo's Connect Four reference (it needs pygame)",
    )
    flags.player_counts(
        p,
        [2, 3, 4, 5],
        f"player counts to measure, each in {MIN_PLAYERS}..{MAX_PLAYERS} (another --game: its own "
        "range, and of these counts those it allows)",
        checked_later=True,
    )
    budget = p.add_mutually_exclusive_group()
    budget.add_argument(
        "--seconds",
        type=argtypes.positive_float,
        default=3.0,
        help="time budget per measurement (player count, or Connect Four), whole games only; "
        f"the env measurements take turns in {bench.SLICE_SECONDS:g} s slices",
    )
    flags.games(
        budget, None, "play exactly this many games per measurement (default: use --seconds)"
    )
    flags.seed(p, "first game seed")
    flags.game(p)
    game_flags.add_game_config_arguments(p)
    flags.no_progress(p, "no progress bars")


def run(args: argparse.Namespace) -> int:
    """Run the benchmarks described by parsed arguments; print tables and one line per figure."""
    try:
        config = game_flags.played_game_config(args)
        args.players = game_flags.played_player_counts(args)
    except ValueError as exc:  # an unknown game, a wrong option or player count
        raise InputError(str(exc)) from None
    if args.game != DEFAULT_GAME:
        return _run_other(args, config)
    print(f"machine: {bench.machine_line()}")
    print(f"game: {game_flags.describe_game_config(args)}")
    budget = _budget(args)
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


def _budget(args: argparse.Namespace) -> str:
    """'3 s' or '5 games': what each measurement is given."""
    games = f"{args.games} game{'' if args.games == 1 else 's'}"
    return games if args.games is not None else f"{args.seconds:g} s"


def _run_other(args: argparse.Namespace, options: dict[str, Any]) -> int:
    """Another declared game: its platform state and the generic env, measured in one run."""
    from farlight_env.platform import get_game
    from farlight_env.tools import game_bench

    given = [n for n in FARLIGHT_ONLY if getattr(args, n)]
    if given:
        named = ", ".join(map(game_flags.game_flag, given))
        raise InputError(
            f"{named}: Farlight's bench only; {args.game}'s bench measures its "
            "state and env side by side"
        )
    game, budget = get_game(args.game), _budget(args)
    print(f"machine: {bench.machine_line()}")
    print(f"game: {game.name} {flags.game_options(args) or '(its defaults)'}")
    result = game_bench.bench_game(
        game,
        args.players,
        seconds=None if args.games is not None else args.seconds,
        games=args.games,
        seed=args.seed,
        progress=not args.no_progress,
        options=options,
    )
    print(
        f"state benchmark: random legal play on {game.name}'s platform state (legal_actions + "
        f"apply_action), taking turns with the env below,\n{budget} per player count"
        f"{_turns(args)}, seed {args.seed}"
    )
    print(bench.format_results(result.state))
    print()
    for r in result.state:
        print(
            f"state at {r.num_players} players: {r.actions_per_cpu_s:,.0f} actions per "
            f"CPU-second ({r.actions_per_s:,.0f} per wall second)"
        )
    print()
    print(
        f"env benchmark: random masked play through the platform's env({game.name!r}), "
        f"observation and action mask every step\n{budget} per measurement{_turns(args)}, "
        f"seed {args.seed}"
    )
    print(bench.format_env_results(result.env))
    for r in result.env.farlight:
        print(
            f"env at {r.num_players} players: {r.steps_per_cpu_s:,.0f} steps per CPU-second "
            f"({r.steps_per_s:,.0f} per wall second)"
        )
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


def _turns(args: argparse.Namespace) -> str:
    """', in 0.5 s slices taken in turn' (bench.SLICE_SECONDS) under a time budget; nothing
    for a game count."""
    return "" if args.games is not None else f", in {bench.SLICE_SECONDS:g} s slices taken in turn"


def _run_engine(args: argparse.Namespace, budget: str) -> None:
    print(
        f"engine benchmark: random legal play, {budget} per player count{_turns(args)}, "
        f"seed {args.seed}"
    )
    results = bench.bench_engine_suite(args.players, **_measured(args))
    print(bench.format_results(results))
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
        bench.connect_four_env().close()
    except bench.ConnectFourUnavailable as exc:
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
    versus = f" and {bench.CONNECT_FOUR}.env()" if with_c4 else ""
    print(
        f"env benchmark: random masked play through {bench.FARLIGHT}.env(){versus}, observation "
        f"and action mask every step\n{budget} per measurement{_turns(args)}, seed {args.seed}"
    )
    suite = bench.bench_env_suite(args.players, connect_four=with_c4, **_measured(args))
    if suite.note:
        print(suite.note)
    print(bench.format_env_results(suite))
    for r in suite.farlight:
        ratio = suite.ratio(r)
        if r.num_players == bench.REFERENCE_PLAYERS and ratio is not None:
            verdict = bench.target_verdict(ratio, suite.turn_ratios(r), bench.TARGET_RATIO)
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
