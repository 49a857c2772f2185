"""`farlight play`: a person plays Farlight in the terminal against bots.

At each of the person's decisions the board is printed as that seat sees it (`render_ansi`:
opponents' face-down tiles appear as '?'), then the numbered legal actions; a number picks one.
Opponents' moves are announced without their hidden tile values. The game record (the same
format as a tournament's, replayable with `farlight replay`) is saved at the end or on quit.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from farlight_cli.replay_cmd import (
    BiddingWatch,
    action_text,
    move_text,
    outcome_lines,
    picture,
    target_label,
)
from farlight_cli.tournament_cmd import agent_list
from farlight_env import bench
from farlight_env.game import Action, Bid, FarlightGame, Phase, Target, TargetKind

HUMAN = "human"
HELP = "a number picks · /text lists the options containing text · ? board again · q quit"


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "play",
        help="play a game in the terminal against bots",
        description="You sit at --seat; the --opponents fill the other seats in order. At each "
        "of your decisions the board is shown as your seat sees it and the legal actions are "
        "numbered: type a number. The game record is saved at the end (or when you quit) and "
        "can be replayed with `farlight replay`.",
    )
    p.add_argument("--seat", type=bench.non_negative_int, default=0, help="your seat (default 0)")
    p.add_argument(
        "--opponents",
        type=agent_list,
        default=["heuristic"],
        metavar="A,B[,...]",
        help="agents for the other seats in seat order; one name fills them all "
        "(default: heuristic)",
    )
    p.add_argument(
        "--players",
        type=bench.positive_int,
        default=None,
        help="seats in the game, 2..5 (default: 1 + number of opponents)",
    )
    p.add_argument(
        "--seed",
        type=bench.non_negative_int,
        default=None,
        help="game seed (default: a random one, printed)",
    )
    p.add_argument(
        "--record",
        type=Path,
        default=None,
        metavar="PATH",
        help="where to save the game record (default: farlight-game-<seed>.json here)",
    )
    p.add_argument("--max-rounds", type=bench.positive_int, default=50, help="round cap")
    p.add_argument(
        "--ismcts-iterations",
        type=bench.positive_int,
        default=None,
        help="search iterations per ismcts decision (default: the agent's)",
    )
    p.set_defaults(func=run, parser=p)


def run(args: argparse.Namespace) -> int:
    opponents: list[str] = args.opponents
    players = args.players if args.players is not None else 1 + len(opponents)
    if not 2 <= players <= 5:
        args.parser.error(f"argument --players: must be in 2..5, got {players}")
    if len(opponents) == 1:
        opponents = opponents * (players - 1)
    if len(opponents) != players - 1:
        args.parser.error(
            f"argument --opponents: {len(opponents)} agents for {players - 1} opponent seats; "
            f"give {players - 1} names, or one name to fill every seat"
        )
    if args.seat >= players:
        args.parser.error(f"argument --seat: must be in 0..{players - 1}, got {args.seat}")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    path = args.record if args.record is not None else Path.cwd() / f"farlight-game-{seed}.json"
    lineup = list(opponents)
    lineup.insert(args.seat, HUMAN)
    kwargs: dict[str, Any] = {}
    if args.ismcts_iterations is not None:
        kwargs["ismcts"] = {"iterations": args.ismcts_iterations}
    session = Session(lineup, args.seat, seed, args.max_rounds, kwargs)
    return session.play(path)


def opponent_seed(seed: int, seat: int) -> int:
    """Each bot's seed, derived from the game seed and its seat."""
    return int(np.random.SeedSequence([seed, seat]).generate_state(1)[0])


@dataclass
class Option:
    index: int  # the env's action index
    action: Action
    text: str


class Quit(Exception):
    """The person asked to stop (q, or end of input)."""


