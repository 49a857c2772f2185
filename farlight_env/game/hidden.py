"""What one seat may know: redacted and resampled copies of a game (R-BID-5, R-SETUP-2).

Hidden facts are opponents' face-down tile values during bidding, the deck's order, the
face-down awards' order and the game's RNG (future dice and draws). `redact` replaces each with
a canonical value that depends only on public facts; `determinize` draws them at random,
consistent with what the seat has seen. Search agents plan on such copies, never on the truth.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from farlight_env.cards.model import CardSet
from farlight_env.game import serialize
from farlight_env.game.config import Phase
from farlight_env.game.facts import TILES
from farlight_env.game.game import FarlightGame
from farlight_env.game.ship import new_stamp


def redact(
    game: FarlightGame,
    seat: int,
    rng: np.random.Generator | None = None,
    share: bool = False,
) -> FarlightGame:
    """A copy in which every fact hidden from `seat` is replaced by a canonical stand-in.

    Two games that look the same to `seat` give identical redacted copies (same `to_json`).
    The copy's `history` is empty (the real one would reveal tile values) and its seed is 0;
    its chance comes from `rng` if given, else from a generator seeded with 0.

    `share=True` makes the copy share the game's public lists and dicts (crew, ships, spaces,
    ...) instead of copying them; the hidden facts and every list they could later appear in
    (bids, hands, deck, awards, history) are still its own. For a reader that changes nothing
    in the copy: it costs a fraction of a full copy, and later public changes of `game` show
    through it.
    """
    copy = _shared_copy(game, rng) if share else game.clone(rng=0 if rng is None else rng)
    copy.seed = 0
    copy.history = []
    copy.deck = sorted(copy.deck)
    copy.awards_down = sorted(copy.awards_down)
    if copy.phase is Phase.BIDDING:  # every rival's tiles in the canonical order
        _deal_tiles(copy, [None if q == seat else iter(TILES) for q in range(copy.num_players)])
    copy.invalidate_cache()
    copy.board_stamp = _redacted_board_stamp(game.board_stamp)
    return copy


def _shared_copy(game: FarlightGame, rng: np.random.Generator | None) -> FarlightGame:
    """A copy holding `game`'s attributes by reference, but for the lists `redact` rewrites
    (each target's bids, the hands) and the generator (`rng`, else seeded with 0)."""
    copy = game._shallow_copy()
    copy.reseed(0 if rng is None else rng)
    copy.bids = list(map(list.copy, game.bids))  # a rival's later bid must not show through
    copy.hands = game.hands[:]  # rivals' hands are replaced while bidding
    return copy


#: Board stamp of a game -> the board stamp of its redacted copies (bounded; a cleared entry
#: only costs a miss). Copies of one board are equal boards (canonical deck and awards), so
#: sharing a stamp lets caches keyed on it (an agent's valuations) hit from one decision to
#: the next, as they do on the live game. The engine renews a board stamp only with a public
#: change (a won space, a completed mission, a new round), so a shared stamp tells nothing
#: hidden.
_REDACTED_BOARDS: dict[int, int] = {}
REDACTED_BOARDS_KEPT = 4096


def _redacted_board_stamp(stamp: int) -> int:
    found = _REDACTED_BOARDS.get(stamp)
    if found is None:
        if len(_REDACTED_BOARDS) >= REDACTED_BOARDS_KEPT:
            _REDACTED_BOARDS.clear()
        found = _REDACTED_BOARDS[stamp] = new_stamp()
    return found


def determinize(game: FarlightGame, seat: int, rng: np.random.Generator) -> FarlightGame:
    """A copy with hidden facts drawn at random given what `seat` knows (for ISMCTS).

    Built from `redact`, so the result depends only on public facts and `rng`.
    """
    return Determinizer(game, seat)(rng)


class Determinizer:
    """Draws determinizations of one position for one seat, redacting it only once.

    `Determinizer(game, seat)(rng)` equals `determinize(game, seat, rng)`; search draws one
    per iteration from the same position, so the shared redaction is worth keeping.
    """

    def __init__(self, game: FarlightGame, seat: int) -> None:
        self.seat = seat
        self._base = redact(game, seat)
        self._bidding = self._base.phase is Phase.BIDDING

    def __call__(self, rng: np.random.Generator) -> FarlightGame:
        copy = self._base.clone(rng=int(rng.integers(2**63 - 1)))  # PCG64 of that seed
        deck, awards = copy.deck, copy.awards_down  # tolist(): plain ints index lists faster
        copy.deck = [deck[i] for i in rng.permutation(len(deck)).tolist()]
        copy.awards_down = [awards[i] for i in rng.permutation(len(awards)).tolist()]
        if self._bidding:
            deals = [
                iter([TILES[i] for i in rng.permutation(len(TILES)).tolist()])
                if q != self.seat
                else None
                for q in range(copy.num_players)
            ]
            _deal_tiles(copy, deals)
        copy.invalidate_cache()
        return copy


def _deal_tiles(game: FarlightGame, deals: list[Iterator[int] | None]) -> None:
    """Give each seat with a deal (an iterator of tile values) its face-down tiles on the
    board from the deal, in board order, and its hand the rest; one pass over the board."""
    bids = game.bids
    for slot, placed in enumerate(bids):
        if placed:
            bids[slot] = [
                (p, t, c) if deals[p] is None else (p, next(deals[p]), c) for p, t, c in placed
            ]
    for q, deal in enumerate(deals):
        if deal is not None:
            game.hands[q] = sorted(deal)


class PlayerView:
    """A seat's window on a live game: agents read public facts through it, never the truth.

    Cheap to hold (no copy until asked); `redacted()` and `determinize()` make copies.
    """

    def __init__(self, game: FarlightGame, seat: int) -> None:
        self._game = game
        self.seat = seat

    @property
    def cards(self):  # noqa: ANN201 - CardSet, public and immutable
        return self._game.cards

    @property
    def grid_size(self) -> int:
        return self._game.config.grid_size

    @property
    def num_players(self) -> int:
        return self._game.num_players

    def redacted(self, share: bool = False) -> FarlightGame:
        """`redact` of the game for this seat (`share`: see `redact`)."""
        return redact(self._game, self.seat, share=share)

    def determinize(self, rng: np.random.Generator) -> FarlightGame:
        return determinize(self._game, self.seat, rng)

    def determinizer(self) -> Determinizer:
        """Draws `determinize(rng)` copies of the game as it is now, redacted only once."""
        return Determinizer(self._game, self.seat)


class SealedView(PlayerView):
    """A seat's window that holds no live game: only the seat's redacted copy (`redact`).

    The same API as `PlayerView`, and the same answers: `redact` of a redacted copy is that
    copy, so `redacted()`, `determinize(rng)` and `determinizer()` give exactly what they give
    on the live game (tested). What a sealed agent finds in it, `_game` included, is what
    redaction shows. It crosses a process boundary as plain data: `to_json()` and
    `from_json(text, seat)`.
    """

    def __init__(self, redacted: FarlightGame, seat: int) -> None:
        if not 0 <= seat < redacted.num_players:
            raise ValueError(f"seat must be in 0..{redacted.num_players - 1}, got {seat}")
        self._game = redacted
        self.seat = seat

    @classmethod
    def of(cls, game: FarlightGame, seat: int) -> SealedView:
        """The sealed view of `seat` at `game` as it is now (a redacted copy; no reference)."""
        return cls(redact(game, seat), seat)

    def to_json(self, with_cards: bool = True) -> str:
        """The redacted copy as a saved game; without the card set if `with_cards` is False."""
        return serialize.game_to_json(self._game, with_cards)

    @classmethod
    def from_json(cls, text: str, seat: int, cards: CardSet | None = None) -> SealedView:
        """The view `to_json` saved, checked as any saved game is (ValueError if not one), and
        redacted again for `seat`, so a text that held more than the seat may know shows no
        more; `cards` replaces the card set the text leaves out."""
        game = FarlightGame.from_json(text, cards)
        if not isinstance(seat, int) or not 0 <= seat < game.num_players:
            raise ValueError(f"seat must be in 0..{game.num_players - 1}, got {seat!r}")
        return cls(redact(game, seat), seat)
