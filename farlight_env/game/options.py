"""How a game option is declared, checked and read from text: one scheme for every option.

An option is a dataclass field whose metadata holds an `OptionSpec` (`option(...)`). Its kind
follows from its default: an int ranges over `low`..`high`, a bool is True or False, a value
with `choices` is one of them, and a `group` (the rule options) is a dataclass of member
options declared the same way, given as a NAME -> value mapping. Every surface that takes
options (the engine, the CLI, run configs, the web, OpenSpiel's parameters) checks a value
with `problem` and reads text with `parse`, so one option is checked one way everywhere.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from farlight_env.untrusted.messages import short, some_names

__all__ = ["OptionSpec", "members", "option", "option_text"]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def option_text(value: Any) -> str:
    """A value as the command line spells it (bools lower case)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """An option's declaration: the rule it settles, its values and how it is offered."""

    rule: str  # the rule it settles (docs/rules.md)
    help: str  # one line for --help, the web options and run configs
    low: int | None = None  # int options: the smallest value
    high: int | None = None  # int options: the largest value
    odd: str = ""  # int options that must be odd: why ("" when any value will do)
    choices: tuple[Any, ...] = ()  # the values accepted, when they are a list
    #: Offered by name on command lines, the web's new-game form and run configs. False for
    #: the seat count (each of them declares its own, with its own default) and for options
    #: only the engine and env keyword arguments take.
    offered: bool = True
    flag: str = ""  # the command-line flag ("": --name-with-dashes)
    metavar: str = "N"  # the flag's value as --help shows it
    label: str = ""  # its name in one-line summaries ("": the option's name)
    #: A group of options: the frozen dataclass whose fields are its members, each declared
    #: with `option` (given as a NAME -> value mapping; on the command line NAME=VALUE).
    group: type | None = None
    member: str = "option"  # a group's member as messages name it ("rule option")

    def kind(self, default: Any) -> str:
        """'group', 'choice', 'bool', 'int' or 'str': what the option's value is."""
        if self.group is not None:
            return "group"
        if self.choices:
            return "choice"
        return "bool" if isinstance(default, bool) else type(default).__name__

    def problem(self, name: str, value: object, default: object) -> str | None:
        """Why `value` is not a valid `name` (None when it is): one sentence."""
        kind = self.kind(default)
        if kind == "group":
            return self._group_problem(name, value)
        if kind == "choice":
            if any(type(value) is type(c) and value == c for c in self.choices):
                return None
            shown = ", ".join(map(repr, self.choices))
            return f"{name} ({self.rule}) must be one of {shown}, got {value!r}"
        if kind == "bool":
            return (
                None if isinstance(value, bool) else f"{name} must be True or False, got {value!r}"
            )
        return self._int_problem(name, value)

    def _int_problem(self, name: str, value: object) -> str | None:
        low, high = self.low, self.high
        assert low is not None and high is not None, f"{name}: an int option needs low, high"
        if not _is_int(value):
            kind = "an odd integer" if self.odd else "an integer"
            return f"{name} must be {kind} {low}..{high}, got {value!r}"
        if self.odd and (value % 2 == 0 or not low <= value <= high):
            return f"{name} must be odd ({self.odd}) and {low}..{high}, got {value} ({self.rule})"
        if not low <= value <= high:
            return f"{name} must be {low}..{high} ({self.rule}), got {value}"
        return None

    def _group_problem(self, name: str, value: object) -> str | None:
        if value is None or isinstance(value, self.group):  # None: every member's default
            return None
        if not isinstance(value, Mapping):
            return f"{name} must be a mapping of option names to values, got {type(value).__name__}"
        known = members(self.group)
        unknown = [str(n) for n in value if n not in known]
        if unknown:
            names = ", ".join(known)
            return f"unknown {self.member}(s) {some_names(unknown)}; valid options: {names}"
        for member, given in value.items():
            spec, default = known[member]
            problem = spec.problem(f"{self.member} {member}", given, default)
            if problem:
                return problem
        return None

    def coerce(self, value: Any) -> Any:
        """A valid value as the option holds it: a group's mapping (None: {}) becomes its
        dataclass."""
        if self.group is not None and not isinstance(value, self.group):
            return self.group(**(value or {}))
        return value

    def plain(self, value: Any) -> Any:
        """The value as JSON-able data (a group as a NAME -> value dict of all its members)."""
        if self.group is not None:
            value = self.coerce(value)
            return {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
        return value

    def changed(self, value: Any) -> dict[str, Any]:
        """A group's members that differ from their defaults (for short displays)."""
        assert self.group is not None, "only a group has members"
        given = self.plain(value)
        return {
            n: given[n] for n, (_, default) in members(self.group).items() if given[n] != default
        }

    def parse(self, name: str, text: str, default: Any, check: bool = True) -> Any:
        """`text` as the option's value (ValueError saying why it is not one; an int out of
        range is one only if `check`). Choices match ignoring case; a group reads NAME=VALUE."""
        kind = self.kind(default)
        if kind == "group":
            return self.parse_assignment(text)
        if kind in ("choice", "bool"):
            values = self.choices or (True, False)
            for choice in values:
                if text.strip().casefold() == option_text(choice).casefold():
                    return choice
            shown = ", ".join(map(repr, values))
            raise ValueError(f"{name} ({self.rule}) must be one of {shown}, got {short(text)!r}")
        if kind == "int":
            try:
                value = int(text)
            except ValueError:
                raise ValueError(f"{name} must be an integer, got {short(text)!r}") from None
        else:
            value = text
        problem = self.problem(name, value, default) if check else None
        if problem:
            raise ValueError(problem)
        return value

    def parse_assignment(self, text: str, sep: str = "=") -> tuple[str, Any]:
        """A group's 'NAME=VALUE' (the CLI's --rule; OpenSpiel's NAME:VALUE) as (member, typed
        value); ValueError for an unknown member or value."""
        assert self.group is not None, "only a group takes NAME=VALUE"
        known = members(self.group)
        member, found, raw = text.partition(sep)
        member = member.strip()
        if not found or not member:
            raise ValueError(
                f"expected NAME{sep}VALUE, got {short(text)!r}; valid options: {', '.join(known)}"
            )
        if member not in known:
            raise ValueError(
                f"unknown {self.member} {short(member)!r}; valid options: {', '.join(known)}"
            )
        spec, default = known[member]
        return member, spec.parse(f"{self.member} {member}", raw, default)


def option(default: Any, rule: str, help: str, **spec: Any) -> Any:
    """A dataclass field that is an option: its default and its `OptionSpec`."""
    return field(default=default, metadata={"option": OptionSpec(rule, help, **spec)})


def members(group: type) -> dict[str, tuple[OptionSpec, Any]]:
    """A group's member options by name: (declaration, default), in declaration order."""
    return {f.name: (f.metadata["option"], f.default) for f in dataclasses.fields(group)}
