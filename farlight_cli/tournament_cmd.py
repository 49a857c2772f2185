"""`farlight tournament`: seat-rotated games between agents, printed as a table."""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path

from farlight_cli import argtypes, flags
from farlight_cli.errors import InputError, needs_extra
from farlight_cli.farlight import game_flags
from farlight_cli.interrupts import journalled_games
from farlight_env.platform import DEFAULT_GAME, get_game

HELP = "play agents against each other and print win rates and ratings"
DESCRIPTION = f"""\
Seat-rotated games between agents (blocks of rotations share a deal). Prints games, wins, win
rate with a 95% interval, mean score and an OpenSkill rating per agent; with --out writes
results.json (every game's record, replayable with farlight replay, and the auction
diagnostics), games.csv, summary.csv and two plots. Agents: {argtypes.agent_names_text()};
{argtypes.train_extra_text()} (torch).
"""


def add(p: argparse.ArgumentParser) -> None:
    flags.agents(p, ["random", "heuristic"], "agents to play: names or saved-policy paths (*.pt)")
    low, high = argtypes.default_seat_range()
    flags.players(p, 2, f"seats per game, {low}..{high}")
    flags.games(p, 20, "games (rounded up to a multiple of the number of agents)")
    flags.seed(p, "tournament seed")
    flags.workers(p, "or Ray tasks")
    p.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="local processes, or a Ray cluster (needs the ray extra)",
    )
    p.add_argument(
        "--ray-address",
        default=None,
        metavar="ADDRESS",
        help="address of a running Ray cluster (default: start a local one)",
    )
    flags.ismcts_iterations(p)
    flags.ismcts_seconds(p)
    flags.game(p)
    game_flags.add_game_config_arguments(p)
    flags.folder(
        p,
        "--out",
        "directory for result files; each game is saved as it ends (games.jsonl) (default: print "
        "the table only)",
    )
    flags.folder(
        p,
        "--resume",
        "finish a stopped tournament saved with --out DIR, with its stored options (default: "
        "start a new one)",
    )
    p.add_argument(
        "--diagnostics",
        action="store_true",
        help="also print the auction diagnostics per agent: targets won per kind, overbids, "
        "prices against what the wins brought, lone-0 tickets and bluffs "
        "(docs/auction_diagnostics.md; results.json always holds them)",
    )
    p.add_argument(
        "--sealed",
        action="store_true",
        help="run every agent in its own process, handed only its observation, mask and a view "
        "built from its seat's redacted game (no way to read or change hidden state); records "
        "and results.json say sealed: true (default: agents share the game's process)",
    )
    flags.move_budget_flags(p, "an agent", "with --sealed")
    flags.no_progress(p)


#: Options --resume takes from the stored tournament (giving them too is refused).
STORED_OPTIONS = ("agents", "players", "games", "seed", "out", "game", "game_option")
STORED_OPTIONS += game_flags.GAME_ARGUMENTS
STORED_OPTIONS += (
    "ismcts_iterations",
    "ismcts_seconds",
    "sealed",
    "move_seconds",
    "move_cpu_seconds",
)


def _check_backend(args: argparse.Namespace) -> None:
    """Ray installed and its cluster reachable, before any game (Ray retries for minutes)."""
    from farlight_env.processes import check_ray_address

    if args.ray_address is not None and args.backend != "ray":
        raise InputError("--ray-address needs --backend ray")
    if args.backend == "ray" and importlib.util.find_spec("ray") is None:
        raise InputError(needs_extra("ray", "ray", "--backend ray"))
    check_ray_address(args.ray_address, "--ray-address")


