"""Logic behind the command line's reports: `bench` (speed benchmarks), `stats` (random-play
statistics) and `rules_page` (the rules page's recorded decisions)."""
