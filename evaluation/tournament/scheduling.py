"""The schedule: seat-rotated blocks of games, each with a seed derived from the tournament
seed and its block, so the games are the same whatever the number of workers."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agents.farlight.sealed import MoveBudget
from farlight_env.platform import DEFAULT_GAME
from farlight_env.seeding import derive_seed


@dataclass(frozen=True, slots=True)
class GameSpec:
    """One scheduled game: who sits where and the seed it is played from."""

    index: int
    seed: int
    lineup: tuple[str, ...]
    config: dict[str, Any] = field(default_factory=dict)
    agent_kwargs: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: Lineup label -> agent name for `make` (or an Agent object, copied fresh for the game),
    #: so one agent can sit under two labels (an evaluated ismcts and its ismcts opponents at
    #: another budget); labels key agent_kwargs.
    aliases: dict[str, Any] = field(default_factory=dict)
    #: Lineup labels whose agents play sealed: each from its own process, seeing only its
    #: seat's redacted game (agents.farlight.sealed); such an agent must be given by name or path.
    sealed: tuple[str, ...] = ()
    #: What each decision of a sealed agent may spend (agents.farlight.sealed.MoveBudget); None: no
    #: budget.
    move_budget: MoveBudget | None = None
    #: The game played: a name in the platform's registry (farlight_env.platform).
    game: str = DEFAULT_GAME


def game_seed(tournament_seed: int, block: int) -> int:
    """A seed per block of rotated games, independent of scheduling and workers: 32 bits from
    a published seed, as ever; a wide one (held-out runs) gives wide ones."""
    return derive_seed(tournament_seed, block)


def schedule(
    agents: Sequence[str],
    num_players: int,
    games: int,
    seed: int,
    config: dict[str, Any] | None = None,
    agent_kwargs: dict[str, dict[str, Any]] | None = None,
    sealed: bool = False,
    move_budget: MoveBudget | None = None,
    game: str = DEFAULT_GAME,
) -> list[GameSpec]:
    """Games in blocks of len(agents) rotations sharing one seed (duplicate format).

    In block b, game r seats agents[(seat + r) % A]; over a block every agent sits in every
    seat equally often and meets the same deal. `games` is rounded up to whole blocks.
    With `sealed`, every agent plays sealed (GameSpec.sealed), each decision within
    `move_budget` (GameSpec.move_budget).
    """
    if not agents:
        raise ValueError("a tournament needs at least one agent")
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    count = len(agents)
    blocks = math.ceil(games / count)
    specs = []
    for block in range(blocks):
        seed_b = game_seed(seed, block)
        for rotation in range(count):
            lineup = tuple(agents[(s + rotation) % count] for s in range(num_players))
            specs.append(
                GameSpec(
                    index=block * count + rotation,
                    seed=seed_b,
                    lineup=lineup,
                    config=dict(config or {}, num_players=num_players),
                    agent_kwargs=dict(agent_kwargs or {}),
                    sealed=tuple(dict.fromkeys(agents)) if sealed else (),
                    move_budget=move_budget if sealed else None,
                    game=game,
                )
            )
    return specs


def agent_seed(spec: GameSpec, seat: int) -> int:
    """The seed of the agent at `seat`: as wide as the game's, so a hidden deal's bots do not
    play from a generator small enough to search."""
    return derive_seed(spec.seed, spec.index, seat)
