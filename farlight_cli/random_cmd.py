"""`farlight random`: random legal play in every seat, and statistics of the games."""

from __future__ import annotations

import argparse

from farlight_cli import flags, game_flags
from farlight_env.game.facts import MAX_PLAYERS, MIN_PLAYERS

HELP = "play random games and print statistics"
DESCRIPTION = """\
Play games with uniformly random legal actions in every seat and print statistics: rounds, end
reasons, scores, actions per game.
"""


def add(p: argparse.ArgumentParser) -> None:
    flags.player_counts(
        p,
        [4],
        f"number of players, {MIN_PLAYERS}..{MAX_PLAYERS}; a comma list gives one row each",
    )
    flags.games(p, 50, "games per player count")
    flags.seed(p, "seed of the first game; game i uses seed + i")
    game_flags.add_game_config_arguments(p)
    flags.no_progress(p)


def run(args: argparse.Namespace) -> int:
    from farlight_env.tools.stats import format_seat_table, format_table, random_play_stats

    config = game_flags.game_config(args)
    reports = [
        random_play_stats(n, args.games, args.seed, progress=not args.no_progress, **config)
        for n in args.players
    ]
    last = args.seed + args.games - 1
    print(f"random play: {args.games} games per player count, seeds {args.seed}..{last}")
    print(f"game: {game_flags.describe_game_config(args)}")
    print(format_table(reports))
    print()
    print("share of victories by seat (a shared victory is split):")
    print(format_seat_table(reports))
    return 0
