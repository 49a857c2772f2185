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
- heuristic: heuristic self-play on engine states (`choose`, as search play-outs call it), 10
  games at 4 players;
- ismcts: 60-iteration searches on 4 positions at 4 players (heuristic self-play, every 9th
  decision; building the positions is setup);
- env: random legal play through the PettingZoo loop, 5 games at 4 players.

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

from speed_vs import baseline_checkout  # noqa: E402  (this folder is sys.path[0])

WORKLOAD = r"""
import random, sys
import numpy as np
from farlight_env.game import FarlightGame

kind, size = sys.argv[1], int(sys.argv[2])

def heuristic_env():
    from agents.heuristic import HeuristicAgent
    from farlight_env import farlight_v0
    from farlight_env.game.hidden import PlayerView
    env = farlight_v0.env(num_players=2).unwrapped
    for seed in range(size):
        env.reset(seed=seed)
        agents = [HeuristicAgent(s) for s in range(2)]
        while not env.game.is_over:
            game, seat = env.game, env.game.current_player
            mask = env.action_mask(env.possible_agents[seat])
            info = {"view": PlayerView(game, seat)}
            env.step(agents[seat].act(env._blank_observation, mask, info))

def heuristic():
    from agents.heuristic import HeuristicAgent
    for seed in range(size):
        game = FarlightGame(4, seed=seed)
        agents = [HeuristicAgent(p) for p in range(4)]
        while not game.is_over:
            seat = game.current_player
            game.apply(agents[seat].choose(game, seat))

def ismcts():
    from agents.heuristic import HeuristicAgent
    from agents.ismcts import ISMCTSAgent
    from farlight_env.game.hidden import PlayerView
    positions, seed = [], 0
    while len(positions) < 4:
        game, policy, step = FarlightGame(4, seed=seed), HeuristicAgent(1), 0
        while not game.is_over and len(positions) < 4:
            if step % 9 == 0 and len(game.legal_actions()) > 1:
                positions.append(game.clone())
            game.apply(policy.choose(game, game.current_player))
            step += 1
        seed += 1
    agent = ISMCTSAgent(seed=0)
    for game in positions[:size]:
        agent.search(PlayerView(game, game.current_player))

def env():
    from farlight_env import farlight_v0
    e = farlight_v0.env(num_players=4)
    for seed in range(size):
        rng = random.Random(seed)
        e.reset(seed=seed)
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.randrange(len(legal))])
            e.step(action)

{"heuristic-env": heuristic_env, "heuristic": heuristic, "ismcts": ismcts, "env": env}[kind]()
"""

#: (workload, size of the measured run, what the size counts)
WORKLOADS = (
    ("heuristic-env", 20, "games, 2 players"),
    ("heuristic", 10, "games, 4 players"),
    ("ismcts", 4, "searches, 4 players"),
    ("env", 5, "games, 4 players"),
)


def instructions(tree: Path, kind: str, size: int) -> int:
    """Instructions executed by the workload at `size` in `tree` (valgrind's I refs)."""
    env = {**os.environ, "PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1"}
    command = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        "--cachegrind-out-file=/dev/null",
        sys.executable,
        "-c",
        WORKLOAD,
        kind,
        str(size),
    ]
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if done.returncode != 0 or found is None:
        last = done.stderr.strip().splitlines()[-1:] or ["no output"]
        sys.exit(f"instructions_vs: {kind} failed in {tree}: {last[0]}")
    return int(found.group(1).replace(",", ""))


def work(tree: Path, kind: str, size: int) -> int:
    """Instructions of the work alone: the run at `size` less the run that only sets up."""
    return instructions(tree, kind, size) - instructions(tree, kind, 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="git commit to compare against")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("instructions_vs: needs valgrind on the PATH (Debian: apt install valgrind)")
    with baseline_checkout(args.baseline, "instructions_vs") as base:
        counts = {
            (label, kind): work(tree, kind, size)
            for kind, size, _ in WORKLOADS
            for label, tree in (("baseline", base), ("current", ROOT))
        }
    head = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    print(f"instructions executed (millions), baseline {args.baseline}, current {head}")
    print(f"{'workload':<40}{'baseline':>10}{'current':>10}{'fewer':>8}")
    for kind, size, unit in WORKLOADS:
        old, new = counts[("baseline", kind)], counts[("current", kind)]
        name = f"{kind} ({size} {unit})"
        print(f"{name:<40}{old / 1e6:>10,.0f}{new / 1e6:>10,.0f}{old / new:>7.2f}x")


if __name__ == "__main__":
    main()
