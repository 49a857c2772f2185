"""The compact observation (#49): the float32 observation's counts, one byte per element.

Every float of the observation is a count divided by a fixed denominator (`layout.Scale`), so
element i of the compact form is that count, in the float's own place; counts that may pass
255 (crew, science, points, rounds, bonus crew, mission values) keep their low byte there and
their high byte at the end, in element order. Bid values are float32 sums that may sit a
float32 step off count/15; their code says which step. `expand` gives back the float32 vector
bit for bit.

The codec depends on the layout alone (its fields' shapes; each count's high comes from the
rules or the card format's limits), so a policy file's layout rebuilds it (`for_layout`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
from gymnasium import spaces

from farlight_env.encode.layout import Field, Scale, build_layout

#: Codes that fit the element's own byte; larger ones spill a second byte into the tail.
BYTE_HIGH = 255
#: Largest code any element may declare: two bytes.
CODE_HIGH = 0xFFFF


@dataclass(frozen=True, slots=True)
class SumRun:
    """Summed elements of one component (a strided slice of the vector) and every float they
    may hold: count/d and the float32 steps either side. Code = count + span * step, step 0
    on count/d, 2o - 1 for o steps above it, 2o for o steps below."""

    where: slice
    #: Every value the elements may hold, ascending, then +inf (so a search always lands on an
    #: entry), and the code of each.
    values: np.ndarray
    codes: np.ndarray
    #: The value of every code (a code below a zero count, which no sum gives, reads 0).
    by_code: np.ndarray

    @classmethod
    def of(cls, where: slice, scale: Scale) -> SumRun:
        span, counts = scale.high + 1, np.arange(scale.high + 1)
        quotient = counts.astype(np.float32) / np.float32(scale.denominator)
        by_code = np.tile(quotient, 2 * scale.ulps + 1)
        for o in range(1, scale.ulps + 1):
            above = (quotient.view(np.int32) + o).view(np.float32)
            below = (quotient.view(np.int32) - o).view(np.float32)
            by_code[span * (2 * o - 1) : span * 2 * o] = above
            by_code[span * 2 * o : span * (2 * o + 1)][1:] = below[1:]
        valid = np.ones(len(by_code), dtype=bool)
        valid[span * 2 :: span * 2] = False  # below a zero count (codes 2 span, 4 span, ...)
        order = np.argsort(by_code[valid], kind="stable")
        codes = np.append(np.flatnonzero(valid)[order], 0).astype(np.float32)
        values = np.append(by_code[valid][order], np.float32(np.inf))
        return cls(where, values, codes, by_code)


def _per_element(field: Field, value: Callable[[Scale], float]) -> np.ndarray:
    """`value(scale)` for every element of `field`, flat, broadcast along its scales' axis."""
    per_scale = np.array([value(scale) for scale in field.scales])
    if len(field.scales) == 1:
        return np.broadcast_to(per_scale, (field.size,))
    shape = [1] * len(field.shape)
    shape[field.axis] = len(field.scales)
    return np.broadcast_to(per_scale.reshape(shape), field.shape).ravel()


def _sum_runs(fields: Mapping[str, Field]) -> tuple[SumRun, ...]:
    """One run per summed component; such components vary along a field's last axis."""
    runs = []
    for f in fields.values():
        for j, scale in enumerate(f.scales):
            if not scale.ulps:
                continue
            if len(f.scales) > 1 and f.axis % len(f.shape) != len(f.shape) - 1:
                raise ValueError(f"{f.name}: summed components must vary along the last axis")
            where = slice(f.start + j, f.start + f.size, len(f.scales))
            runs.append(SumRun.of(where, scale))
    return tuple(runs)


