"""Every help text of the `farlight` command agrees with what the command accepts (#48): the
agent lists name every agent of the registry, the extra-install notes every agent that needs
torch, and no option shows an empty default."""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator

import pytest

from agents.registry import AGENT_NAMES, needs_torch
from farlight_cli.main import build_parser


def _parsers(
    parser: argparse.ArgumentParser, name: str = "farlight"
) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, child in action.choices.items():
                yield from _parsers(child, f"{name} {sub}")


PARSERS = dict(_parsers(build_parser()))


def _help_texts(parser: argparse.ArgumentParser) -> Iterator[str]:
    for action in parser._actions:
        if action.help and action.help is not argparse.SUPPRESS:
            yield " ".join(action.help.split())


def test_every_command_is_walked() -> None:
    assert {"farlight evaluate", "farlight serve", "farlight train ppo"} <= set(PARSERS)


@pytest.mark.parametrize("command", sorted(PARSERS))
def test_help_shows_no_empty_default(command: str) -> None:
    assert "(default: )" not in PARSERS[command].format_help()


@pytest.mark.parametrize("command", sorted(PARSERS))
def test_every_agent_list_names_the_whole_registry(command: str) -> None:
    """A help text that starts listing agents ("random, heuristic, ...") lists them all, and a
    note of which need torch names each that does."""
    torch_agents = [name for name in AGENT_NAMES if needs_torch(name)]
    for text in _help_texts(PARSERS[command]):
        if "random, heuristic" in text:
            missing = [n for n in AGENT_NAMES if not re.search(rf"\b{re.escape(n)}\b", text)]
            assert not missing, f"{command}: {text!r} omits {missing}"
        for note in re.findall(r"([\w@*., ]+?) (?:need|needs) the train extra", text):
            names = re.findall(r"[\w@]+", note)
            if any(n in torch_agents for n in names):
                assert set(torch_agents) <= set(names), f"{command}: {text!r}"


#: Flags declared once in farlight_cli/flags.py for the commands that share them.
SHARED_FLAGS = (
    "--seed",
    "--games",
    "--agents",
    "--workers",
    "--no-progress",
    "--ismcts-iterations",
    "--move-seconds",
    "--card-set",
    "--host",
)


@pytest.mark.parametrize("flag", SHARED_FLAGS)
def test_a_shared_flag_parses_and_shows_alike_in_every_command(flag: str) -> None:
    """One builder per shared flag: its type, metavar and kind agree wherever it appears (the
    flags a run config generates, absent until given, follow their dataclass instead)."""
    forms: dict[tuple, list[str]] = {}
    for command, parser in PARSERS.items():
        for action in parser._actions:
            if flag in action.option_strings and action.default is not argparse.SUPPRESS:
                form = (action.type, action.metavar, type(action))
                forms.setdefault(form, []).append(command)
    assert sum(map(len, forms.values())) >= 2, f"{flag} is no longer shared"
    assert len(forms) == 1, forms
