"""Farlight declared to the platform (#50): its `Game` (name, seats, options from GameConfig's
one declaration) and `FarlightState`, the engine seen through the platform's `State`: action
indices of the env's codec, the env's observation encoder, the engine's redaction."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import numpy as np

from farlight_env.cards.io import card_set_from_dict, card_set_to_dict, standard_card_set
from farlight_env.cards.model import CardSet
from farlight_env.cards.schema import CardFileError
from farlight_env.encode.codec import ActionCodec
from farlight_env.encode.observation import ObservationEncoder
from farlight_env.env.autopilot import DECISION_KINDS
from farlight_env.env.render_text import render_ansi
from farlight_env.game import FarlightGame
from farlight_env.game.config import (
    OFFERED_OPTIONS,
    OPTION_DEFAULTS,
    OPTION_SPECS,
    ConfigError,
    GameConfig,
    IllegalActionError,
)
from farlight_env.game.facts import MAX_PLAYERS, MIN_PLAYERS
from farlight_env.game.hidden import PlayerView, determinize
from farlight_env.game.tables import resolve_card_set
from farlight_env.platform.protocol import Benchmark, Game, GameError, IllegalMove, Option


@cache
def _tools(cards: CardSet, grid_size: int) -> tuple[ActionCodec, ObservationEncoder]:
    """The codec and encoder of a card set and grid (built once each: both hold tables)."""
    return ActionCodec(cards, grid_size), ObservationEncoder(cards, grid_size)


class FarlightState:
    """A `FarlightGame` as the platform's `State`. Forced decisions (a single legal option)
    are taken by the engine and are not in `history`, as in records."""

    def __init__(self, game: FarlightGame) -> None:
        self.game = game
        self.codec, self.encoder = _tools(game.cards, game.config.grid_size)

    @property
    def num_players(self) -> int:
        return self.game.num_players

    @property
    def current_player(self) -> int | None:
        return None if self.game.is_over else self.game.current_player

    @property
    def is_over(self) -> bool:
        return self.game.is_over

    @property
    def history(self) -> list[int]:
        return [self.codec.encode(action) for action in self.game.history]

    def legal_actions(self) -> list[int]:
        return [int(i) for i in np.flatnonzero(self.legal_mask())]

    def legal_mask(self) -> np.ndarray:
        if self.game.is_over:
            return np.zeros(self.codec.size, dtype=np.int8)
        return self.codec.mask(self.game)

    def apply_action(self, action: int) -> None:
        if self.game.is_over or not 0 <= action < self.codec.size:
            raise IllegalMove(f"no action {action!r} is legal in Farlight now")
        if not self.legal_mask()[action]:
            raise IllegalMove(f"action {action} is not legal now")
        try:
            self.game.apply(self.codec.decode(action, self.game))
        except IllegalActionError as exc:  # the mask said legal: the engine has the last word
            raise IllegalMove(str(exc)) from exc

    def clone(self) -> FarlightState:
        return FarlightState(self.game.clone())

    def to_json(self) -> str:
        return self.game.to_json()

    def scores(self) -> list[float]:
        return [float(s) for s in self.game.scores()]

    def winners(self) -> list[int]:
        return list(self.game.winners()) if self.game.is_over else []

    def observation(self, seat: int) -> np.ndarray:
        return self.encoder.encode(self.game, seat)

    def view(self, seat: int) -> PlayerView:
        return PlayerView(self.game, seat)

    def determinized(self, seat: int, rng: np.random.Generator) -> FarlightState:
        return FarlightState(determinize(self.game, seat, rng))

    def describe_action(self, action: int) -> str:
        return self.codec.describe(action, self.game)

    def render_text(self, seat: int | None = None) -> str:
        return render_ansi(self.game, seat)


def _card_set(value: Any) -> CardSet | None:
    """The card_set option: None (the standard set), a CardSet, a card file's path, or a card
    set's table as files store it (`_stored_card_set`), checked as a card file is."""
    if value is None or isinstance(value, CardSet):
        return value
    try:
        if isinstance(value, Mapping):
            return card_set_from_dict(value, source="the stored card set")
        return resolve_card_set(value)
    except (CardFileError, OSError, TypeError) as exc:
        raise GameError(f"card_set: {exc}") from None


