"""The two kinds of infos `raw_env` serves: "full" (the default) and "numeric".

"full" gives each agent its `SeatView` (`info["view"]`, read by the planning agents) and
strings ("phase", "end_reason"). Libraries that turn every info into a tensor (TorchRL's
`PettingZooWrapper`) cannot take objects or strings, nor keys that appear only when the game
ends: "numeric" has the same keys, shapes and dtypes from reset on (`NUMERIC_INFO_KEYS`),
numbers only; the view stays one call away, `env.unwrapped.player_view(agent)`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from farlight_env.game.config import ConfigError, EndReason, Phase

INFO_MODES = ("full", "numeric")
#: `info["phase"]` and `info["decision"]` index this tuple in numeric infos (OVER is last).
PHASES: tuple[Phase, ...] = tuple(Phase)
#: `info["end_reason"]` indexes this tuple once the game is over (-1 before).
END_REASONS: tuple[EndReason, ...] = tuple(EndReason)
#: Every numeric info's keys, present from reset on, in this order.
NUMERIC_INFO_KEYS = (
    "phase",
    "decision",
    "round",
    "scores",
    "winners",
    "end_reason",
    "illegal_action",
)
_PHASE_INDEX = {phase: i for i, phase in enumerate(PHASES)}
_END_INDEX = {reason: i for i, reason in enumerate(END_REASONS)}


def check_info_mode(mode: Any) -> str:
    """`mode` if it names a kind of infos; a ConfigError listing them otherwise."""
    if mode not in INFO_MODES:
        raise ConfigError(
            f"infos must be one of {INFO_MODES} ('numeric': numbers only, fixed keys and "
            f"shapes, for TorchRL; the view via env.unwrapped.player_view(agent)), got {mode!r}"
        )
    return mode


def numeric_info(game: Any) -> dict[str, Any]:
    """A seat's numeric info in `game` as it stands, from public facts only (every seat's is
    the same): phase and round, and the end facts (zero, or -1, until the game is over)."""
    phase = _PHASE_INDEX[game.phase]
    info: dict[str, Any] = {"phase": phase, "decision": phase, "round": game.round}
    if game.is_over:
        info.update(end_facts(game))
    else:
        info["scores"] = np.zeros(game.num_players, dtype=np.int64)
        info["winners"] = np.zeros(game.num_players, dtype=np.int8)
        info["end_reason"] = -1
    info["illegal_action"] = -1  # the offending seat, when illegal_action="terminate" ends a game
    return info


def phase_index(phase: Phase) -> int:
    """The number numeric infos give a phase (its place in `PHASES`)."""
    return _PHASE_INDEX[phase]


def end_facts(game: Any) -> dict[str, Any]:
    """The numeric end-of-game entries of a finished game: final scores, a 0/1 winner flag per
    seat and the end reason's index in `END_REASONS`."""
    winners = np.zeros(game.num_players, dtype=np.int8)
    winners[game.winners()] = 1
    reason = game.end_reason
    return {
        "scores": np.asarray(game.scores(), dtype=np.int64),
        "winners": winners,
        "end_reason": _END_INDEX[reason] if reason is not None else -1,
    }
