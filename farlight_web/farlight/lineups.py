"""Who plays a new browser game, checked before anything is built: the seats (humans, the
creator's, the bots of the others), the seed and the game's options. Farlight's options are
fields of the body (`schemas.NewGame`) checked by GameConfig; any other registered game's come
as `"options": {...}`, checked by its declaration (#50), and its bots are the agents that
play any game (`platform_tables.PLATFORM_AGENTS`). `catalog` is what /api/options says of
the games."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from farlight_env.game.config import OFFERED_OPTIONS, ConfigError, GameConfig
from farlight_env.game.rules_options import RuleOptionError
from farlight_env.platform import Game, GameError, game_names, get_game
from farlight_env.platform.registry import DEFAULT_GAME
from farlight_web.bots import POLICY_FOLDER, WEB_MAX_ITERATIONS, opponent_problem, policy_names
from farlight_web.farlight.schemas import NewGame, new_game_options
from farlight_web.platform_tables import PLATFORM_AGENTS
from farlight_web.schemas import BodyError
from farlight_web.seats import HUMAN
from farlight_web.seeding import server_seed

Lineup = tuple[list[str], int, int, dict[str, Any]]


def chosen_game(spec: NewGame) -> Game | None:
    """The declaration of the body's `game` when it is not Farlight (None: Farlight);
    BodyError naming the known games for an unknown name."""
    name = spec.game if spec.game is not None else DEFAULT_GAME
    if name == DEFAULT_GAME:
        if spec.options is not None:
            raise BodyError(
                "options: Farlight's options are fields of the body (grid_size, max_rounds, "
                'rule_options, ...); "options" is for other games'
            )
        return None
    try:
        return get_game(name)
    except GameError as exc:
        raise BodyError(str(exc)) from None


def _seats(spec: NewGame) -> tuple[list[int], int]:
    """The human seats and the creator's, checked against the player count."""
    humans = sorted(set(spec.humans if spec.humans is not None else [spec.seat or 0]))
    seat = spec.seat if spec.seat is not None else humans[0]
    if any(h >= spec.players for h in humans) or seat >= spec.players:
        raise BodyError(
            f"seat must be 0..{spec.players - 1}, got {seat if seat >= spec.players else humans}"
        )
    if seat not in humans:
        raise BodyError(f"seat {seat} (yours) must be one of the human seats {humans}")
    return humans, seat


def _opponents(spec: NewGame, bots: int, default: str) -> list[str]:
    """One agent name per bot seat (one name given fills them all)."""
    opponents = list(spec.opponents) if spec.opponents is not None else [default]
    if len(opponents) == 1:
        opponents = opponents * bots
    if len(opponents) != bots:
        raise BodyError(
            f"opponents: {len(opponents)} agents for {bots} opponent seats; give "
            f"{bots} names, or one name to fill every seat"
        )
    return opponents


def _seed(spec: NewGame, humans: list[int], hidden: str = "the hidden facts") -> int:
    if spec.seed is not None and len(humans) > 1:
        raise BodyError(
            "seed: a game with several humans gets a random seed (whoever chose it could "
            f"predict {hidden})"
        )
    return spec.seed if spec.seed is not None else server_seed()


def _seated(humans: list[int], opponents: list[str], players: int) -> list[str]:
    bots_left = iter(opponents)
    return [HUMAN if s in humans else next(bots_left) for s in range(players)]


def farlight_lineup(spec: NewGame, policies: Path) -> Lineup:
    """The seat lineup (humans at spec.humans, the creator at spec.seat), the creator's seat,
    the seed and the game options, checked. A saved policy is named relative to
    --data/policies; no other file can be named."""
    from agents.registry import AGENT_NAMES

    humans, seat = _seats(spec)
    opponents = _opponents(spec, spec.players - len(humans), "heuristic")
    problems = [opponent_problem(name, policies) for name in dict.fromkeys(opponents)]
    problems = [p for p in problems if p]
    if problems:
        mine = policy_names(policies)
        shown = ", ".join(mine[:10]) + (", ..." if len(mine) > 10 else "") or "none yet"
        raise BodyError(
            f"{problems[0]}; choose from {', '.join(AGENT_NAMES)}, ismcts@N (N <= "
            f"{WEB_MAX_ITERATIONS}) or a policy in --data/{POLICY_FOLDER} ({shown})"
        )
    seed = _seed(spec, humans, "the deck and the face-down awards")
    config = new_game_options(spec)
    try:
        GameConfig.from_options(num_players=spec.players, **config)
    except (ConfigError, RuleOptionError) as exc:
        raise BodyError(str(exc)) from None
    return _seated(humans, opponents, spec.players), seat, seed, config


def platform_lineup(spec: NewGame, game: Game) -> Lineup:
    """The same for another game: its players and options checked by its declaration, its
    bots among the agents that play any game; Farlight's own fields are refused by name."""
    given = [name for name in OFFERED_OPTIONS if getattr(spec, name) not in (None, {})]
    if given:
        known = ", ".join(o.name for o in game.options) or "none"
        raise BodyError(
            f"{given[0]}: Farlight's option, not {game.name}'s; give {game.name}'s options "
            f'as "options": {{...}} (its options are {known})'
        )
    try:
        game.check_players(spec.players)
        options = game.checked_options(spec.options)
    except GameError as exc:
        raise BodyError(str(exc)) from None
    humans, seat = _seats(spec)
    opponents = _opponents(spec, spec.players - len(humans), PLATFORM_AGENTS[0])
    for name in opponents:
        if name not in PLATFORM_AGENTS:
            shown = name if len(name) <= 80 else name[:77] + "..."
            raise BodyError(
                f"{shown} cannot play {game.name}; choose from {', '.join(PLATFORM_AGENTS)}"
            )
    return _seated(humans, opponents, spec.players), seat, _seed(spec, humans), options


def _plain(value: Any) -> Any:
    try:
        return msgspec.to_builtins(value)
    except TypeError:
        return str(value)


def catalog() -> list[dict[str, Any]]:
    """Every game a new game may name (those whose declaration loads): its title, player
    bounds, options (name, default, help) and the agents that can take its other seats."""
    from agents.registry import AGENT_NAMES

    games = []
    for name in game_names():
        try:
            game = get_game(name)
        except GameError:
            continue  # an installed entry point that does not load: not offered
        games.append(
            {
                "name": game.name,
                "title": game.title,
                "players": [game.min_players, game.max_players],
                "options": [
                    {"name": o.name, "default": _plain(o.default), "help": o.help}
                    for o in game.options
                ],
                "agents": list(AGENT_NAMES if name == DEFAULT_GAME else PLATFORM_AGENTS),
            }
        )
    return games
