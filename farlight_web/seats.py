"""Seats that belong to someone: human seats, their tokens and invite codes, as a record keeps
them (only hashes), and which seats a request's tokens hold. See `farlight.sessions`."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from farlight_env.platform.records import RecordError
from farlight_web.record_format import SeatKeys, read_field

HUMAN = "human"


class NotYourSeat(PermissionError):
    """A request that needs a seat's token and has none that fits (HTTP 401/403)."""


def token_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def parse_seat_keys(record: dict[str, Any], path: Path) -> list[dict[str, str] | None]:
    """The record's seat keys (one per seat), or those of an older record (its one human seat
    unclaimed: an empty key); RecordError when it is not a browser game."""
    lineup = [str(p) for p in record["players"]]
    if record.get("seat_keys") is None:
        seat = record.get("human_seat")
        if not isinstance(seat, int) or not 0 <= seat < len(lineup) or lineup[seat] != HUMAN:
            raise RecordError(f"{path}: not a browser game (no human seat)")
        return [{} if s == seat else None for s in range(len(lineup))]
    keys = read_field(record, "seat_keys", SeatKeys, None, path)
    if len(keys) != len(lineup):
        raise RecordError(f"{path}: seat_keys must be a list with one entry per seat")
    for seat, key in enumerate(keys):
        if (key is not None) != (lineup[seat] == HUMAN):  # a key for each human seat, no other
            raise RecordError(
                f"{path}: seat_keys[{seat}] does not fit seat {seat} ({lineup[seat]})"
            )
    if all(key is None for key in keys):
        raise RecordError(f"{path}: not a browser game (no human seat)")
    return keys


def seats_held(keys: list[dict[str, str] | None], game_id: str, tokens: Iterable[str]) -> set[int]:
    """The seats whose token is among `tokens` (tokens of other games are ignored)."""
    held = set()
    for token in tokens:
        prefix, _, _secret = token.partition(".")
        if prefix != game_id:
            continue
        digest = token_hash(token)
        for seat, key in enumerate(keys):
            if key and "token" in key and hmac.compare_digest(key["token"], digest):
                held.add(seat)
    return held


class BadAction(ValueError):
    """An index that is not a legal action now (HTTP 422)."""


class Conflict(BadAction):
    """A move when it is not that seat's turn, after the end, or for an older decision (409)."""


def ranges(values: list[int]) -> str:
    shown = ", ".join(str(v) for v in values[:20])
    return shown + (f", ... ({len(values)} in all)" if len(values) > 20 else "")


class SeatedTable:
    """What every live game shares, whatever it is a game of: the seats, who holds them (only
    hashes of their secrets are kept) and the seat a request sees the game as. A subclass
    holds the game (`game`, with its `current_player`) and saves its record (`save`)."""

    id: str
    lineup: list[str]
    humans: list[int]
    keys: list[dict[str, str] | None]
    game: Any

    version: int
    think_seconds: float
    clock: Any
    bots_to_move: bool

    def save(self) -> None:
        raise NotImplementedError

    def legal_indices(self, seat: int | None) -> list[int]:
        raise NotImplementedError

    def _step(self, index: int, record_move: bool) -> None:
        raise NotImplementedError

    def _bot_index(self, seat: int) -> int:
        raise NotImplementedError

    def advance(self) -> bool:
        """Let the bots move until a human decides, the game ends, or the thinking budget is
        spent (at least one move is made, so every call makes progress). True when the bots
        still have moves to make."""
        start = self.clock()
        moved = False
        while self.bots_to_move:
            if moved and self.clock() - start >= self.think_seconds:
                break
            seat = self.game.current_player
            assert seat is not None
            self._step(self._bot_index(seat), record_move=True)
            moved = True
        if moved:
            self.save()
        return self.bots_to_move

    def play(self, seats: set[int], index: Any, version: int) -> None:
        """A human's choice `index` for decision `version`, then the bots (within the budget).

        Conflict (nothing changed) when it is not one of `seats`' turn, the game is over or
        `version` is not the current decision; BadAction when the index is illegal.
        """
        state = self.game
        if state.is_over:
            raise Conflict("the game is over: no more actions")
        if version != self.version:
            raise Conflict(
                f"version {version} is not the decision now (version {self.version}): the game "
                "has moved on; GET it and choose again"
            )
        seat = state.current_player
        if seat not in seats:
            mine = ", ".join(f"P{s}" for s in sorted(seats))
            raise Conflict(f"it is P{seat}'s turn, not yours ({mine})")
        legal = self.legal_indices(seat)
        if index not in legal:
            raise BadAction(
                f"action index {index} is not legal now; legal indices: "
                f"{ranges(legal)} (GET the game to see their labels)"
            )
        self._step(index, record_move=True)
        self.save()
        self.advance()

    def seats_of(self, tokens: Iterable[str]) -> set[int]:
        return seats_held(self.keys, self.id, tokens)

    def new_seat_secret(self, seat: int, kind: str = "token") -> str:
        """A fresh secret for `seat` (a token, or an invite code); only its hash is kept."""
        secret = secrets.token_urlsafe(24)
        if kind == "token":
            secret = f"{self.id}.{secret}"
        self.keys[seat] = {kind: token_hash(secret)}
        return secret

    def claim(self, invite: str | None) -> tuple[int, str]:
        """The seat an invite code opens (or an unclaimed seat of an older record, invite None)
        and its new token; the code is used up. NotYourSeat when nothing fits."""
        for seat, key in enumerate(self.keys):
            if key is None:
                continue
            if invite is None:
                fits = key == {}
            else:
                fits = "invite" in key and hmac.compare_digest(key["invite"], token_hash(invite))
            if fits:
                token = self.new_seat_secret(seat)
                try:
                    self.save()
                except OSError:
                    self.keys[seat] = key  # not saved: the invite still opens the seat
                    raise
                return seat, token
        if invite is None:
            raise NotYourSeat("every human seat of this game has an owner: ask for an invite link")
        raise NotYourSeat("this invite code opens no seat of this game (already used?)")

    def viewer(self, seats: set[int]) -> int | None:
        """The seat a request sees the game as: the one to act if held, else the lowest held."""
        if not seats:
            return None
        turn = self.game.current_player
        return turn if turn in seats else min(seats)
