"""Instructions this checkout executes against an earlier commit, for the same work: a figure
that no other job on the machine can move.

    python scripts/instructions_vs.py --baseline d28a9df

Times on a shared machine drift by 10-20% from one minute to the next (scripts/speed_vs.py
takes turns to share the drift out, but a small gain still needs many turns). Counting the
instructions a run executes under valgrind (`cachegrind` without its cache model) gives the
same number every time for the same code and inputs, so a 5% gain shows as 5%. Instructions
are not time (a cache miss costs more than an add), so speed figures stay speed_vs's; this
tells which change saved work. Each workload runs twice per tree, once doing only its setup
and once with the work, and the difference is reported (imports and setup cancel out):

- heuristic-env: heuristic self-play through the AEC env, each decision through `act` with
  the seat's view (as opponents and sub-game autopilots play), 20 games at 2 players;
- heuristic, ismcts, env: speed_vs's measurements at 4 players (heuristic self-play on engine
  states, 8 games; 60-iteration searches on its 12 positions, building them counted as setup;
  random legal play through the PettingZoo loop, 25 games).

Needs valgrind (Debian: apt install valgrind); about 5 minutes.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

from speed_vs import MEASURE, baseline_checkout, short_head  # noqa: E402  (this folder is sys.path[0])

#: speed_vs's measurements (engine, env, positions, ismcts, heuristic), without its main line.
DEFINITIONS = MEASURE.split("\nkind, players = sys.argv")[0]

WORKLOAD = (
    DEFINITIONS
    + r"""
def heuristic_env(players):
    from agents.farlight.heuristic import HeuristicAgent
    from farlight_env import farlight_v0
    from farlight_env.game.hidden import PlayerView
    env = farlight_v0.env(num_players=players).unwrapped
    for seed in range(20):
        env.reset(seed=seed)
        agents = [HeuristicAgent(s) for s in range(players)]
        while not env.game.is_over:
            game, seat = env.game, env.game.current_player
            mask = env.action_mask(env.possible_agents[seat])
            info = {"view": PlayerView(game, seat)}
            env.step(agents[seat].act(env._blank_observation, mask, info))

kind, players, setup_only = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "setup"
work = {"heuristic-env": heuristic_env, "heuristic": heuristic, "ismcts": ismcts, "env": env}
from farlight_env import farlight_v0  # every workload's imports, in both runs
from farlight_env.game.hidden import PlayerView
from agents.farlight.heuristic import HeuristicAgent
from agents.farlight.ismcts import ISMCTSAgent
if not setup_only:
    work[kind](players)
elif kind == "ismcts":
    positions(players, 12)  # the positions it searches are setup
"""
)

#: (workload, players, what one run does)
WORKLOADS = (
    ("heuristic-env", 2, "20 games"),
    ("heuristic", 4, "8 games"),
    ("ismcts", 4, "12 searches"),
    ("env", 4, "25 games"),
)


def instructions(tree: Path, kind: str, players: int, part: str) -> int:
    """Instructions executed by the workload (`part`: "setup" or "all") in `tree`, valgrind's
    I refs; string hashing fixed, so set and dict orders repeat from run to run."""
    env = {**os.environ, "PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}
    command = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        "--cachegrind-out-file=/dev/null",
        sys.executable,
        "-c",
        WORKLOAD,
        kind,
        str(players),
        part,
    ]
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if done.returncode != 0 or found is None:
        last = done.stderr.strip().splitlines()[-1:] or ["no output"]
        sys.exit(f"instructions_vs: {kind} failed in {tree}: {last[0]}")
    return int(found.group(1).replace(",", ""))


def work(tree: Path, kind: str, players: int) -> int:
    """Instructions of the work alone: the whole run less the run that only sets up."""
    return instructions(tree, kind, players, "all") - instructions(tree, kind, players, "setup")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="git commit to compare against")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("instructions_vs: needs valgrind on the PATH (Debian: apt install valgrind)")
    with baseline_checkout(args.baseline, "instructions_vs") as base:
        counts = {
            (label, kind): work(tree, kind, players)
            for kind, players, _ in WORKLOADS
            for label, tree in (("baseline", base), ("current", ROOT))
        }
    head = short_head()
    print(f"instructions executed (millions), baseline {args.baseline}, current {head}")
    print(f"{'workload':<40}{'baseline':>10}{'current':>10}{'fewer':>8}")
    for kind, players, runs in WORKLOADS:
        old, new = counts[("baseline", kind)], counts[("current", kind)]
        name = f"{kind} ({runs}, {players} players)"
        print(f"{name:<40}{old / 1e6:>10,.0f}{new / 1e6:>10,.0f}{old / new:>7.2f}x")


if __name__ == "__main__":
    main()
