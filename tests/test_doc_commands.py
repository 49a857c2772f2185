"""Every command the README and the docs show still runs as written: a reader who copies a
`farlight ...` line gets subcommands that exist and options the parser knows, and a
`python scripts/NAME.py ...` line names a script that is there with options it declares.

A renamed or removed flag used to surface only when someone tried the page. Commands are read
from fenced blocks and inline code; `[--optional]` brackets of a synopsis are checked as the
options they show, `$NAME` expands where the page defines `NAME="..."`, and placeholders in
capitals (POLICY, DIR, RUN/policy.pt) stand for values. Values are checked where an option has
fixed choices (`--vec-env`, `--ship-encoder`, ...); other values (paths, numbers) are not.
"""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import pytest

from farlight_cli.main import build_parser

ROOT = Path(__file__).resolve().parents[1]
PAGES = [
    ROOT / "README.md",
    ROOT / "notebooks" / "README.md",
    # the command reference is the parsers' own --help (tests/test_cli_reference.py)
    *sorted(p for p in (ROOT / "docs").rglob("*.md") if p.name != "cli-reference.md"),
]
FENCE = re.compile(r"^\s*```(\w*)")
INLINE = re.compile(r"`([^`\n]+)`")
#: A run of spaces before words that are not options, brackets or a comment: a synopsis's
#: description column (docs/cli.md), not part of the command.
DESCRIPTION = re.compile(r" {3,}(?=[^\s\-\[#])")
SEPARATORS = {"&&", "||", ";", "|"}
CODE_LANGUAGES = {"python", "py", "json", "toml", "yaml", "yml", "ini"}


def page_commands(text: str) -> list[str]:
    """The shell lines of fenced blocks (continuations joined) and the inline code spans that
    mention `farlight ` or `scripts/`."""
    lines: list[str] = []
    language: str | None = None
    pending = ""
    for line in text.splitlines():
        fence = FENCE.match(line)
        if fence:
            language = None if language is not None else fence.group(1).lower()
            pending = ""
            continue
        if language is None:
            lines += [span for span in INLINE.findall(line) if _mentions_a_command(span)]
            continue
        if language in CODE_LANGUAGES:
            continue
        text_line = line.strip().removeprefix("$ ")
        pending = f"{pending} {text_line}" if pending else text_line
        if pending.endswith("\\"):
            pending = pending[:-1]
            continue
        if _mentions_a_command(pending):
            lines.append(pending)
        pending = ""
    return lines


def _mentions_a_command(text: str) -> bool:
    return re.search(r"(^|\s)farlight\s|scripts/\w+\.py", text) is not None


def page_variables(text: str) -> dict[str, str]:
    """`NAME="..."` definitions on the page (they may span lines)."""
    return {m[1]: " ".join(m[2].split()) for m in re.finditer(r'\b([A-Z_]+)="([^"]*)"', text)}


def commands_in(line: str, variables: dict[str, str]) -> list[list[str]]:
    """The `farlight` and `python scripts/...` commands of one shell line, as words."""
    line = DESCRIPTION.split(line, maxsplit=1)[0]
    for name, value in variables.items():
        line = line.replace(f"${name}", value)
    words = shlex.split(line.replace("[", " ").replace("]", " "), comments=True)
    found, segment = [], []
    for word in [*words, ";"]:
        if word not in SEPARATORS:
            segment.append(word)
            continue
        command = _command(segment)
        if command:
            found.append(command)
        segment = []
    return found


def _command(words: list[str]) -> list[str] | None:
    """`words` from `farlight` or `scripts/NAME.py` on, without environment settings,
    launchers (nice, timeout, time) and redirections; None for other commands."""
    words = [w for w in words if not re.match(r"^\d?>", w)]
    for i, word in enumerate(words):
        if word == "farlight" or re.fullmatch(r"(\./)?scripts/\w+\.py", word):
            before = words[:i]
            launchers = {"python", "python3", "nice", "-n", "time", "timeout", "env", "exec"}
            if all("=" in w or w in launchers or w.isdigit() for w in before):
                return words[i:]
            return None
    return None


def shown() -> list[tuple[str, list[str]]]:
    out = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        variables = page_variables(text)
        for line in page_commands(text):
            for command in commands_in(line, variables):
                out.append((f"{page.relative_to(ROOT)}: {' '.join(command)}", command))
    return out


SHOWN = shown()
FARLIGHT = [(where, words) for where, words in SHOWN if words[0] == "farlight"]
SCRIPTS = [(where, words) for where, words in SHOWN if words[0] != "farlight"]


