"""Live browser games of any game the platform knows besides Farlight (#50), written against
the `Game` declaration and its `State` only (`farlight_env.platform`).

A `PlatformTable` keeps Farlight's `Table` rules (`farlight.sessions`): seats with tokens
and invite codes (`SeatedTable`), one decision per `version`, bots moving within the thinking
budget, a failing bot replaced for that move (by a random legal move), the record saved
after every change and the table rebuilt from it (`resume_platform`) with no bot asked again.

What a seat is sent comes from the state's own redacted surfaces: `render_text(seat)` (None: a
spectator), `view(seat)` when it is plain data, and its legal actions named by
`describe_action` on its turn. The protocol declares no action public, so a move is named
only to its mover; everyone else reads "P1 moved" and the board text after it. Scores,
winners and the seed come once the game is over.

The record is the platform's generic one (`farlight_env.platform.records`, "platform-record":
game, players, options, seed, action indices, outcome) plus what a browser game adds
(`seat_keys`, `human_seat`, `finished`, `bot_errors`, `env_seed`); a finished one passes
`records.verify_record`, so `farlight replay` and the web's replays read it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import msgspec
import numpy as np

from farlight_env.platform import Game, GameError, SeatView, State
from farlight_env.platform.agents import reseed
from farlight_env.platform.records import (
    PLATFORM_RECORD,
    PLATFORM_RECORD_VERSION,
    PlatformRecord,
    RecordError,
    game_of_record,
    save_record,
)
from farlight_web.bots import opponent_seed, parse_bot_errors
from farlight_web.limits import MAX_MOVES_SHOWN
from farlight_web.seats import HUMAN, SeatedTable, parse_seat_keys

log = logging.getLogger("farlight_web")

#: The agents that play any declared game (through its State protocol), the default first;
#: the others are Farlight's.
PLATFORM_AGENTS = ("random", "ismcts")
#: Seed offset of the random move that stands in for a failing bot's.
STAND_IN_SEAT_OFFSET = 100


class Move(NamedTuple):
    """One move kept for clients to catch up on: its labels and the state after it."""

    version: int
    seat: int
    own: str  # its name for the mover (`describe_action`)
    after: State


def plain_view(state: State, seat: int | None) -> Any:
    """`seat`'s view as JSON-able data, or None (a spectator, or a view that is not data)."""
    if seat is None:
        return None
    try:
        return msgspec.to_builtins(state.view(seat))
    except TypeError:
        return None


def move_label(seat: int, own: str, viewer: int | None) -> str:
    """A move as `viewer` reads it: named to its mover only (see the module)."""
    return f"P{seat}: {own}" if viewer == seat else f"P{seat} moved"


