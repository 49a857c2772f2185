"""Open replays: a recorded game stepped forward and back as any seat, in bounded memory.

A `Replay` keeps no list of every state (a long game made that gigabytes: each state holds
the history before it). It keeps a checkpoint, a clone of the game, every `interval` steps,
at most MAX_CHECKPOINTS of them, and the state last shown; a step is recomputed from the
nearest of the two at or before it, so a request applies fewer than `interval` actions.
A record of more than MAX_REPLAY_STEPS actions is refused. `Replays` keeps the open ones by
id, at most a number in all and per client, the least recently used closed first.
"""

from __future__ import annotations

import hashlib
import math
import secrets
import threading
from array import array
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from farlight_env.game import FarlightGame
from farlight_env.platform.records import RecordError
from farlight_env.records.record import iter_replay, record_actions
from farlight_env.view.model import board_view, to_builtins
from farlight_web.limits import MAX_OPEN_REPLAYS, REPLAYS_PER_CLIENT
from farlight_web.moves import events_for, move_events, move_label

#: Actions a replayed record may hold; a game played to its end takes a few hundred.
MAX_REPLAY_STEPS = 10_000
#: Game states one replay keeps, besides the one last shown.
MAX_CHECKPOINTS = 64
#: The fewest steps between checkpoints (a short game keeps fewer states, not more).
MIN_INTERVAL = 16
#: What one open replay holds at most: its checkpoints, their histories, the actions and their
#: events. The longest game (5 players, the largest grid, MAX_REPLAY_STEPS actions) holds
#: 6.5 MiB (tests/test_web_replays.py measures it; docs/safety.md).
REPLAY_BYTES_BOUND = 12 << 20
#: The fields of a record a replay answers with; the rest (its actions included) is dropped.
KEPT_FIELDS = ("format", "players", "scores", "winners", "finished", "seat_keys", "human_seat")


class Replay:
    """One recorded game's states, recomputed on demand from checkpoints (see the module)."""

    def __init__(self, record: dict[str, Any], source: str) -> None:
        """Replay `record` once (RecordError if it does not replay or is too long)."""
        steps = len(record["actions"])
        if steps > MAX_REPLAY_STEPS:
            raise RecordError(
                f"{source}: {steps} actions; this server replays games of at most "
                f"{MAX_REPLAY_STEPS}"
            )
        self.record = {k: record[k] for k in KEPT_FIELDS if k in record}
        self.source = source
        self.steps = steps
        self.actions = record_actions(record)
        self.interval = max(MIN_INTERVAL, math.ceil(steps / MAX_CHECKPOINTS))
        self.checkpoints: list[FarlightGame] = []
        self.actors = array("b")  # who made each action
        self.rounds: dict[int, int] = {}  # the first step of each round
        #: what each step set off (public once it is done), worked out once on opening
        self.events: list[list[dict[str, Any]]] = []
        for step, (_, game) in enumerate(iter_replay(record)):
            if step % self.interval == 0:
                self.checkpoints.append(game.clone())
            self.rounds.setdefault(game.round, step)
            if step < steps:
                self.actors.append(-1 if game.current_player is None else game.current_player)
                self.events.append(move_events(game, self.actions[step]))
        #: The state last made (step, game), the start of the next when it is at or before it.
        self.last_shown: tuple[int, FarlightGame] = (0, self.checkpoints[0])
        self._lock = threading.Lock()

    def summary(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "players": [str(p) for p in self.record["players"]],
            "steps": self.steps,
            "rounds": [{"round": r, "step": s} for r, s in sorted(self.rounds.items())],
            "scores": self.record["scores"],
            "winners": self.record.get("winners"),
        }

    def state(self, step: int) -> FarlightGame:
        """The game after `step` actions (a copy: checkpoints are never changed)."""
        with self._lock:
            start = (step // self.interval) * self.interval
            game = self.checkpoints[step // self.interval]
            shown_step, shown = self.last_shown
            if start <= shown_step <= step:
                start, game = shown_step, shown
            game = game.clone()
            for action in self.actions[start:step]:
                game.apply(action)
            self.last_shown = (step, game)
            return game.clone()

    def at(self, step: int, viewer: int | None) -> dict[str, Any]:
        """The board after `step` actions, as `viewer` saw it, the move that led there and
        what that move set off (bid results, automatic discards, the tiebreak...)."""
        move = None
        events: list[dict[str, Any]] = []
        if step > 0:
            before = self.state(step - 1)
            action = self.actions[step - 1]
            move = move_label(before, self.actors[step - 1], action, viewer)
            events = events_for(self.events[step - 1], viewer)
        state = self.state(step)  # from the one just made: one action applied
        return {
            "step": step,
            "viewer": viewer,
            "move": move,
            "events": events,
            "view": to_builtins(board_view(state, viewer)),
        }


@dataclass(frozen=True)
class OpenReplay:
    """An open replay, whom it counts against, and the seats it may be seen as (None: any;
    an unfinished game's replay only as the seats its opener's tokens hold, or a spectator)."""

    replay: Replay
    client: str
    viewers: frozenset[int] | None


class Replays:
    """Open replays by id: at most `max_open` in all and `per_client` per client, the least
    recently used closed first. A finished game's id is derived from what was opened (the
    same file opened again shares it); an unfinished game's is random."""

    def __init__(self, max_open: int = MAX_OPEN_REPLAYS, per_client: int = REPLAYS_PER_CLIENT):
        self.max_open = max_open
        self.per_client = per_client
        self.open: OrderedDict[str, OpenReplay] = OrderedDict()
        self.lock = threading.Lock()

    def add(self, key: str, replay: Replay, client: str, viewers: set[int] | None = None) -> str:
        if viewers is None:
            rid = hashlib.sha256(key.encode()).hexdigest()[:16]
        else:
            rid = secrets.token_hex(8)
        kept = OpenReplay(replay, client, None if viewers is None else frozenset(viewers))
        with self.lock:
            self.open.pop(rid, None)
            mine = [r for r, entry in self.open.items() if entry.client == client]
            for old in mine[: max(0, len(mine) + 1 - self.per_client)]:
                del self.open[old]
            self.open[rid] = kept
            while len(self.open) > self.max_open:
                self.open.popitem(last=False)
        return rid

    def get(self, rid: str) -> OpenReplay | None:
        with self.lock:
            found = self.open.get(rid)
            if found is not None:
                self.open.move_to_end(rid)
            return found
