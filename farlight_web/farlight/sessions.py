"""Farlight's live games in the browser: human seats that belong to someone, bots everywhere else.

A `Table` runs one game through the AEC env with bots from `agents.make` (seeded from the game
seed and their seat, as `farlight play` seeds them; a server's 128-bit seed seeds the engine
and the bots with all its bits, `farlight_web.seeding`), saved as a record
(`farlight_env.records.record`) in `<data>/games/<id>.json` after every change.

Seats belong to someone. Each human seat has a secret: the creator gets the token of their
seat, and every other human seat starts with a one-time invite code; claiming it mints that
seat's token, which the creator never sees. Tokens are `<game id>.<secret>` (so a client's
tokens name their games); the record keeps only their sha256 (`"seat_keys"`, one entry per
seat: `{"token": hex}`, `{"invite": hex}` or null for a bot), so a restarted server keeps the
seats and nothing the server sends, a replay included, ever holds a token. A record written
before seats had owners (`"human_seat"`, no `"seat_keys"`) still resumes; its human seat is
unclaimed, and the first client to claim it owns it from then on.

What a request sees: the holder of a seat's token gets that seat's view and, on its turn, the
legal actions; anyone else the spectator view (`board_view(game, None)`). Nothing derived from
hidden facts is sent before the end: not the seed (sent once the game is over, as a string),
not a bot's failure message (it may name the bot's face-down plan; it is logged on the server).

Every action answers one decision: `version` is the number of actions taken so far, and a
choice sent with another version (a double click, a second tab) is refused and changes nothing.

Bot thinking is bounded per request (`think_seconds`): bots move until it is spent, at least
one move per request, so a request returns within the budget plus one bot decision; the state
then says `"thinking": true` and the next GET lets them continue. Search budgets are bounded
too (`ismcts@N`, N <= WEB_MAX_ITERATIONS), which bounds that one decision.

A bot that raises or returns an illegal action is replaced by the heuristic for that move
(seeded from the game seed and the seat, so the same record replays); the failure is
reported once per seat in `"bot_errors"` and the game goes on. A bot that cannot play this
game at all (a policy built for another grid size) is refused when the game is created.

A server restarted later, or a game evicted from memory (`Tables`), rebuilds the table by
replaying its record's actions. No bot is asked again: before each decision a bot's random
generators are reseeded from (game seed, seat, decision number) (`reseed`), so what it does
next is the same as if the game had never stopped, and rebuilding a game against a search bot
costs no more than one against the random agent. It keeps the last moves as a live table does,
so a page reloaded afterwards shows them in its log, and the bot failures reported so far
(saved in the record's `"bot_errors"`). Same seed and same choices give the same record.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from farlight_env.game import FarlightGame
from farlight_env.platform.agents import reseed
from farlight_env.platform.records import save_record
from farlight_env.records.record import build_record
from farlight_env.view.model import board_view, to_builtins
from farlight_web.bots import BotUnfit, agent_source, opponent_seed
from farlight_web.farlight.moves import action_info, events_for, move_events, move_label
from farlight_web.limits import MAX_MOVES_SHOWN, THINK_SECONDS
from farlight_web.seats import HUMAN, SeatedTable
from farlight_web.seeding import reset_env

log = logging.getLogger("farlight_web")

#: Seed offset of the heuristic that stands in for a failing bot (never a bot's own seed).
STAND_IN_SEAT_OFFSET = 100


def unfit(bot: Any, observation_size: int, actions: int) -> str | None:
    """Why `bot` cannot play observations/actions of these sizes (a saved policy's shapes)."""
    from agents.farlight.policy import PolicyAgent

    for agent in (bot, getattr(bot, "policy", None)):
        if isinstance(agent, PolicyAgent):
            try:
                agent._check_shapes(observation_size, actions)
            except ValueError as exc:
                return str(exc)
    return None


class Move(NamedTuple):
    """One move kept for clients to catch up on (and to fill the page's log after a reload)."""

    version: int  # the number of actions after it
    seat: int
    own: str  # its label for the mover
    other: str  # its label for everyone else
    after: FarlightGame  # the state after it
    events: list[dict[str, Any]]  # what it set off (public: see farlight_web.farlight.moves)


class Table(SeatedTable):
    """One game: the env, the bots, who holds the human seats, the moves clients catch up on."""

    def __init__(
        self,
        game_id: str,
        lineup: list[str],
        seed: int,
        config: dict[str, Any],
        folder: Path,
        policies: Path,
        keys: list[dict[str, str] | None],
        think_seconds: float = THINK_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        from agents import make
        from farlight_env.env.aec import raw_env

        self.id = game_id
        self.lineup = lineup
        self.humans = [s for s, name in enumerate(lineup) if name == HUMAN]
        self.keys = keys
        self.seed = seed
        self.config = {"num_players": len(lineup), **config}
        self.path = folder / f"{game_id}.json"
        self.lock = threading.Lock()
        self.think_seconds = think_seconds
        self.clock = clock
        self.env = raw_env(**self.config)
        reset_env(self.env, seed)
        agent = self.env.possible_agents[0]
        sizes = (self.env.observation_space(agent)["observation"].shape[0], self.env.codec.size)
        self.bots = {}
        for s, name in enumerate(lineup):
            if name == HUMAN:
                continue
            bot = make(agent_source(name, policies), seed=opponent_seed(seed, s))
            problem = unfit(bot, *sizes)
            if problem:
                raise BotUnfit(f"seat {s} ({name}) cannot play this game: {problem}")
            bot.reset()
            self.bots[s] = bot
        self.stand_ins: dict[int, Any] = {}
        self.bot_errors: list[dict[str, Any]] = []
        self.moves: deque[Move] = deque(maxlen=MAX_MOVES_SHOWN)

    @property
    def game(self) -> FarlightGame:
        game = self.env.game
        assert game is not None
        return game

    @property
    def version(self) -> int:
        """The number of actions taken: the decision a choice must answer."""
        return len(self.game.history)

    @property
    def bots_to_move(self) -> bool:
        game = self.game
        return not game.is_over and game.current_player not in self.humans

    # ------------------------------------------------------------------ playing
    def _observation(self, seat: int) -> tuple[Any, Any, dict[str, Any]]:
        env = self.env
        agent = env.possible_agents[seat]
        obs = env.observe(agent)
        info = {**env.infos[agent], "seat": seat, "view": env.player_view(agent)}
        return obs["observation"], obs["action_mask"], info

    def _bot_index(self, seat: int) -> int:
        """The bot's choice; the stand-in heuristic's when the bot raises or picks an illegal
        action (reported once per seat, the details logged, never sent: they may name the
        bot's face-down tiles). Its randomness comes from (seed, seat, decision) alone."""
        observation, mask, info = self._observation(seat)
        try:
            bot = self.bots[seat]
            reseed(bot, self.seed, seat, self.version)
            index = int(bot.act(observation, mask, info))
            if 0 <= index < len(mask) and mask[index]:
                return index
            problem, detail = "returned an illegal action", f"index {index}"
        except Exception as exc:  # noqa: BLE001 - any bot failure: the heuristic stands in
            problem, detail = f"raised {type(exc).__name__}", str(exc)
        log.warning(
            "game %s: seat %d (%s) %s: %s", self.id, seat, self.lineup[seat], problem, detail
        )
        if not any(e["seat"] == seat for e in self.bot_errors):
            self.bot_errors.append(
                {
                    "seat": seat,
                    "agent": self.lineup[seat],
                    "error": f"{problem}; the heuristic played its moves when it failed",
                    "version": self.version,
                }
            )
        stand_in = self.stand_ins.get(seat)
        if stand_in is None:
            from agents.farlight.heuristic import HeuristicAgent

            stand_in = self.stand_ins[seat] = HeuristicAgent()
        reseed(stand_in, self.seed, seat + STAND_IN_SEAT_OFFSET, self.version)
        return int(stand_in.act(observation, mask, info))

    def _step(self, index: int, record_move: bool) -> None:
        game = self.game
        seat = game.current_player
        assert seat is not None
        action = self.env.codec.decode(index, game)
        if record_move:
            labels = (move_label(game, seat, action, seat), move_label(game, seat, action, None))
            events = move_events(game, action)
        self.env.step(index)
        self._finish_if_over()
        if record_move:
            self.moves.append(Move(self.version, seat, *labels, self.game.clone(), events))

    def _finish_if_over(self) -> None:
        """Step the env past the end so every agent is done (PettingZoo's protocol)."""
        env = self.env
        while env.agents and self.game.is_over:
            env.step(None)

    def legal_indices(self, seat: int | None) -> list[int]:
        game = self.game
        if seat is None or game.is_over or game.current_player != seat:
            return []
        return [int(i) for i in np.flatnonzero(self.env.codec.mask(game))]

    # ------------------------------------------------------------------ what is sent
    def state(
        self, seat: int | None, since: int | None = None, views: bool = True
    ) -> dict[str, Any]:
        """What `seat` (None: a spectator) may see now; with `since`, the moves made after that
        version as it saw them (those still kept: the last MAX_MOVES_SHOWN), each with what it
        set off and, unless `views` is False, the board after it. The game's options (public);
        the seed and how a tie was broken only once the game is over."""
        from farlight_env.view.events import final_tiebreak

        game = self.game
        codec = self.env.codec
        over = game.is_over
        out: dict[str, Any] = {
            "id": self.id,
            "seat": seat,
            "humans": self.humans,
            "players": self.lineup,
            "version": self.version,
            "turn": game.current_player,
            "your_turn": seat is not None and game.current_player == seat,
            "thinking": self.bots_to_move,
            "over": over,
            "view": to_builtins(board_view(game, seat)),
            "actions": [action_info(game, codec, i) for i in self.legal_indices(seat)],
            "scores": game.scores() if over else None,
            "winners": game.winners() if over else None,
            "bot_errors": [{k: e[k] for k in ("seat", "agent", "error")} for e in self.bot_errors],
            "record": f"games/{self.path.name}",
            "config": game.config.as_dict(),
        }
        if over:
            out["seed"] = str(self.seed)  # a string: 128 bits are no JavaScript number
            tiebreak = final_tiebreak(game)
            out["tiebreak"] = None if tiebreak is None else tiebreak.text
        if since is not None:
            out["moves"] = []
            for move in self.moves:
                if move.version <= since:
                    continue
                shown: dict[str, Any] = {
                    "seat": move.seat,
                    "version": move.version,
                    "label": move.own if move.seat == seat else move.other,
                    "events": events_for(move.events, seat),
                }
                if views:
                    shown["view"] = to_builtins(board_view(move.after, seat))
                out["moves"].append(shown)
        return out

    def record(self) -> dict[str, Any]:
        game = self.game
        failures = {"bot_errors": self.bot_errors} if self.bot_errors else {}
        return build_record(
            game,
            self.lineup,
            self.seed,
            self.config,
            human_seat=self.humans[0],
            seat_keys=self.keys,
            finished=game.is_over,
            **failures,
        )

    def save(self) -> None:
        save_record(self.record(), self.path)