class CompactCodec:
    """`compact` and `expand` for one observation layout, from per-element tables built once.

    compact: one float32 multiply and rint over the whole vector, a fix for the few summed and
    two-byte elements, one cast to uint8. Takes one observation (size,) or a batch (..., size).
    """

    def __init__(self, fields: Mapping[str, Field]) -> None:
        self.fields = dict(fields)
        self.size = sum(f.size for f in self.fields.values())
        column: dict[str, np.ndarray] = {
            key: np.concatenate([_per_element(f, get) for f in self.fields.values()])
            for key, get in (
                ("denominator", lambda s: s.denominator),
                ("high", lambda s: s.high),
                ("code_high", lambda s: s.code_high),
            )
        }
        #: Per element, its denominator: codes are rint(obs * scale), floats codes / scale.
        self.denominators = column["denominator"].astype(np.float32)
        #: Per element, its largest count (the declaration's `high`).
        self.count_high = column["high"].astype(np.int64)
        #: Per element, its largest code (a summed element's steps included).
        self.code_high = code_high = column["code_high"].astype(np.int64)
        if (code_high > CODE_HIGH).any():
            raise ValueError(f"a declared count needs more than two bytes (> {CODE_HIGH})")
        #: Elements whose code takes two bytes; their high bytes follow the first `size`, in order.
        self.wide = np.flatnonzero(code_high > BYTE_HIGH)
        self.wide_high = code_high[self.wide].astype(np.float32)
        self.sum_runs = _sum_runs(self.fields)
        self.compact_size = self.size + len(self.wide)
        low = np.minimum(code_high, BYTE_HIGH)
        #: Per byte of the compact form, its largest value (the compact Box's high).
        self.high = np.concatenate([low, code_high[self.wide] >> 8]).astype(np.uint8)
        #: Per float, its largest value (a bounded float Box's high).
        self.float_high = self._largest_floats()

    @classmethod
    def for_layout(cls, layout: Mapping[str, tuple]) -> CompactCodec:
        """The codec of a layout as `observation_layout()` (name -> (slice, shape)) or a policy
        file (name -> (start, stop, shape)) gives it; ValueError if it is not the encoder's."""
        given = {name: (tuple(where[-1]), _start(where)) for name, where in layout.items()}
        try:
            (_, channels, grid, _), (_, ranks) = given["ships"][0], given["engines"][0]
            parts, features = given["deck"][0][0] - 1, given["station"][0][1] - 2
            fields = build_layout(grid, channels, ranks, parts, features)
        except (KeyError, ValueError, IndexError, TypeError) as exc:
            raise ValueError(f"not an observation layout: {exc!r}") from exc
        if {name: (f.shape, f.start) for name, f in fields.items()} != given:
            raise ValueError("the layout differs from the observation encoder's")
        return cls(fields)

    # ------------------------------------------------------------ both ways
    def compact(self, observation: np.ndarray) -> np.ndarray:
        """The compact (uint8) form of float32 observations (..., size). ValueError for a vector
        of another size or dtype, or a count above its declared high."""
        obs = np.asarray(observation)
        if obs.dtype != np.float32 or obs.shape[-1:] != (self.size,):
            raise ValueError(
                f"expected float32 observations of {self.size}, got {obs.dtype} {obs.shape}"
            )
        codes = obs * self.denominators  # the counts, exact integers once rounded
        np.rint(codes, out=codes)
        for run in self.sum_runs:
            codes[..., run.where] = _code_sums(run, obs[..., run.where])
        out = np.empty((*obs.shape[:-1], self.compact_size), dtype=np.uint8)
        if len(self.wide):
            wide = codes.take(self.wide, axis=-1)  # take: several times faster than [..., idx]
            if wide.max() <= BYTE_HIGH:  # usual: every high byte 0 (every wide high > 255)
                out[..., self.size :] = 0
            else:
                self._split_wide(wide, codes, out)
        out[..., : self.size] = codes  # every code is now an integer 0..255
        return out

    def expand(self, compact: np.ndarray) -> np.ndarray:
        """The float32 observations (..., size) that compact forms (..., compact_size) stand
        for, bit for bit: count/d in float32 division, which rounds as the encoder's float64
        division rounded to float32 does (a test checks every declared count)."""
        codes = np.asarray(compact)
        if codes.dtype != np.uint8 or codes.shape[-1:] != (self.compact_size,):
            raise ValueError(
                f"expected uint8 compact observations of {self.compact_size}, "
                f"got {codes.dtype} {codes.shape}"
            )
        values = codes[..., : self.size].astype(np.float32)
        high = codes[..., self.size :]
        if high.any():  # usual: no count above 255
            values[..., self.wide] += high * np.float32(256)
        np.divide(values, self.denominators, out=values)
        for run in self.sum_runs:
            values[..., run.where] = run.by_code.take(codes[..., run.where])
        return values

    # ------------------------------------------------------------ spaces
    def space(self) -> spaces.Box:
        """The compact observations' Box: uint8, each byte within its declared high."""
        return spaces.Box(0, self.high, (self.compact_size,), dtype=np.uint8)

    def float_space(self) -> spaces.Box:
        """A bounded Box for the float32 observations: each float within count high / d (a
        summed one `ulps` float32 steps above). Counters hold only while within COUNTER_HIGH."""
        low = np.zeros(self.size, dtype=np.float32)
        return spaces.Box(low, self.float_high, (self.size,), dtype=np.float32)

    def wide_slices(self) -> dict[str, slice]:
        """Field name -> the tail bytes holding its elements' high bytes (fields with any)."""
        out: dict[str, slice] = {}
        for f in self.fields.values():
            at = np.flatnonzero((self.wide >= f.start) & (self.wide < f.start + f.size))
            if len(at):
                out[f.name] = slice(self.size + int(at[0]), self.size + int(at[-1]) + 1)
        return out

    # ------------------------------------------------------------ helpers
    def _split_wide(self, wide: np.ndarray, codes: np.ndarray, out: np.ndarray) -> None:
        """Two-byte codes: the low byte in place, the high byte in the tail; ValueError for a
        count above its declared high."""
        if (wide > self.wide_high).any():
            raise ValueError(f"counts above their declared high in {self._too_high(wide)}")
        high = np.floor_divide(wide, 256)
        codes[..., self.wide] = wide - high * 256
        out[..., self.size :] = high

    def _largest_floats(self) -> np.ndarray:
        """count high / d per element; summed ones the largest value they may hold."""
        values = self.count_high.astype(np.float32) / self.denominators
        for run in self.sum_runs:
            values[run.where] = run.values[-2]  # the last before the +inf sentinel
        return values

    def _too_high(self, wide: np.ndarray) -> str:
        """The fields holding a count above its high (for the error message)."""
        over = self.wide[(wide > self.wide_high).reshape(-1, len(self.wide)).any(axis=0)]
        fields = self.fields.values()
        return ", ".join(
            f.name for f in fields if ((over >= f.start) & (over < f.slice.stop)).any()
        )


def _code_sums(run: SumRun, obs: np.ndarray) -> np.ndarray:
    """The codes of one run of summed elements, found by value; ValueError for a value the
    declaration does not allow (compared bit for bit: cheaper than `!=`, and stricter)."""
    at = run.values.searchsorted(obs)
    if run.values.take(at).tobytes() != obs.tobytes():
        raise ValueError("a summed value lies further from count/d than declared")
    return run.codes.take(at)


def _start(where: tuple) -> int:
    """A layout entry's first index: (slice, shape) or (start, stop, shape)."""
    first = where[0]
    return int(first.start) if isinstance(first, slice) else int(first)
