"""The rules by phase of a round, as functions of a game's state and tables."""
