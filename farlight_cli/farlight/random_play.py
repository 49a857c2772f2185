"""Farlight's `farlight random`: its own figures of random play (rounds, end reasons, scores)
beside the share of victories by seat every game reports."""

from __future__ import annotations

import argparse
from typing import Any

from farlight_cli.farlight import game_flags
from farlight_env.measure.tables import format_seat_table
from farlight_env.tools.stats import format_table, random_play_stats


def run(args: argparse.Namespace, players: list[int], config: dict[str, Any]) -> int:
    """Play the games the flags ask for at each player count and print the two tables."""
    reports = [
        random_play_stats(n, args.games, args.seed, progress=not args.no_progress, **config)
        for n in players
    ]
    print(f"game: {game_flags.describe_game_config(args)}")
    print(format_table(reports))
    print()
    print("share of victories by seat (a shared victory is split):")
    print(format_seat_table(reports))
    return 0
