"""Holding a round's reset (R-RESET): search evaluates a round's end before the next round's
draws and dice, which change no score; the held game goes on exactly as an unheld one.

Every game here is played by heuristics with fixed seeds, under several rule options and round
caps, so each of the reset's endings (R-RESET-1 climactic, R-RESET-3 deck, R-RESET-6 round
cap) and its ordinary next round are met.
"""

from __future__ import annotations

import pytest

from agents.farlight.heuristic import HeuristicAgent
from agents.farlight.ismcts import ISMCTSAgent, evaluate
from farlight_env.game import FarlightGame, IllegalActionError
from farlight_env.game.hidden import PlayerView

GAMES = [(n, seed, rounds) for n in (2, 3, 4, 5) for seed in (0, 1) for rounds in (2, 12)]


def play_round(game: FarlightGame, policy: HeuristicAgent) -> list:
    """Play until the round's reset is held (or the game ends); the actions taken."""
    actions = []
    while not game.is_over and game.current_player is not None:
        action = policy.choose(game, game.current_player)
        game.apply(action)
        actions.append(action)
    return actions


@pytest.mark.parametrize(("players", "seed", "rounds"), GAMES)
def test_r_reset_1_3_6_a_held_reset_ends_the_game_exactly_when_releasing_it_does(
    players: int, seed: int, rounds: int
) -> None:
    """R-RESET: at each held reset no one acts; `reset_ends_game` says whether the release
    ends the game, and after it the game equals the same game played without holds."""
    held = FarlightGame(players, seed=seed, max_rounds=rounds)
    plain = held.clone()
    policy = HeuristicAgent(seed)
    endings = 0
    while not held.is_over:
        held.hold_round_reset = True
        start = held.round
        for action in play_round(held, policy):
            plain.apply(action)
        if held.is_over:  # ended inside the round: nothing was held
            break
        assert held.round_reset_held and held.round == start
        assert held.current_player is None and held.legal_actions() == []
        with pytest.raises(IllegalActionError):
            held.apply(plain.legal_actions()[0] if plain.legal_actions() else None)
        ends = held.reset_ends_game()
        held.release_round_reset()
        assert not held.round_reset_held and not held.hold_round_reset
        assert held.is_over == ends
        endings += ends
        assert held.to_json() == plain.to_json()
    assert plain.is_over and held.to_json() == plain.to_json()
    assert endings <= 1


def test_a_held_game_saves_as_it_goes_on() -> None:
    """A save rests between actions: a held game saves (JSON or GameState) as the game after
    its reset, loads, and is itself left held."""
    held = FarlightGame(3, seed=3)
    plain = held.clone()
    held.hold_round_reset = True
    for action in play_round(held, HeuristicAgent(3)):
        plain.apply(action)
    assert held.round_reset_held
    assert held.to_json() == plain.to_json()
    assert FarlightGame.from_json(held.to_json()).to_json() == plain.to_json()
    assert held.to_state() == plain.to_state()
    assert held.round_reset_held and held.current_player is None


def test_copies_carry_no_hold_and_no_watcher() -> None:
    """A hold or an `on_forced` watcher belongs to the game it was set on, not to its copies."""
    game = FarlightGame(3, seed=4)
    game.hold_round_reset = True
    game.on_forced = lambda g, action: None
    copy = game.clone()
    assert copy.hold_round_reset is False and copy.on_forced is None
    assert game.hold_round_reset is True and game.on_forced is not None


@pytest.mark.parametrize("players", [2, 3, 4])
def test_evaluation_at_a_held_reset_equals_after_it(players: int) -> None:
    """ismcts scores its play-outs at the held reset: the same values as after the reset, so
    holding changes no search decision (the golden positions check the decisions too)."""
    policy, checked = HeuristicAgent(7), 0
    for seed in range(3):
        game = FarlightGame(players, seed=seed)
        while not game.is_over:
            game.hold_round_reset = True
            play_round(game, policy)
            if game.is_over:
                break
            if not game.reset_ends_game():
                before = evaluate(game, policy)
                game.release_round_reset()
                assert evaluate(game, policy) == before
                checked += 1
            else:
                game.release_round_reset()
    assert checked >= 10


def test_search_play_outs_stop_at_the_held_reset() -> None:
    """The play-outs of one search end held (or over), and the searched game is untouched."""
    game = FarlightGame(4, seed=2)
    snapshot = game.to_json()
    ends = []
    agent = ISMCTSAgent(seed=0, iterations=12)
    rollout = agent._rollout

    def watched(copy: FarlightGame) -> list[float]:
        values = rollout(copy)
        ends.append(copy.round_reset_held or copy.is_over)
        return values

    agent._rollout = watched  # type: ignore[method-assign]
    agent.search(PlayerView(game, game.current_player))
    assert ends and all(ends)
    assert game.to_json() == snapshot and not game.hold_round_reset
