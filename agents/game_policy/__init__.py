"""Trained policies of any registered game: the checked `farlight-game-policy` file and the agent
that plays it (Farlight's own networks and files are `agents.farlight.policy`)."""
