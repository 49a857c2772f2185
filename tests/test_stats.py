"""Random-play statistics: reproducible from the seed, and counts that add up."""

from __future__ import annotations

import math

import pytest

from farlight_env.measure.tables import format_seat_table
from farlight_env.tools.stats import (
    END_REASONS,
    GameSummary,
    format_table,
    play_random_game,
    random_play_stats,
    summarise,
)

DEFAULT_MAX_ROUNDS = 50  # R-RESET-6


def _check_summary(s: GameSummary, max_rounds: int = DEFAULT_MAX_ROUNDS) -> None:
    assert s.end_reason in END_REASONS
    assert 1 <= s.rounds <= max_rounds
    assert len(s.scores) == s.num_players
    assert s.winners, "a finished game has at least one winner"
    assert len(set(s.winners)) == len(s.winners)
    assert all(0 <= w < s.num_players for w in s.winners)
    # R-END-3: the winners hold the highest total (R-END-4 only narrows that set down)
    assert all(s.scores[w] == max(s.scores) for w in s.winners)
    assert s.actions >= 5 * s.num_players  # at least one bidding round: 5 tiles each (R-BID-1)


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_random_game_is_reproducible_from_its_seed(num_players):
    a = play_random_game(num_players, seed=11)
    b = play_random_game(num_players, seed=11)
    assert a == b
    assert a.seed == 11 and a.num_players == num_players
    _check_summary(a)


def test_different_seeds_give_different_games():
    games = {play_random_game(3, seed=s) for s in range(6)}
    assert len(games) > 1


def test_negative_seed_is_refused():
    with pytest.raises(ValueError, match="seed"):
        play_random_game(2, seed=-1)


@pytest.mark.parametrize("num_players", [2, 4])
def test_report_counts_add_up(num_players):
    games = 5
    rep = random_play_stats(num_players, games, seed=3, progress=False)
    assert rep.games == games and rep.num_players == num_players and rep.seed == 3
    assert len(rep.summaries) == games
    assert [s.seed for s in rep.summaries] == list(range(3, 3 + games))
    assert sum(rep.end_reasons.values()) == games
    assert set(rep.end_reasons) == set(END_REASONS)
    assert rep.rounds_min <= rep.rounds_median <= rep.rounds_max <= DEFAULT_MAX_ROUNDS
    assert rep.rounds_min <= rep.rounds_mean <= rep.rounds_max
    assert rep.score_min <= rep.score_mean <= rep.score_max
    assert rep.score_mean <= rep.winner_score_mean <= rep.score_max
    assert 0 <= rep.shared_wins <= games
    assert math.isclose(sum(rep.seat_win_share), 1.0)
    assert len(rep.seat_win_share) == num_players
    # the report is the summary of its own games
    assert rep == random_play_stats(num_players, games, seed=3, progress=False)


def test_round_cap_bounds_rounds():
    rep = random_play_stats(3, 4, seed=0, progress=False, max_rounds=2)
    for s in rep.summaries:
        _check_summary(s, max_rounds=2)
    assert rep.rounds_max <= 2


def test_random_games_fuzz(fuzz_games):
    """Many random games end cleanly with consistent outcomes (--fuzz-games N for more)."""
    for i in range(fuzz_games):
        _check_summary(play_random_game(2 + i % 4, seed=1000 + i))


def _fake(seed, scores, winners, rounds=7, reason="climactic", actions=60):
    return GameSummary(seed, len(scores), rounds, reason, tuple(scores), tuple(winners), actions)


def test_summarise_arithmetic():
    rep = summarise(
        [
            _fake(0, [10, 4, 4], [0], rounds=5, actions=50),
            _fake(1, [7, 7, 1], [0, 1], rounds=9, reason="deck", actions=70),
            _fake(2, [0, 2, 3], [2], rounds=50, reason="round_cap", actions=300),
        ]
    )
    assert rep.games == 3 and rep.num_players == 3
    assert rep.end_reasons == {"climactic": 1, "deck": 1, "round_cap": 1}
    assert (rep.rounds_min, rep.rounds_median, rep.rounds_max) == (5, 9.0, 50)
    assert rep.rounds_mean == pytest.approx(64 / 3)
    assert (rep.score_min, rep.score_max) == (0, 10)
    assert rep.score_mean == pytest.approx(38 / 9)
    assert rep.winner_score_mean == pytest.approx((10 + 7 + 7 + 3) / 4)
    assert rep.actions_mean == pytest.approx(140)
    assert rep.shared_wins == 1
    assert rep.seat_win_share == pytest.approx((1.5 / 3, 0.5 / 3, 1 / 3))


def test_summarise_keeps_unexpected_end_reasons_visible():
    rep = summarise([_fake(0, [1, 2], [1], reason=None)])
    assert rep.end_reasons["None"] == 1
    assert sum(rep.end_reasons.values()) == 1


def test_summarise_refuses_mixed_or_empty_input():
    with pytest.raises(ValueError):
        summarise([])
    with pytest.raises(ValueError):
        summarise([_fake(0, [1, 2], [1]), _fake(1, [1, 2, 3], [2])])


def test_format_table_columns_and_rows():
    reps = [
        summarise([_fake(0, [3, 1], [0])]),
        summarise([_fake(0, [1, 2, 3, 4, 5], [4], reason="deck")]),
    ]
    text = format_table(reps)
    lines = text.splitlines()
    assert len(lines) == 4  # header, rule, one row per report
    for col in ("players", "rounds mean", "end:climactic", "end:deck", "end:round_cap"):
        assert col in lines[0]
    for col in ("score mean", "winner score", "shared wins", "actions/game"):
        assert col in lines[0]
    assert len({len(line) for line in lines}) == 1  # aligned
    assert lines[2].split()[0] == "2" and lines[3].split()[0] == "5"
    seats = format_seat_table(reps).splitlines()
    assert "seat 4" in seats[0] and seats[2].split() == ["2", "100.0%", "0.0%"]
