"""Farlight's engine-level players: `EngineAgent` decides on the seat's redacted game state."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from farlight_env.encode.codec import ActionCodec
from farlight_env.game import Action, FarlightGame
from farlight_env.game.hidden import PlayerView


def needs_view(what: str) -> str:
    """The error of an agent given no view, naming where its view is (v1's infos are numbers)."""
    return (
        f"{what}: pass info['view'] (a PlayerView); farlight_v0's default infos hold it, and on "
        "farlight_v1 (numeric infos) pass info=env.unwrapped.agent_info(agent)"
    )


class EngineAgent:
    """Base for agents that decide on engine states: act() redacts, decides, encodes."""

    name = "engine-agent"
    needs_observation = False  # decides on the view, never on the vector
    #: True when `decide` and `choose` only read the game they are given: `act` then gives
    #: them a redacted copy sharing the live game's public lists (`redact(share=True)`), much
    #: cheaper than a full copy. An agent that changes that game (to simulate) leaves it False.
    reads_only = False

    def __init__(self) -> None:
        self._codecs: dict[tuple[int, int], ActionCodec] = {}

    def reset(self) -> None:
        """Nothing carried between games by default."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping[str, Any]) -> int:
        view = info.get("view")
        if not isinstance(view, PlayerView):
            raise ValueError(needs_view(f"{self.name} plans on game states"))
        game = view.redacted(share=self.reads_only)
        return self.decide(game, view.seat, action_mask, self.codec_for(view))

    def decide(
        self, game: FarlightGame, seat: int, action_mask: np.ndarray, codec: ActionCodec
    ) -> int:
        """The index `act` returns for `game` (the seat's redacted copy): `choose`, encoded.
        Agents may decide straight from the mask where that is cheaper (same decision)."""
        action = self.choose(game, seat)
        index = codec.encode(action)
        if not action_mask[index]:
            raise RuntimeError(
                f"{self.name} chose {action} (index {index}), which the mask forbids"
            )
        return index

    def codec_for(self, view: PlayerView) -> ActionCodec:
        key = (id(view.cards), view.grid_size)
        codec = self._codecs.get(key)
        if codec is None:
            codec = self._codecs[key] = ActionCodec(view.cards, view.grid_size)
        return codec

    def choose(self, game: FarlightGame, seat: int) -> Action:
        """The engine action to take in `game` (a redacted copy) for `seat`."""
        raise NotImplementedError
