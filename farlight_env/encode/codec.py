"""Action codec: one flat Discrete(N) index space <-> engine actions, the same for 2–5 players.

Layout (blocks in this order; sizes for the standard card set and a 13×13 grid in brackets):
  bid         tile (5) × target (12 part spaces, 4 facilities, 3 mission stacks) × crew (2) [190]
  select      which pending part to handle next, by card id                              [57]
  install     the selected part at a ship cell, row-major over the grid                  [169]
  discard     the selected part                                                          [1]
  refit       remove an installed part, by card id                                       [57]
  refit_stop  stop refitting                                                             [1]
  engine      choose an engine, by the position of its rank among the deck's ranks      [E]
  skip        decline an upgrade/overhaul                                                [1]
  complete    complete the mission being resolved                                        [1]
  pass        pass on it                                                                 [1]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from farlight_env.cards.model import FACILITIES, CardSet
from farlight_env.game.actions import (
    Action,
    Bid,
    ChooseEngine,
    CompleteMission,
    Discard,
    Install,
    PassMission,
    RefitRemove,
    RefitStop,
    SelectPart,
    SkipEngine,
    Target,
    TargetKind,
)
from farlight_env.game.config import Phase
from farlight_env.game.facts import MAX_ENGINE, NUM_STACKS, PART_SPACES, TILES
from farlight_env.game.game import FarlightGame

MAX_SPACES = max(PART_SPACES.values())
NUM_TARGETS = MAX_SPACES + len(FACILITIES) + NUM_STACKS
NUM_TILES = len(TILES)


@dataclass(frozen=True, slots=True)
class Block:
    name: str
    start: int
    size: int

    @property
    def stop(self) -> int:
        return self.start + self.size

    def __contains__(self, index: int) -> bool:
        return self.start <= index < self.start + self.size


class ActionCodec:
    """Maps indices to engine actions and back for one card set and grid size."""

    def __init__(self, cards: CardSet, grid_size: int) -> None:
        self.cards = cards
        self.grid_size = grid_size
        self.half = grid_size // 2
        self.part_names = [p.name for p in cards.parts]
        self.part_ids = {name: i for i, name in enumerate(self.part_names)}
        self.ranks = sorted(rank for p in cards.parts for rank in p.engines)
        self.rank_pos = {rank: i for i, rank in enumerate(self.ranks)}
        sizes = [
            ("bid", NUM_TILES * NUM_TARGETS * 2),
            ("select", len(cards.parts)),
            ("install", grid_size * grid_size),
            ("discard", 1),
            ("refit", len(cards.parts)),
            ("refit_stop", 1),
            ("engine", len(self.ranks)),
            ("skip", 1),
            ("complete", 1),
            ("pass", 1),
        ]
        blocks: dict[str, Block] = {}
        start = 0
        for name, size in sizes:
            blocks[name] = Block(name, start, size)
            start += size
        self.blocks = blocks
        self.size = start
        #: The block of every index (decode looks it up instead of searching).
        self._block_at = [b for b in blocks.values() for _ in range(b.size)]
        self._bid_cache: dict[tuple, np.ndarray] = {}  # read-only bidding masks
        self._open_stamp = -1  # board stamp the open-target key below was taken at
        self._open_key: tuple = ()
        self._encoded: dict[int, tuple[Action, int]] = {}  # id(action) -> (action, index)
        self._bids_of: object = None  # the bid table the next cache's instances come from
        self._game_bids: dict[int, Action] = {}  # bid index -> that table's instance
        self._decoded: dict[int, Action] = {}  # index -> its action, where the game can't matter
        self._decoded_now: dict[tuple[int, str], Action] = {}  # (index, part or mission) -> action

    # ------------------------------------------------------------- targets
    @staticmethod
    def target_position(target: Target) -> int:
        """Fixed position of a bid target: part spaces 0..11, facilities, then mission stacks."""
        if target.kind is TargetKind.PART:
            return target.index
        if target.kind is TargetKind.FACILITY:
            return MAX_SPACES + target.index
        return MAX_SPACES + len(FACILITIES) + target.index

    @staticmethod
    def target_at(position: int) -> Target:
        if position < MAX_SPACES:
            return Target(TargetKind.PART, position)
        if position < MAX_SPACES + len(FACILITIES):
            return Target(TargetKind.FACILITY, position - MAX_SPACES)
        return Target(TargetKind.MISSION, position - MAX_SPACES - len(FACILITIES))

    # -------------------------------------------------------------- encode
    def encode(self, action: Action) -> int:
        """The index of an engine action; raises ValueError for actions outside the layout."""
        known = self._encoded.get(id(action))
        if known is not None and known[0] is action:  # the engine hands out shared instances
            return known[1]
        try:
            index = self._encode(action)
        except KeyError as exc:
            raise ValueError(
                f"cannot encode {action!r}: {exc.args[0]!r} is not a card or engine rank of "
                f"card set {self.cards.name!r}"
            ) from exc
        if len(self._encoded) >= 8192:
            self._encoded.clear()
        self._encoded[id(action)] = (action, index)  # holding it keeps the id its own
        return index

    def _encode(self, action: Action) -> int:
        b = self.blocks
        if isinstance(action, Bid):
            pos = self.target_position(action.target)
            return b["bid"].start + (action.tile * NUM_TARGETS + pos) * 2 + int(action.crew)
        if isinstance(action, SelectPart):
            return b["select"].start + self.part_ids[action.part]
        if isinstance(action, Install):
            row, col = action.row + self.half, action.col + self.half
            if not (0 <= row < self.grid_size and 0 <= col < self.grid_size):
                raise ValueError(f"cell ({action.row},{action.col}) lies outside the grid")
            return b["install"].start + row * self.grid_size + col
        if isinstance(action, Discard):
            return b["discard"].start
        if isinstance(action, RefitRemove):
            return b["refit"].start + self.part_ids[action.part]
        if isinstance(action, RefitStop):
            return b["refit_stop"].start
        if isinstance(action, ChooseEngine):
            return b["engine"].start + self.rank_pos[action.rank]
        if isinstance(action, SkipEngine):
            return b["skip"].start
        if isinstance(action, CompleteMission):
            return b["complete"].start
        if isinstance(action, PassMission):
            return b["pass"].start
        raise ValueError(f"cannot encode {action!r}: not a Farlight action")

    # -------------------------------------------------------------- decode
    def decode(self, index: int, game: FarlightGame) -> Action:
        """The engine action an index means in `game`'s current decision.

        Install/discard name the selected pending part and complete/pass the mission being
        resolved, so those need the game; the result is legal iff the mask bit is set.
        """
        if type(index) is int:  # the hot path: a bid (the game's own instance) or an index
            # that means the same in every game, decoded before
            action = self._game_bids.get(index) if game.bid_actions is self._bids_of else None
            if action is None:
                action = self._decoded.get(index)
            if action is not None:
                return action
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
            raise ValueError(f"action index must be an integer, got {index!r}")
        index = int(index)
        if not 0 <= index < self.size:
            raise ValueError(f"action index {index} out of range 0..{self.size - 1}")
        block = self._block_at[index]
        return self._decode_in(block.name, index - block.start, game)

    def _decode_in(self, name: str, offset: int, game: FarlightGame) -> Action:
        """Actions are immutable values: each is made once and then served from a cache."""
        index = self.blocks[name].start + offset
        if name in ("install", "discard", "complete", "pass"):  # name the part or mission now
            if name in ("install", "discard"):
                selected = game.selected_part()
                what = self.part_names[selected] if selected is not None else "<no part selected>"
            else:
                mission = game.mission_being_resolved()
                what = game.cards.missions[mission].name if mission is not None else "<no mission>"
            action = self._decoded_now.get((index, what))
            if action is None:
                if len(self._decoded_now) > 4096:
                    self._decoded_now.clear()
                action = self._decoded_now[(index, what)] = self._make(name, offset, what)
            return action
        if name == "bid":
            return self._bid(index, game)
        action = self._decoded.get(index)
        if action is None:
            action = self._decoded[index] = self._make(name, offset, "")
        return action

    def _bid(self, index: int, game: FarlightGame) -> Action:
        """The game's own instance of a bid (its engine knows it on sight), made once."""
        if game.bid_actions is not self._bids_of:
            self._bids_of, self._game_bids = game.bid_actions, {}
        made = self._make("bid", index - self.blocks["bid"].start, "")
        assert isinstance(made, Bid)
        slot = game.target_slot.get(made.target)  # None: no such target at this player count
        shared = game.bid_actions.get((made.tile, slot, made.crew)) if slot is not None else None
        action = self._game_bids[index] = made if shared is None else shared
        return action

    def _make(self, name: str, offset: int, what: str) -> Action:
        """A new action for a block offset; `what` names the selected part or the mission."""
        if name == "bid":
            tile, rest = divmod(offset, NUM_TARGETS * 2)
            pos, crew = divmod(rest, 2)
            return Bid(tile, self.target_at(pos), bool(crew))
        if name == "select":
            return SelectPart(self.part_names[offset])
        if name == "refit":
            return RefitRemove(self.part_names[offset])
        if name == "refit_stop":
            return RefitStop()
        if name == "engine":
            return ChooseEngine(self.ranks[offset])
        if name == "skip":
            return SkipEngine()
        if name == "discard":
            return Discard(what)
        if name == "install":
            row, col = divmod(offset, self.grid_size)
            return Install(what, row - self.half, col - self.half)
        return CompleteMission(what) if name == "complete" else PassMission(what)

    def describe(self, index: int, game: FarlightGame) -> str:
        """A readable line for people: the block and the action it means now."""
        action = self.decode(index, game)
        if isinstance(action, (SelectPart, RefitRemove, Install, Discard)):
            return str(action)
        if isinstance(action, ChooseEngine):
            return engine_choice_text(game, action)
        return str(action)

    def mask(self, game: FarlightGame, out: np.ndarray | None = None) -> np.ndarray:
        """int8 mask of the current player's legal actions (length `size`); a new array, or
        `out` filled in."""
        if game.phase is Phase.BIDDING:
            bids = self._bid_mask(game)
            if out is None:
                return bids.copy()
            out[:] = bids
            return out
        flags = bytearray(self.size)  # a few set bytes: cheaper than numpy's fancy indexing
        for action in game.legal_actions():
            flags[self.encode(action)] = 1
        mask = np.frombuffer(flags, dtype=np.int8)
        if out is None:
            return mask
        out[:] = mask
        return out

    def _bid_mask(self, game: FarlightGame) -> np.ndarray:
        """The bidding mask straight from the state (the hot path of every round), cached on
        the few facts it depends on: the hand, crew to spare and the open targets."""
        seat = game.current_player
        assert seat is not None
        if self._open_stamp != game.board_stamp:  # open targets change with the board only
            self._open_key = (
                tuple(part is None for part in game.spaces),
                tuple(not stack for stack in game.stacks),
            )
            self._open_stamp = game.board_stamp
        key = (tuple(game.hands[seat]), game.crew[seat] >= 1, self._open_key)
        mask = self._bid_cache.get(key)
        if mask is None:
            if len(self._bid_cache) > 8192:
                self._bid_cache.clear()
            mask = np.zeros(self.size, dtype=np.int8)
            mask[self._compute_bid_indices(game, seat)] = 1
            mask.flags.writeable = False
            self._bid_cache[key] = mask
        return mask

    def _compute_bid_indices(self, game: FarlightGame, seat: int) -> np.ndarray:
        positions = [i for i, part in enumerate(game.spaces) if part is not None]
        positions += range(MAX_SPACES, MAX_SPACES + len(FACILITIES))
        base = MAX_SPACES + len(FACILITIES)
        positions += [base + s for s, stack in enumerate(game.stacks) if stack]
        pos = np.asarray(positions, dtype=np.int64)
        tiles = np.asarray(game.hands[seat], dtype=np.int64)
        cells = ((tiles[:, None] * NUM_TARGETS + pos[None, :]) * 2).ravel()
        start = self.blocks["bid"].start
        if game.crew[seat] >= 1:
            return start + np.concatenate([cells, cells + 1])
        return start + cells


def engine_choice_text(game: FarlightGame, action: ChooseEngine) -> str:
    """An engine choice with what it does: 'engine #7 (now 3): the overhaul sets it to 6'
    (R-BEN-3), 'engine #7 (now 3): +1 makes it 4' (an upgrade or Engineer, R-RES-5)."""
    value = game.engine_values.get(action.rank)
    if value is None:
        return str(action)
    if game.phase is Phase.OVERHAUL:
        return f"{action} (now {value}): the overhaul sets it to {MAX_ENGINE}"
    return f"{action} (now {value}): +1 makes it {min(MAX_ENGINE, value + 1)}"
