"""Speed of this checkout against an earlier commit, measured side by side in one run.

    python scripts/speed_vs.py --baseline 4d665c2 --rounds 3
    python scripts/speed_vs.py --baseline 0643af2 --build-baseline   # its Cython build
    python scripts/speed_vs.py --baseline 205f752 --only ismcts,heuristic

Checks the baseline out into a temporary directory (`git worktree`), then takes turns: each
round runs every measurement once in a child process per tree, so load from other jobs falls on
both alike. Figures are per thread CPU-second; the table gives each tree's best round and the
ratio. Measured, each at 2 and 4 players: random legal play in the engine, the wrapped
PettingZoo env's standard loop, ismcts iterations on fixed positions (heuristic self-play,
every 9th decision) and heuristic self-play decisions (one agent per seat), using only APIs
both trees have. The baseline runs from source unless `--build-baseline` compiles it the way
its own `setup.py` did (`build_ext --inplace`; needs Cython and a C compiler here), so a release
that shipped a compiled build can be measured as users ran it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

ROOT = Path(__file__).resolve().parents[1]

MEASURE = r"""
import json, random, sys, time
import numpy as np
from farlight_env.game import FarlightGame

def engine(players):
    rng, actions = random.Random(0), 0
    start = time.thread_time()
    for seed in range(60):
        game = FarlightGame(players, seed=seed)
        while not game.is_over:
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
            actions += 1
    return actions / (time.thread_time() - start)

def env(players):
    from farlight_env import farlight_v0
    e = farlight_v0.env(num_players=players)
    steps = 0
    start = time.thread_time()
    for seed in range(25):
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
            steps += 1
    return steps / (time.thread_time() - start)

def positions(players, count):
    from agents.farlight.heuristic import HeuristicAgent
    out, seed = [], 0
    while len(out) < count:
        game, policy, step = FarlightGame(players, seed=seed), HeuristicAgent(1), 0
        while not game.is_over and len(out) < count:
            if step % 9 == 0 and len(game.legal_actions()) > 1:
                out.append(game.clone())
            game.apply(policy.choose(game, game.current_player))
            step += 1
        seed += 1
    return out

def ismcts(players):
    from agents.farlight.ismcts import ISMCTSAgent
    from farlight_env.game.hidden import PlayerView
    agent, games = ISMCTSAgent(seed=0), positions(players, 12)
    start = time.thread_time()
    for game in games:
        agent.search(PlayerView(game, game.current_player))
    return len(games) * agent.iterations / (time.thread_time() - start)

def heuristic(players):
    from agents.farlight.heuristic import HeuristicAgent
    decisions = 0
    start = time.thread_time()
    for seed in range(8):
        game = FarlightGame(players, seed=seed)
        agents = [HeuristicAgent(p) for p in range(players)]
        while not game.is_over:
            seat = game.current_player
            game.apply(agents[seat].choose(game, seat))
            decisions += 1
    return decisions / (time.thread_time() - start)

def build():
    import os
    import farlight_env
    # a tree without farlight_env/compiled.py: before the Cython build, or after #31 dropped it
    if not os.path.exists(os.path.join(os.path.dirname(farlight_env.__file__), "compiled.py")):
        return "pure Python"
    from farlight_env import compiled
    return compiled.summary()

kind, players = sys.argv[1], int(sys.argv[2])
figures = {"engine": engine, "env": env, "ismcts": ismcts, "heuristic": heuristic}
print(json.dumps(build() if kind == "build" else figures[kind](players)))
"""

FIGURES = [
    ("engine", 2),
    ("engine", 4),
    ("env", 2),
    ("env", 4),
    ("ismcts", 2),
    ("ismcts", 4),
    ("heuristic", 2),
    ("heuristic", 4),
]
UNITS = {
    "engine": "actions/CPU-s",
    "env": "steps/CPU-s",
    "ismcts": "iterations/CPU-s",
    "heuristic": "decisions/CPU-s",
}


def measure(tree: Path, kind: str, players: int) -> float:
    return float(_child(tree, kind, players))


def build_line(tree: Path) -> str:
    """Whether the tree's hot modules run compiled (farlight_env/compiled.py) or from source."""
    return str(_child(tree, "build", 0))


