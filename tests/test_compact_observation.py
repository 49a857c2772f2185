"""The compact observation's codec (#49): one declaration per field, an exact round trip over
real positions and over every declared count, bounded spaces, and the documented table."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.registry import make
from farlight_env import farlight_v0
from farlight_env.encode.compact import BYTE_HIGH, CompactCodec
from farlight_env.encode.layout import (
    COUNTER_HIGH,
    PLAYER_FEATURES,
    ship_channel_names,
)
from farlight_env.encode.layout_table import BEGIN, END, layout_table
from farlight_env.encode.observation import ObservationEncoder
from farlight_env.encode.observers import FIFTHS, fifteenths
from farlight_env.game import FarlightGame
from farlight_env.game.facts import TILES
from tests import scenarios

ROOT = Path(__file__).resolve().parents[1]
ENCODER = ObservationEncoder(FarlightGame(2, seed=0).cards, 13)
CODEC = CompactCodec(ENCODER.fields)


def assert_exact(codec: CompactCodec, floats: np.ndarray, where: str) -> np.ndarray:
    """Compact `floats` (one or a batch), expand them back, and require every field's bytes
    to be the encoder's; the compact form is returned."""
    codes = codec.compact(floats)
    back = codec.expand(codes)
    assert back.dtype == np.float32 and back.shape == floats.shape
    if back.tobytes() != floats.tobytes():
        bad = [
            f.name
            for f in codec.fields.values()
            if back[..., f.slice].tobytes() != floats[..., f.slice].tobytes()
        ]
        raise AssertionError(f"{where}: fields {bad} do not decode to the encoder's floats")
    return codes


def random_game_batches(num_players: int, seed: int, **options) -> Iterator[np.ndarray]:
    """Every seat's observation (num_players, size) at every decision of a random game."""
    game = FarlightGame(num_players, seed=seed, **options)
    rng = np.random.default_rng(seed)
    while True:
        yield np.stack([ENCODER.encode(game, seat) for seat in range(num_players)])
        if game.is_over:
            return
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])


