"""`farlight dataset`: games played by chosen agents, written as a Minari dataset."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from farlight_cli import argtypes, flags
from farlight_cli.errors import InputError
from farlight_env.game.facts import MAX_PLAYERS, MIN_PLAYERS

DATA_FORMATS = (
    "parquet",
    "hdf5",
    "arrow",
)  # training.farlight.datasets.collect.DATA_FORMATS, without importing it


def dataset_id(text: str) -> str:
    """A Minari dataset id with a version: (namespace/)name-vN."""
    import re

    # minari's DATASET_ID_RE, checked here so a typo costs no import of minari or any game
    if not re.fullmatch(r"([-_\w][-_\w/]*[-_\w]+/)?[-_.\w]+-v\d+", text):
        raise argparse.ArgumentTypeError(
            f"expected a Minari dataset id (namespace/)name-vN, e.g. farlight/heuristic-v0, "
            f"got {text!r}"
        )
    return text


def seat_list(text: str) -> list[int]:
    """Comma-separated seat numbers (checked against the number of agents later)."""
    try:
        seats = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        seats = []
    if not seats or any(s < 0 for s in seats):
        raise argparse.ArgumentTypeError(f"expected seats such as 0 or 0,2, got {text!r}")
    return sorted(set(seats))


HELP = "record games of chosen agents as a Minari dataset (offline RL, imitation)"
DESCRIPTION = """\
Play games between agents and write a Minari dataset (minari.load_dataset(ID)). Seat i is played
by the i-th agent of --agents, so the game has as many seats as agents (2..5). Each game gives
one episode per recorded seat (every seat unless --record-seat): that seat's single-learner
view, as farlight_env/Farlight-v1 shows it: its compact uint8 observations at each of its
decisions and at the end (its own view only), each one's action mask in the episode's infos (key
action_mask), its actions, and the env's reward (0 until the game ends, then the final reward).
The dataset's env_spec rebuilds that env against the same agents
(dataset.recover_environment()); the episode's seed is the game's seed, so games replay
(docs/interop/minari.md). Datasets go to --root, else $MINARI_DATASETS_PATH, else
~/.minari/datasets; an interrupted run writes nothing. Needs the interop extra (minari).
Datasets are Farlight's for now: --game takes farlight only (another game is refused).
"""


def add(p: argparse.ArgumentParser) -> None:
    flags.agents(
        p,
        ["heuristic", "heuristic"],
        f"one agent per seat ({MIN_PLAYERS}..{MAX_PLAYERS}): names or saved-policy paths (*.pt)",
    )
    flags.games(p, 100, "games to play")
    p.add_argument(
        "--out",
        type=dataset_id,
        required=True,
        metavar="ID",
        help="Minari dataset id, (namespace/)name-vN, e.g. farlight/heuristic-v0 (required, no "
        "default)",
    )
    flags.seed(p, "dataset seed: game g is seeded from (seed, g), its agents from the game's seed")
    p.add_argument(
        "--record-seat",
        type=seat_list,
        default=None,
        metavar="S[,S...]",
        help="seats whose episodes are written (default: every seat)",
    )
    flags.folder(
        p, "--root", "datasets folder (default: $MINARI_DATASETS_PATH, else ~/.minari/datasets)"
    )
    p.add_argument(
        "--format",
        choices=DATA_FORMATS,
        default="parquet",
        help="Minari storage format; parquet is compressed (about 0.2 kB a step against "
        "17-19 kB for hdf5 and arrow)",
    )
    p.add_argument("--force", action="store_true", help="replace an existing dataset of that id")
    flags.game(p)
    flags.no_progress(p)


def check_game(args: argparse.Namespace) -> None:
    """Only Farlight is written as a dataset: its episodes are farlight_env/Farlight-v1's compact
    single-learner view, whose env_spec rebuilds them; another game is refused by name."""
    from farlight_env.platform import DEFAULT_GAME, get_game

    try:
        game = get_game(args.game)
    except ValueError as exc:  # an unknown game, named with the known ones
        raise InputError(str(exc)) from None
    if game.name != DEFAULT_GAME:
        raise InputError(
            f"datasets are Farlight's for now; {game.name} has no dataset format (its episodes "
            "would need their own observation space and env_spec)"
        )
    if args.game_option:
        raise InputError("--game-option is for another --game; Farlight's options have flags")


def _check(args: argparse.Namespace) -> Path:
    """Refuse, before any game, what would fail later: seats, agents, an existing id; returns
    the datasets folder."""
    n = len(args.agents)
    if not MIN_PLAYERS <= n <= MAX_PLAYERS:
        raise InputError(
            f"--agents names one agent per seat: {MIN_PLAYERS}..{MAX_PLAYERS} agents, got {n}"
        )
    if args.record_seat is not None and max(args.record_seat) >= n:
        raise InputError(f"--record-seat: seats are 0..{n - 1} with {n} agents")
    argtypes.check_agents(args.agents)
    from training.farlight.datasets.collect import datasets_root

    root = datasets_root(args.root)
    argtypes.refuse_a_file("--root", root)
    if (root / args.out).exists() and not args.force:
        raise InputError(f"dataset {args.out} exists in {root}; --force replaces it")
    return root


def run(args: argparse.Namespace) -> int:
    check_game(args)  # before the interop extra is asked for
    import minari  # noqa: F401 - the interop extra, before any game is played

    from training.farlight.datasets.collect import DatasetSpec, write_dataset

    root = _check(args)
    spec = DatasetSpec(
        dataset_id=args.out,
        agents=tuple(args.agents),
        games=args.games,
        seed=args.seed,
        record_seats=None if args.record_seat is None else tuple(args.record_seat),
        data_format=args.format,
    )
    try:
        written = write_dataset(spec, args.root, force=args.force, progress=not args.no_progress)
    except (OSError, ValueError) as exc:  # a race (FileExistsError), a full disk, a bad id
        raise InputError(str(exc)) from None
    print(
        f"wrote {written.dataset_id}: {written.episodes} episodes, {written.steps} steps, "
        f"{written.bytes / 1e6:.1f} MB ({written.bytes_per_step:.0f} bytes a step) in "
        f"{written.path}"
    )
    env_root = os.environ.get("MINARI_DATASETS_PATH")
    hint = "" if env_root and Path(env_root) == root else f"MINARI_DATASETS_PATH={root} "
    print(f"load: {hint}python -c \"import minari; minari.load_dataset('{written.dataset_id}')\"")
    return 0