def _stored_card_set(value: Any) -> Any:
    """A card set as plain data (its table), as journals keep it; a path or None as given."""
    return card_set_to_dict(value) if isinstance(value, CardSet) else value


def _checker(name: str) -> Any:
    def check(value: Any) -> Any:
        try:
            return OPTION_SPECS[name].plain(GameConfig.check_option(name, value))
        except ConfigError as exc:
            raise GameError(str(exc)) from None

    return check


def _config(num_players: int, options: Mapping[str, Any]) -> tuple[GameConfig, Any]:
    rules = {k: v for k, v in options.items() if k != "card_set"}
    try:
        return GameConfig.from_options(num_players=num_players, **rules), options.get("card_set")
    except ConfigError as exc:
        raise GameError(str(exc)) from None


def _new_state(num_players: int, seed: int | None, options: Mapping[str, Any]) -> FarlightState:
    config, cards = _config(num_players, options)
    return FarlightState(FarlightGame(seed=seed, card_set=cards, config=config))


def _load_state(text: str, options: Mapping[str, Any]) -> FarlightState:
    try:
        return FarlightState(FarlightGame.from_json(text, cards=_card_set(options.get("card_set"))))
    except ValueError as exc:  # ConfigError, a malformed or altered saved game
        raise GameError(f"not a saved Farlight game: {str(exc).splitlines()[0]}") from None


def _sizes(options: Mapping[str, Any]) -> tuple[ActionCodec, ObservationEncoder]:
    cards = _card_set(options.get("card_set")) or standard_card_set()
    return _tools(cards, int(options.get("grid_size", OPTION_DEFAULTS["grid_size"])))


def _make_env(**config: Any) -> Any:
    """The env tournaments and evaluations play Farlight through: farlight_v0's (full infos,
    an illegal action raises), whose records are the golden files'."""
    from farlight_env.env.aec import raw_env

    return raw_env(**config)


def _build_record(
    env: Any, players: list[str], env_seed: int, config: dict[str, Any], **extra: Any
) -> dict[str, Any]:
    from farlight_env.records.record import build_record

    return build_record(env.game, players, env_seed, config, **extra)


def _verify_record(record: Mapping[str, Any]) -> FarlightGame:
    from farlight_env.records.record import verify_record

    return verify_record(record)


def _sealed_content(env: Any) -> dict[str, Any]:
    return card_set_to_dict(env.game.cards)


#: farlight-eval-v1 (docs/evaluation.md): the policy against random, the heuristic and ismcts at
#: 20 iterations per decision (machine-independent), at 2..5 players, on published seeds.
BENCHMARK = Benchmark(
    protocol="farlight-eval-v1",
    opponents=("random", "heuristic", "ismcts"),
    player_counts=(2, 3, 4, 5),
    games={"random": 40, "heuristic": 60, "ismcts": 20},
    quick_player_counts=(2, 3),
    base_seed=13_000,
    opponent_kwargs={"ismcts": {"iterations": 20}},
)

#: Farlight's declaration: the offered GameConfig options, each as GameConfig declares it,
#: and the card set (the game's content) as one more option.
FARLIGHT = Game(
    name="farlight",
    version=1,
    title="Farlight",
    min_players=MIN_PLAYERS,
    max_players=MAX_PLAYERS,
    options=(
        *(
            Option(
                name,
                OPTION_SPECS[name].plain(OPTION_DEFAULTS[name]),
                OPTION_SPECS[name].help,
                _checker(name),
            )
            for name in OFFERED_OPTIONS
        ),
        Option(
            "card_set",
            None,
            "card file (TOML/JSON); None: the standard set",
            _card_set,
            _stored_card_set,
        ),
    ),
    new_state=_new_state,
    load_state=_load_state,
    action_size=lambda _players, options: _sizes(options)[0].size,
    observation_size=lambda _players, options: _sizes(options)[1].size,
    decision_kinds=DECISION_KINDS,
    make_env=_make_env,
    build_record=_build_record,
    verify_record=_verify_record,
    record_format="farlight-record",
    sealed_content=_sealed_content,
    benchmark=BENCHMARK,
)
