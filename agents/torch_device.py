"""Where torch runs: `--device auto|cpu|cuda|cuda:N` for training, `device=` for policy agents.

- `auto`: the first GPU when torch sees one (`torch.cuda.is_available()`), else the CPU;
- `cpu`: the CPU;
- `cuda` or `cuda:N`: that GPU, refused in one line (DeviceError) when torch sees none or
  fewer than N + 1.

Training defaults to `auto` (a PPO update's minibatches are large enough for a GPU to pay);
policy agents default to `cpu`: they score one position at a time, where a GPU's transfer
costs more than the small network, and tournament workers are forked processes, in which CUDA
cannot start. Tensors written to files (policies, checkpoints) are always moved to the CPU
first, so a file from a GPU run loads anywhere. The syntax check reads no torch, so configs
(training/farlight/config.py) can use it without importing torch.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

#: What a device option may say.
DEVICE_NAMES = "auto, cpu, cuda or cuda:N"
_PATTERN = re.compile(r"auto|cpu|cuda(:[0-9]{1,2})?")


class DeviceError(ValueError):
    """A device that is no device name, or a GPU that torch does not see (a user's mistake)."""


def device_problem(name: object, label: str = "device") -> str | None:
    """Why `name` is not a device option, or None when it is one (reads no torch); `label`
    names the option in the message (a flag such as --device)."""
    if isinstance(name, str) and _PATTERN.fullmatch(name):
        return None
    return f"{label} must be {DEVICE_NAMES}, got {str(name)[:40]!r}"


def resolve_device(name: str) -> torch.device:
    """The torch device a device option names (see the module docstring); DeviceError for a
    bad name or a GPU torch does not see."""
    problem = device_problem(name)
    if problem is not None:
        raise DeviceError(problem)
    import torch

    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(name)
    if device.type == "cuda":
        _check_gpu(name, 0 if device.index is None else device.index)
    return device


def _check_gpu(name: str, index: int) -> None:
    """Refuse a GPU that torch does not see, saying how many it sees."""
    import torch

    if not torch.cuda.is_available():
        raise DeviceError(
            f"device {name}: torch sees no GPU here (a CPU-only torch build, or no CUDA "
            "driver); use cpu or auto"
        )
    count = torch.cuda.device_count()
    if index >= count:
        raise DeviceError(f"device {name}: torch sees {count} GPU(s), cuda:0..cuda:{count - 1}")
