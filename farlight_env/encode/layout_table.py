"""The observation layout as a Markdown table, generated from the fields' declarations
(`layout.build_layout`), so the documented table cannot drift from the encoder: docs/
environment.md holds it between markers, `scripts/observation_table.py` rewrites it and a
test checks it (#49)."""

from __future__ import annotations

import itertools

from farlight_env.encode.compact import CompactCodec
from farlight_env.encode.layout import Field, Scale

#: The lines around the generated table in docs/environment.md.
BEGIN = "<!-- observation table: written by scripts/observation_table.py -->"
END = "<!-- end of observation table -->"


def describe_values(scale: Scale) -> str:
    """`/10 ≤65535`: the float is count/10 for a count 0..65535; flags are `0/1`."""
    if scale.denominator == 1.0 and scale.high == 1:
        return "0/1"
    text = f"/{scale.denominator:g} ≤{scale.high}"
    span = scale.high + 1
    if scale.ulps == 1:
        text += f"; a float32 step above: code + {span}, below: + {2 * span}"
    elif scale.ulps:
        text += f"; o float32 steps above: code + {span}·(2o-1), below: + {span}·2o"
    return text


def _labels(scales: list[Scale]) -> str:
    """Labels of a run of scales, repeats counted: `unseen ×57`."""
    parts = []
    for label, same in itertools.groupby(s.label for s in scales):
        count = len(list(same))
        parts.append(label if count == 1 else f"{label} ×{count}")
    return ", ".join(parts)


def describe_field(field: Field) -> str:
    """A field's components and values, runs of equal values joined."""
    runs = itertools.groupby(field.scales, key=lambda s: (s.denominator, s.high, s.ulps))
    groups = [list(group) for _key, group in runs]
    return "; ".join(f"{_labels(group)} {describe_values(group[0])}" for group in groups)


def layout_table(codec: CompactCodec) -> str:
    """The Markdown table: field, float slice (the compact byte of element i is at i too),
    shape, the compact form's tail bytes holding high bytes, values, meaning."""
    wide = codec.wide_slices()
    lines = [
        "| field | slice | shape | high bytes | values (count / d, count ≤ high) | what |",
        "|---|---|---|---|---|---|",
    ]
    for field in codec.fields.values():
        where = wide.get(field.name)
        tail = f"{where.start}:{where.stop}" if where else ""
        lines.append(
            f"| `{field.name}` | {field.start}:{field.slice.stop} | {field.shape} | {tail} "
            f"| {describe_field(field)} | {field.doc} |"
        )
    return "\n".join(lines)
