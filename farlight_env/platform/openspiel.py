"""Any game declared to the platform as an OpenSpiel game: `register("duel")` registers
"python_duel", written only against the game's `Game` declaration and `State` protocol
(Farlight keeps its own bridge, `farlight_env.openspiel`, "python_farlight").

Chance is explicit: one chance node at the start has `deals` equally likely outcomes, deal k
the game the declaration deals from seed `deal_seed(k)`; the state's own generator rolls
everything after. Returns are the generic env's: +1 for each winner and -1 for each other
seat (0 for all when every seat wins). Observations are the state's `observation(seat)` and
`render_text(seat)`; a seat's information state is the sequence of its views since the deal.
States serialize as the history that replays to them, read back by replaying it through the
rules (each action checked), never by OpenSpiel's pickle.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import msgspec
import numpy as np

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - CI installs the interop extra
    raise ImportError(
        "farlight_env.platform.openspiel needs OpenSpiel (pyspiel): pip install -e .[interop]"
    ) from exc

from farlight_env.platform import spiel_strings
from farlight_env.platform.protocol import Game, GameError, IllegalMove, State
from farlight_env.platform.registry import get_game
from farlight_env.platform.spiel_strings import MAX_STATE_CHARS, PICKLED_PREFIX, StateStringError

__all__ = ["PlatformSpielGame", "PlatformSpielState", "deal_seed", "register", "spiel_name"]

STATE_FORMAT = "platform-openspiel-state"
STATE_VERSION = 1
DEFAULT_DEALS = 2**16
MAX_DEALS = 2**20
#: Option values OpenSpiel's game parameters can carry.
_SCALARS = (bool, int, float, str)


class PlatformSpielError(pyspiel.SpielError, ValueError):
    """A platform game's refusal, as OpenSpiel code and the platform's code both catch it."""


class SavedState(msgspec.Struct, forbid_unknown_fields=True):
    format: str
    version: int
    history: list[tuple[int, int]]


def spiel_name(game: Game) -> str:
    return f"python_{game.name}"


def deal_seed(deal: int) -> int:
    """The seed deal k deals from (as the platform env draws a game seed from reset's)."""
    return int(np.random.default_rng(deal).integers(2**63))


def register(game: str | Game) -> str:
    """Register `game` (a name or a declaration) with OpenSpiel, once; its OpenSpiel name."""
    declaration = get_game(game) if isinstance(game, str) else game
    name = spiel_name(declaration)
    if name in pyspiel.registered_names():
        return name
    game_type = _game_type(declaration)
    # A class of its own per game, as OpenSpiel's Python games register theirs: the registry
    # outlives the interpreter, and a class (unlike a closure) is never freed at exit.
    game_class = type(
        f"{declaration.name.title()}SpielGame",
        (PlatformSpielGame,),
        {"declaration": declaration, "game_type": game_type},
    )
    pyspiel.register_game(game_type, game_class)
    spiel_strings.install()
    spiel_strings.GUARDED.add(name)
    return name


def _parameters(game: Game) -> dict[str, Any]:
    options = {o.name: o.default for o in game.options if isinstance(o.default, _SCALARS)}
    return {"players": game.min_players, "deals": DEFAULT_DEALS, **options}


def _game_type(game: Game) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=spiel_name(game),
        long_name=game.title,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=game.max_players,
        min_num_players=game.min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=_parameters(game),
    )


class PlatformSpielGame(pyspiel.Game):
    """A declared game with its seats and options checked by the declaration (`register`
    makes one subclass per game, naming its `declaration` and `game_type`)."""

    declaration: Game
    game_type: pyspiel.GameType

    def __init__(self, params: Any = None) -> None:
        declaration = self.declaration
        params = {**_parameters(declaration), **(params or {})}
        try:
            players = declaration.check_players(params.pop("players"))
            deals = params.pop("deals")
            if not 1 <= deals <= MAX_DEALS:
                raise GameError(f"deals must be 1..{MAX_DEALS}, got {deals}")
            options = declaration.checked_options(params)
        except GameError as exc:
            raise PlatformSpielError(str(exc)) from None
        info = pyspiel.GameInfo(
            num_distinct_actions=declaration.action_size(players, options),
            max_chance_outcomes=deals,
            num_players=players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=declaration.length_bound(players, options),
        )
        super().__init__(self.game_type, info, {"players": players, "deals": deals, **options})
        self.players, self.deals, self.options = players, deals, options
        self.observation_size = declaration.observation_size(players, options)

    def new_initial_state(self) -> PlatformSpielState:
        return PlatformSpielState(self)

    def deal(self, deal: int) -> State:
        if not 0 <= deal < self.deals:
            raise PlatformSpielError(f"deal must be 0..{self.deals - 1}, got {deal}")
        return self.declaration.new_state(self.players, deal_seed(deal), self.options)

    def deserialize_state(self, text: str) -> PlatformSpielState:
        """The state `PlatformSpielState.serialize` wrote, its history replayed and checked."""
        history = _decode(self, text).history
        return spiel_strings.replay_history(self, history, lambda m: _refuse(self, m))

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> PlatformObserver:
        """The seat's own view; perfect recall asks for its views since the deal."""
        if params:
            raise PlatformSpielError(f"observer parameters are not supported, got {params!r}")
        if iig_obs_type is not None and (
            not iig_obs_type.public_info
            or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
        ):
            raise PlatformSpielError("a platform game offers only a seat's own view")
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return PlatformObserver(self, perfect_recall)


