"""The bots a browser game seats: which names a client may choose, how each is built, and how
its randomness is drawn per decision so a game rebuilt from its record needs no bot to think
again. See `farlight_web.farlight.sessions`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from farlight_env.platform.records import RecordError
from farlight_web.files import inside, walk
from farlight_web.record_format import BotErrors, read_field
from farlight_web.seats import HUMAN
from farlight_web.seeding import CLIENT_SEED_LIMIT

#: Saved policies a browser may name as opponents live here, under --data; nothing else on the
#: server's disk can be named, so a client learns nothing about other files.
POLICY_FOLDER = "policies"
#: A client picks the search budget, so it is bounded: one bot decision stays a few seconds.
WEB_MAX_ITERATIONS = 1000


class BotUnfit(ValueError):
    """A bot that cannot play this game at all (e.g. a policy for another grid size)."""


def policy_names(policies: Path) -> list[str]:
    """The saved policies a client may choose, as names relative to the policies folder."""
    if not policies.is_dir() or policies.is_symlink():  # a link leads outside --data
        return []
    return [f.relative_to(policies).as_posix() for f in walk(policies, suffix=".pt")]


def opponent_problem(name: str, policies: Path) -> str | None:
    """Why `name` cannot be an opponent on this server (None when it can)."""
    from agents.registry import FACTORIES, budget_spec

    if name in FACTORIES:
        return None
    spec = budget_spec(name)
    if spec is not None:
        if spec[1] <= WEB_MAX_ITERATIONS:
            return None
        return f"{name}: this server allows at most ismcts@{WEB_MAX_ITERATIONS}"
    if name.endswith(".pt") and not policies.is_symlink():
        try:
            if inside(policies, name).is_file():
                return None
        except (ValueError, OSError):  # outside the folder, a name too long for the disk
            pass
    shown = name if len(name) <= 80 else name[:77] + "..."
    return f"unknown opponent(s) {shown}"


def agent_source(name: str, policies: Path) -> str:
    """What `agents.make` is given for a lineup name: a policy's file under the policies folder."""
    return str(inside(policies, name)) if name.endswith(".pt") else name


def opponent_seed(seed: int, seat: int) -> int:
    """Each bot's seed, derived from the game seed and its seat: from a client's seed, 32 bits
    (as `farlight play` derives them, so its games rebuild as before); from the server's own,
    128 bits (`farlight_web.seeding`)."""
    words = 1 if seed < CLIENT_SEED_LIMIT else 4
    state = np.random.SeedSequence([seed, seat]).generate_state(words, np.uint32)
    return int.from_bytes(state.astype("<u4").tobytes(), "little")


def parse_bot_errors(record: dict[str, Any], lineup: list[str], path: Path) -> list[dict[str, Any]]:
    """The bot failures a record reports (one per bot seat at most); RecordError if malformed."""
    errors = read_field(record, "bot_errors", BotErrors, [], path)
    seats = [e.seat for e in errors]
    fits = all(e.seat < len(lineup) and e.agent == lineup[e.seat] != HUMAN for e in errors)
    if not fits or len(set(seats)) != len(seats):  # a bot's seat, each at most once
        raise RecordError(f"{path}: bot_errors must list seats of bots with what they did")
    return [msgspec.structs.asdict(e) for e in errors]
