"""`farlight rules`: the rule options, where the rules page is, and the points the project
settled."""

from __future__ import annotations

import argparse
import textwrap

from farlight_env.game.rules_options import option_help
from farlight_env.tools.rules_page import RULES_RELPATH, decisions, rules_path

HELP = "the rule options, where the rules page is, and the project's [decision]s"
DESCRIPTION = """\
List the rule options (--rule NAME=VALUE) with their defaults, print the path of the rules page
(docs/rules.md) and list every point the rulebook leaves open that this project settled (marked
[decision]).
"""


def add(p: argparse.ArgumentParser) -> None:
    """`farlight rules` takes no options: it only lists."""


def print_rule_options() -> None:
    """The rule options, their values (default first) and the rules they settle."""
    print("rule options (--rule NAME=VALUE; the first value is the default):")
    for name, values, rule, doc in option_help():
        print(f"  {name}={values}  [{rule}]")
        print(textwrap.fill(doc, width=100, initial_indent=" " * 6, subsequent_indent=" " * 6))


def run(args: argparse.Namespace) -> int:
    print_rule_options()
    print()
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
