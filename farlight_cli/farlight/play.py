"""Farlight in the terminal (`farlight play`): a person at one seat, bots at the others, through
the AEC env. A compact board that fits 80x24 as that seat sees it at each of its decisions (`b`
the full board); bids typed as a target letter and a tile, other decisions numbered; the record
saved at the end, on quit or on Ctrl-C."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from farlight_cli.farlight import board
from farlight_cli.farlight.text import action_text, event_lines, move_text, outcome_lines, picture
from farlight_cli.play_platform import Quit, opponent_seed, read_line
from farlight_env.game import Action, Bid, FarlightGame, Phase
from farlight_env.seeding import is_wide

KEYS_HELP = "Enter: board again · b: full board · /text: find options · q: quit"


BID_HELP = "type a target letter and a tile, e.g. c3 (c3+ puts a crew on it)"


def say(text: str = "") -> None:
    """Print `text`, each of its lines wrapped at spaces to the terminal's 80 columns."""
    for line in text.split("\n"):
        for part in board.wrap(line):
            print(part)


@dataclass
class Option:
    index: int  # the env's action index
    action: Action
    text: str


class Session:
    """One game through the AEC env: the person at `seat`, bots everywhere else."""

    def __init__(
        self,
        lineup: list[str],
        seat: int,
        seed: int,
        game_config: dict[str, Any],
        agent_kwargs: dict[str, dict[str, Any]],
    ) -> None:
        from agents import make
        from farlight_env.env.aec import raw_env

        self.lineup = lineup
        self.seat = seat
        self.seed = seed
        self.config = {"num_players": len(lineup), **game_config}
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
        shown = "drawn secretly, shown at the end" if is_wide(self.seed) else self.seed
        say(f"Farlight: {len(self.lineup)} players ({names})")
        say(f"seed {shown}")
        changed = self.game.config.rule_options.changed()
        if changed:
            say("rule options: " + ", ".join(f"{k}={v}" for k, v in changed.items()))
        say(f"You are P{self.seat}. At each of your decisions:\n  {KEYS_HELP}")
        say(f"\n── round {self.game.round} ──")
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
                self.step(int(index), seat)
        except Quit as exc:
            ended = str(exc)
        except KeyboardInterrupt:
            self.save(path, quiet=True)
            print(f"\nfarlight play: interrupted; game record saved to {path}", file=sys.stderr)
            return 130
        game = self.game
        if game.is_over:
            print()
            print(picture(game, self.seat))
        else:
            say(f"\n{ended}: the game stops here")
        for line in outcome_lines(game, self.lineup):
            say(line)
        if is_wide(self.seed):
            say(f"seed {self.seed}\n(play the same deal again with --seed {self.seed})")
        self.save(path)
        return status

    def step(self, index: int, seat: int) -> None:
        game = self.game
        action = self.env.codec.decode(index, game)
        round_before = game.round
        if seat == self.seat:
            say(f"  You: {action_text(game, action)}")
        else:
            say(f"  {move_text(game, seat, action, self.seat)}")
        happened = event_lines(game, action)
        self.env.step(index)
        for line in happened:
            say(line)
        if game.round != round_before and not game.is_over:
            say(f"\n── round {game.round} ──")

    def save(self, path: Path, quiet: bool = False) -> None:
        from farlight_env.platform.records import save_record
        from farlight_env.records.record import build_record

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
        if quiet:
            return
        print(f"game record saved to {path}")  # whole, to copy: a long path passes 80 columns
        print(f"replay it with: farlight replay {path}")

    # ------------------------------------------------------------------ the person
    def ask(self, mask: np.ndarray) -> int:
        """Show the board and the options; read until a valid choice (Quit on q or EOF)."""
        options = self.options(mask)
        bidding = self.game.phase is Phase.BIDDING
        self.show(options)
        while True:
            prompt = "Your bid" if bidding else f"Your choice [1-{len(options)}]"
            text = self.read(f"{prompt} (? help): ")
            lowered = text.lower()
            if lowered in ("q", "quit", "exit"):
                if self.confirm_quit():
                    raise Quit("you quit")
                continue
            if lowered == "?":
                say(f"  {BID_HELP if bidding else 'a number picks an option'}\n  {KEYS_HELP}")
                continue
            if lowered == "b":
                print(picture(self.game, self.seat), end="")
                continue
            if not text:
                self.show(options)
                continue
            if text.startswith("/"):
                self.filter(options, text[1:].strip())
                continue
            picked = self.parse_bid(text, options) if bidding else self.parse_number(text, options)
            if picked is not None:
                return picked

    def read(self, prompt: str) -> str:
        """One line from the person (Quit at end of input); piped input is echoed."""
        return read_line(prompt)

    def confirm_quit(self) -> bool:
        answer = self.read("Abandon this game? The record is saved. [y/N] ").lower()
        return answer in ("y", "yes")

    def parse_number(self, text: str, options: list[Option]) -> int | None:
        try:
            choice = int(text)
        except ValueError:
            say(f"  {text!r} is not a number: enter 1 to {len(options)} (? for help)")
            return None
        if not 1 <= choice <= len(options):
            say(f"  {choice} is out of range: enter 1 to {len(options)}")
            return None
        return options[choice - 1].index

    def parse_bid(self, text: str, options: list[Option]) -> int | None:
        """'c3', 'c 3', 'c3+' or 'c3c' (crew on the tile) to the legal bid's index."""
        game = self.game
        compact = text.replace(" ", "").replace(":", "").lower()
        crew = compact.endswith(("+", "c")) and len(compact) >= 3
        body = compact[:-1] if crew else compact
        letters = board.TARGET_LETTERS[: len(game.targets)]
        if len(body) != 2 or body[0] not in letters or not body[1].isdigit():
            say(f"  {text!r}: {BID_HELP}; targets a-{letters[-1]}")
            return None
        target = game.targets[letters.index(body[0])]
        tile = int(body[1])
        for option in options:
            bid = option.action
            assert isinstance(bid, Bid)
            if bid.target == target and bid.tile == tile and bid.crew == crew:
                return option.index
        hand = " ".join(str(t) for t in sorted(game.hands[self.seat]))
        tiles = {bid.tile for o in options if isinstance(bid := o.action, Bid)}
        if tile not in tiles:
            say(f"  you have no tile {tile} to place (your tiles: {hand})")
        elif crew:
            say(f"  cannot put a crew on that tile (crew left: {game.crew[self.seat]})")
        else:
            say(f"  {body[0]} takes no bid now: choose another target")
        return None

    def options(self, mask: np.ndarray) -> list[Option]:
        """The legal actions in the env's index order: numbered once for the whole decision."""
        game = self.game
        env = self.env
        out = []
        for index in np.flatnonzero(mask):
            action = env.codec.decode(int(index), game)
            text = action_text(game, action) if isinstance(action, Bid) else None
            out.append(Option(int(index), action, text or env.describe_action(int(index))))
        return out

    def show(self, options: list[Option]) -> None:
        """The compact board, then the options: together they fit an 80x24 terminal."""
        for line in self.screen(options):
            print(line)

    def screen(self, options: list[Option]) -> list[str]:
        game = self.game
        lines = [""] + board.compact_board(game, self.seat)
        if game.phase is Phase.BIDDING:
            lines.append(f"Your bid, P{self.seat}: {BID_HELP}")
            lines.append(f"  ({KEYS_HELP})")
            return [board.clip(line, board.WIDTH) for line in lines]
        selected = game.selected_part() if game.current_player == self.seat else None
        title = [f"Your decision ({game.phase.value}):"]
        texts = [option.text for option in options]
        if selected is not None:
            name = game.cards.parts[selected].name
            title.append(f"  part: {name}")
            texts = [text.replace(f"install {name} at", "install at") for text in texts]
        numbered = [f"{n:>2}) {text}" for n, text in enumerate(texts, 1)]
        ship = board.ship_map(game, self.seat)
        left = ["your ship:", *ship]
        legend = board.ship_legend(game, self.seat)  # full width, below ship and options
        room = board.HEIGHT - len(lines) - 1 - len(legend)
        right = title + numbered
        if len(right) > room:  # two columns of options, without the ship, when one is too tall
            legend = []
            room = board.HEIGHT - len(lines) - 1
            per = room - len(title)
            first, second = numbered[:per], numbered[per:]
            width = max(len(x) for x in first) + 2
            right = title + [
                board.clip(a, 38).ljust(min(width, 40)) + (board.clip(b, 38) if b else "")
                for a, b in zip(first, [*second, *[""] * len(first)], strict=False)
            ]
            left = []
        lines += board.beside(left, right) if left else right
        lines += legend
        lines.append(f"  ({KEYS_HELP})")
        return [board.clip(line, board.WIDTH) for line in lines]

    def filter(self, options: list[Option], text: str) -> None:
        needle = text.casefold()
        hits = [(n, o) for n, o in enumerate(options, 1) if needle in o.text.casefold()]
        if not hits:
            say(f"  no option contains {text!r}")
            return
        for number, option in hits:
            say(f"  {number:>3}) {option.text}")