def test_the_pages_show_commands_of_both_kinds() -> None:
    """The reader is sound: it finds the commands a reader sees (a broken reader finding
    nothing would pass everything below)."""
    assert len(FARLIGHT) > 150 and len(SCRIPTS) > 60
    assert any(w[:3] == ["farlight", "train", "ppo"] and "--init-from" in w for _, w in FARLIGHT)
    assert any("--budgets" in w for _, w in FARLIGHT)  # continuation lines joined


def subcommand_parser(words: list[str]) -> tuple[argparse.ArgumentParser, list[str]] | None:
    """The (sub)parser `words` reach, and the words left for it; None for a placeholder
    command (`farlight COMMAND`). A value before the subcommand (`farlight train --seed 1
    ppo`) would read as one: the pages put subcommands first, as users type them."""
    parser, rest = build_parser(), words[1:]
    while True:
        sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
        first = next((i for i, w in enumerate(rest) if not w.startswith("-")), None)
        if sub is None or first is None:
            return parser, rest
        names = rest[first].split("|")  # `farlight train ppo|self-play`: each must exist
        if names[0].isupper():
            return None
        for name in names:
            assert name in sub.choices, f"no subcommand {name!r}: one of {list(sub.choices)}"
        parser, rest = sub.choices[names[0]], rest[:first] + rest[first + 1 :]


@pytest.mark.parametrize("words", [w for _, w in FARLIGHT], ids=[where for where, _ in FARLIGHT])
def test_every_farlight_command_shown_uses_options_that_exist(words: list[str]) -> None:
    reached = subcommand_parser(words)
    if reached is None:
        return
    parser, rest = reached
    known = parser._option_string_actions
    unknown = [w for w in rest if re.match(r"^--?[a-zA-Z]", w) and w.split("=")[0] not in known]
    assert not unknown, f"{parser.prog} has no option {unknown[0]}"
    for option, value in _choice_values(known, rest):
        for one in value.split("|"):  # `--vec-env dummy|subproc`: each must be a choice
            assert one in known[option].choices, f"{parser.prog} {option} has no choice {one!r}"


def _choice_values(known: dict[str, argparse.Action], words: list[str]) -> list[tuple[str, str]]:
    """(option, value) for each option with fixed choices given a literal value."""
    found = []
    for i, word in enumerate(words):
        option, _, attached = word.partition("=")
        action = known.get(option)
        if action is None or not action.choices or action.nargs not in (None, "?"):
            continue
        value = attached or (words[i + 1] if i + 1 < len(words) else "")
        if value and not value.startswith("-") and "$" not in value and not value.isupper():
            found.append((option, value))
    return found


def script_options(path: Path) -> set[str]:
    """The options a script declares with argparse's `add_argument`."""
    source = path.read_text(encoding="utf-8")
    return set(re.findall(r"""["'](--?[a-zA-Z][\w-]*)["']""", source))


@pytest.mark.parametrize("words", [w for _, w in SCRIPTS], ids=[where for where, _ in SCRIPTS])
def test_every_script_command_shown_names_a_script_and_its_options(words: list[str]) -> None:
    path = ROOT / words[0].removeprefix("./")
    assert path.is_file(), f"no script {words[0]}"
    declared = script_options(path)
    unknown = [
        w for w in words[1:] if re.match(r"^--?[a-zA-Z]", w) and w.split("=")[0] not in declared
    ]
    assert not unknown, f"{words[0]} declares no option {unknown[0]}"


def test_a_renamed_option_or_subcommand_would_be_caught() -> None:
    """The checks above fail on the mistakes they exist for (a synthetic page line each)."""
    line = "cd runs && OMP_NUM_THREADS=1 farlight tournament --agentz a,b --players 2   # note"
    [words] = commands_in(line, {})
    assert words == ["farlight", "tournament", "--agentz", "a,b", "--players", "2"]
    with pytest.raises(AssertionError, match="no option --agentz"):
        test_every_farlight_command_shown_uses_options_that_exist(words)
    with pytest.raises(AssertionError, match="no subcommand 'trian'"):
        test_every_farlight_command_shown_uses_options_that_exist(["farlight", "trian", "ppo"])
    [script] = commands_in("python scripts/speed_vs.py --baselin ee2049d", {})
    with pytest.raises(AssertionError, match="declares no option --baselin"):
        test_every_script_command_shown_names_a_script_and_its_options(script)
    with pytest.raises(AssertionError, match="has no choice 'thaw'"):
        test_every_farlight_command_shown_uses_options_that_exist(
            ["farlight", "train", "ppo", "--ship-encoder", "thaw"]
        )
    [expanded] = commands_in("farlight train ppo $COMMON --seed 5", {"COMMON": "--total-steps 8"})
    assert expanded == ["farlight", "train", "ppo", "--total-steps", "8", "--seed", "5"]