class PlatformTable(SeatedTable):
    """One game of `declaration` in the browser: the state, the bots, the seats, the moves."""

    def __init__(
        self,
        declaration: Game,
        game_id: str,
        lineup: list[str],
        seed: int,
        options: dict[str, Any],
        folder: Path,
        keys: list[dict[str, str] | None],
        think_seconds: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        from agents import make

        self.declaration = declaration
        self.id = game_id
        self.lineup = lineup
        self.humans = [s for s, name in enumerate(lineup) if name == HUMAN]
        self.keys = keys
        self.seed = seed
        self.options = declaration.checked_options(options)
        self.path = folder / f"{game_id}.json"
        self.lock = threading.Lock()
        self.think_seconds = think_seconds
        self.clock = clock
        self.game: State = declaration.start(len(lineup), seed, self.options)
        self.bots = {
            s: make(name, seed=opponent_seed(seed, s))
            for s, name in enumerate(lineup)
            if name != HUMAN
        }
        for bot in self.bots.values():
            bot.reset()
        self.bot_errors: list[dict[str, Any]] = []
        self.moves: deque[Move] = deque(maxlen=MAX_MOVES_SHOWN)

    @property
    def version(self) -> int:
        return len(self.game.history)

    @property
    def bots_to_move(self) -> bool:
        return not self.game.is_over and self.game.current_player not in self.humans

    # ------------------------------------------------------------------ playing
    def _bot_index(self, seat: int) -> int:
        """The bot's choice; a random legal action, drawn from (seed, seat, decision), when it
        raises or picks an illegal one (reported once per seat, the details only logged: they
        may name hidden facts)."""
        state = self.game
        mask = state.legal_mask()
        observation = state.observation(seat)
        view = SeatView.of(state, seat)  # what a search may plan on: nothing hidden
        info = {"seat": seat, "to_act": seat, "moves": self.version, "view": view}
        try:
            bot = self.bots[seat]
            reseed(bot, self.seed, seat, self.version)
            index = int(bot.act(observation, mask, info))
            if 0 <= index < len(mask) and mask[index]:
                return index
            problem, detail = "returned an illegal action", f"index {index}"
        except Exception as exc:  # noqa: BLE001 - any bot failure: the random agent stands in
            problem, detail = f"raised {type(exc).__name__}", str(exc)
        log.warning(
            "game %s: seat %d (%s) %s: %s", self.id, seat, self.lineup[seat], problem, detail
        )
        if not any(e["seat"] == seat for e in self.bot_errors):
            self.bot_errors.append(
                {
                    "seat": seat,
                    "agent": self.lineup[seat],
                    "error": f"{problem}; a random legal move was played when it failed",
                    "version": self.version,
                }
            )
        rng = np.random.default_rng([self.seed, seat + STAND_IN_SEAT_OFFSET, self.version])
        legal = state.legal_actions()
        return int(legal[rng.integers(len(legal))])

    def _step(self, index: int, record_move: bool) -> None:
        state = self.game
        seat = state.current_player
        assert seat is not None
        own = state.describe_action(index) if record_move else ""
        state.apply_action(index)
        if record_move:
            self.moves.append(Move(self.version, seat, own, state.clone()))

    def legal_indices(self, seat: int | None) -> list[int]:
        state = self.game
        if seat is None or state.is_over or state.current_player != seat:
            return []
        return [int(i) for i in state.legal_actions()]

    # ------------------------------------------------------------------ what is sent
    def state(
        self, seat: int | None, since: int | None = None, views: bool = True
    ) -> dict[str, Any]:
        """What `seat` (None: a spectator) may see now, and with `since` the moves after that
        version as it saw them (with the board text after each unless `views` is False)."""
        state, over = self.game, self.game.is_over
        out: dict[str, Any] = {
            "id": self.id,
            "game": self.declaration.name,
            "title": self.declaration.title,
            "seat": seat,
            "humans": self.humans,
            "players": self.lineup,
            "version": self.version,
            "turn": state.current_player,
            "your_turn": seat is not None and state.current_player == seat,
            "thinking": self.bots_to_move,
            "over": over,
            "text": state.render_text(seat),
            "view": plain_view(state, seat),
            "actions": [
                {"index": i, "label": state.describe_action(i), "kind": "action"}
                for i in self.legal_indices(seat)
            ],
            "scores": state.scores() if over else None,
            "winners": state.winners() if over else None,
            "bot_errors": [{k: e[k] for k in ("seat", "agent", "error")} for e in self.bot_errors],
            "record": f"games/{self.path.name}",
            "config": {"num_players": len(self.lineup), **self.options},
        }
        if over:
            out["seed"] = str(self.seed)
        if since is not None:
            out["moves"] = [
                self._shown(move, seat, views) for move in self.moves if move.version > since
            ]
        return out

    def _shown(self, move: Move, seat: int | None, views: bool) -> dict[str, Any]:
        shown: dict[str, Any] = {
            "seat": move.seat,
            "version": move.version,
            "label": move_label(move.seat, move.own, seat),
            "events": [],
        }
        if views:
            shown.update(text=move.after.render_text(seat), view=plain_view(move.after, seat))
        return shown

    def record(self) -> dict[str, Any]:
        state = self.game
        failures = {"bot_errors": self.bot_errors} if self.bot_errors else {}
        return {
            "format": PLATFORM_RECORD,
            "version": PLATFORM_RECORD_VERSION,
            "game": self.declaration.name,
            "game_version": self.declaration.version,
            "num_players": len(self.lineup),
            "players": self.lineup,
            "config": self.options,
            "env_seed": self.seed,
            "game_seed": self.seed,
            "actions": [int(a) for a in state.history],
            "scores": state.scores(),
            "winners": state.winners(),
            "human_seat": self.humans[0],
            "seat_keys": self.keys,
            "finished": state.is_over,
            **failures,
        }

    def save(self) -> None:
        save_record(self.record(), self.path)


def checked_record(record: dict[str, Any], source: str) -> tuple[Game, PlatformRecord]:
    """A platform record's game and checked fields; RecordError saying why it is not one."""
    try:
        game = game_of_record(record)
        checked = msgspec.convert(record, PlatformRecord)
    except (GameError, msgspec.ValidationError) as exc:
        raise RecordError(f"{source}: not a {PLATFORM_RECORD}: {exc}") from None
    if checked.version != PLATFORM_RECORD_VERSION or checked.game_version != game.version:
        raise RecordError(
            f"{source}: a record of {game.name} version {checked.game_version}; this server "
            f"plays version {game.version}"
        )
    if len(checked.players) != checked.num_players:
        raise RecordError(f"{source}: {len(checked.players)} players for {checked.num_players}")
    return game, checked


def resume_platform(
    game_id: str,
    path: Path,
    record: dict[str, Any],
    think_seconds: float,
    clock: Callable[[], float],
) -> PlatformTable:
    """Rebuild a table from its record: the same seed, its actions replayed (no bot is asked:
    each decision's randomness is reseeded). RecordError when it does not replay."""
    game, checked = checked_record(record, str(path))
    keys = parse_seat_keys(record, path)
    for name in checked.players:
        if name != HUMAN and name not in PLATFORM_AGENTS:
            raise RecordError(f"{path}: {name} cannot play {game.name} on this server")
    table = PlatformTable(
        game,
        game_id,
        checked.players,
        checked.game_seed,
        dict(checked.config),
        path.parent,
        keys,
        think_seconds,
        clock,
    )
    table.bot_errors = parse_bot_errors(record, checked.players, path)
    kept_from = len(checked.actions) - MAX_MOVES_SHOWN
    for i, action in enumerate(checked.actions):
        if table.game.is_over:
            raise RecordError(f"{path}: action {i} after the end of the game")
        if action not in table.game.legal_actions():
            raise RecordError(f"{path}: action {i} ({action}) is not legal: record does not replay")
        table._step(action, record_move=i >= kept_from)
    return table
