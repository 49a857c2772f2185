"""Farlight's part of the web server: its live games, move labels and events, replays, the
files it lists, new-game bodies and lineups, uploads, and the routes that serve them. The
rest of farlight_web serves any registered game and comes here for Farlight's part."""
