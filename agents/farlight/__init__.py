"""Farlight's own players: the engine-level agents (heuristic, ismcts, rollout), its trained
policies and networks, sealed seats and sub-game players. Everything here may use Farlight's
engine, codec and encoder; the rest of `agents` serves any registered game."""
