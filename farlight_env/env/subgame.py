"""The sub-game as one driver (docs/subgames.md): the decision kinds a learner takes, parsed
once at the API edge into a typed `LearnerDecisions`, and the `SubGame` that plays every other
decision (the autopilot's for the learners' other kinds, the opponents' for their seats) until
a learner decides or the game ends.

The AEC env, the Gymnasium single-agent env (and so the vector env) and RLlib's league env all
drive their games through `SubGame.advance`, so the same seed and learner actions lead every
form through the same decisions.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from farlight_env.env.autopilot import ALL, DECISION_KINDS, Autopilot
from farlight_env.game.config import ConfigError, Phase

if TYPE_CHECKING:
    from farlight_env.env.aec import raw_env

#: What a seat that is no learner's plays with: an Agent (act(observation, mask, info)) or a
#: callable (observation, mask) -> action index.
Player = Any


@dataclass(frozen=True)
class LearnerDecisions:
    """The decision kinds the learner is asked for; every other one is the autopilot's.

    Built by `parse` (or `of`) where a user's value enters, then handed on typed, so nothing
    inside re-reads text; `covers` answers per decision with one set lookup.
    """

    kinds: frozenset[str]
    #: The kinds as strings and as `Phase`s (a str enum), so `covers` takes either.
    _covered: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        kinds = frozenset(self.kinds)
        if not kinds or not kinds <= frozenset(DECISION_KINDS):
            raise ConfigError(f"learner_decisions: {sorted(kinds)!r} are not decision kinds")
        object.__setattr__(self, "kinds", kinds)
        object.__setattr__(self, "_covered", kinds | {Phase(k) for k in kinds})

    @classmethod
    def parse(cls, spec: str | Iterable[str] | None) -> LearnerDecisions:
        """From "all", "bidding", "bidding,mission" or a set of names (None: all); one
        ConfigError naming the unknown kinds and the valid ones."""
        if spec is None:
            return FULL_GAME
        names = spec.split(",") if isinstance(spec, str) else list(spec)
        if not all(isinstance(n, str) for n in names):
            raise ConfigError(f"learner_decisions must be names of decision kinds, got {spec!r}")
        names = [n.strip() for n in names if n.strip()]
        if ALL in names:
            if len(names) > 1:
                raise ConfigError("learner_decisions: 'all' cannot be combined with other kinds")
            return FULL_GAME
        unknown = sorted(set(names) - set(DECISION_KINDS))
        if unknown or not names:
            raise ConfigError(
                "learner_decisions: unknown decision kind "
                f"{', '.join(map(repr, unknown)) or '(none)'}"
                f"; expected 'all' or some of {', '.join(DECISION_KINDS)}"
            )
        return cls(frozenset(names))

    @classmethod
    def of(cls, spec: LearnerDecisions | str | Iterable[str] | None) -> LearnerDecisions:
        """A typed value as it is, anything else parsed: the one door of every API edge."""
        return spec if isinstance(spec, LearnerDecisions) else cls.parse(spec)

    @property
    def full(self) -> bool:
        """Every kind: the full game, no autopilot."""
        return len(self.kinds) == len(DECISION_KINDS)

    def covers(self, kind: str | Phase) -> bool:
        """Whether a decision of this kind (a name or a `Phase`) is the learner's."""
        return kind in self._covered

    @property
    def label(self) -> str:
        """ "all" or the kinds in the observation's order, comma-separated (configs, files)."""
        if self.full:
            return ALL
        return ",".join(k for k in DECISION_KINDS if k in self.kinds)


#: The full game: the learner takes every decision.
FULL_GAME = LearnerDecisions(frozenset(DECISION_KINDS))


class SubGame:
    """Plays the decisions no learner takes, for every env form.

    Learner seats are asked only for `decisions`; their other decisions are the autopilot's;
    other seats are the opponents' (`start` names both per game; by default every seat learns,
    as in the AEC env).
    """

    def __init__(self, decisions: LearnerDecisions, autopilot: Any, num_players: int) -> None:
        self.decisions = decisions
        self.autopilot = Autopilot(decisions, autopilot, num_players)
        self.num_players = num_players
        self.learners: frozenset[int] = frozenset(range(num_players))
        self._opponent: Callable[[int], Player] | None = None

    @property
    def active(self) -> bool:
        """Whether anything is played here (a learner's other kinds, or opponents' seats)."""
        return self.autopilot.active or len(self.learners) < self.num_players

    def describe(self) -> dict[str, str]:
        """The sub-game as plain data (records and run files store it)."""
        return self.autopilot.describe()

    def start(
        self,
        game_seed: int,
        learners: Collection[int] | None = None,
        opponent: Callable[[int], Player] | None = None,
    ) -> None:
        """A new game: who learns (all seats unless given), who plays the others (`opponent`:
        seat -> player), and the autopilot reseeded from the game's seed."""
        if self.autopilot.active:
            self.autopilot.start(game_seed)
        self.learners = frozenset(range(self.num_players) if learners is None else learners)
        if len(self.learners) < self.num_players and opponent is None:
            raise ValueError("a sub-game with opponents' seats needs an opponent for them")
        self._opponent = opponent

    def advance(self, env: raw_env, apply: Callable[[int], Any]) -> int | None:
        """Play the others' decisions in `env`'s game through `apply(action index)` until a
        learner must decide (its seat) or the game, or its seat's episode, is over (None)."""
        game = env.game
        assert game is not None
        names = env.possible_agents
        while True:
            seat = game.current_player
            if seat is None or env.terminations[names[seat]] or env.truncations[names[seat]]:
                return None
            if seat in self.learners:
                if self.decisions.covers(game.phase):
                    return seat
                apply(self._autopilot_move(env, seat))
            else:
                apply(self._opponent_move(env, seat))

    def _autopilot_move(self, env: raw_env, seat: int) -> int:
        agent = env.possible_agents[seat]
        vector, mask = env.observe_for(agent, self.autopilot.agent(seat))
        return self.autopilot.act(seat, vector, mask, env.agent_info(agent))

    def _opponent_move(self, env: raw_env, seat: int) -> int:
        assert self._opponent is not None
        agent = env.possible_agents[seat]
        player = self._opponent(seat)
        vector, mask = env.observe_for(agent, player)
        if hasattr(player, "act"):  # an Agent: act(observation, mask, info) with its view
            return player.act(vector, mask, env.agent_info(agent))
        return player(vector, mask)
