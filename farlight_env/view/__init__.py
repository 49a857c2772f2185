"""What a seat may see, as plain data: `model` (the board view every drawing and the web API
use) and `events` (what each step sets off: bid results, automatic discards, the tiebreak)."""