def print_rounding(games: int, agents: int) -> None:
    """Say it when --games is rounded up to whole duplicate blocks (one game per rotation of
    the agents): `--games 4` with 3 agents plays 6."""
    played = -(-games // agents) * agents
    if played != games:
        print(
            f"playing {played} games: --games {games} rounded up to whole blocks of {agents} "
            f"(each deal is played once per rotation of the {agents} agents)",
            flush=True,
        )


def print_resuming(out: Path) -> None:
    """'resuming: 12 of 40 games already played', before the rest are: a resume that plays on
    from game 0 looks the same as one that plays only the games missing."""
    from evaluation.formats.journal import GAMES
    from evaluation.journal import read_spec

    spec = read_spec(out)
    total = -(-spec.games // len(spec.agents)) * len(spec.agents)
    played = journalled_games(out / GAMES) if (out / GAMES).is_file() else 0
    print(f"resuming: {min(played, total)} of {total} games already played", flush=True)


def _play(args: argparse.Namespace):
    from agents.farlight.fit import check_fit
    from evaluation.tournament import resume_tournament, run_tournament

    _check_backend(args)
    if args.resume is not None:
        parser = args.parser
        given = [n for n in STORED_OPTIONS if getattr(args, n) != parser.get_default(n)]
        if given:
            named = ", ".join(map(game_flags.game_flag, given))
            raise ValueError(f"--resume plays on with the stored options; drop {named}")
        print_resuming(args.resume)
        return resume_tournament(
            args.resume,
            workers=args.workers,
            backend=args.backend,
            ray_address=args.ray_address,
            progress=not args.no_progress,
        )
    ismcts = flags.ismcts_options(args)
    budget = flags.move_budget(args, args.sealed, "--sealed")
    argtypes.check_agents(args.agents)
    config = game_flags.played_game_config(args)
    get_game(args.game).check_players(args.players)  # before the agents are judged for it
    argtypes.check_agents_play(args.agents, args.game)
    if args.game == DEFAULT_GAME:
        check_fit(args.agents, args.players, config)  # ppo at --grid-size 7: before game 0
    if args.out is not None:
        argtypes.check_out_dir("--out", args.out)
    print_rounding(args.games, len(args.agents))
    return run_tournament(
        args.agents,
        num_players=args.players,
        games=args.games,
        seed=args.seed,
        workers=args.workers,
        backend=args.backend,
        ray_address=args.ray_address,
        config=config,
        agent_kwargs={"ismcts": ismcts} if ismcts else None,
        progress=not args.no_progress,
        out_dir=args.out,
        sealed=args.sealed,
        move_budget=budget,
        game=args.game,
    )


def print_forfeits(records: list[dict]) -> None:
    """Decisions played by the fallback for going over the move budget, per agent."""
    counts: dict[str, int] = {}
    for record in records:
        for name, forfeits in zip(record["players"], record.get("forfeits", ()), strict=False):
            counts[name] = counts.get(name, 0) + forfeits
    each = ", ".join(f"{name} {count}" for name, count in counts.items())
    print(f"forfeited over the move budget: {sum(counts.values())} decisions ({each})")


def run(args: argparse.Namespace) -> int:
    import sys

    from evaluation.journal import JournalError
    from evaluation.tournament import GameFailure, write_results

    out = args.resume if args.resume is not None else args.out
    try:
        result = _play(args)
    except GameFailure as exc:
        kept = f"; finished games are kept: finish with --resume {out}" if out else ""
        print(f"farlight tournament: stopped: {exc}{kept}", file=sys.stderr)
        return 1
    except (JournalError, ValueError) as exc:
        print(f"farlight tournament: error: {exc}", file=sys.stderr)
        return 2
    sealed = all(record.get("sealed", False) for record in result.records)
    print(
        f"{result.num_players}-player tournament, {len(result.records)} games, seed {result.seed}"
        + (", sealed (each agent in its own process, redacted views only)" if sealed else "")
    )
    if args.resume is None and args.game == DEFAULT_GAME:
        print(f"game: {game_flags.describe_game_config(args)}")
    elif args.resume is None:
        print(f"game: {args.game} {flags.game_options(args) or '(its defaults)'}")
    print(result.table())
    if args.diagnostics:
        print()
        print(result.diagnostics_table())
    if out is not None:
        paths = write_results(result, out)
        print("wrote " + ", ".join(str(path) for path in paths.values()))
    budget_given = args.move_seconds is not None or args.move_cpu_seconds is not None
    if budget_given or any(sum(record.get("forfeits", ())) for record in result.records):
        print_forfeits(result.records)
    if all("rounds" in record for record in result.records):  # Farlight's records say them
        print_rounds(result.records)
    return 0


def print_rounds(records: list[dict]) -> None:
    """Rounds per game and how the games ended."""
    ends: dict[str, int] = {}
    for record in records:
        ends[record["end_reason"]] = ends.get(record["end_reason"], 0) + 1
    rounds = [record["rounds"] for record in records]
    print(
        f"rounds per game: mean {sum(rounds) / len(rounds):.2f}, min {min(rounds)}, "
        f"max {max(rounds)}; endings: {json.dumps(ends, sort_keys=True)}"
    )
