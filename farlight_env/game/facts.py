"""The game's fixed facts, declared once (OpenSpiel's _GAME_INFO): player bounds, limits and
the components' numbers. Every layer reads them from here (the engine, the encoders, the command
line, the web server, training); none writes its own copy. Rule IDs refer to docs/rules.md.
"""

from __future__ import annotations

# --- players, grid and game length --------------------------------------------------------------
MIN_PLAYERS = 2  # R-COMP-1
MAX_PLAYERS = 5  # R-COMP-1
#: Largest ship grid. The observation holds grid² cells per seat and the action space one install
#: index per cell: at 41 that is 144,826 floats (16,306 at 13) and 2,008 actions (496 at 13),
#: still fine for a network, while real ships of 10-20 parts never come near its edge.
MAX_GRID_SIZE = 41
#: Largest round cap. Real games end by the deck or a climactic mission within ~15 rounds; the
#: cap only stops games in which nobody takes parts, so 10,000 is far more than any use needs.
MAX_ROUNDS = 10_000
#: Largest value any counter (crew, science, points, bonus crew, benefit icons) may hold in a
#: saved game. Crew and science are unlimited by the rules (R-COMP-2), but no game of
#: MAX_ROUNDS rounds can gain more than a few hundred a round; 10**9 refuses absurd files.
MAX_COUNT = 10**9

# --- the components (R-SETUP) -------------------------------------------------------------------
TILES: tuple[int, ...] = (0, 1, 2, 3, 4)  # R-SETUP-1
TILES_PER_PASS: tuple[int, ...] = (2, 2, 1)  # R-BID-1
PART_SPACES: dict[int, int] = {2: 7, 3: 9, 4: 10, 5: 12}  # R-SETUP-4
REGULAR_PER_STACK: dict[int, int] = {2: 2, 3: 2, 4: 3, 5: 3}  # R-SETUP-3
NUM_STACKS = 3
NUM_FACE_UP_AWARDS = 3
AWARD_POINTS = 5
HIRE_CREW = 3
TEMP_BIOTECH_COST = 3  # R-MIS-5
START_CREW = 3
MIN_ENGINE, MAX_ENGINE = 1, 6  # engine dice (R-SETUP-5)
REFIT, HIRE, DISCOVER, ENGINEER = range(4)  # facilities in resolution order (R-RES-1)
