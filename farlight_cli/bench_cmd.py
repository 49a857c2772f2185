"""`farlight bench`: engine and env speed, with PettingZoo's Connect Four as a yardstick, plus
ismcts search speed and a short fixed MaskablePPO run.

`farlight_env.tools.bench` measures the engine and env; Farlight's run, with its search and
training figures (which `farlight_env` cannot give: it never imports `agents` or `training`), is
farlight_cli/farlight/bench.py.
"""

from __future__ import annotations

import argparse
from typing import Any

from farlight_cli import argtypes, flags
from farlight_cli.errors import InputError
from farlight_cli.farlight import bench as farlight_bench
from farlight_cli.farlight import game_flags
from farlight_env.measure import timing
from farlight_env.platform import DEFAULT_GAME

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
    low, high = argtypes.default_seat_range()
    flags.player_counts(
        p,
        [2, 3, 4, 5],
        f"player counts to measure, each in {low}..{high} (another --game: its own "
        "range, and of these counts those it allows)",
        checked_later=True,
    )
    budget = p.add_mutually_exclusive_group()
    budget.add_argument(
        "--seconds",
        type=argtypes.positive_float,
        default=3.0,
        help="time budget per measurement (player count, or Connect Four), whole games only; "
        f"the env measurements take turns in {timing.SLICE_SECONDS:g} s slices",
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
    return farlight_bench.run(args, _budget(args))


def _budget(args: argparse.Namespace) -> str:
    """'3 s' or '5 games': what each measurement is given."""
    games = f"{args.games} game{'' if args.games == 1 else 's'}"
    return games if args.games is not None else f"{args.seconds:g} s"


def _run_other(args: argparse.Namespace, options: dict[str, Any]) -> int:
    """Another declared game: its platform state and the generic env, measured in one run."""
    from farlight_env.measure import game_bench
    from farlight_env.platform import get_game

    given = [n for n in FARLIGHT_ONLY if getattr(args, n)]
    if given:
        named = ", ".join(map(game_flags.game_flag, given))
        raise InputError(
            f"{named}: Farlight's bench only; {args.game}'s bench measures its "
            "state and env side by side"
        )
    game, budget = get_game(args.game), _budget(args)
    print(f"machine: {timing.machine_line()}")
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
        f"{timing.slices_note(args.games)}, seed {args.seed}"
    )
    print(timing.format_results(result.state))
    print()
    for r in result.state:
        print(
            f"state at {r.num_players} players: {r.actions_per_cpu_s:,.0f} actions per "
            f"CPU-second ({r.actions_per_s:,.0f} per wall second)"
        )
    print()
    print(
        f"env benchmark: random masked play through the platform's env({game.name!r}), "
        f"observation and action mask every step\n{budget} per measurement"
        f"{timing.slices_note(args.games)}, seed {args.seed}"
    )
    print(timing.format_env_results(result.env))
    for r in result.env.farlight:
        print(
            f"env at {r.num_players} players: {r.steps_per_cpu_s:,.0f} steps per CPU-second "
            f"({r.steps_per_s:,.0f} per wall second)"
        )
    return 0
