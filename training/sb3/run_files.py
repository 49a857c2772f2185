"""A run directory's files: its stored config (written, read back size-bounded and type-checked)
and its CSV and TensorBoard logs, trimmed to the last checkpoint on a resume."""

from __future__ import annotations

import csv
import dataclasses
import json
import os
from dataclasses import asdict
from pathlib import Path
from typing import Any

import msgspec
from stable_baselines3.common.logger import CSVOutputFormat, Logger, TensorBoardOutputFormat

from farlight_env.untrusted.files import atomic_write, read_bounded
from farlight_env.untrusted.messages import some_names

RUN_CONFIG = "run_config.json"
MAX_RUN_CONFIG_BYTES = 1 << 20
#: The CSV column every logged row carries (SB3's dumps and the evaluations alike).
STEP_COLUMN = "time/total_timesteps"


def write_run_config(run_dir: Path, config: Any) -> None:
    atomic_write(run_dir / RUN_CONFIG, json.dumps(asdict(config), indent=1, sort_keys=True))


def read_run_config(run_dir: Path) -> dict[str, Any]:
    """The JSON object of a run's config (size-bounded; ValueError naming the file)."""
    path = run_dir / RUN_CONFIG
    if not path.is_file():
        raise FileNotFoundError(f"{run_dir}: no {RUN_CONFIG}; not a training run directory")
    try:
        data = json.loads(read_bounded(path, MAX_RUN_CONFIG_BYTES))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise ValueError(f"{path}: corrupt run config ({exc})") from exc
    if not isinstance(data, dict):
        raise ValueError(f"{path}: run config must be a JSON object")
    return data


#: Config fields added after runs were already stored, with the value that repeats what those
#: runs did (a missing field would otherwise take today's default and change a resumed run).
FIELDS_ADDED_LATER: dict[str, Any] = {"minibatch_chunk": 1, "ship_encoder": "train"}


def stored_config(run_dir: Path, cls: type) -> Any:
    """The run's stored config as `cls`, every field type- and range-checked; a run of
    another kind is refused by name."""
    data = read_run_config(run_dir)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - names)
    if unknown:
        raise ValueError(
            f"{run_dir / RUN_CONFIG}: fields {some_names(unknown)} do not belong to a "
            f"{cls.__name__} run "
            "(resume it with the command that started it)"
        )
    added = {name: value for name, value in FIELDS_ADDED_LATER.items() if name in names}
    try:
        return msgspec.convert({**added, **data}, cls)
    except msgspec.ValidationError as exc:
        raise ValueError(f"{run_dir / RUN_CONFIG}: {exc}") from exc


def trim_log(path: Path, last_step: int) -> None:
    """Drop the rows of progress.csv logged after `last_step` (by a run killed after its
    last checkpoint), and a torn last line, so a resumed run's log has no stale steps."""
    if not path.is_file():
        return
    with path.open(newline="") as fh:
        lines = fh.read().splitlines(keepends=True)
    if not lines:
        return
    header = next(csv.reader([lines[0]]))
    column = header.index(STEP_COLUMN) if STEP_COLUMN in header else None
    kept = [lines[0] if lines[0].endswith("\n") else lines[0] + "\n"]
    for line in lines[1:]:
        if not line.endswith("\n"):
            continue  # torn by the kill
        row = next(csv.reader([line]), [])
        try:
            step = float(row[column]) if column is not None else None
        except (IndexError, ValueError):
            step = None
        if step is not None and step <= last_step:
            kept.append(line)
    if kept != lines:
        atomic_write(path, "".join(kept))


class AppendingCSV(CSVOutputFormat):
    """SB3's CSV log, but a resumed run appends instead of wiping earlier rows."""

    def __init__(self, filename: str) -> None:
        Path(filename).touch()
        self.file = open(filename, "r+")  # noqa: SIM115 - owned by the logger, closed by it
        header = self.file.readline().strip()
        self.keys = header.split(",") if header else []
        self.separator = ","
        self.quotechar = '"'
        self.file.seek(0, os.SEEK_END)


class ResumedTensorBoard(TensorBoardOutputFormat):
    """SB3's TensorBoard log, but a resumed run hides the events a killed run logged after its
    last checkpoint (TensorBoard's purge step), as `trim_log` does for the CSV."""

    def __init__(self, folder: str, purge_step: int | None) -> None:
        from torch.utils.tensorboard import SummaryWriter

        self.writer = SummaryWriter(log_dir=folder, purge_step=purge_step)
        self._is_closed = False


def run_logger(run_dir: Path, resumed_at: int | None = None) -> Logger:
    """CSV (appending across resumes) and TensorBoard logs under run_dir/logs; on a resume
    from step `resumed_at`, CSV rows and TensorBoard events of later steps are dropped first."""
    folder = run_dir / "logs"
    folder.mkdir(parents=True, exist_ok=True)
    purge_step = None
    if resumed_at is not None:
        trim_log(folder / "progress.csv", resumed_at)
        purge_step = resumed_at + 1
    formats = [
        AppendingCSV(str(folder / "progress.csv")),
        ResumedTensorBoard(str(folder), purge_step),
    ]
    return Logger(str(folder), formats)
