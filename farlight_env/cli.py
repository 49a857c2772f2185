"""The `farlight` command line: random-play statistics, benchmarks, the rules page.

farlight random --players 4 --games 50 --seed 0
farlight bench --players 2,3,4,5 --seconds 3   (engine and env; --engine-only, --env-only)
farlight rules
"""

from __future__ import annotations

import argparse
import re
import sys
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from farlight_env import __version__, bench

#: Where the rules page lives in the source tree (not shipped in the wheel).
RULES_RELPATH = "docs/rules.md"


# ---- farlight random ---------------------------------------------------------------------


def _add_random(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "random",
        help="play random games and print statistics",
        description="Play games with uniformly random legal actions in every seat and print "
        "statistics: rounds, end reasons, scores, actions per game.",
    )
    p.add_argument(
        "--players",
        type=bench.player_list,
        default=[4],
        metavar="N[,N...]",
        help="number of players, 2..5; a comma list gives one row each (default: 4)",
    )
    p.add_argument(
        "--games",
        type=bench.positive_int,
        default=50,
        help="games per player count (default: 50)",
    )
    p.add_argument(
        "--seed",
        type=bench.non_negative_int,
        default=0,
        help="seed of the first game; game i uses seed + i (default: 0)",
    )
    p.add_argument(
        "--max-rounds",
        type=bench.positive_int,
        default=None,
        help="round cap (R-RESET-6; default: the engine's, 50)",
    )
    p.add_argument(
        "--card-set",
        type=Path,
        default=None,
        metavar="PATH",
        help="a card file to play with instead of the standard set",
    )
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.set_defaults(func=_run_random, parser=p)


def _run_random(args: argparse.Namespace) -> int:
    if args.card_set is not None and not args.card_set.is_file():
        args.parser.error(f"argument --card-set: no such file: {args.card_set}")
    from farlight_env.stats import format_seat_table, format_table, random_play_stats

    config = {}
    if args.max_rounds is not None:
        config["max_rounds"] = args.max_rounds
    if args.card_set is not None:
        config["card_set"] = args.card_set
    reports = [
        random_play_stats(n, args.games, args.seed, progress=not args.no_progress, **config)
        for n in args.players
    ]
    last = args.seed + args.games - 1
    print(f"random play: {args.games} games per player count, seeds {args.seed}..{last}")
    print(format_table(reports))
    print()
    print("share of victories by seat (a shared victory is split):")
    print(format_seat_table(reports))
    return 0


# ---- farlight bench ----------------------------------------------------------------------


def _add_bench(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench",
        help="measure engine and env speed (vs Connect Four)",
        description="Benchmark the rules engine (legal_actions + apply per action) and the "
        "wrapped PettingZoo env (observation and mask every step), with PettingZoo's Connect "
        "Four measured in the same run as a yardstick; prints steps/s, games/s and the ratio.",
    )
    bench.add_arguments(p)
    p.set_defaults(func=bench.run, parser=p)


# ---- farlight rules ----------------------------------------------------------------------


def rules_path() -> Path:
    """docs/rules.md in the source tree this package was imported from (may not exist)."""
    return Path(__file__).resolve().parent.parent / RULES_RELPATH


_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_RULE_ID = re.compile(r"\bR-[A-Z]+-\d+[a-z]?\b")
_REASON = re.compile(r"\s*\bReason:.*$")
_SECTION_WORDS = ("interpretation", "decision")


@dataclass(frozen=True)
class Decision:
    """One point the rulebook leaves open and how the project settles it."""

    rule: str  # the first rule ID the item cites ("" when it cites none)
    text: str  # the item as plain text, without its "Reason:"
    group: str  # the heading it sits under


def _clean(text: str) -> str:
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)  # [label](link) -> label
    text = text.replace("**", "").replace("`", "").replace("*", "")
    return re.sub(r"\s+", " ", text).strip()


def decisions(text: str) -> list[Decision]:
    """The decisions of a rules page, in page order.

    Two layouts are understood: every list item under a heading that names interpretations
    or decisions (docs/rules.md), and any item or paragraph marked ``[decision]`` elsewhere
    (the rules specification's style).
    """
    found: list[Decision] = []
    section_level = 0  # level of the enclosing "Interpretations" heading; 0 = outside
    group = ""
    item: list[str] | None = None
    items: list[tuple[list[str], bool, str, bool]] = []  # lines, is list item, group, in section
    in_fence = False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            in_fence = not in_fence
            item = None
            continue
        if in_fence:
            continue
        heading = _HEADING.match(stripped)
        if heading:
            level, title = len(heading.group(1)), _clean(heading.group(2))
            named = any(w in title.lower() for w in _SECTION_WORDS)
            if section_level and level <= section_level and not named:
                section_level = 0
            if named and not section_level:
                section_level = level
            group = title
            item = None
            continue
        if not stripped or stripped.startswith("|"):
            item = None
            continue
        if _BULLET.match(line) or item is None:
            item = [_BULLET.sub("", line).strip()]
            items.append((item, bool(_BULLET.match(line)), group, bool(section_level)))
        else:
            item.append(stripped)
    for lines, is_item, grp, in_section in items:
        raw = " ".join(lines)
        if not is_item or not (in_section or "[decision]" in raw.lower()):
            continue
        clean = _REASON.sub("", _clean(raw))
        if clean.endswith(":"):  # the reason is all the item says: keep it
            clean = _clean(raw)
        rule = _RULE_ID.search(clean)
        found.append(Decision(rule.group(0) if rule else "", clean, grp))
    return found


def _add_rules(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "rules",
        help="where the rules page is, and the project's [decision]s",
        description="Print the path of the rules page (docs/rules.md) and list every point "
        "the rulebook leaves open that this project settled (marked [decision]).",
    )
    p.set_defaults(func=_run_rules, parser=p)


def _run_rules(args: argparse.Namespace) -> int:
    path = rules_path()
    if not path.is_file():
        print(
            f"rules: {RULES_RELPATH} is not installed with the package (looked for {path}).\n"
            f"Read it in the Farlight-Env source repository, file {RULES_RELPATH}."
        )
        return 0
    found = decisions(path.read_text(encoding="utf-8"))
    print(f"rules: {path}")
    print(
        f"{len(found)} [decision]s: points the rulebook leaves open and how this project "
        "settles them (reasons in the rules page)"
    )
    group = None
    width = len(str(len(found)))
    for i, d in enumerate(found, 1):
        if d.group != group:
            group = d.group
            print(f"\n{group}" if group else "")
        lead = f"  {str(i).rjust(width)}. "
        print(
            textwrap.fill(d.text, width=100, initial_indent=lead, subsequent_indent=" " * len(lead))
        )
    return 0


# ---- entry point -------------------------------------------------------------------------


CommandAdder = Callable[[argparse._SubParsersAction], None]


def build_parser(extra: Sequence[CommandAdder] = ()) -> argparse.ArgumentParser:
    """The env-level commands, plus `extra` ones from layers above (agents, training)."""
    parser = argparse.ArgumentParser(
        prog="farlight",
        description="Farlight-Env: the board game Farlight as a reinforcement-learning "
        "environment.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    _add_random(sub)
    _add_bench(sub)
    _add_rules(sub)
    for add in extra:
        add(sub)
    return parser


def main(argv: Sequence[str] | None = None, extra: Sequence[CommandAdder] = ()) -> int:
    """Run `farlight` with ``argv`` (default: sys.argv[1:]); returns the exit status."""
    args = build_parser(extra).parse_args(argv)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
