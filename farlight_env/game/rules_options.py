"""Rule options: the rulebook's genuine ambiguities, each playable both ways (docs/rules.md).

Researchers pass them the way OpenSpiel games take parameters:
``FarlightGame(..., rule_options={"token_rounding": "down"})``. Each option is one field of
`RuleOptions`; its metadata holds the values it accepts, the rule it settles and a one-line
description, and everything else (validation, the CLI's ``--rule NAME=VALUE``, ``farlight
rules``) is derived from those fields. The observation layout never depends on them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from farlight_env.untrusted.messages import clip_message, short, some_names

__all__ = [
    "LEGACY_RULE_OPTIONS",
    "RuleOptionError",
    "RuleOptions",
    "option_help",
    "parse_rule_assignment",
]


class RuleOptionError(ValueError):
    """An unknown rule option, or a value the option does not accept (one bounded line)."""

    def __init__(self, message: str) -> None:
        super().__init__(clip_message(message))


def _option(default: Any, choices: tuple[Any, ...], rule: str, doc: str) -> Any:
    return field(default=default, metadata={"choices": choices, "rule": rule, "doc": doc})


@dataclass(frozen=True, slots=True)
class RuleOptions:
    """The rule options in force; the defaults are the rulebook's literal reading."""

    lone_zero_mission_chance: bool = _option(
        True,
        (True, False),
        "R-MIS-2",
        "a bidder whose only mission tile is a lone 0 may complete it, asked after every "
        "real bid (True), or is never asked (False)",
    )
    temp_biotech_lasts: str = _option(
        "round",
        ("round", "mission"),
        "R-MIS-5",
        "temporary bio-tech is lost when all of the round's missions are resolved (round) "
        "or as soon as the mission it was bought for is resolved (mission)",
    )
    token_rounding: str = _option(
        "up",
        ("up", "down"),
        "R-END-2",
        "leftover crew + science score (crew + science) / 3 rounded up (up) or down (down)",
    )
    edge_connectors: str = _option(
        "open",
        ("open", "blocked"),
        "R-SHIP-1",
        "a connector pointing off the ship grid counts as open (open) or blocked (blocked) "
        "for Efficiency and Potential (R-END-1)",
    )

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            choices = f.metadata["choices"]
            if not any(type(value) is type(c) and value == c for c in choices):
                raise RuleOptionError(
                    f"rule option {f.name} ({f.metadata['rule']}) must be one of "
                    f"{_show(choices)}, got {value!r}"
                )

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any] | RuleOptions | None) -> RuleOptions:
        """Options from a name -> value mapping; missing names keep their defaults."""
        if mapping is None:
            return cls()
        if isinstance(mapping, RuleOptions):
            return mapping
        if not isinstance(mapping, Mapping):
            raise RuleOptionError(
                f"rule_options must be a mapping of option names to values, "
                f"got {type(mapping).__name__}"
            )
        known = cls.names()
        unknown = [name for name in mapping if name not in known]
        if unknown:
            raise RuleOptionError(
                f"unknown rule option(s) {some_names([str(n) for n in unknown])}; "
                f"valid options: {', '.join(known)}"
            )
        return cls(**mapping)

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(cls))

    def to_dict(self) -> dict[str, Any]:
        """Every option in force, JSON-able (saved games, records, tournament results)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def changed(self) -> dict[str, Any]:
        """Only the options that differ from their defaults (for short displays)."""
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if getattr(self, f.name) != f.default
        }

    def token_points(self, crew: int, science: int) -> int:
        """Final points for leftover crew and science, one per 3 (R-END-2)."""
        total = crew + science
        return -(-total // 3) if self.token_rounding == "up" else total // 3


#: What games saved before rule options existed were played by: a lone 0 had no chance.
LEGACY_RULE_OPTIONS = RuleOptions(lone_zero_mission_chance=False)


def parse_rule_assignment(text: str) -> tuple[str, Any]:
    """'NAME=VALUE' (the CLI's --rule) as (name, typed value); refuses unknown names/values."""
    name, sep, raw = text.partition("=")
    name, raw = name.strip(), raw.strip()
    fields = {f.name: f for f in dataclasses.fields(RuleOptions)}
    if not sep or not name:
        raise RuleOptionError(
            f"expected NAME=VALUE, got {text!r}; valid options: {', '.join(fields)}"
        )
    if name not in fields:
        raise RuleOptionError(
            f"unknown rule option {short(name)!r}; valid options: {', '.join(fields)}"
        )
    choices = fields[name].metadata["choices"]
    for choice in choices:
        if raw.casefold() == _text(choice).casefold():
            return name, choice
    raise RuleOptionError(
        f"rule option {name} ({fields[name].metadata['rule']}) must be one of "
        f"{_show(choices)}, got {short(raw)!r}"
    )


def option_help() -> list[tuple[str, str, str, str]]:
    """(name, values with the default first, rule ID, description) for every option."""
    rows = []
    for f in dataclasses.fields(RuleOptions):
        values = [f.default] + [c for c in f.metadata["choices"] if c != f.default]
        shown = "|".join(_text(v) for v in values)
        rows.append((f.name, shown, f.metadata["rule"], f.metadata["doc"]))
    return rows


def _text(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _show(choices: tuple[Any, ...]) -> str:
    return ", ".join(repr(c) for c in choices)