def test_every_field_declares_one_scale_or_one_per_component() -> None:
    """#49: a field's scales run along its declared axis, in the encoder's component order."""
    fields = ENCODER.fields
    for f in fields.values():
        assert len(f.scales) in (1, f.shape[f.axis]), f.name
    assert tuple(s.label for s in fields["players"].scales) == PLAYER_FEATURES
    assert [s.label for s in fields["ships"].scales] == ENCODER.ship_channel_names()
    assert ship_channel_names(2) == ENCODER.ship_channel_names()
    assert len(fields["pending"].scales) == 1 + ENCODER.part_features.shape[1]


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_every_block_of_random_games_decodes_exactly(num_players: int, fuzz_games: int) -> None:
    """#49: compact then expand gives every field of every seat's observation back bit for bit,
    at every decision of seeded random games (also with a long round cap), inside both Boxes."""
    compact_space, float_space = CODEC.space(), CODEC.float_space()
    for seed in range(max(4, fuzz_games // 4)):
        options = {"max_rounds": 200} if seed % 2 else {}
        for batch in random_game_batches(num_players, seed, **options):
            codes = assert_exact(CODEC, batch, f"{num_players} players, seed {seed}")
            for floats, row in zip(batch, codes, strict=True):
                assert compact_space.contains(row) and float_space.contains(floats)
    assert_exact(CODEC, batch[0], "one observation")  # a single vector, not a batch


def test_heuristic_games_decode_exactly_and_stay_in_the_box() -> None:
    """#49: games that complete missions and build ships (the heuristic's) decode exactly."""
    space = CODEC.space()
    for num_players, seed in ((2, 1), (3, 2), (4, 3), (5, 4)):
        env = farlight_v0.raw_env(num_players=num_players)
        env.reset(seed=seed)
        agents = [make("heuristic", seed=i) for i in range(num_players)]
        for agent in env.agent_iter():
            obs, _reward, term, trunc, info = env.last()
            codes = assert_exact(CODEC, obs["observation"], f"heuristic seed {seed}")
            assert space.contains(codes)
            if term or trunc:
                env.step(None)
                continue
            seat = env.agent_name_mapping[agent]
            info = {**info, "seat": seat, "view": env.player_view(agent)}
            env.step(agents[seat].act(obs["observation"], obs["action_mask"], info))


def test_large_counters_take_their_high_byte_and_too_large_ones_raise() -> None:
    """#49: crew 1000 and science 300 fill a second byte exactly; points above COUNTER_HIGH
    are refused with the field named, never wrapped."""
    game = scenarios.make_game(3, seed=5)
    scenarios.give(game, 1, crew=1000, science=300, points=COUNTER_HIGH)
    codes = assert_exact(CODEC, ENCODER.encode(game, 1), "large counters")
    players = ENCODER.fields["players"]
    crew = players.start + PLAYER_FEATURES.index("crew")  # the observer's own row
    tail = CODEC.size + int(np.searchsorted(CODEC.wide, crew))
    assert (int(codes[crew]), int(codes[tail])) == (1000 % 256, 1000 // 256)
    assert CODEC.space().contains(codes)
    scenarios.give(game, 2, points=COUNTER_HIGH + 1)
    with pytest.raises(ValueError, match="players"):
        CODEC.compact(ENCODER.encode(game, 0))


def test_every_declared_count_divides_as_the_encoder_does() -> None:
    """#49: for every scale and every count 0..high, expand's float32 division equals the
    encoder's Python float division rounded to float32, and compact finds the count again."""
    scales = {s for f in ENCODER.fields.values() for s in f.scales}
    for scale in scales:
        counts = np.arange(scale.high + 1)
        encoder = np.array([np.float32(int(k) / scale.denominator) for k in counts])
        fast = counts.astype(np.float32) / np.float32(scale.denominator)
        assert fast.tobytes() == encoder.tobytes(), scale
        assert (np.rint(encoder * np.float32(scale.denominator)) == counts).all(), scale


def test_bid_sums_lie_within_the_declared_float32_steps() -> None:
    """#49: every way a seat can bid on one target (distinct tiles, crew or not, any order)
    sums to within the bid value's declared steps of count/15; tile and crew counts are k/5."""
    (value,) = [s for s in ENCODER.fields["bids"].scales if s.ulps]
    seen = set()
    for n in range(1, len(TILES) + 1):
        for tiles in itertools.permutations(TILES, n):
            for crew in itertools.product((0, 1), repeat=n):
                terms = tuple(t + c for t, c in zip(tiles, crew, strict=True))
                got = np.float32(fifteenths(terms))
                quotient = np.float32(sum(terms) / 15.0)
                step = int(got.view(np.int32)) - int(quotient.view(np.int32))
                assert abs(step) <= value.ulps, terms
                seen.add(step)
    assert seen == {0, 1}  # both occur, so the step code is needed
    assert all(FIFTHS[k] == np.float32(k / 5.0) for k in range(len(TILES) + 1))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**63 - 1))
def test_any_codes_within_the_declaration_round_trip(seed: int) -> None:
    """#49 (hypothesis): codes drawn anywhere up to each element's declared high, two-byte and
    summed ones included, expand to floats that compact back to the same bytes."""
    rng = np.random.default_rng(seed)
    code = rng.integers(0, CODEC.code_high + 1)
    code[rng.random(CODEC.size) < 0.5] = 0  # observations are mostly zeros
    bids = CODEC.fields["bids"]
    values = code[bids.start + 2 : bids.slice.stop : 3]  # bid values: count + 16 * step
    values[(values % 16 == 0) & (values >= 32)] = 0  # nothing lies a step below a zero sum
    codes = np.concatenate([code & BYTE_HIGH, code[CODEC.wide] >> 8]).astype(np.uint8)
    floats = CODEC.expand(codes)
    assert np.array_equal(CODEC.compact(floats), codes)
    assert CODEC.space().contains(codes) and CODEC.float_space().contains(floats)
    assert np.array_equal(CODEC.compact(floats[None]), codes[None])  # batches too


def test_compact_size_at_default_options_and_the_declared_highs() -> None:
    """#49: at most 16,400 bytes (one a float, 45 high bytes); Boxes bounded everywhere."""
    assert CODEC.size == 16_306 and CODEC.compact_size == 16_351 <= 16_400
    assert np.isfinite(CODEC.float_high).all()
    assert CODEC.float_high.max() == np.float32(COUNTER_HIGH / 5)  # temporary bio-tech
    assert CODEC.space().shape == (16_351,) and CODEC.space().dtype == np.uint8
    assert {name: (s.stop - s.start) for name, s in CODEC.wide_slices().items()} == {
        "round": 1,
        "players": 20,  # crew, science, mission points, temporary bio-tech of 5 seats
        "station": 12,  # bonus crew
        "missions": 12,  # values up to 999
    }


def test_compact_refuses_what_it_cannot_hold_exactly() -> None:
    """#49: another dtype or size is a ValueError, both ways."""
    floats = ENCODER.encode(FarlightGame(2, seed=3), 0)
    for bad in (floats.astype(np.float64), floats[:-1]):
        with pytest.raises(ValueError, match="float32 observations of 16306"):
            CODEC.compact(bad)
    for bad in (np.zeros(16_351, np.int8), np.zeros(16_306, np.uint8)):
        with pytest.raises(ValueError, match="compact observations of 16351"):
            CODEC.expand(bad)


def test_a_layout_rebuilds_its_codec_and_another_layout_is_refused() -> None:
    """#49: policies rebuild the codec from the layout in their file ((start, stop, shape))
    or an env's (slice, shape); a layout that is not the encoder's is refused."""
    env = farlight_v0.raw_env(grid_size=9)
    by_slice = CompactCodec.for_layout(env.observation_layout())
    assert np.array_equal(by_slice.high, env.compact_codec.high)
    as_file = {n: (s.start, s.stop, list(shape)) for n, (s, shape) in ENCODER.layout().items()}
    assert np.array_equal(CompactCodec.for_layout(as_file).high, CODEC.high)
    moved = {**as_file, "deck": (0, 58, [58])}
    with pytest.raises(ValueError, match="differs"):
        CompactCodec.for_layout(moved)
    with pytest.raises(ValueError, match="not an observation layout"):
        CompactCodec.for_layout({"deck": (0, 58, [58])})


def test_the_documented_table_is_the_declaration() -> None:
    """#49: docs/environment.md holds the table generated from the declaration (rerun
    scripts/observation_table.py after changing a field)."""
    page = (ROOT / "docs" / "environment.md").read_text(encoding="utf-8")
    stored = page.split(BEGIN, 1)[1].split(END, 1)[0].strip()
    assert stored == layout_table(CODEC), "rerun: python scripts/observation_table.py"