def _child(tree: Path, kind: str, players: int) -> float | str:
    return run_in_tree(tree, MEASURE, kind, str(players))


def short_head(ref: str = "HEAD") -> str:
    """`ref`'s short commit id in this repository."""
    return subprocess.run(
        ["git", "rev-parse", "--short", ref], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()


def measurement_failed(prog: str, exc: subprocess.CalledProcessError) -> NoReturn:
    """Stop with one line: the last line a failed child printed."""
    last = (exc.stderr or "").strip().splitlines()[-1:] or ["no output"]
    sys.exit(f"{prog}: a measurement failed: {last[0]}")


def run_in_tree(tree: Path, code: str, *args: str) -> Any:
    """Run `code` with `args` in a child Python with `tree` first on its path (one thread);
    its last line of output, read as JSON. A failure raises CalledProcessError."""
    env = {**os.environ, "PYTHONPATH": str(tree), "OMP_NUM_THREADS": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@contextlib.contextmanager
def baseline_checkout(ref: str, prog: str) -> Iterator[Path]:
    """The commit `ref` checked out beside this tree (a temporary `git worktree`), removed after."""
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "baseline"
        added = subprocess.run(
            ["git", "worktree", "add", "--detach", str(base), ref],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        if added.returncode != 0:
            sys.exit(f"{prog}: cannot check out {ref!r}: {added.stderr.strip()}")
        try:
            yield base
        finally:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, check=False
            )


def build_in_place(tree: Path, prog: str) -> None:
    """Compile the tree's extensions beside their sources, as its `pip install` would have."""
    if not (tree / "setup.py").exists():
        sys.exit(f"{prog}: the baseline has no setup.py: nothing to build")
    env = {**os.environ, "PYTHONPATH": str(tree)}
    built = subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--inplace"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    if built.returncode != 0:
        last = (built.stderr or built.stdout).strip().splitlines()[-1:] or ["no output"]
        sys.exit(f"{prog}: building the baseline failed: {last[0]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", required=True, help="git commit to compare against")
    parser.add_argument("--rounds", type=int, default=3, help="turns per tree (best kept)")
    parser.add_argument(
        "--build-baseline",
        action="store_true",
        help="compile the baseline's extensions first (its setup.py; needs Cython)",
    )
    parser.add_argument(
        "--only",
        help=f"measure only these figures, comma-separated (of {', '.join(UNITS)})",
    )
    args = parser.parse_args()
    if args.rounds < 1:
        sys.exit("speed_vs: --rounds must be at least 1")
    kinds = UNITS if args.only is None else args.only.split(",")
    unknown = sorted(set(kinds) - set(UNITS))
    if unknown:
        sys.exit(f"speed_vs: unknown figure {unknown[0]!r}; choose from {', '.join(UNITS)}")
    figures = [(kind, players) for kind, players in FIGURES if kind in kinds]
    best: dict[tuple[str, str, int], float] = {}
    with baseline_checkout(args.baseline, "speed_vs") as base:
        if args.build_baseline:
            build_in_place(base, "speed_vs")
        try:
            builds = {
                label: build_line(tree) for label, tree in (("baseline", base), ("current", ROOT))
            }
            for _ in range(args.rounds):
                for kind, players in figures:
                    for label, tree in (("baseline", base), ("current", ROOT)):
                        rate = measure(tree, kind, players)
                        key = (label, kind, players)
                        best[key] = max(best.get(key, 0.0), rate)
        except subprocess.CalledProcessError as exc:
            measurement_failed("speed_vs", exc)
    head = short_head()
    print(f"best of {args.rounds} turns, thread CPU time, baseline {args.baseline}, current {head}")
    for label, line in builds.items():
        print(f"{label}: {line}")
    print(f"{'figure':<34}{'baseline':>10}{'current':>10}{'ratio':>8}")
    for kind, players in figures:
        old, new = best[("baseline", kind, players)], best[("current", kind, players)]
        name = f"{kind} {players}p ({UNITS[kind]})"
        print(f"{name:<34}{old:>10,.0f}{new:>10,.0f}{new / old:>7.2f}x")


if __name__ == "__main__":
    main()