def _refuse(game: PlatformSpielGame, message: str) -> StateStringError:
    text = f"{spiel_name(game.declaration)} state: {message}"
    return StateStringError(text if len(text) <= 300 else text[:297] + "...")


def _decode(game: PlatformSpielGame, text: Any) -> SavedState:
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if not isinstance(text, str) or len(text) > MAX_STATE_CHARS:
        raise _refuse(game, f"expected text of at most {MAX_STATE_CHARS:,} characters")
    if text.startswith(PICKLED_PREFIX):
        raise _refuse(game, "OpenSpiel's pickled Python-state format is refused, never unpickled")
    try:
        saved = msgspec.json.decode(text, type=SavedState)
    except (msgspec.DecodeError, msgspec.ValidationError) as exc:
        raise _refuse(game, f"not this game's JSON state ({exc})") from None
    if (saved.format, saved.version) != (STATE_FORMAT, STATE_VERSION):
        raise _refuse(game, f"format {saved.format!r} version {saved.version!r}")
    return saved


class Inner:
    """Holds a position's platform state: OpenSpiel deep-copies a Python state's attributes
    (clone) and may pickle them; the state's own clone and checked JSON do both."""

    __slots__ = ("name", "options", "state")

    def __init__(self, name: str, options: Mapping[str, Any], state: State) -> None:
        self.name, self.options, self.state = name, options, state

    def __deepcopy__(self, memo: dict) -> Inner:
        return Inner(self.name, self.options, self.state.clone())

    def __reduce__(self) -> tuple:
        return (_inner_from_json, (self.name, dict(self.options), self.state.to_json()))


def _inner_from_json(name: str, options: dict[str, Any], text: str) -> Inner:
    declaration = get_game(name)
    return Inner(name, options, declaration.load_state(text, declaration.checked_options(options)))


class PlatformSpielState(pyspiel.State):
    """A position: the deal's chance node, then the game's own state (`inner.state`)."""

    def __init__(self, game: PlatformSpielGame) -> None:
        super().__init__(game)
        self.inner: Inner | None = None
        #: Each seat's views since the deal (its information state), as text.
        self.views: list[list[str]] = [[] for _ in range(game.players)]
        #: True once hidden facts were redrawn: the history no longer replays to the state.
        self.resampled = False

    @property
    def state(self) -> State:
        if self.inner is None:
            raise PlatformSpielError("the game is not dealt yet: apply the chance outcome first")
        return self.inner.state

    def current_player(self) -> int:
        if self.inner is None:
            return pyspiel.PlayerId.CHANCE
        state = self.inner.state
        return pyspiel.PlayerId.TERMINAL if state.is_over else int(state.current_player)

    def _legal_actions(self, player: int) -> list[int]:
        return list(self.state.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        deals = self.get_game().deals
        return [(k, 1.0 / deals) for k in range(deals)]

    def _apply_action(self, action: int) -> None:
        game = self.get_game()
        if self.inner is None:
            dealt = game.deal(int(action))
            self.inner = Inner(game.declaration.name, game.options, dealt)
        else:
            try:
                self.inner.state.apply_action(int(action))
            except IllegalMove as exc:
                raise PlatformSpielError(str(exc)) from None
        state = self.inner.state
        for seat, seen in enumerate(self.views):
            seen.append(repr(state.view(seat)))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE or self.inner is None:
            return f"deal {action}"
        try:
            return self.inner.state.describe_action(int(action))
        except (GameError, ValueError, IndexError):
            return f"action {action}"

    def is_terminal(self) -> bool:
        return self.inner is not None and self.inner.state.is_over

    def returns(self) -> list[float]:
        players = self.get_game().players
        if not self.is_terminal():
            return [0.0] * players
        winners = set(self.state.winners())
        if len(winners) == players:
            return [0.0] * players
        return [1.0 if seat in winners else -1.0 for seat in range(players)]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> Any:
        """A state `player_id` cannot tell from this one: hidden facts redrawn by the game's
        `determinized`, seeded by the sampler's uniform draw; its history stays this one's."""
        copy = self.clone()
        if self.inner is not None:
            rng = np.random.default_rng(int(probability_sampler() * 2**53))
            copy.inner = Inner(
                self.inner.name, self.inner.options, self.inner.state.determinized(player_id, rng)
            )
            copy.resampled = True
        return copy

    def serialize(self) -> str:
        """One line of JSON: the history (never a pickle; `deserialize_state` replays it)."""
        if self.resampled:
            raise PlatformSpielError(
                "a resampled state cannot be serialized: its history is not its game's"
            )
        history = [[item.player, item.action] for item in self.full_history()]
        saved = {"format": STATE_FORMAT, "version": STATE_VERSION, "history": history}
        return json.dumps(saved, separators=(",", ":"))

    def __str__(self) -> str:
        """The whole state (hidden facts included) as the game saves it."""
        return "chance: the deal" if self.inner is None else self.inner.state.to_json()


class PlatformObserver:
    """A seat's view: the state's observation vector, and its board as the seat sees it (or,
    with perfect recall, its views since the deal)."""

    def __init__(self, game: PlatformSpielGame, perfect_recall: bool) -> None:
        self.tensor = np.zeros(game.observation_size, np.float32)
        self.dict = {"observation": self.tensor}
        self._perfect_recall = perfect_recall

    def set_from(self, state: PlatformSpielState, player: int) -> None:
        if state.inner is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = state.inner.state.observation(player)

    def string_from(self, state: PlatformSpielState, player: int) -> str:
        if state.inner is None:
            return "chance: the deal"
        if self._perfect_recall:
            return "\n".join(state.views[player])
        return state.inner.state.render_text(player)
