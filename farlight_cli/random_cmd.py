"""`farlight random`: random legal play in every seat, and statistics of the games."""

from __future__ import annotations

import argparse

from farlight_cli import argtypes, flags
from farlight_cli.errors import InputError
from farlight_cli.farlight import game_flags, random_play
from farlight_env.platform import DEFAULT_GAME

HELP = "play random games and print statistics"
DESCRIPTION = """\
Play games with uniformly random legal actions in every seat and print statistics: rounds, end
reasons, scores, actions per game. With --game NAME, another declared game: actions per game,
mean score per seat and the share of victories by seat, from the platform's game interface.
"""


def add(p: argparse.ArgumentParser) -> None:
    low, high = argtypes.default_seat_range()
    flags.player_counts(
        p,
        [4],
        f"number of players, {low}..{high} (another --game: its own range); a "
        "comma list gives one row each",
        checked_later=True,
    )
    flags.games(p, 50, "games per player count")
    flags.seed(p, "seed of the first game; game i uses seed + i")
    flags.game(p)
    game_flags.add_game_config_arguments(p)
    flags.no_progress(p)


def run(args: argparse.Namespace) -> int:
    try:
        config = game_flags.played_game_config(args)
        players = game_flags.played_player_counts(args)
    except ValueError as exc:  # an unknown game, a wrong option or player count
        raise InputError(str(exc)) from None
    if args.game != DEFAULT_GAME:
        return _run_other(args, players, config)
    _print_seeds(args)
    return random_play.run(args, players, config)


def _print_seeds(args: argparse.Namespace) -> None:
    last = args.seed + args.games - 1
    print(f"random play: {args.games} games per player count, seeds {args.seed}..{last}")


def _run_other(args: argparse.Namespace, players: list[int], options: dict) -> int:
    """Another declared game: its figures come from the State protocol alone."""
    from farlight_env.measure.game_stats import format_game_table, game_random_stats
    from farlight_env.measure.tables import format_seat_table
    from farlight_env.platform import get_game

    game = get_game(args.game)
    reports = [
        game_random_stats(game, n, args.games, args.seed, options, not args.no_progress)
        for n in players
    ]
    _print_seeds(args)
    print(f"game: {game.name} {flags.game_options(args) or '(its defaults)'}")
    print(format_game_table(reports))
    print()
    print("share of victories by seat (a shared victory is split):")
    print(format_seat_table(reports))
    return 0
