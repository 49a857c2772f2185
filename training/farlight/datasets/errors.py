"""The error every dataset reader raises, and the array check they share (a dataset read back
may come from anyone: `training.farlight.datasets.collect`, `training.farlight.datasets.format`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from farlight_env.untrusted.messages import clip_message


class DatasetError(ValueError):
    """A dataset, or one of its episodes, that does not hold what `write_dataset` writes; the
    message is one line of bounded length naming the dataset and the field."""

    def __init__(self, message: object = "") -> None:
        super().__init__(clip_message(str(message)))


def check_array(
    value: Any, where: str, field: str, kind: Any, shape: tuple[int, ...] | None
) -> Any:
    """`value` if an array of dtype kind `kind` and shape `shape` (None: any 1-D one)."""
    if not isinstance(value, np.ndarray):
        raise DatasetError(f"{where}: {field} must be an array, got {type(value).__name__}")
    if not np.issubdtype(value.dtype, kind):
        wanted = kind.__name__ if isinstance(kind, type) else str(kind)
        raise DatasetError(f"{where}: {field} must be of dtype {wanted}, got {value.dtype}")
    if value.shape != shape and not (shape is None and value.ndim == 1):
        raise DatasetError(f"{where}: {field} must have shape {shape or '(T,)'}, got {value.shape}")
    return value
