"""Live games in the browser: one human seat, bots everywhere else, saved as game records.

A `Table` runs one game through the AEC env with bots from `agents.make` (seeded from the game
seed and their seat, as `farlight play` seeds them). After each human decision it lets the
bots move until the human decides again or the game ends, remembering each bot move (label
and the human's view after it) so the page can show them one by one. Every table is saved
as a record (`farlight_env.record`) in `<data>/games/<id>.json` after each human decision; a
server restarted later, or a game evicted from memory (`Tables`), rebuilds the table by
replaying that record, asking each bot again at its recorded decisions so its random state
is the same as if the game had never stopped.
Same seed and same human choices give the same record.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
import weakref
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from farlight_env.cards.model import CardSet
from farlight_env.game import FarlightGame
from farlight_env.record import (
    RecordError,
    build_record,
    load_record,
    new_game,
    record_actions,
    save_record,
)
from farlight_env.view_model import board_view, to_builtins
from farlight_web.library import inside, walk
from farlight_web.limits import IDLE_SECONDS, MAX_LIVE_GAMES
from farlight_web.moves import action_info, move_label

HUMAN = "human"
ID_PATTERN = re.compile(r"^[0-9a-f]{12}$")
MAX_MOVES_SHOWN = 400  # bot moves kept between two human decisions (far above a round's)
#: Saved policies a browser may name as opponents live here, under --data; nothing else on the
#: server's disk can be named, so a client learns nothing about other files.
POLICY_FOLDER = "policies"
#: A client picks the search budget, so it is bounded: a game stays a few seconds per move.
WEB_MAX_ITERATIONS = 1000


class GameNotFound(LookupError):
    """No live or saved game with that id."""


class BadAction(ValueError):
    """An index that is not a legal action now, or a move when it is not the human's turn."""


def policy_names(policies: Path) -> list[str]:
    """The saved policies a client may choose, as names relative to the policies folder."""
    if not policies.is_dir() or policies.is_symlink():  # a link leads outside --data
        return []
    return [f.relative_to(policies).as_posix() for f in walk(policies, suffix=".pt")]


def opponent_problem(name: str, policies: Path) -> str | None:
    """Why `name` cannot be an opponent on this server (None when it can)."""
    from agents.registry import FACTORIES, budget_spec

    if name in FACTORIES:
        return None
    spec = budget_spec(name)
    if spec is not None:
        if spec[1] <= WEB_MAX_ITERATIONS:
            return None
        return f"{name}: this server allows at most ismcts@{WEB_MAX_ITERATIONS}"
    if name.endswith(".pt") and not policies.is_symlink():
        try:
            if inside(policies, name).is_file():
                return None
        except ValueError:
            pass
    return f"unknown opponent(s) {name}"


def agent_source(name: str, policies: Path) -> str:
    """What `agents.make` is given for a lineup name: a policy's file under the policies folder."""
    return str(inside(policies, name)) if name.endswith(".pt") else name


def opponent_seed(seed: int, seat: int) -> int:
    """Each bot's seed, derived from the game seed and its seat (as `farlight play` does)."""
    return int(np.random.SeedSequence([seed, seat]).generate_state(1)[0])


