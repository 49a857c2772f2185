"""Farlight as an OpenSpiel game: `import farlight_env.openspiel` registers "python_farlight".

A Python game (OpenSpiel's `pyspiel.Game`) around the rules engine, so OpenSpiel's algorithms,
bots and `evaluate_bots` play it (docs/interop/openspiel.md). Actions are the env's codec
indices, tensors the env's observation encoder, returns `final_rewards`.

Chance is explicit: one chance node at the start has `deals` equally likely outcomes, and
outcome k deals the game `farlight_v0.env().reset(seed=k)` deals. The engine's generator,
seeded by the deal and part of the state, rolls every later die, so the game is deterministic
given the deal (which fixes the deck order, awards, missions and dice; no seat observes it).

States serialize as the engine's checked JSON plus the history that replays to it, never as
OpenSpiel's default pickle (farlight_env/openspiel_state_text.py). Every error the game raises
is a `pyspiel.SpielError` and also the engine's own type (`IllegalActionError`, `ConfigError`,
`ValueError`), so OpenSpiel code and Farlight code each catch it as they expect.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - CI installs the interop extra
    raise ImportError(
        "farlight_env.openspiel needs OpenSpiel (pyspiel): pip install -e .[interop]"
    ) from exc

from farlight_env.cards.model import CardSet
from farlight_env.encode.codec import ActionCodec
from farlight_env.encode.observation import ObservationEncoder
from farlight_env.env.render_text import render_ansi
from farlight_env.game.config import OPTION_DEFAULTS, ConfigError, GameConfig, IllegalActionError
from farlight_env.game.facts import MAX_PLAYERS, MIN_PLAYERS, TILES
from farlight_env.game.game import FarlightGame
from farlight_env.game.hidden import determinize, redact
from farlight_env.game.rules_options import RULES
from farlight_env.game.scoring import final_rewards
from farlight_env.game.serialize import game_to_json
from farlight_env.game.tables import resolve_card_set
from farlight_env.openspiel_state_text import (
    GAME_NAME,
    StateStringError,
    state_from_text,
    state_to_text,
)
from farlight_env.platform.spiel_strings import install

__all__ = [
    "GAME_NAME",
    "FarlightOpenSpielGame",
    "FarlightSpielError",
    "FarlightState",
    "SpielConfigError",
    "SpielIllegalActionError",
    "StateStringError",
]

#: Reward modes with the [-1, 1] bounds OpenSpiel needs ("margin" has none, so is not offered).
REWARD_MODES = ("win", "rank")
#: The game's parameters and defaults ("players" is OpenSpiel's name for num_players; deals:
#: the chance node's outcome count; rules: "name:value;name:value", since "=" and "," would
#: break OpenSpiel's game strings).
PARAMETERS: dict[str, Any] = {
    "players": 2,
    "deals": 2**16,
    "grid_size": OPTION_DEFAULTS["grid_size"],
    "max_rounds": OPTION_DEFAULTS["max_rounds"],
    "random_first_player": OPTION_DEFAULTS["random_first_player"],
    "rules": "",
    "reward_mode": "win",
    "card_set": "",
}
#: The most deals a game may offer (the chance node's outcome list is built in full).
MAX_DEALS = 2**20

GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Farlight",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)


class FarlightSpielError(pyspiel.SpielError, ValueError):
    """An error of the OpenSpiel game: OpenSpiel code catches it as `pyspiel.SpielError`
    (RLlib's OpenSpielEnv does, to replace an illegal move), Farlight code as a ValueError."""


class SpielIllegalActionError(FarlightSpielError, IllegalActionError):
    """An action (or chance outcome) that is not legal now; the state is left unchanged."""


class SpielConfigError(FarlightSpielError, ConfigError):
    """Game parameters that cannot be played."""


def game_config(params: dict[str, Any]) -> GameConfig:
    """The engine's GameConfig for OpenSpiel parameters; ConfigError names a bad one."""
    rules = {}
    for text in filter(None, (part.strip() for part in params["rules"].split(";"))):
        if ":" not in text:
            raise ConfigError(f"rules takes name:value pairs separated by ';', got {text!r}")
        try:
            name, value = RULES.parse_assignment(text, sep=":")
        except ValueError as exc:
            raise ConfigError(str(exc)) from exc
        rules[name] = value
    return GameConfig.from_options(
        num_players=params["players"],
        grid_size=params["grid_size"],
        max_rounds=params["max_rounds"],
        random_first_player=params["random_first_player"],
        rule_options=rules,
    )


def checked_parameters(params: dict[str, Any]) -> tuple[GameConfig, CardSet]:
    """The engine config and card set of OpenSpiel parameters; ConfigError names a bad one."""
    config = game_config(params)
    if params["reward_mode"] not in REWARD_MODES:
        raise ConfigError(
            f"reward_mode must be one of {REWARD_MODES}, got {params['reward_mode']!r}"
        )
    if not 1 <= params["deals"] <= MAX_DEALS:
        raise ConfigError(f"deals must be 1..{MAX_DEALS}, got {params['deals']}")
    return config, resolve_card_set(params["card_set"] or None)


def deal_seed(deal: int) -> int:
    """The engine seed of deal k: the one `farlight_v0.env().reset(seed=k)` draws (env/aec.py)."""
    return int(np.random.default_rng(deal).integers(2**63 - 1))


class FarlightOpenSpielGame(pyspiel.Game):
    """The game: its config, codec and encoder, and the deal chance node's outcomes."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**PARAMETERS, **(params or {})}
        try:
            config, cards = checked_parameters(params)
        except ConfigError as exc:
            raise SpielConfigError(str(exc)) from None
        deals = params["deals"]
        codec = ActionCodec(cards, config.grid_size)
        n = config.num_players
        info = pyspiel.GameInfo(
            num_distinct_actions=codec.size,
            max_chance_outcomes=deals,
            num_players=n,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            # generous: random games of the standard set stay under 50 decisions a round
            max_game_length=config.max_rounds * (2 * len(TILES) * n + 8 * len(cards.parts)),
        )
        super().__init__(GAME_TYPE, info, params)
        self.config, self.cards, self.codec = config, cards, codec
        self.encoder = ObservationEncoder(cards, config.grid_size)
        self.reward_mode = params["reward_mode"]
        self.deals = deals
        self._deal_outcomes: tuple[tuple[int, float], ...] | None = None

    def new_initial_state(self) -> FarlightState:
        """The chance node before the deal (cheap: OpenSpiel makes one for every clone)."""
        return FarlightState(self)

    def deserialize_state(self, text: str) -> FarlightState:
        """The state `FarlightState.serialize` wrote, replayed and checked; never unpickled.
        A malformed, foreign or non-replaying string is a StateStringError."""
        return state_from_text(self, text)

    @property
    def deal_outcomes(self) -> tuple[tuple[int, float], ...]:
        """The chance node's (deal, probability) pairs, built on first use and kept: OpenSpiel
        asks for them at every visit of the chance node (and loads games often)."""
        if self._deal_outcomes is None:
            self._deal_outcomes = tuple((k, 1.0 / self.deals) for k in range(self.deals))
        return self._deal_outcomes

    def deal(self, deal: int) -> FarlightGame:
        """Deal k's engine game: the game `farlight_v0.env().reset(seed=k)` deals."""
        if not 0 <= deal < self.deals:
            raise SpielIllegalActionError(f"deal must be 0..{self.deals - 1}, got {deal}")
        return FarlightGame(seed=deal_seed(deal), card_set=self.cards, config=self.config)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: Any = None
    ) -> FarlightObserver:
        """The seat's own view; perfect recall asks for the exact (redacted-game) string."""
        if params:
            raise FarlightSpielError(f"observer parameters are not supported, got {params!r}")
        if iig_obs_type is None:
            return FarlightObserver(self, exact=False)
        if (
            not iig_obs_type.public_info
            or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
        ):
            raise FarlightSpielError(
                "Farlight offers only a seat's own view (public + its private info)"
            )
        return FarlightObserver(self, exact=iig_obs_type.perfect_recall)


