"""`farlight play --game NAME`: a person plays any game declared to the platform against bots.

Written only against the game's declaration and `State` protocol: the board is the state's
`render_text` as the person's seat sees it, the options are its legal actions named by
`describe_action`, numbered once per decision. Bots' moves are not named (a game's action
may be a hidden choice); the board shows what became public. A finished game's record (the
platform's generic record, replayable with `farlight replay`) is saved at the end.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from farlight_env.platform import Game, State
from farlight_env.platform import aec as platform_aec
from farlight_env.platform.records import build_record
from farlight_env.seeding import derive_seed
from farlight_env.untrusted.files import write_atomic

KEYS = "a number picks an option · Enter: board again · q: quit"


class Quit(Exception):
    """The person asked to stop (q, or end of input)."""


def play(
    game: Game,
    lineup: list[str],
    seat: int,
    seed: int,
    options: dict[str, Any],
    path: Path,
    agent_kwargs: dict[str, dict[str, Any]],
    bot_seed: Any,
) -> int:
    """Play one game of `game`, the person at `seat`, `lineup`'s bots elsewhere; the exit
    status (0 finished or quit, 130 on Ctrl-C)."""
    from agents import make

    env = platform_aec.raw_env(game, num_players=len(lineup), illegal_action="raise", **options)
    bots = {
        s: make(name, seed=bot_seed(seed, s), **agent_kwargs.get(name, {}))
        for s, name in enumerate(lineup)
        if s != seat
    }
    for bot in bots.values():
        bot.reset()
    env.reset(seed=seed)
    names = ", ".join(f"P{s} {'you' if s == seat else n}" for s, n in enumerate(lineup))
    print(f"{game.title}: {len(lineup)} players ({names})")
    print(f"You are P{seat}. {KEYS}")
    try:
        _loop(env, seat, bots)
    except Quit as exc:
        print(f"\n{exc}: the game stops here; no record is saved (the game did not finish)")
        return 0
    except KeyboardInterrupt:
        print("\nfarlight play: interrupted; no record saved", file=sys.stderr)
        return 130
    state: State = env.state
    print()
    print(state.render_text(seat))
    scores = ", ".join(f"P{s} {score:g}" for s, score in enumerate(state.scores()))
    winners = ", ".join(f"P{s}" for s in state.winners())
    print(f"scores: {scores}; won: {winners}")
    record = build_record(game, env, lineup, seed, options, human_seat=seat, finished=True)
    write_atomic(path, (json.dumps(record, indent=1, sort_keys=True) + "\n").encode("utf-8"))
    print(f"game record saved to {path} (seed {seed}; farlight replay {path})")
    return 0


def _loop(env: platform_aec.raw_env, seat: int, bots: dict[int, Any]) -> None:
    for agent in env.agent_iter():
        observed, _reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        acting = env.agent_name_mapping[agent]
        if acting == seat:
            env.step(_ask(env.state, seat))
            continue
        view = env.player_view(agent)
        action = bots[acting].act(
            observed["observation"],
            observed["action_mask"],
            {**info, "seat": acting, "view": view},
        )
        print(f"  P{acting} has played")
        env.step(int(action))


def _ask(state: State, seat: int) -> int:
    """Show the board and the legal actions; read until one is picked (Quit on q or EOF)."""
    legal = state.legal_actions()
    _show(state, seat, legal)
    while True:
        text = read_line(f"Your choice [1-{len(legal)}]: ").lower()
        if text in ("q", "quit", "exit"):
            raise Quit("you quit")
        if not text:
            _show(state, seat, legal)
            continue
        if text.isdigit() and 1 <= int(text) <= len(legal):
            return legal[int(text) - 1]
        print(f"  type a number from 1 to {len(legal)} ({KEYS})")


def _show(state: State, seat: int, legal: list[int]) -> None:
    print()
    print(state.render_text(seat))
    for number, action in enumerate(legal, 1):
        print(f"  {number}. {state.describe_action(action)}")


def read_line(prompt: str) -> str:
    """One line from the person (Quit at end of input); piped input is echoed."""
    print(prompt, end="", flush=True)
    line = sys.stdin.readline()
    if not line:
        print()
        raise Quit("end of input")
    text = line.strip()
    if not sys.stdin.isatty():
        print(text)  # echo piped input so the transcript reads naturally
    return text


def opponent_seed(seed: int, seat: int) -> int:
    """Each bot's seed, derived from the game seed and its seat (as wide as the game's)."""
    return derive_seed(seed, seat)
