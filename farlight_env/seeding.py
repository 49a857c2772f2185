"""Seeds that nobody can guess, and the env seeds that draw full-width engine seeds.

A seed the project chooses where a game must stay hidden (the web server's games, terminal
play, held-out evaluation) comes from the OS's secure source with 128 bits (`secure_seed`). A
user's own small seed keeps its old meaning, so every recorded and golden game replays: an env
seed below `WIDE_SEEDS` draws a 63-bit engine seed as it always has, one from `WIDE_SEEDS` up
draws a 128-bit engine seed, and `secure_seed` always gives such a one.
"""

from __future__ import annotations

import hashlib
import secrets

import numpy as np

#: Seeds are non-negative integers below this (numpy's PCG64 takes 128 bits).
SEED_LIMIT = 2**128
#: Env seeds from here up (and unseeded envs) draw 128-bit engine seeds; below, 63-bit ones.
WIDE_SEEDS = 2**64
#: The random bits of every seed the project chooses itself.
SECURE_SEED_BITS = 128


def secure_seed() -> int:
    """128 random bits from `secrets`, above `WIDE_SEEDS` (bit 128 set), so every engine seed
    and generator the game derives from it keeps all 128 bits."""
    return (1 << SECURE_SEED_BITS) | secrets.randbits(SECURE_SEED_BITS)


def is_wide(seed: int) -> bool:
    """Whether an env seed draws 128-bit engine seeds (see the module's docstring)."""
    return seed >= WIDE_SEEDS


def draw_engine_seed(rng: np.random.Generator, wide: bool) -> int:
    """The next game's engine seed from an env's seed stream: 63 bits as every version
    before drew them, or 128 bits (below the engine's SEED_LIMIT) for wide streams."""
    if not wide:
        return int(rng.integers(2**63 - 1))
    high, low = (int(x) for x in rng.integers(0, 2**64, size=2, dtype=np.uint64))
    return ((high << 64) | low) % SEED_LIMIT


def is_deal_key(value: object) -> bool:
    """Whether `value` can key deals one-way (a wide int; `derive_seed` from a narrow one is
    SeedSequence's, which a search inverts)."""
    return isinstance(value, int) and not isinstance(value, bool) and is_wide(value)


def derive_seed(parent: int, *entropy: int) -> int:
    """A seed drawn from `parent` and `entropy` (a block, a seat): 32 bits of
    SeedSequence([parent, *entropy]) for a published seed, as every version drew them; for a
    wide parent, 128 bits of SHA-256 (one-way: a bot's or an agent's seed tells nothing of
    its game's), wide again so what is drawn from it stays wide."""
    if not is_wide(parent):
        return int(np.random.SeedSequence([parent, *entropy]).generate_state(1, np.uint32)[0])
    digest = hashlib.sha256(" ".join(map(str, (parent, *entropy))).encode()).digest()
    return (1 << SECURE_SEED_BITS) | int.from_bytes(digest[:16], "big")