class Engine:
    """Holds a state's engine game: OpenSpiel deep-copies a Python state's attributes (clone)
    and, from C++ or `pickle.dumps(state)`, pickles them; the engine's clone and JSON do both
    exactly and fast. (No string a user hands `deserialize_state` is unpickled: see
    `FarlightState.serialize`.)"""

    __slots__ = ("game",)

    def __init__(self, game: FarlightGame) -> None:
        self.game = game

    def __deepcopy__(self, memo: dict) -> Engine:
        return Engine(self.game.clone())  # the generator too: copies stay deterministic

    def __reduce__(self) -> tuple:
        return (engine_from_json, (self.game.to_json(),))


def engine_from_json(text: str) -> Engine:
    """Rebuild a pickled `Engine` (a saved game, card set included, checked as any)."""
    return Engine(FarlightGame.from_json(text))


class FarlightState(pyspiel.State):
    """A position: the deal's chance node, then the engine game (`engine.game`)."""

    def __init__(self, game: FarlightOpenSpielGame) -> None:
        super().__init__(game)
        self.engine: Engine | None = None
        #: True once hidden facts were redrawn: the history no longer replays to the game.
        self.resampled = False

    @property
    def farlight(self) -> FarlightGame:
        """The engine game (after the deal); read it, never write it."""
        if self.engine is None:
            raise FarlightSpielError("the game is not dealt yet: apply the chance outcome first")
        return self.engine.game

    def current_player(self) -> int:
        if self.engine is None:
            return pyspiel.PlayerId.CHANCE
        game = self.engine.game
        return pyspiel.PlayerId.TERMINAL if game.is_over else game.current_player

    def _legal_actions(self, player: int) -> list[int]:
        game = self.farlight
        return np.flatnonzero(self.get_game().codec.mask(game)).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The deals, equally likely (a fresh list of the game's cached pairs)."""
        return list(self.get_game().deal_outcomes)

    def _apply_action(self, action: int) -> None:
        if self.engine is None:
            self.engine = Engine(self.get_game().deal(int(action)))
            return
        game = self.engine.game
        try:
            game.apply(self.get_game().codec.decode(int(action), game))
        except ValueError as exc:  # IllegalActionError, or an index the codec has not
            raise SpielIllegalActionError(str(exc)) from None

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE or self.engine is None:
            return f"deal {action}"
        try:
            return self.get_game().codec.describe(int(action), self.engine.game)
        except ValueError:
            return f"action {action}"

    def is_terminal(self) -> bool:
        return self.engine is not None and self.engine.game.is_over

    def returns(self) -> list[float]:
        game = self.engine.game if self.engine is not None else None
        if game is None or not game.is_over:
            return [0.0] * self.get_game().num_players()
        return final_rewards(game, self.get_game().reward_mode)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> FarlightState:
        """A state `player_id` cannot tell from this one: hidden facts redrawn (`determinize`),
        seeded by the sampler's uniform draw. Its history() stays this state's (see docs)."""
        state = self.clone()
        if self.engine is not None:
            rng = np.random.default_rng(int(probability_sampler() * 2**53))
            state.engine = Engine(determinize(self.engine.game, player_id, rng))
            state.resampled = True
        return state

    def serialize(self) -> str:
        """One line of JSON: the history and the engine game it replays to (never a pickle;
        `game.deserialize_state` reads it back). A resampled state has no history of its own
        and is refused."""
        if self.resampled:
            raise FarlightSpielError(
                "a resampled state cannot be serialized: its history is not its game's"
            )
        return state_to_text(self)

    def __str__(self) -> str:
        """The whole state as the engine saves it (card set left out), hidden facts included."""
        if self.engine is None:
            return "chance: the deal"
        return game_to_json(self.engine.game, with_cards=False)


class FarlightObserver:
    """A seat's view: the env's observation vector (named fields in `dict`) and a string,
    the seat's redacted game as JSON when `exact`, else the text board (render_ansi)."""

    def __init__(self, game: FarlightOpenSpielGame, exact: bool) -> None:
        self._game = game
        self._exact = exact
        self.tensor = np.zeros(game.encoder.size, np.float32)
        self.dict = {
            name: self.tensor[where].reshape(shape)
            for name, (where, shape) in game.encoder.layout().items()
        }

    def set_from(self, state: FarlightState, player: int) -> None:
        if state.engine is None:
            self.tensor.fill(0.0)
        else:
            self.tensor[:] = self._game.encoder.encode(state.engine.game, player)

    def string_from(self, state: FarlightState, player: int) -> str:
        if state.engine is None:
            return "chance: the deal"
        game = state.engine.game
        if self._exact:
            return game_to_json(redact(game, player), with_cards=False)
        return render_ansi(game, player)


pyspiel.register_game(GAME_TYPE, FarlightOpenSpielGame)
install()
