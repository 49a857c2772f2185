"""Every cached value agrees with a fresh computation after every action.

Caches key on change stamps (seat, board, ship and bid stamps, `bid_log`), which
`farlight_env/game/changes.py` renews as it writes the facts they cover. Random games of
2-5 players, with clones (which share ship stamps through their transitions) and
determinizations branching off, are compared after every action with a copy rebuilt from
the saved game (`from_json(to_json())`: new stamps, nothing cached): legal actions and masks, the
observation of every seat from one long-lived encoder, the engine's stamp-keyed queries
(connectors, engines, legal cells) and the heuristic agent's stamp-keyed bid gains. A
static check keeps the rules from writing a covered fact or a stamp themselves.
"""

from __future__ import annotations

import ast
import dataclasses
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.farlight.heuristic import HeuristicAgent
from farlight_env.encode.codec import ActionCodec
from farlight_env.encode.observation import ObservationEncoder
from farlight_env.game import FarlightGame, Phase
from farlight_env.game import ship as ship_geometry
from farlight_env.game.hidden import determinize

GAME = Path(__file__).resolve().parents[1] / "farlight_env" / "game"

#: Facts a change stamp covers, and the stamps: written only in changes.py.
COVERED = {
    *("crew", "science", "points", "hands", "temp_biotech", "pending"),
    *("spaces", "bonus", "deck", "awards_up", "stacks", "missions_out"),
    *("ships", "ship_parts", "engine_values", "out_of_game", "bids", "bid_log"),
    *("seat_stamps", "board_stamp", "ship_stamps", "bid_stamp"),
}
MUTATORS = {"append", "remove", "pop", "sort", "extend", "insert", "clear", "update"}
#: Modules whose rules act during play; setup deals a new game (every stamp new after it).
RULES = (
    "game.py",
    "scoring.py",
    "queries.py",
    "legal.py",
    *(f"phases/{p.name}" for p in (GAME / "phases").glob("*.py") if p.name != "setup.py"),
)


class Caches:
    """Long-lived cache holders, shared by every game of a test, as in a training run."""

    def __init__(self, game: FarlightGame) -> None:
        self.encoder = ObservationEncoder(game.cards, game.config.grid_size)
        self.codec = ActionCodec(game.cards, game.config.grid_size)
        self.agent = HeuristicAgent(seed=0)
        self.checked = 0

    def check(self, game: FarlightGame) -> None:
        fresh = FarlightGame.from_json(game.to_json())
        assert fresh.to_json() == game.to_json()
        assert game.legal_actions() == fresh.legal_actions()
        assert game.legal_actions_set() == fresh.legal_actions_set()
        assert all(game.is_legal(a) for a in fresh.legal_actions())
        codec = ActionCodec(fresh.cards, fresh.config.grid_size)
        assert np.array_equal(self.codec.mask(game), codec.mask(fresh))
        encoder = ObservationEncoder(fresh.cards, fresh.config.grid_size)
        for seat in range(game.num_players):
            assert np.array_equal(self.encoder.encode(game, seat), encoder.encode(fresh, seat)), (
                f"observation of seat {seat}"
            )
            self.check_queries(game, seat)
        if game.phase is Phase.BIDDING:
            seat = game.current_player
            assert np.array_equal(
                self.agent.slot_gains(game, seat), HeuristicAgent(seed=0).slot_gains(fresh, seat)
            )
        self.checked += 1

    @staticmethod
    def check_queries(game: FarlightGame, seat: int) -> None:
        """The engine's stamp-keyed queries against their definitions, computed afresh."""
        parts, ship = game.cards.parts, game.ships[seat]
        assert game.connectors(seat) == game.count_connectors(dict(ship)), f"connectors {seat}"
        engines = [
            (r, game.engine_values[r]) for p in game.ship_parts[seat] for r in parts[p].engines
        ]
        assert game.engines(seat) == engines, f"engines {seat}"
        for part in game.pending[seat]:
            mask = game.part_masks[part]
            cells = ship_geometry.legal_cells(ship, game.part_masks, mask, game.half)
            assert game.legal_cells(seat, part) == cells, f"cells of {part} for {seat}"
            assert game.can_install(seat, part) == bool(cells)


