"""`farlight tournament`: seat-rotated games between agents, printed as a table."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from farlight_env import bench


def agent_list(text: str) -> list[str]:
    from agents.registry import agent_names_help, unknown_agents

    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names:
        raise argparse.ArgumentTypeError("give at least one agent, e.g. random,heuristic")
    unknown = unknown_agents(names)
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown agent(s) {', '.join(unknown)}; choose from {agent_names_help()}"
        )
    return names


def player_count(text: str) -> int:
    value = bench.positive_int(text)
    if not 2 <= value <= 5:
        raise argparse.ArgumentTypeError(f"players must be in 2..5, got {value}")
    return value


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "tournament",
        help="play agents against each other and print win rates and ratings",
        description="Seat-rotated games between agents (blocks of rotations share a deal). "
        "Prints games, wins, win rate with a 95%% interval, mean score and an OpenSkill "
        "rating per agent; with --out writes results.json, games.csv, summary.csv and a plot.",
    )
    p.add_argument(
        "--agents",
        type=agent_list,
        default=["random", "heuristic"],
        metavar="A,B[,...]",
        help="agents to play (default: random,heuristic)",
    )
    p.add_argument("--players", type=player_count, default=2, help="seats per game, 2..5")
    p.add_argument(
        "--games",
        type=bench.positive_int,
        default=20,
        help="games (rounded up to a multiple of the number of agents)",
    )
    p.add_argument("--seed", type=bench.non_negative_int, default=0, help="tournament seed")
    p.add_argument(
        "--workers",
        type=bench.positive_int,
        default=1,
        help="parallel worker processes (or Ray tasks)",
    )
    p.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="local processes, or a Ray cluster (needs the ray extra)",
    )
    p.add_argument(
        "--ray-address",
        default=None,
        help="address of a running Ray cluster (default: start a local one)",
    )
    p.add_argument(
        "--ismcts-iterations",
        type=bench.positive_int,
        default=None,
        help="search iterations per ismcts decision (default: the agent's)",
    )
    p.add_argument(
        "--ismcts-seconds",
        type=bench.positive_float,
        default=None,
        help="time budget per ismcts decision instead of iterations",
    )
    p.add_argument("--max-rounds", type=bench.positive_int, default=50, help="round cap")
    p.add_argument("--out", type=Path, default=None, help="directory for result files")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from agents.tournament import run_tournament, write_results

    ismcts: dict[str, object] = {}
    if args.ismcts_iterations is not None:
        ismcts["iterations"] = args.ismcts_iterations
    if args.ismcts_seconds is not None:
        ismcts["seconds"] = args.ismcts_seconds
    result = run_tournament(
        args.agents,
        num_players=args.players,
        games=args.games,
        seed=args.seed,
        workers=args.workers,
        backend=args.backend,
        ray_address=args.ray_address,
        config={"max_rounds": args.max_rounds},
        agent_kwargs={"ismcts": ismcts} if ismcts else None,
        progress=not args.no_progress,
    )
    print(f"{args.players}-player tournament, {len(result.records)} games, seed {args.seed}")
    print(result.table())
    if args.out is not None:
        paths = write_results(result, args.out)
        print("wrote " + ", ".join(str(path) for path in paths.values()))
    ends: dict[str, int] = {}
    for record in result.records:
        ends[record["end_reason"]] = ends.get(record["end_reason"], 0) + 1
    rounds = [record["rounds"] for record in result.records]
    print(
        f"rounds per game: mean {sum(rounds) / len(rounds):.2f}, min {min(rounds)}, "
        f"max {max(rounds)}; endings: {json.dumps(ends, sort_keys=True)}"
    )
    return 0