class Session:
    """One game through the AEC env: the person at `seat`, bots everywhere else."""

    def __init__(
        self,
        lineup: list[str],
        seat: int,
        seed: int,
        max_rounds: int,
        agent_kwargs: dict[str, dict[str, Any]],
    ) -> None:
        from agents import make
        from farlight_env.env.aec import raw_env

        self.lineup = lineup
        self.seat = seat
        self.seed = seed
        self.config = {"num_players": len(lineup), "max_rounds": max_rounds}
        self.env = raw_env(**self.config)
        self.bots = {
            s: make(name, seed=opponent_seed(seed, s), **agent_kwargs.get(name, {}))
            for s, name in enumerate(lineup)
            if s != seat
        }
        for bot in self.bots.values():
            bot.reset()
        n = len(lineup)
        self.think = [0.0] * n
        self.decisions = [0] * n

    @property
    def game(self) -> FarlightGame:
        game = self.env.game
        assert game is not None
        return game

    # ------------------------------------------------------------------ the game loop
    def play(self, path: Path) -> int:
        env = self.env
        env.reset(seed=self.seed)
        names = ", ".join(
            f"P{s} {'you' if s == self.seat else n}" for s, n in enumerate(self.lineup)
        )
        print(f"Farlight: {len(self.lineup)} players ({names}); seed {self.seed}")
        print(f"You are P{self.seat}. At each of your decisions: {HELP}.")
        print(f"\n── round {self.game.round} ──")
        watch = BiddingWatch()
        status = 0
        ended = "finished"
        try:
            for agent in env.agent_iter():
                obs, _reward, terminated, truncated, info = env.last()
                if terminated or truncated:
                    env.step(None)
                    continue
                seat = env.agent_name_mapping[agent]
                start = time.perf_counter()
                if seat == self.seat:
                    index = self.ask(obs["action_mask"])
                else:
                    view = env.player_view(agent)
                    index = self.bots[seat].act(
                        obs["observation"], obs["action_mask"], {**info, "seat": seat, "view": view}
                    )
                self.think[seat] += time.perf_counter() - start
                self.decisions[seat] += 1
                self.step(int(index), seat, watch)
        except Quit as exc:
            ended = str(exc)
        except KeyboardInterrupt:
            print("\ninterrupted")
            ended, status = "interrupted", 130
        game = self.game
        if game.is_over:
            print()
            print(picture(game, self.seat))
        else:
            print(f"\n{ended}: the game stops here")
        for line in outcome_lines(game, self.lineup):
            print(line)
        self.save(path)
        return status

    def step(self, index: int, seat: int, watch: BiddingWatch) -> None:
        game = self.game
        action = self.env.codec.decode(index, game)
        round_before = game.round
        if seat == self.seat:
            print(f"  You: {action_text(game, action)}")
        else:
            print(f"  {move_text(game, seat, action, self.seat)}")
        watch.before(game, action)
        self.env.step(index)
        for line in watch.after(game):
            print(line)
        if game.round != round_before and not game.is_over:
            print(f"\n── round {game.round} ──")

    def save(self, path: Path) -> None:
        from farlight_env.record import build_record, save_record

        game = self.game
        record = build_record(
            game,
            self.lineup,
            self.seed,
            self.config,
            human_seat=self.seat,
            finished=game.is_over,
            timing={"seconds": self.think, "decisions": self.decisions},
        )
        save_record(record, path)
        print(f"game record saved to {path}")
        print(f"replay it with: farlight replay {path}")

    # ------------------------------------------------------------------ the person
    def ask(self, mask: np.ndarray) -> int:
        """Show the board and the options; read until a valid choice (Quit on q or EOF)."""
        options = self.options(mask)
        self.show(options)
        k = len(options)
        while True:
            print(f"Your choice [1-{k}]: ", end="", flush=True)
            line = sys.stdin.readline()
            if not line:
                print()
                raise Quit("end of input")
            text = line.strip()
            if not sys.stdin.isatty():
                print(text)  # echo piped input so the transcript reads naturally
            if text.lower() in ("q", "quit", "exit"):
                raise Quit("you quit")
            if text == "?":
                self.show(options)
                continue
            if text.startswith("/"):
                self.filter(options, text[1:].strip())
                continue
            if not text:
                print(f"  nothing typed: enter a number from 1 to {k} ({HELP})")
                continue
            try:
                choice = int(text)
            except ValueError:
                print(f"  {text!r} is not a number: enter a number from 1 to {k} ({HELP})")
                continue
            if not 1 <= choice <= k:
                print(f"  {choice} is out of range: enter a number from 1 to {k}")
                continue
            return options[choice - 1].index

    def options(self, mask: np.ndarray) -> list[Option]:
        game = self.game
        env = self.env
        out = []
        for index in np.flatnonzero(mask):
            action = env.codec.decode(int(index), game)
            text = action_text(game, action) if isinstance(action, Bid) else None
            out.append(Option(int(index), action, text or env.describe_action(int(index))))
        if game.phase is Phase.BIDDING:
            slot = game.target_slot
            out.sort(key=lambda o: (slot[o.action.target], o.action.tile, o.action.crew))
        return out

    def show(self, options: list[Option]) -> None:
        game = self.game
        print()
        print(picture(game, self.seat), end="")
        print(f"Your decision, P{self.seat} (round {game.round}, {game.phase.value}):")
        if game.phase is Phase.BIDDING:
            self.show_bids(options)
        else:
            for number, option in enumerate(options, 1):
                print(f"  {number:>3}) {option.text}")
        print(f"  ({HELP})")

    def show_bids(self, options: list[Option]) -> None:
        """Bids grouped by target, one row each: number:tile, 'c' for a crew on the tile."""
        game = self.game
        hand = " ".join(str(t) for t in sorted(game.hands[self.seat]))
        print(
            f"  place a tile: number:tile, 'c' = with one crew on it "
            f"(your tiles {hand}; crew {game.crew[self.seat]})"
        )
        rows: dict[Target, list[str]] = {}
        for number, option in enumerate(options, 1):
            bid = option.action
            assert isinstance(bid, Bid)
            cell = f"{number}:{bid.tile}{'c' if bid.crew else ''}"
            rows.setdefault(bid.target, []).append(f"{cell:<6}")
        for target, cells in rows.items():
            print(f"  {_short_label(game, target):<30} {' '.join(cells).rstrip()}")

    def filter(self, options: list[Option], text: str) -> None:
        needle = text.casefold()
        hits = [(n, o) for n, o in enumerate(options, 1) if needle in o.text.casefold()]
        if not hits:
            print(f"  no option contains {text!r}; enter a number from 1 to {len(options)}")
            return
        for number, option in hits:
            print(f"  {number:>3}) {option.text}")


def _short_label(game: FarlightGame, target: Target) -> str:
    if target.kind is TargetKind.PART:
        part = game.spaces[target.index]
        name = "empty" if part is None else game.cards.parts[part].name
        return f"space {target.index:>2} {name}"[:30]
    if target.kind is TargetKind.FACILITY:
        return target_label(game, target)[:30]
    stack = game.stacks[target.index]
    name = game.cards.missions[stack[0]].name if stack else "empty"
    return f"mission {target.index} {name}"[:30]
