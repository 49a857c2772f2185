"""Logic behind the command line's reports: `bench` (speed benchmarks), `stats` (random-play
statistics), `rules_page` (the rules page's recorded decisions) and `auction` (a game record's
auction diagnostics per seat)."""
