"""Measurements of any declared game, written once (#50): timing on a machine shared with other
jobs, random-play statistics, and their text tables. Imports no game: Farlight's own bench and
statistics (farlight_env/tools) build on it."""
