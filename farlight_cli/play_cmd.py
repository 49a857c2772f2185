"""`farlight play`: a person plays in the terminal against bots. The command checks the seats,
opponents, seed and record path for any game; Farlight's session is farlight_cli/farlight/play.py,
another game's farlight_cli/play_platform.py."""

from __future__ import annotations

import argparse
import datetime
import secrets
from pathlib import Path
from typing import Any

from agents.farlight.fit import check_fit
from farlight_cli import argtypes, flags, play_platform
from farlight_cli.farlight import game_flags
from farlight_cli.farlight.play import Session
from farlight_cli.play_platform import opponent_seed
from farlight_env.platform import DEFAULT_GAME, get_game
from farlight_env.seeding import secure_seed

HUMAN = "human"


HELP = "play a game in the terminal against bots"
DESCRIPTION = """\
You sit at --seat; the --opponents fill the other seats in order. At each of your decisions the
board is shown as your seat sees it. A bid is a target letter and a tile: c3 puts tile 3 on
target c, c3+ puts a crew on it too; letters stay the same while bidding lasts. Other decisions
are numbered: type a number. b shows the full board, Enter the compact one, /text finds options,
q asks before leaving. The game record is saved at the end, on quit and on Ctrl-C, and can be
replayed with `farlight replay`. Another --game is played from its own text board and numbered
actions, against random or ismcts (default: random); its record is saved when it finishes.
"""


def add(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--seat", type=argtypes.non_negative_int, default=0, metavar="N", help="your seat"
    )
    flags.agents(
        p,
        ["heuristic"],
        "agents for the other seats in seat order; one name fills them all: "
        f"{argtypes.agent_names_text()}",
        flag="--opponents",
    )
    low, high = argtypes.default_seat_range()
    flags.players(
        p,
        None,
        f"seats in the game, {low}..{high} (default: 1 + number of opponents)",
        checked_later=True,
    )
    flags.seed(
        p,
        "game seed (default: a secret one of 128 bits from the OS, shown when the game ends)",
        default=None,
    )
    p.add_argument(
        "--record",
        type=Path,
        default=None,
        metavar="PATH",
        help="where to save the game record (default here: farlight-game-<seed>.json for a "
        "given --seed, else farlight-game-<time>-<tag>.json)",
    )
    flags.game(p)
    game_flags.add_game_config_arguments(p)
    flags.ismcts_iterations(p)


def run(args: argparse.Namespace) -> int:
    config = game_flags.played_game_config(args)  # the game and its options, checked
    game = get_game(args.game)
    low, high = game.min_players, game.max_players
    opponents: list[str] = args.opponents
    if game.name != DEFAULT_GAME and opponents is args.parser.get_default("opponents"):
        opponents = ["random"]  # the heuristic is Farlight's
    argtypes.check_agents_play(opponents, game.name)
    players = args.players if args.players is not None else 1 + len(opponents)
    if not low <= players <= high:
        args.parser.error(f"argument --players: must be in {low}..{high}, got {players}")
    if len(opponents) == 1:
        opponents = opponents * (players - 1)
    if len(opponents) != players - 1:
        args.parser.error(
            f"argument --opponents: {len(opponents)} agents for {players - 1} opponent seats; "
            f"give {players - 1} names, or one name to fill every seat"
        )
    if args.seat >= players:
        args.parser.error(f"argument --seat: must be in 0..{players - 1}, got {args.seat}")
    seed = args.seed if args.seed is not None else secure_seed()
    path = args.record or Path.cwd() / default_record_name(args.seed, game.name)
    lineup = list(opponents)
    lineup.insert(args.seat, HUMAN)
    ismcts = flags.ismcts_options(args)
    kwargs: dict[str, Any] = {"ismcts": ismcts} if ismcts else {}
    argtypes.check_agents(opponents)
    if game.name != DEFAULT_GAME:
        argtypes.check_record_path("--record", path)
        seats = (lineup, args.seat, seed)
        return play_platform.play(game, *seats, config, path, kwargs, opponent_seed)
    check_fit(opponents, players, config)  # ppo at --grid-size 7: before the first move
    argtypes.check_record_path("--record", path)
    session = Session(lineup, args.seat, seed, config, kwargs)
    return session.play(path)


def default_record_name(seed: int | None, game: str = DEFAULT_GAME) -> str:
    """The record's file name: by the seed a person gave, else by the time and a random tag,
    so a secretly drawn seed is in no file name (or on screen) before the game ends."""
    if seed is not None:
        return f"{game}-game-{seed}.json"
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")
    return f"{game}-game-{stamp}-{secrets.token_hex(3)}.json"
