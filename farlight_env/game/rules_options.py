"""Rule options: the rulebook's genuine ambiguities, each playable both ways (docs/rules.md).

Researchers pass them the way OpenSpiel games take parameters:
``FarlightGame(..., rule_options={"token_rounding": "down"})``. Each option is one field of
`RuleOptions`, declared with `option` like every game option (farlight_env/game/options.py:
the values it accepts, the rule it settles, one line of help); `RULES` declares the group as
GameConfig's `rule_options`. Everything else (validation, the CLI's ``--rule NAME=VALUE``,
OpenSpiel's ``rules``, the web's schema, ``farlight rules``) is derived from those
declarations. The observation layout never depends on them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from farlight_env.game.options import OptionSpec, members, option, option_text
from farlight_env.untrusted.messages import clip_message

__all__ = [
    "LEGACY_RULE_OPTIONS",
    "RULES",
    "RuleOptionError",
    "RuleOptions",
    "option_help",
    "parse_rule_assignment",
]


class RuleOptionError(ValueError):
    """An unknown rule option, or a value the option does not accept (one bounded line)."""

    def __init__(self, message: str) -> None:
        super().__init__(clip_message(message))


@dataclass(frozen=True, slots=True)
class RuleOptions:
    """The rule options in force; the defaults are the rulebook's literal reading."""

    lone_zero_mission_chance: bool = option(
        True,
        "R-MIS-2",
        "a bidder whose only mission tile is a lone 0 may complete it, asked after every "
        "real bid (True), or is never asked (False)",
        choices=(True, False),
    )
    temp_biotech_lasts: str = option(
        "round",
        "R-MIS-5",
        "temporary bio-tech is lost when all of the round's missions are resolved (round) "
        "or as soon as the mission it was bought for is resolved (mission)",
        choices=("round", "mission"),
    )
    token_rounding: str = option(
        "up",
        "R-END-2",
        "leftover crew + science score (crew + science) / 3 rounded up (up) or down (down)",
        choices=("up", "down"),
    )
    edge_connectors: str = option(
        "open",
        "R-SHIP-1",
        "a connector pointing off the ship grid counts as open (open) or blocked (blocked) "
        "for Efficiency and Potential (R-END-1)",
        choices=("open", "blocked"),
    )

    def __post_init__(self) -> None:
        for name, (spec, default) in members(RuleOptions).items():
            problem = spec.problem(f"{RULES.member} {name}", getattr(self, name), default)
            if problem:
                raise RuleOptionError(problem)

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any] | RuleOptions | None) -> RuleOptions:
        """Options from a name -> value mapping; missing names keep their defaults."""
        if mapping is None:
            return cls()
        problem = RULES.problem("rule_options", mapping, cls())
        if problem:
            raise RuleOptionError(problem)
        return RULES.coerce(mapping)

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(members(cls))

    def to_dict(self) -> dict[str, Any]:
        """Every option in force, JSON-able (saved games, records, tournament results)."""
        return RULES.plain(self)

    def changed(self) -> dict[str, Any]:
        """Only the options that differ from their defaults (for short displays)."""
        return RULES.changed(self)

    def token_points(self, crew: int, science: int) -> int:
        """Final points for leftover crew and science, one per 3 (R-END-2)."""
        total = crew + science
        return -(-total // 3) if self.token_rounding == "up" else total // 3


#: GameConfig's `rule_options`: the group of the rule options, declared like every option.
RULES = OptionSpec(
    "docs/rules.md",
    "the rulebook's ambiguities, each playable both ways",
    flag="--rule",
    metavar="NAME=VALUE",
    label="rules",
    group=RuleOptions,
    member="rule option",
)


#: What games saved before rule options existed were played by: a lone 0 had no chance.
LEGACY_RULE_OPTIONS = RuleOptions(lone_zero_mission_chance=False)


def parse_rule_assignment(text: str) -> tuple[str, Any]:
    """'NAME=VALUE' (the CLI's --rule) as (name, typed value); refuses unknown names/values."""
    try:
        return RULES.parse_assignment(text)
    except ValueError as exc:
        raise RuleOptionError(str(exc)) from None


def option_help() -> list[tuple[str, str, str, str]]:
    """(name, values with the default first, rule ID, description) for every option."""
    rows = []
    for name, (spec, default) in members(RuleOptions).items():
        values = [default] + [c for c in spec.choices if c != default]
        rows.append((name, "|".join(map(option_text, values)), spec.rule, spec.help))
    return rows