class Table:
    """One game: the env, the bots, the human's seat, and the bot moves since the last choice."""

    def __init__(
        self,
        game_id: str,
        lineup: list[str],
        seat: int,
        seed: int,
        config: dict[str, Any],
        folder: Path,
        policies: Path,
    ) -> None:
        from agents import make
        from farlight_env.env.aec import raw_env

        self.id = game_id
        self.lineup = lineup
        self.seat = seat
        self.seed = seed
        self.config = {"num_players": len(lineup), **config}
        self.path = folder / f"{game_id}.json"
        self.lock = threading.Lock()
        self.env = raw_env(**self.config)
        self.bots = {
            s: make(agent_source(name, policies), seed=opponent_seed(seed, s))
            for s, name in enumerate(lineup)
            if s != seat
        }
        for bot in self.bots.values():
            bot.reset()
        self.env.reset(seed=seed)
        self.moves: list[dict[str, Any]] = []

    @property
    def game(self) -> FarlightGame:
        game = self.env.game
        assert game is not None
        return game

    # ------------------------------------------------------------------ playing
    def _bot_index(self, seat: int) -> int:
        env = self.env
        agent = env.possible_agents[seat]
        obs = env.observe(agent)
        info = {**env.infos[agent], "seat": seat, "view": env.player_view(agent)}
        return int(self.bots[seat].act(obs["observation"], obs["action_mask"], info))

    def _step(self, index: int, record_move: bool) -> None:
        game = self.game
        seat = game.current_player
        assert seat is not None
        action = self.env.codec.decode(index, game)
        label = move_label(game, seat, action, self.seat)
        self.env.step(index)
        self._finish_if_over()
        if record_move and len(self.moves) < MAX_MOVES_SHOWN:
            view = to_builtins(board_view(self.game, self.seat))
            self.moves.append({"seat": seat, "label": label, "view": view})

    def _finish_if_over(self) -> None:
        """Step the env past the end so every agent is done (PettingZoo's protocol)."""
        env = self.env
        while env.agents and self.game.is_over:
            env.step(None)

    def advance(self, record_moves: bool = True) -> None:
        """Let the bots move until the human decides or the game ends."""
        while not self.game.is_over and self.game.current_player != self.seat:
            seat = self.game.current_player
            assert seat is not None
            self._step(self._bot_index(seat), record_moves)

    def play(self, index: Any) -> None:
        """The human's choice `index`, then the bots up to the human's next decision.

        BadAction (nothing changed) when it is not the human's turn or the index is illegal.
        """
        game = self.game
        if game.is_over:
            raise BadAction("the game is over: no more actions")
        if game.current_player != self.seat:
            raise BadAction(f"it is P{game.current_player}'s turn, not yours (P{self.seat})")
        legal = self.legal_indices()
        if index not in legal:
            raise BadAction(
                f"action index {index} is not legal now; legal indices: "
                f"{_ranges(legal)} (GET the game to see their labels)"
            )
        self.moves = []
        label = move_label(game, self.seat, self.env.codec.decode(index, game), self.seat)
        self._step(index, record_move=False)
        self.moves.append(
            {"seat": self.seat, "label": label, "view": to_builtins(board_view(game, self.seat))}
        )
        self.advance()
        self.save()

    def legal_indices(self) -> list[int]:
        game = self.game
        if game.is_over or game.current_player != self.seat:
            return []
        return [int(i) for i in np.flatnonzero(self.env.codec.mask(game))]

    # ------------------------------------------------------------------ what is sent
    def state(self, with_moves: bool = False) -> dict[str, Any]:
        """The human's view, whose turn it is, the legal actions, the scores when over."""
        game = self.game
        codec = self.env.codec
        out: dict[str, Any] = {
            "id": self.id,
            "seat": self.seat,
            "players": self.lineup,
            "seed": self.seed,
            "turn": game.current_player,
            "your_turn": game.current_player == self.seat,
            "over": game.is_over,
            "view": to_builtins(board_view(game, self.seat)),
            "actions": [action_info(game, codec, i) for i in self.legal_indices()],
            "scores": game.scores() if game.is_over else None,
            "winners": game.winners() if game.is_over else None,
            "record": f"games/{self.path.name}",
        }
        if with_moves:
            out["moves"] = self.moves
        return out

    def record(self) -> dict[str, Any]:
        game = self.game
        return build_record(
            game, self.lineup, self.seed, self.config, human_seat=self.seat, finished=game.is_over
        )

    def save(self) -> None:
        save_record(self.record(), self.path)


def _ranges(values: list[int]) -> str:
    shown = ", ".join(str(v) for v in values[:20])
    return shown + (f", ... ({len(values)} in all)" if len(values) > 20 else "")


