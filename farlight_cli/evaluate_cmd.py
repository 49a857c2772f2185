"""`farlight evaluate POLICY`: the farlight-eval-v1/v2 benchmark, printed and saved."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from farlight_cli import argtypes, flags
from farlight_cli.errors import InputError
from farlight_cli.farlight import game_flags
from farlight_env.platform import DEFAULT_GAME

if TYPE_CHECKING:
    from agents.farlight.sealed import MoveBudget

DESCRIPTION = """\
Benchmark one policy with the fixed protocol farlight-eval-v1 (docs/evaluation.md), so that
numbers from different people are comparable. The policy plays one seat against N-1 copies of
random, of heuristic and of ismcts (20 search iterations per decision) at 2, 3, 4 and 5
players. Games come in duplicate blocks: each deal is played N times with the policy moved one
seat on each time. Cell seeds are 13000 + 10*players + k, with k = 0, 1, 2 for random,
heuristic, ismcts. Games per cell: 40 vs random, 60 vs heuristic, 20 vs ismcts, rounded up to
whole blocks (483 games in all). --quick plays one block per cell at 2 and 3 players only
(15 games): a smoke check, marked "quick" in the scorecard. It is never the full protocol.
A victory shared by k seats counts as 1/k of a win. The margin is the policy's score minus the
best opponent's score. Per cell the output gives games, wins, win rate, Wilson 95% interval,
fair share 1/N and mean margin. Also printed: an OpenSkill rating of the policy against the
three reference agents, rated over all the games, and CPU seconds per policy decision. With
--out DIR it writes DIR/scorecard.json and DIR/scorecard.png, and journals every game there
as it ends: --resume DIR finishes a killed run with the same scorecard. Game options (--rule,
--card-set, ...) are allowed and recorded, but such a scorecard is marked non-standard.
--protocol v2 (farlight-eval-v2, needs the train extra) plays the same cells with the policy
sealed (from its own process, seeing only its seat's observation, mask and redacted game) and
adds an exploitability cell: a best response warm-started from the shipped network, trained
against the policy at 2 players for 50,000 learner steps (farlight exploit, seed 0), then
evaluated on 200 seat-rotated games (seed 29002); its win rate minus 1/2 is the exploitation
gap, a lower bound on the policy's exploitability. v2 is defined on the standard game only.
The seeds above are published, so an agent could precompute the games: --held-out deals the
cells from a secret drawn at the start instead (the same blocks and cell sizes), written to the
scorecard after the last game (--held-out-secret replays it). Only held-out sealed scorecards
compare agents submitted by others.
--sealed plays v1 with the policy sealed. Sealed, each game of the policy runs in a fresh boxed
process (docs/safety.md), timed by this one: --move-seconds and --move-cpu-seconds bound each
decision, and one over budget is forfeited to the lowest-numbered legal action.
--game NAME evaluates on another registered game under the protocol that game declares (its own
opponents, player counts, games per cell and seeds; --game-option NAME=VALUE sets its options).
"""


HELP = "benchmark a policy with a fixed protocol (farlight-eval-v1 or v2; a game's own) (scorecard)"


def add(p: argparse.ArgumentParser) -> None:
    flags.policy(p, f"{argtypes.agent_names_text()}; {argtypes.train_extra_text()} (torch)")
    flags.folder(
        p,
        "--resume",
        "finish the evaluation started with --out DIR (after a kill): only its missing games are "
        "played, with its stored options (default: start a new one)",
    )
    p.add_argument(
        "--protocol",
        choices=("v1", "v2"),
        default="v1",
        help="v1: the cells; v2: the cells played sealed plus the exploitability cell (trains "
        "a 50,000-step best response; needs the train extra) (default: v1)",
    )
    p.add_argument(
        "--sealed",
        action="store_true",
        help="v1 with the policy sealed: from its own boxed process, seeing only its seat's "
        "observation, mask and redacted game (v2 always is) (default: in this process)",
    )
    flags.move_budget_flags(p, "the policy", "sealed play")
    p.add_argument(
        "--quick",
        action="store_true",
        help="one duplicate block per cell at 2 and 3 players (15 games): a smoke check",
    )
    p.add_argument(
        "--held-out",
        action="store_true",
        help="deal the cells from a secret drawn now, not the published seeds: nobody can "
        "precompute the games; the scorecard gets the secret after the last game (only "
        "held-out sealed scorecards compare submitted agents)",
    )
    p.add_argument(
        "--held-out-secret",
        type=argtypes.held_out_secret,
        default=None,
        metavar="HEX",
        help="replay a finished held-out run: the 64 hex digits its scorecard shows "
        "(default: a published seed set, or with --held-out a new secret)",
    )
    flags.ismcts_iterations(
        p,
        "search iterations per decision of the evaluated ismcts (POLICY ismcts only; default: "
        "the protocol's 20; opponents always use 20)",
    )
    flags.workers(p, "results do not depend on it")
    flags.game(p)
    game_flags.add_game_config_arguments(p)
    flags.folder(
        p,
        "--out",
        "directory for scorecard.json and scorecard.png; every game is journalled there as it "
        "ends, so --resume DIR finishes a killed run (default: print the table only)",
    )
    flags.no_progress(p)


#: Options a resumed evaluation takes from its journal; giving one with --resume is refused.
STORED_OPTIONS = (
    "quick",
    "protocol",
    "ismcts_iterations",
    "held_out",
    "held_out_secret",
    "sealed",
    "move_seconds",
    "move_cpu_seconds",
    "game",
    "game_option",
    *game_flags.GAME_ARGUMENTS,
    "out",
)


def resume(args: argparse.Namespace) -> int:
    """`--resume DIR`: the stored evaluation, finished, printed and written to DIR."""
    import sys

    from evaluation.eval_v1 import PROTOCOL_V2, format_scorecard, resume_evaluation, write_scorecard
    from evaluation.journal import JournalError, read_eval_spec

    if args.policy is not None:
        raise InputError("--resume DIR evaluates the policy stored there; drop POLICY")
    given = [n for n in STORED_OPTIONS if getattr(args, n) != args.parser.get_default(n)]
    if given:
        named = ", ".join(map(game_flags.game_flag, given))
        raise InputError(f"--resume plays on with the stored options; drop {named}")
    if not args.resume.is_dir():
        raise InputError(f"--resume {args.resume}: no such folder")
    from evaluation.tournament import GameFailure

    try:
        if read_eval_spec(args.resume).protocol == PROTOCOL_V2:
            from evaluation.eval_v2 import resume_v2
            from training.farlight.sb3.exploit import exploit  # the train extra

            card = resume_v2(
                args.resume, args.workers, progress=not args.no_progress, best_response=exploit
            )
        else:
            card = resume_evaluation(args.resume, args.workers, progress=not args.no_progress)
    except (JournalError, ValueError) as exc:
        raise InputError(str(exc)) from None
    except GameFailure as exc:
        print(f"farlight evaluate: stopped: {exc}", file=sys.stderr)
        return 1
    print(format_scorecard(card))
    paths = write_scorecard(card, args.resume)
    print("wrote " + ", ".join(str(path) for path in paths.values()))
    return 0


def run(args: argparse.Namespace) -> int:
    import sys

    from agents.registry import agent_names_help, unknown_agents

    if args.resume is not None:
        return resume(args)
    if args.policy is None:
        raise InputError("give POLICY to evaluate (or --resume DIR to finish a killed run)")
    policy = args.policy
    if policy.endswith(".pt") and not Path(policy).is_file():
        raise InputError(f"no such policy file: {policy}")
    if unknown_agents([policy]):
        raise InputError(f"unknown policy {policy!r}: expected {agent_names_help()}")
    if args.ismcts_iterations is not None and policy != "ismcts":
        raise InputError("--ismcts-iterations sets the budget of POLICY ismcts only")
    if args.held_out and args.held_out_secret is not None:
        raise InputError("--held-out draws a new secret; --held-out-secret replays one: give one")
    budget = flags.move_budget(
        args, args.sealed or args.protocol == "v2", "--sealed or --protocol v2"
    )
    config = _game_config(args)
    if args.protocol == "v2":
        changed = [
            n for n in game_flags.GAME_ARGUMENTS if getattr(args, n) != args.parser.get_default(n)
        ]
        if changed:
            named = ", ".join(map(game_flags.game_flag, changed))
            raise InputError(
                f"farlight-eval-v2 is defined on the standard game; drop {named} or give "
                "--protocol v1"
            )
    if args.out is not None:
        argtypes.check_out_dir("--out", args.out)
        from evaluation.formats.journal import EVAL_GAMES, EVAL_SPEC

        held = [n for n in (EVAL_SPEC, EVAL_GAMES) if (args.out / n).exists()]
        if held:
            raise InputError(
                f"--out {args.out} already holds an evaluation ({held[0]}); finish it with "
                f"--resume {args.out} or choose another --out"
            )
    argtypes.check_agents([policy])  # a corrupt or hostile .pt: one line, before any game

    from evaluation.eval_v1 import evaluate, format_scorecard, write_scorecard
    from evaluation.tournament import GameFailure

    policy_kwargs = flags.ismcts_options(args)
    try:
        if args.protocol == "v2":
            card = _evaluate_v2(args, policy, policy_kwargs, budget)
        else:
            card = evaluate(
                policy,
                quick=args.quick,
                workers=args.workers,
                progress=not args.no_progress,
                policy_kwargs=policy_kwargs,
                config=config,
                card_file=None if args.card_set is None else args.card_set.path,
                out_dir=args.out,
                held_out=args.held_out,
                held_out_secret=args.held_out_secret,
                sealed=args.sealed,
                move_budget=budget,
                game=args.game,
            )
    except GameFailure as exc:
        print(f"farlight evaluate: stopped: {exc}", file=sys.stderr)
        return 1
    print(format_scorecard(card))
    if args.game == DEFAULT_GAME:
        print(f"game: {game_flags.describe_game_config(args)}")
    if args.out is not None:
        paths = write_scorecard(card, args.out)
        print("wrote " + ", ".join(str(path) for path in paths.values()))
    return 0


def _game_config(args: argparse.Namespace) -> dict:
    """The options of the game evaluated, checked, and the protocols and play it allows."""
    from evaluation.eval_v1 import benchmark_of

    try:
        config = game_flags.played_game_config(args)
        declared, benchmark = benchmark_of(args.game)
    except ValueError as exc:  # an unknown game or option, or a game with no protocol
        raise InputError(str(exc)) from None
    if declared.name != DEFAULT_GAME and args.protocol == "v2":
        raise InputError(f"farlight-eval-v2 is Farlight's; --game {args.game} has v1 only")
    if args.sealed and declared.sealed_content is None:
        raise InputError(f"--sealed: {args.game} cannot be played sealed")
    return config


def _evaluate_v2(
    args: argparse.Namespace, policy: str, policy_kwargs: dict, budget: MoveBudget | None
) -> dict:
    """farlight-eval-v2: the sealed cells, then the exploitability cell (the train extra)."""
    from evaluation.eval_v2 import evaluate_v2
    from training.farlight.sb3.exploit import exploit  # the train extra

    return evaluate_v2(
        policy,
        quick=args.quick,
        workers=args.workers,
        progress=not args.no_progress,
        policy_kwargs=policy_kwargs,
        out_dir=args.out,
        held_out=args.held_out,
        held_out_secret=args.held_out_secret,
        move_budget=budget,
        best_response=exploit,
    )
