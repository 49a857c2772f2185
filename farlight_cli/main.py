"""`farlight`: env commands (random, bench, rules) plus tournament, play, replay and train."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from farlight_cli import play_cmd, replay_cmd, tournament_cmd, train_cmd
from farlight_env import cli as env_cli

COMMANDS = (tournament_cmd.add, play_cmd.add, replay_cmd.add, train_cmd.add)


def main(argv: Sequence[str] | None = None) -> int:
    """Run `farlight` with `argv` (default: sys.argv[1:]); returns the exit status."""
    return env_cli.main(argv, extra=COMMANDS)


if __name__ == "__main__":
    sys.exit(main())
