"""Shared test options: ``--fuzz-games N`` sets how many games the fuzz tests play."""

from __future__ import annotations

import pytest

#: Games per fuzz test by default: small, so the suite stays quick. Run many thousands locally
#: with e.g. ``python -m pytest tests -k fuzz --fuzz-games 5000``.
DEFAULT_FUZZ_GAMES = 20


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fuzz-games",
        action="store",
        type=int,
        default=DEFAULT_FUZZ_GAMES,
        metavar="N",
        help=f"games each fuzz test plays (default: {DEFAULT_FUZZ_GAMES})",
    )


@pytest.fixture(scope="session")
def fuzz_games(request: pytest.FixtureRequest) -> int:
    """How many random games a fuzz test should play (``--fuzz-games N``)."""
    n = int(request.config.getoption("--fuzz-games"))
    if n < 1:
        raise pytest.UsageError(f"--fuzz-games must be >= 1, got {n}")
    return n
