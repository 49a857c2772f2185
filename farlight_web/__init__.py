"""Farlight in the browser: play against agents, watch replays, see the leaderboard.

A small Starlette app (`farlight_web.app.make_app`) served by `farlight serve`. It uses the
engine, the env and the agents; it never re-implements a rule, and every game view it sends
is `farlight_env.view.model.BoardView` for the seat whose token came with the request (or a
spectator's); `farlight.sessions` says who may see and do what. `farlight_env` never imports it.
Farlight's own part is the subpackage `farlight`; the rest serves any registered game (#50).
"""
