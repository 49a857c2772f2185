"""The seeds of browser games: a client's own (reproducible, played as `farlight play` plays
it) or the server's (128 bits from `secrets`, which no search over seeds can find).

A seed below CLIENT_SEED_LIMIT, the only kind a client may give and the kind every record
written before server seeds grew holds, seeds the env (`env.reset(seed)`), which draws the
engine's 63-bit seed from it, as before: those records rebuild byte for byte. The server's
seeds are at least 2**64; the engine is seeded with all 128 bits (`options={"game_seed"}`),
and so is every bot (`farlight_web.bots.opponent_seed`, `reseed`).
"""

from __future__ import annotations

import secrets
from typing import Any

from farlight_env.seeding import SEED_LIMIT, WIDE_SEEDS

#: Seeds a client may choose lie below this (msgspec's int64; `farlight play` takes them too).
CLIENT_SEED_LIMIT = 2**63
#: The server's own seeds: [2**64, 2**128), about 128 bits, never a client's.
SERVER_SEED_LOW = WIDE_SEEDS


def server_seed() -> int:
    """A seed the server chooses: uniform in [2**64, 2**128), from `secrets`."""
    return SERVER_SEED_LOW + secrets.randbelow(SEED_LIMIT - SERVER_SEED_LOW)


def reset_env(env: Any, seed: int) -> None:
    """Start `env`'s game from a browser game's seed (see the module for the two kinds)."""
    if seed < CLIENT_SEED_LIMIT:
        env.reset(seed=seed)
    else:
        env.reset(seed=seed, options={"game_seed": seed})