class Tables:
    """The server's games by id: created here, kept in memory, reloaded from --data on demand.

    At most `max_live` games stay in memory, least recently used evicted first, and a game
    untouched for `idle_seconds` is evicted at the next request (`farlight_web.limits`). An
    evicted game loses nothing: its record was saved after the last decision, and the next
    request rebuilds it (`resume`). There is never more than one `Table` for a game: a table
    evicted while a request still holds it is found again through `loaded` (a weak map of
    every table still in memory) instead of being rebuilt beside it, and rebuilds of one
    game are serialised (`_gates`), so two requests for it always share one table and lock.
    """

    def __init__(
        self,
        data: Path,
        card_set: CardSet | None = None,
        max_live: int = MAX_LIVE_GAMES,
        idle_seconds: float = IDLE_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.folder = data / "games"
        self.policies = data / POLICY_FOLDER
        self.card_set = card_set
        self.card_set_name = "standard" if card_set is None else card_set.name
        self.max_live = max_live
        self.idle_seconds = idle_seconds
        self.clock = clock
        self.live: OrderedDict[str, Table] = OrderedDict()  # least recently used first
        self.used: dict[str, float] = {}  # when each live game was last asked for
        self.loaded: weakref.WeakValueDictionary[str, Table] = weakref.WeakValueDictionary()
        self.lock = threading.Lock()
        self._gates = [threading.Lock() for _ in range(64)]  # rebuilds, striped by game id

    def create(self, lineup: list[str], seat: int, seed: int, config: dict[str, Any]) -> Table:
        """A new table at the human's first decision (bots before it have moved), saved."""
        self.folder.mkdir(parents=True, exist_ok=True)
        game_id = secrets.token_hex(6)
        if self.card_set is not None:
            config = {**config, "card_set": self.card_set}
        table = Table(game_id, lineup, seat, seed, config, self.folder, self.policies)
        table.advance()
        table.save()
        with self.lock:
            self._admit(table)
        return table

    def get(self, game_id: str) -> Table:
        """The live table, or the saved one rebuilt from its record; GameNotFound otherwise."""
        if not ID_PATTERN.match(game_id):
            raise GameNotFound(f"unknown game {game_id!r}")
        with self.lock:
            table = self._find(game_id)
        if table is not None:
            return table
        with self._gates[int(game_id, 16) % len(self._gates)]:
            with self.lock:  # rebuilt by another request while this one waited?
                table = self._find(game_id)
            if table is not None:
                return table
            path = self.folder / f"{game_id}.json"
            if not path.is_file():
                raise GameNotFound(f"unknown game {game_id!r}")
            table = resume(game_id, path, self.policies)
            with self.lock:
                self._admit(table)
            return table

    def _find(self, game_id: str) -> Table | None:
        """The game's table if one is in memory (live, or evicted but still held), made live."""
        table = self.live.get(game_id)
        if table is None:
            table = self.loaded.get(game_id)
        if table is not None:
            self._admit(table)
        return table

    def _admit(self, table: Table) -> None:
        """`table` becomes the most recently used; evict what is past the limits."""
        now = self.clock()
        self.live[table.id] = table
        self.live.move_to_end(table.id)
        self.used[table.id] = now
        self.loaded[table.id] = table
        while self.live:
            oldest = next(iter(self.live))
            if len(self.live) <= self.max_live and now - self.used[oldest] <= self.idle_seconds:
                break
            del self.live[oldest], self.used[oldest]


def resume(game_id: str, path: Path, policies: Path) -> Table:
    """Rebuild a table from its saved record: same env seed, bots asked again at their turns.
    Errors name the record as `games/<id>.json`, never by its place on the server's disk."""
    try:
        return _resume(game_id, path, policies)
    except RecordError as exc:
        raise RecordError(str(exc).replace(str(path), f"games/{path.name}")) from None


def _resume(game_id: str, path: Path, policies: Path) -> Table:
    record = load_record(path)
    seat = record.get("human_seat")
    lineup = [str(p) for p in record["players"]]
    if not isinstance(seat, int) or not 0 <= seat < len(lineup) or lineup[seat] != HUMAN:
        raise RecordError(f"{path}: not a browser game (no human seat)")
    env_seed = record.get("env_seed")
    if not isinstance(env_seed, int):
        raise RecordError(f"{path}: no env_seed: cannot rebuild the bots")
    config = {k: v for k, v in record["config"].items() if k != "num_players"}
    if "card_set" in record:
        config["card_set"] = new_game(record).cards
    for name in lineup:
        problem = None if name == HUMAN else opponent_problem(name, policies)
        if problem:
            raise RecordError(f"{path}: {problem}")
    table = Table(game_id, lineup, seat, env_seed, config, path.parent, policies)
    codec = table.env.codec
    for i, action in enumerate(record_actions(record)):
        game = table.game
        actor = game.current_player
        if actor is None:
            raise RecordError(f"{path}: action {i} after the end of the game")
        index = codec.encode(action)
        if actor != seat:
            table._bot_index(actor)  # the bot's random state advances as it did in play
        if not table.env.codec.mask(game)[index]:
            raise RecordError(f"{path}: action {i} ({action}) is not legal: record does not replay")
        table._step(index, record_move=False)
    table.advance(record_moves=False)
    return table
