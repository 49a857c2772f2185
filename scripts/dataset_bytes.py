"""Bytes a step of `farlight dataset`'s datasets, compact (since #49) beside the old float form.

    python scripts/dataset_bytes.py --agents heuristic,random,heuristic --games 3 --seed 0

Writes the same games (same agents, games and seed) once per storage format and observation
form into a scratch folder, and prints one markdown table. "bytes a step" is what `farlight
dataset` reports: the data folder's bytes over the dataset's steps (one per decision). The
folder's metadata.json holds the observation space, every element's bounds written out (about
100 kB compact, 250 kB float), a fixed cost that dominates small parquet datasets, so the
episodes' own bytes a step are shown apart.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from training.farlight.datasets.collect import DATA_FORMATS, DatasetSpec, Written, write_dataset
from training.farlight.datasets.format import OBSERVATION_FORMS


def measure(agents: tuple[str, ...], games: int, seed: int) -> dict[tuple[str, str], tuple]:
    """(storage format, observation form) -> (the dataset written, its metadata.json bytes)."""
    sizes = {}
    with tempfile.TemporaryDirectory() as scratch:
        for data_format in DATA_FORMATS:
            for form in OBSERVATION_FORMS:
                dataset_id = f"sizes/{data_format}-{form}-v0"
                spec = DatasetSpec(
                    dataset_id, agents, games, seed, data_format=data_format, observations=form
                )
                written = write_dataset(spec, Path(scratch), progress=False)
                metadata = Path(scratch, dataset_id, "data", "metadata.json").stat().st_size
                sizes[data_format, form] = (written, metadata)
    return sizes


def row(data_format: str, form: str, written: Written, metadata: int) -> str:
    episodes = (written.bytes - metadata) / written.steps
    return (
        f"| {data_format} | {form} | {written.steps} | {written.bytes_per_step:,.0f} | "
        f"{metadata:,} | {episodes:,.0f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", default="heuristic,random,heuristic")
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    sizes = measure(tuple(args.agents.split(",")), args.games, args.seed)
    print("| --format | observations | steps | bytes a step | metadata.json | episodes' a step |")
    print("|---|---|---|---|---|---|")
    for (data_format, form), (written, metadata) in sizes.items():
        print(row(data_format, form, written, metadata))


if __name__ == "__main__":
    main()
