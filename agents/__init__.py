"""Agents: the Agent protocol and baseline policies (random, heuristic, search, trained)."""
