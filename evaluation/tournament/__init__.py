"""Tournaments: seat-rotated games between agents, win rates with intervals, skill ratings.

Every game is played through the PettingZoo env exactly as users would, from a seed derived
from the tournament seed and the game's index, so any game can be replayed from its record and
the results file is identical for the same seed whatever the number of workers.

One module per concept: `scheduling` (who plays where, with which seed), `play` (one game),
`backends` (local pool or Ray), `ratings` (win rates, ratings, the table), `results` (the result
and its files), `run` (`run_tournament`, `resume_tournament`). Farlight's auction diagnostics of
a tournament's records are `evaluation.farlight.diagnostics`.
"""

from __future__ import annotations

from evaluation.tournament.backends import Record, play_games, start_worker
from evaluation.tournament.play import GameFailure, play_game
from evaluation.tournament.ratings import (
    MAX_LABEL,
    AgentSummary,
    format_table,
    placements,
    rate,
    short_labels,
    summarise,
    wilson_interval,
)
from evaluation.tournament.results import TournamentResult, plot_summary, write_results
from evaluation.tournament.run import resume_tournament, run_tournament
from evaluation.tournament.scheduling import GameSpec, agent_seed, game_seed, schedule

__all__ = [
    "MAX_LABEL",
    "AgentSummary",
    "GameFailure",
    "GameSpec",
    "Record",
    "TournamentResult",
    "agent_seed",
    "format_table",
    "game_seed",
    "placements",
    "play_game",
    "play_games",
    "plot_summary",
    "rate",
    "resume_tournament",
    "run_tournament",
    "schedule",
    "short_labels",
    "start_worker",
    "summarise",
    "wilson_interval",
    "write_results",
]