def play(game: FarlightGame, rng: random.Random, steps: int, caches: Caches) -> None:
    for _ in range(steps):
        if game.is_over:
            return
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(len(legal))])
        caches.check(game)


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_cached_values_match_a_fresh_copy_after_every_action(num_players: int) -> None:
    caches = Caches(FarlightGame(num_players, seed=0))
    for seed in range(1):
        rng = random.Random(seed)
        game = FarlightGame(num_players, seed=seed)
        caches.check(game)
        while not game.is_over:
            play(game, rng, rng.randrange(1, 30), caches)
            if game.is_over:
                break
            chance = np.random.default_rng(rng.randrange(1 << 30))
            if rng.random() < 0.3:  # a clone with its own chance branches off and plays on
                branch = game.clone(rng=chance)
                play(branch, random.Random(rng.random()), rng.randrange(1, 40), caches)
            elif rng.random() < 0.2:  # so does one seat's determinization (search's copies)
                branch = determinize(game, game.current_player, chance)
                caches.check(branch)
                play(branch, random.Random(rng.random()), rng.randrange(1, 40), caches)
    assert caches.checked > 200


def _writes(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, what) for every write of a covered fact or stamp, and every `new_stamp` call."""

    def covered(node: ast.AST) -> str | None:
        while isinstance(node, ast.Subscript):
            node = node.value
        if isinstance(node, ast.Attribute) and node.attr in COVERED:
            return node.attr
        return None

    found = []
    for node in ast.walk(tree):
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        elif isinstance(node, ast.Delete):
            targets = node.targets
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in MUTATORS:
                targets = [node.func.value]
            if node.func.attr == "new_stamp":
                found.append((node.lineno, "new_stamp()"))
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "new_stamp"
        ):
            found.append((node.lineno, "new_stamp()"))
        for target in targets:
            for part in ast.walk(target) if isinstance(target, ast.Tuple) else [target]:
                name = covered(part)
                if name is not None:
                    found.append((node.lineno, name))
    return found


@pytest.mark.parametrize("module", RULES)
def test_rules_write_covered_facts_only_through_changes(module: str) -> None:
    """A rule cannot forget a stamp: it never writes a covered fact or a stamp itself."""
    tree = ast.parse((GAME / module).read_text(encoding="utf-8"))
    assert _writes(tree) == []


def test_the_static_check_sees_writes() -> None:
    source = (
        "g.crew[p] += 1\ng.hands[p].remove(t)\ndel g.engine_values[r]\ng.board_stamp = new_stamp()"
    )
    assert [what for _, what in sorted(_writes(ast.parse(source)))] == [
        "crew",
        "hands",
        "engine_values",
        "board_stamp",
        "new_stamp()",
    ]


def test_the_state_class_types_every_declared_field() -> None:
    """`State` (which `FarlightGame` is) types every saved field and every cache, in order."""
    from farlight_env.game.state import DERIVED, FIELDS, GameState, State

    declared = [f.name for f in FIELDS] + [name for name, _, _ in DERIVED]
    assert list(State.__annotations__) == declared
    assert issubclass(FarlightGame, State)
    assert all(f.type is not Any for f in dataclasses.fields(GameState))


@pytest.mark.parametrize("module", sorted(str(p.relative_to(GAME)) for p in GAME.rglob("*.py")))
def test_no_module_writes_a_private_field_of_another(module: str) -> None:
    """Only game.py writes the game's private attributes (its generator); the rules write
    the state's public fields."""
    if module == "game.py":
        return
    path = GAME / module
    writes = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            for part in ast.walk(target):
                if (
                    isinstance(part, ast.Attribute)
                    and part.attr.startswith("_")
                    and not part.attr.startswith("__")
                    and not (isinstance(part.value, ast.Name) and part.value.id == "self")
                ):
                    writes.append((node.lineno, part.attr))
    assert writes == []
