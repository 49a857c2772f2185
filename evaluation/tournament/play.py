"""One scheduled game played through the PettingZoo env exactly as users would; its record."""

from __future__ import annotations

import copy
from typing import Any

from agents.farlight.sealed import SealedAgent
from agents.registry import make
from evaluation.arena import play_episode
from evaluation.tournament.scheduling import GameSpec, agent_seed
from farlight_env.platform import Game, GameError, get_game
from farlight_env.platform.aec import play_env
from farlight_env.platform.records import build_record


class GameFailure(RuntimeError):
    """A game that could not be played to its end: names the game, the seat and the agent."""


def _failure(spec: GameSpec, seat: int | None, exc: BaseException) -> GameFailure:
    first = str(exc).splitlines()[0] if str(exc) else ""
    who = f"seat {seat} ({spec.lineup[seat]})" if seat is not None else "setting up"
    return GameFailure(f"game {spec.index}, {who}: {type(exc).__name__}: {first}")


def play_game(spec: GameSpec) -> dict[str, Any]:
    """Play one scheduled game of `spec.game` through the env its declaration names (the
    platform's generic one where it names none); returns its record (JSON-able). An agent
    that raises (or plays an illegal move) ends the game with a GameFailure naming it. The
    labels in `spec.sealed` play from their own processes (agents.farlight.sealed); the record then
    says `"sealed": true`, which seats were, and how many decisions of each seat were
    forfeited for going over `spec.move_budget`."""
    building: int | None = None  # the seat whose agent is being made, if any
    game = get_game(spec.game)
    env = play_env(game, spec.config)
    env.reset(seed=spec.seed)
    think = [0.0] * len(spec.lineup)
    cpu = [0.0] * len(spec.lineup)
    decisions = [0] * len(spec.lineup)
    seats: list[Any] = []

    def count(seat: int, _action: int, seconds: float, cpu_seconds: float) -> None:
        think[seat] += seconds
        # a sealed agent thinks in its child: the parent reads the child's CPU from /proc
        cpu[seat] += cpu_seconds + getattr(seats[seat], "last_cpu_seconds", 0.0)
        decisions[seat] += 1

    try:
        for building, name in enumerate(spec.lineup):  # noqa: B007 - named in a failure
            seats.append(_make_seat(spec, building, name, game, env))
            seats[-1].reset()
        building = None
        play_episode(env, seats, count)
    except Exception as exc:  # noqa: BLE001 - any agent error ends the tournament by name
        seat = building if building is not None else env.agent_name_mapping.get(env.agent_selection)
        raise _failure(spec, seat, exc) from exc
    finally:
        for agent in seats:
            if isinstance(agent, SealedAgent):
                agent.close()
    sealed = [s for s, name in enumerate(spec.lineup) if name in spec.sealed]
    # decisions of each seat played by the fallback for going over the move budget
    forfeits = [getattr(agent, "forfeits", 0) for agent in seats]
    # the game's record format (Farlight's: record.py, card set included when not standard)
    return build_record(
        game,
        env,
        spec.lineup,
        spec.seed,
        spec.config,
        index=spec.index,
        timing={"seconds": think, "cpu_seconds": cpu, "decisions": decisions},
        **({"sealed": True, "sealed_seats": sealed, "forfeits": forfeits} if sealed else {}),
    )


def _make_seat(spec: GameSpec, seat: int, name: str, game: Game, env: Any) -> Any:
    """The agent for `seat` under lineup label `name`: made, copied, or sealed."""
    target = spec.aliases.get(name, name)
    kwargs = spec.agent_kwargs.get(name, {})
    if name in spec.sealed:
        if not isinstance(target, str):
            raise ValueError("a sealed agent must be given by name or saved-policy path")
        if game.sealed_content is None:
            raise GameError(f"{game.name} cannot be played sealed")
        content = game.sealed_content(env)
        return SealedAgent(target, agent_seed(spec, seat), content, spec.move_budget, **kwargs)
    if isinstance(target, str):
        agent = make(target, seed=agent_seed(spec, seat), **kwargs)
    else:
        agent = copy.deepcopy(target)
    check = getattr(agent, "check_game", None)  # a policy of one game (#50) refuses others
    if callable(check):
        check(game.name, len(spec.lineup))
    return agent
