"""What the platform asks of a game (#50), after OpenSpiel's `GameType`/`State` and Pgx's `Env`:
a declaration per game (`Game`) and a per-game state interface (`State`). Everything above
the engines (envs, records, tournaments, agents, the CLI and the web) is written against these
two, so a second game plugs in by declaring itself (`registry.register`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

#: The length bound of a game that declares none (`Game.max_game_length`).
DEFAULT_MAX_LENGTH = 100_000
#: The most seats any registered game may declare: the bound of the seat lists and counts in
#: files shared by every game (journals, scorecards, web records); each game checks its own range.
MAX_SEATS = 8


class GameError(ValueError):
    """A game's own refusal: bad options, a malformed saved state or record (one line)."""


class IllegalMove(GameError):
    """An action the rules do not allow now; the state is unchanged."""


@runtime_checkable
class State(Protocol):
    """One game in progress, as the platform drives it: actions are indices into the game's
    one Discrete action space, seats are 0..num_players-1."""

    @property
    def num_players(self) -> int: ...

    @property
    def current_player(self) -> int | None:
        """The seat to act; None once the game is over."""

    @property
    def is_over(self) -> bool: ...

    @property
    def history(self) -> Sequence[int]:
        """Every action index applied since the start, in order (a replay's input)."""

    def legal_actions(self) -> list[int]:
        """The legal action indices of the seat to act, ascending ([] once over)."""

    def legal_mask(self) -> np.ndarray:
        """int8 of the action space's size: 1 where `legal_actions` holds the index."""

    def apply_action(self, action: int) -> None:
        """Play `action` for the seat to act; IllegalMove leaves the state unchanged."""

    def clone(self) -> State:
        """An independent copy (its own random generator in the same position)."""

    def to_json(self) -> str:
        """The whole state as checked JSON, hidden facts included (a saved game)."""

    def scores(self) -> list[float]: ...

    def winners(self) -> list[int]:
        """The seats sharing the victory once the game is over ([] before)."""

    def observation(self, seat: int) -> np.ndarray:
        """`seat`'s observation vector: public facts and its own hidden ones only."""

    def view(self, seat: int) -> Any:
        """`seat`'s redacted view, for agents that plan on states (never a hidden fact)."""

    def determinized(self, seat: int, rng: np.random.Generator) -> State:
        """A full state consistent with what `seat` knows, hidden facts drawn from `rng`
        (for search): the seat's view of it equals the seat's view of this one."""

    def describe_action(self, action: int) -> str:
        """A short human-readable name of a legal action."""

    def render_text(self, seat: int | None = None) -> str:
        """The board as text: as `seat` sees it, or everything public (None)."""


@dataclass(frozen=True)
class SeatView:
    """What one seat may plan on in any game (info["view"] of the platform's env): its
    redacted `view` and a stand-in, a determinization drawn once from a fixed generator, so
    that nothing here depends on a fact hidden from the seat; search draws its own
    determinizations from the stand-in."""

    seat: int
    view: Any
    stand_in: State = field(repr=False)

    @classmethod
    def of(cls, state: State, seat: int) -> SeatView:
        return cls(seat, state.view(seat), state.determinized(seat, np.random.default_rng(0)))

    def determinized(self, rng: np.random.Generator) -> State:
        """A full state consistent with what the seat knows, its hidden facts from `rng`."""
        return self.stand_in.determinized(self.seat, rng)


@dataclass(frozen=True)
class Option:
    """One option of a game, declared once: its default, what it takes and what it means.
    `check(value)` returns the value as the game takes it, or raises GameError saying why."""

    name: str
    default: Any
    help: str
    check: Callable[[Any], Any] = field(default=lambda value: value, compare=False)
    #: How a value is written as plain data (journals, run files); `check` takes it back.
    #: None: every value the option takes already is plain data.
    store: Callable[[Any], Any] | None = field(default=None, compare=False)

    def stored(self, value: Any) -> Any:
        """`value` as plain data, as files keep it."""
        return value if self.store is None else self.store(value)


