"""Farlight's replays: a recorded game stepped forward and back as any seat, in bounded memory.

A `Replay` keeps no list of every state (a long game made that gigabytes: each state holds
the history before it). It keeps a checkpoint, a clone of the game, every `interval` steps,
at most MAX_CHECKPOINTS of them, and the state last shown; a step is recomputed from the
nearest of the two at or before it, so a request applies fewer than `interval` actions.
A record of more than MAX_REPLAY_STEPS actions is refused (the bounds every game's replays
keep to, `farlight_web.replays`, which also keeps the open ones by id).
"""

from __future__ import annotations

import math
import threading
from array import array
from typing import Any

from farlight_env.game import FarlightGame
from farlight_env.platform.records import RecordError
from farlight_env.records.record import iter_replay, record_actions
from farlight_env.view.model import board_view, to_builtins
from farlight_web.farlight.moves import events_for, move_events, move_label
from farlight_web.replays import KEPT_FIELDS, MAX_CHECKPOINTS, MAX_REPLAY_STEPS, MIN_INTERVAL

#: What one open replay holds at most: its checkpoints, their histories, the actions and their
#: events. The longest game (5 players, the largest grid, MAX_REPLAY_STEPS actions) holds
#: 6.5 MiB (tests/test_web_replays.py measures it; docs/safety.md).
REPLAY_BYTES_BOUND = 12 << 20


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
