"""Replays of any platform game's record (#50), in the bounded shape of Farlight's
(`farlight_web.farlight.replays`): checkpoints every `interval` steps, a step recomputed from the
nearest. Each step shows the board text as the viewer saw it (`render_text`) and names a move
to its mover only, as a live game does (`farlight_web.platform_tables`)."""

from __future__ import annotations

import math
import threading
from array import array
from typing import Any

from farlight_env.platform import State
from farlight_env.platform.records import RecordError
from farlight_web.platform_tables import checked_record, move_label, plain_view
from farlight_web.replays import KEPT_FIELDS, MAX_CHECKPOINTS, MAX_REPLAY_STEPS, MIN_INTERVAL


class PlatformReplay:
    """One platform record's states, recomputed on demand from checkpoints."""

    def __init__(self, record: dict[str, Any], source: str) -> None:
        """Replay `record` once: RecordError if it is too long, does not replay, or (finished)
        does not reach its recorded outcome."""
        game, checked = checked_record(record, source)
        steps = len(checked.actions)
        if steps > MAX_REPLAY_STEPS:
            raise RecordError(
                f"{source}: {steps} actions; this server replays games of at most "
                f"{MAX_REPLAY_STEPS}"
            )
        self.game = game
        self.record = {k: record[k] for k in (*KEPT_FIELDS, "game") if k in record}
        self.source = source
        self.steps = steps
        self.actions = list(checked.actions)
        self.interval = max(MIN_INTERVAL, math.ceil(steps / MAX_CHECKPOINTS))
        state = game.start(checked.num_players, checked.game_seed, checked.config)
        self.checkpoints: list[State] = []
        self.actors = array("b")
        self.labels: list[str] = []  # each move's name for its mover
        for step, action in enumerate(self.actions):
            if step % self.interval == 0:
                self.checkpoints.append(state.clone())
            if state.current_player is None:
                raise RecordError(f"{source}: action {step} after the end of the game")
            if action not in state.legal_actions():
                raise RecordError(f"{source}: action {step} ({action}) is not legal")
            self.actors.append(state.current_player)
            self.labels.append(state.describe_action(action))
            state.apply_action(action)
        if steps % self.interval == 0:
            self.checkpoints.append(state.clone())
        if record.get("finished", True) is not False:
            self._check_outcome(state, checked.scores, checked.winners)
        self._lock = threading.Lock()

    def _check_outcome(self, state: State, scores: list[float], winners: list[int]) -> None:
        if not state.is_over:
            raise RecordError(f"{self.source}: the record's actions do not finish the game")
        if state.scores() != scores or state.winners() != winners:
            raise RecordError(
                f"{self.source}: the record does not replay: scores {state.scores()} and "
                f"winners {state.winners()}, recorded {scores} and {winners}"
            )

    def summary(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "game": self.game.name,
            "players": [str(p) for p in self.record["players"]],
            "steps": self.steps,
            "rounds": [{"round": 1, "step": 0}],
            "scores": self.record["scores"],
            "winners": self.record.get("winners"),
        }

    def state(self, step: int) -> State:
        """The game after `step` actions (a copy: checkpoints are never changed)."""
        with self._lock:
            state = self.checkpoints[step // self.interval].clone()
        for action in self.actions[(step // self.interval) * self.interval : step]:
            state.apply_action(action)
        return state

    def at(self, step: int, viewer: int | None) -> dict[str, Any]:
        """The board text after `step` actions as `viewer` saw it, and the move before it."""
        move = None
        if step > 0:
            move = move_label(self.actors[step - 1], self.labels[step - 1], viewer)
        state = self.state(step)
        return {
            "step": step,
            "viewer": viewer,
            "move": move,
            "events": [],
            "text": state.render_text(viewer),
            "view": plain_view(state, viewer),
        }