@dataclass(frozen=True)
class Benchmark:
    """A game's evaluation protocol (`farlight evaluate --game NAME`): the policy in one seat
    against N-1 copies of each opponent at each player count, in seat-rotated blocks on fixed
    seeds (cell seed: `base_seed + 10 * players + the opponent's position`)."""

    #: The protocol's name and version as scorecards write it, e.g. "farlight-eval-v1".
    protocol: str
    #: Agent names (`agents.make`), in the order the cells and the ratings list them.
    opponents: tuple[str, ...]
    player_counts: tuple[int, ...]
    #: Games per cell by opponent, rounded up to whole blocks of N rotations.
    games: Mapping[str, int]
    #: `--quick`: one block per cell at these player counts only (a smoke check).
    quick_player_counts: tuple[int, ...]
    base_seed: int
    #: Keywords of an opponent's `make` (fixed search budgets keep it machine-independent).
    opponent_kwargs: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class Game:
    """A game's declaration: its name and version, seats, options, and how to make, load and
    size its states. `new_state(num_players, seed, options)` deals a game; `load_state(text,
    options)` reads `State.to_json()` back (GameError for anything else)."""

    name: str
    version: int
    title: str
    min_players: int
    max_players: int
    options: tuple[Option, ...]
    new_state: Callable[[int, int | None, Mapping[str, Any]], State]
    load_state: Callable[[str, Mapping[str, Any]], State]
    action_size: Callable[[int, Mapping[str, Any]], int]
    observation_size: Callable[[int, Mapping[str, Any]], int]
    #: The kinds of decision the game asks for (sub-games pick among them).
    decision_kinds: tuple[str, ...] = ()
    #: The most actions a game can last (OpenSpiel's `max_game_length`, and the bound a saved
    #: history is checked against); None: `DEFAULT_MAX_LENGTH`.
    max_game_length: Callable[[int, Mapping[str, Any]], int] | None = field(
        default=None, compare=False
    )
    #: The env platform code plays games through (tournaments, evaluations), when the game has
    #: its own: keywords num_players and the options; `reset(seed)`, PettingZoo's AEC loop,
    #: `observe_for`, `player_view`, raising on an illegal action. None: the generic env
    #: (`platform.aec.raw_env`).
    make_env: Callable[..., Any] | None = field(default=None, compare=False)
    #: A game's own record of a game played through `make_env`'s env, and its check, when it
    #: has its own format (`record_format`); None: the generic record (`platform.records`).
    build_record: Callable[..., dict[str, Any]] | None = field(default=None, compare=False)
    verify_record: Callable[[Mapping[str, Any]], Any] | None = field(default=None, compare=False)
    record_format: str = "platform-record"
    #: The content a sealed agent's process needs beside its seat's view (Farlight: its card
    #: set), from the env; None: the game cannot be played sealed.
    sealed_content: Callable[[Any], Any] | None = field(default=None, compare=False)
    #: The game's evaluation protocol; None: `farlight evaluate` cannot evaluate on it.
    benchmark: Benchmark | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not 1 <= self.min_players <= self.max_players <= MAX_SEATS:
            raise ValueError(
                f"{self.name}: seats {self.min_players}-{self.max_players} outside 1-{MAX_SEATS}"
            )

    def stored_options(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Option values as plain data for a file (content such as a card set as its table);
        `checked_options` reads them back. Keys that are not options pass through unchanged."""
        names = {o.name for o in self.options}
        return {k: self.option(k).stored(v) if k in names else v for k, v in values.items()}

    def option(self, name: str) -> Option:
        for option in self.options:
            if option.name == name:
                return option
        known = ", ".join(o.name for o in self.options) or "none"
        raise GameError(f"{self.name} has no option {name!r}; its options are {known}")

    def checked_options(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """Every option's value: the given ones checked (GameError naming the first bad or
        unknown one), the rest at their defaults."""
        values = {o.name: o.default for o in self.options}
        for name, value in (given or {}).items():
            option = self.option(name)
            try:
                values[name] = option.check(value)
            except GameError:
                raise
            except (TypeError, ValueError) as exc:
                raise GameError(f"{self.name} option {name}={value!r}: {exc}") from None
        return values

    def length_bound(self, num_players: int, options: Mapping[str, Any]) -> int:
        """The most actions a game of `num_players` with `options` lasts."""
        if self.max_game_length is None:
            return DEFAULT_MAX_LENGTH
        return self.max_game_length(num_players, options)

    def check_players(self, num_players: int) -> int:
        if (
            isinstance(num_players, bool)
            or not isinstance(num_players, int)
            or not self.min_players <= num_players <= self.max_players
        ):
            raise GameError(
                f"{self.name} is for {self.min_players}-{self.max_players} players, "
                f"not {num_players!r}"
            )
        return num_players

    def start(
        self, num_players: int, seed: int | None = None, options: Mapping[str, Any] | None = None
    ) -> State:
        """A new game: players and options checked first."""
        players = self.check_players(num_players)
        return self.new_state(players, seed, self.checked_options(options))

    def replay(
        self,
        num_players: int,
        seed: int | None,
        actions: Sequence[int],
        options: Mapping[str, Any] | None = None,
    ) -> State:
        """The game that `actions` make from (players, seed, options): its history replayed.
        IllegalMove names the first action that is not legal where it stands."""
        state = self.start(num_players, seed, options)
        for at, action in enumerate(actions):
            try:
                state.apply_action(action)
            except IllegalMove as exc:
                raise IllegalMove(f"action {at} ({action!r}) of {self.name}: {exc}") from None
        return state
