"""Training checkpoints that are data, never code.

A checkpoint is a zip of two members, written to a temp name and renamed:

- `checkpoint.json`: format tag, version and the counters a resumed run continues from (step
  count, updates, schedule progress, recent episode statistics), validated field by field;
- `weights.pt`: `{"policy": state dict, "optimizer": state dict}` of tensors and numbers, saved
  on the CPU and read with `torch.load(..., map_location="cpu", weights_only=True)`: checked
  there, then `load_state_dict` copies them to the device the model was built on (--device).

The model itself is rebuilt from the run's own configuration (run_config.json), so nothing in
the file chooses a class or a function. Stable-Baselines3's own zips (`model.save`) pickle
classes and schedules; they are refused unread.
"""

from __future__ import annotations

import io
import math
import os
import zipfile
from collections import deque
from pathlib import Path
from typing import Any, Literal

import msgspec
import torch

from farlight_env.untrusted.files import check_torch_archive
from farlight_env.untrusted.messages import clip_message

CHECKPOINT = "checkpoint.zip"
CHECKPOINT_FORMAT = "farlight-checkpoint"
CHECKPOINT_VERSION = 1
META_MEMBER = "checkpoint.json"
WEIGHTS_MEMBER = "weights.pt"
#: Upper bounds on what is read: a checkpoint of the largest network a policy file may hold
#: (agents.farlight.policy.MAX_PARAMETERS) with its Adam moments is well under these.
MAX_META_BYTES = 1 << 20
MAX_WEIGHTS_BYTES = 1 << 30
#: SB3's MaskablePPO keeps the last 100 episodes for its rollout statistics.
MAX_EPISODE_INFOS = 1000
#: Step, update and episode counters (and Adam's per-parameter step) are at most 10**12: a
#: trillion steps is centuries at this project's few thousand steps per second, and a bound
#: keeps absurd counts ("trained 4611686018427387904 steps") out of resumed runs.
MAX_COUNTER = 10**12


class EpisodeInfo(msgspec.Struct, forbid_unknown_fields=True):
    """One entry of SB3's ep_info_buffer: return, length, wall time."""

    r: float
    l: int  # noqa: E741 - SB3's key
    t: float


class CheckpointMeta(msgspec.Struct, forbid_unknown_fields=True):
    """Everything a resumed run continues from besides the tensors."""

    format: Literal["farlight-checkpoint"]
    version: int
    num_timesteps: int = 0
    n_updates: int = 0
    episode_num: int = 0
    progress_remaining: float = 1.0
    episode_infos: list[EpisodeInfo] = msgspec.field(default_factory=list)


class CheckpointError(ValueError):
    """A checkpoint that is missing, corrupt, of another format or another network (the
    message is one line of bounded length: farlight_env.untrusted.messages)."""

    def __init__(self, message: object = "") -> None:
        super().__init__(clip_message(str(message)))


def _check_meta(meta: CheckpointMeta, path: Path) -> None:
    for name in ("num_timesteps", "n_updates", "episode_num"):
        if not 0 <= getattr(meta, name) <= MAX_COUNTER:
            raise CheckpointError(
                f"{path}: {name} must be in 0..{MAX_COUNTER:.0e}, got {getattr(meta, name)}"
            )
    if not math.isfinite(meta.progress_remaining):
        raise CheckpointError(f"{path}: progress_remaining must be a finite number")
    for k, info in enumerate(meta.episode_infos):
        if not (math.isfinite(info.r) and math.isfinite(info.t) and 0 <= info.l <= MAX_COUNTER):
            raise CheckpointError(
                f"{path}: episode statistic {k} must hold a finite return and time and a "
                f"length in 0..{MAX_COUNTER:.0e}"
            )
    if meta.version != CHECKPOINT_VERSION:
        raise CheckpointError(
            f"{path}: checkpoint version {meta.version}, this version reads {CHECKPOINT_VERSION}"
        )
    if len(meta.episode_infos) > MAX_EPISODE_INFOS:
        raise CheckpointError(f"{path}: more than {MAX_EPISODE_INFOS} episode statistics")


# ----------------------------------------------------------------------------- writing
def on_cpu(value: Any) -> Any:
    """`value` with every tensor in its dicts, lists and tuples on the CPU, so a checkpoint of a
    GPU run resumes anywhere (a CPU tensor is kept as it is, not copied)."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, dict):
        return {k: on_cpu(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(on_cpu(v) for v in value)
    return value


def save_checkpoint(model: Any, run_dir: Path) -> Path:
    """Write `model`'s weights, optimiser state and counters atomically; returns the path."""
    meta = CheckpointMeta(
        format=CHECKPOINT_FORMAT,
        version=CHECKPOINT_VERSION,
        num_timesteps=int(model.num_timesteps),
        n_updates=int(model._n_updates),
        episode_num=int(model._episode_num),
        progress_remaining=float(model._current_progress_remaining),
        episode_infos=[
            EpisodeInfo(float(e["r"]), int(e["l"]), float(e["t"]))
            for e in (model.ep_info_buffer or ())
        ],
    )
    weights = io.BytesIO()
    torch.save(
        on_cpu(
            {
                "policy": model.policy.state_dict(),
                "optimizer": model.policy.optimizer.state_dict(),
            }
        ),
        weights,
    )
    path = Path(run_dir) / CHECKPOINT
    tmp = path.with_name(CHECKPOINT + ".tmp")
    with zipfile.ZipFile(tmp, "w") as archive:
        archive.writestr(META_MEMBER, msgspec.json.encode(meta))
        archive.writestr(WEIGHTS_MEMBER, weights.getvalue())
    with open(tmp, "rb") as fh:
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    return path


# ----------------------------------------------------------------------------- reading
def _check_sizes(archive: zipfile.ZipFile, path: Path) -> None:
    """Refuse, before any member is read, a zip that could inflate past what is read: a
    compressed member (zipfile writes a checkpoint's members stored, so a small file of
    deflated zeros could ask for a gigabyte) or members declaring more than the file holds."""
    members = archive.infolist()
    for info in members:
        if info.compress_type != zipfile.ZIP_STORED or info.file_size != info.compress_size:
            raise CheckpointError(
                f"{path}: {info.filename} is compressed; checkpoints are written uncompressed"
            )
    declared = sum(info.file_size for info in members)
    size = path.stat().st_size
    if declared > min(size, MAX_META_BYTES + MAX_WEIGHTS_BYTES):
        raise CheckpointError(
            f"{path}: its members declare {declared:,} bytes, more than the {size:,} bytes "
            "of the file; not a checkpoint this project wrote"
        )


def _member(archive: zipfile.ZipFile, name: str, limit: int, path: Path) -> bytes:
    """Member `name`, at most `limit` bytes (after `_check_sizes`: never more than the file)."""
    info = archive.getinfo(name)
    if info.file_size > limit:
        raise CheckpointError(f"{path}: {name} is {info.file_size} bytes, more than {limit}")
    with archive.open(info) as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise CheckpointError(f"{path}: {name} is more than {limit} bytes")
    return data


def _old_format_message(path: Path) -> str:
    return (
        f"{path}: a Stable-Baselines3 checkpoint (pickled code), refused unread for safety; "
        "checkpoints from before this version cannot be resumed: start a new run "
        "(--init-from needs a new-format checkpoint too)"
    )


def read_checkpoint(path: Path) -> tuple[CheckpointMeta, dict[str, Any]]:
    """The counters and tensors of a checkpoint, validated; nothing is unpickled."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no checkpoint at {path}")
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            if META_MEMBER not in names or WEIGHTS_MEMBER not in names:
                if "data" in names and "policy.pth" in names:
                    raise CheckpointError(_old_format_message(path))
                raise CheckpointError(
                    f"{path}: not a Farlight checkpoint (no {META_MEMBER} and {WEIGHTS_MEMBER})"
                )
            _check_sizes(archive, path)
            meta_bytes = _member(archive, META_MEMBER, MAX_META_BYTES, path)
            weights_bytes = _member(archive, WEIGHTS_MEMBER, MAX_WEIGHTS_BYTES, path)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as exc:
        if isinstance(exc, CheckpointError):
            raise
        raise CheckpointError(f"{path}: corrupt checkpoint ({exc})") from exc
    meta = _decode_meta(meta_bytes, path)
    return meta, _decode_weights(weights_bytes, path)


def _decode_meta(data: bytes, path: Path) -> CheckpointMeta:
    try:
        meta = msgspec.json.decode(data, type=CheckpointMeta)
    except msgspec.ValidationError as exc:
        raise CheckpointError(f"{path}: not a Farlight checkpoint ({META_MEMBER}: {exc})") from exc
    except msgspec.DecodeError as exc:
        raise CheckpointError(f"{path}: corrupt checkpoint ({META_MEMBER}: {exc})") from exc
    _check_meta(meta, path)
    return meta


def _decode_weights(data: bytes, path: Path) -> dict[str, Any]:
    try:
        check_torch_archive(data, MAX_WEIGHTS_BYTES)
        payload = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - torch raises many kinds on bad bytes
        first = str(exc).splitlines()[0] if str(exc) else ""
        raise CheckpointError(
            f"{path}: corrupt checkpoint ({WEIGHTS_MEMBER}: {type(exc).__name__}: {first})"
        ) from exc
    if not isinstance(payload, dict) or set(payload) != {"policy", "optimizer"}:
        raise CheckpointError(f"{path}: {WEIGHTS_MEMBER} must hold 'policy' and 'optimizer'")
    policy = payload["policy"]
    if not isinstance(policy, dict) or not all(
        isinstance(k, str) and isinstance(v, torch.Tensor) for k, v in policy.items()
    ):
        raise CheckpointError(f"{path}: the policy weights must map names to tensors")
    optimizer = payload["optimizer"]
    if not isinstance(optimizer, dict) or set(optimizer) != {"state", "param_groups"}:
        raise CheckpointError(f"{path}: the optimiser state is not a torch optimiser's")
    return payload


def check_checkpoint(path: Path) -> None:
    """Refuse a missing, corrupt, old-format or foreign checkpoint with a clear message."""
    read_checkpoint(path)


def restore_checkpoint(model: Any, path: Path) -> Any:
    """Put a checkpoint's weights, optimiser state and counters into a freshly built `model`
    (built from the run's config, as MaskablePPO.load would rebuild it); returns `model`."""
    meta, weights = read_checkpoint(path)
    restore_weights(model, weights, path)
    _restore_optimizer(model, weights["optimizer"], path)
    model.num_timesteps = meta.num_timesteps
    model._n_updates = meta.n_updates
    model._episode_num = meta.episode_num
    model._current_progress_remaining = meta.progress_remaining
    model.ep_info_buffer = deque(
        ({"r": e.r, "l": e.l, "t": e.t} for e in meta.episode_infos),
        maxlen=model._stats_window_size,
    )
    model.ep_success_buffer = deque(maxlen=model._stats_window_size)
    model._last_obs = None  # the env resets before training, as SB3's load(force_reset)
    return model


def restore_weights(model: Any, weights: dict[str, Any], path: Path) -> None:
    """The policy's weights only (a warm start); a different network is refused by name."""
    try:
        model.policy.load_state_dict(weights["policy"], strict=True)
    except RuntimeError as exc:
        raise CheckpointError(
            f"{path}: its network does not match this run's (--arch, --embed, "
            f"--ship-features, --hidden, --pi, --vf, the card set and grid size must be the "
            f"same): {str(exc).splitlines()[0]}"
        ) from exc


def _restore_optimizer(model: Any, state: dict[str, Any], path: Path) -> None:
    optimizer = model.policy.optimizer
    params = [p for group in optimizer.param_groups for p in group["params"]]
    try:
        saved = state["state"]
        for index, slots in saved.items():
            if not isinstance(index, int) or not 0 <= index < len(params):
                raise ValueError(f"state for parameter {index!r} of {len(params)}")
            for name in ("exp_avg", "exp_avg_sq"):
                tensor = slots.get(name)
                if not isinstance(tensor, torch.Tensor) or tensor.shape != params[index].shape:
                    raise ValueError(f"{name} of parameter {index} has the wrong shape")
        _check_groups(state["param_groups"], optimizer.param_groups)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise CheckpointError(f"{path}: optimiser state does not fit this network ({exc})") from exc
    problem = _optimiser_problem(state)
    if problem:
        raise CheckpointError(f"{path}: impossible optimiser state: {problem}")
    try:
        optimizer.load_state_dict(state)
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise CheckpointError(f"{path}: optimiser state does not fit this network ({exc})") from exc


def _check_groups(saved: Any, current: list[dict[str, Any]]) -> None:
    """The saved parameter groups: as many as the network's, with the same settings named."""
    if not isinstance(saved, list) or len(saved) != len(current):
        raise ValueError(f"{len(current)} parameter group(s) expected")
    for k, (group, ours) in enumerate(zip(saved, current, strict=True)):
        if not isinstance(group, dict) or set(group) != set(ours):
            raise ValueError(f"parameter group {k} holds other settings than Adam's")


def _number(value: Any) -> float | None:
    """A plain int or float as a float; anything else (bool, str, tensor) None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _optimiser_problem(state: dict[str, Any]) -> str | None:
    """What no Adam optimiser could hold, in words; None when every setting is possible.

    Adam divides by 1 - beta**step and by sqrt(exp_avg_sq) + eps: betas must be in [0, 1), eps
    above 0, the moments finite (the second one >= 0) and the step a count. (A resumed run
    sets the learning rate from its schedule, but a negative or infinite one is refused too.)
    """
    for k, group in enumerate(state["param_groups"]):
        lr, eps, decay = (_number(group.get(name)) for name in ("lr", "eps", "weight_decay"))
        betas = group.get("betas")
        if lr is None or not (math.isfinite(lr) and lr >= 0):
            return f"group {k}: lr must be a finite number >= 0, got {group.get('lr')!r}"
        if eps is None or not (math.isfinite(eps) and eps > 0):
            return f"group {k}: eps must be a finite number > 0, got {group.get('eps')!r}"
        if decay is None or not (math.isfinite(decay) and decay >= 0):
            return f"group {k}: weight_decay must be a finite number >= 0"
        values = [_number(b) for b in betas] if isinstance(betas, (list, tuple)) else []
        if len(values) != 2 or not all(b is not None and 0 <= b < 1 for b in values):
            return f"group {k}: betas must be two numbers in [0, 1), got {betas!r}"
    for index, slots in state["state"].items():
        step = slots.get("step")
        if isinstance(step, torch.Tensor) and step.numel() == 1:
            step = step.item()
        count = _number(step)
        if count is None or not (count.is_integer() and 0 <= count <= MAX_COUNTER):
            return f"parameter {index}: step must be a count in 0..{MAX_COUNTER:.0e}"
        for name in ("exp_avg", "exp_avg_sq"):
            if not bool(torch.isfinite(slots[name]).all()):
                return f"parameter {index}: {name} holds NaN or infinite values"
        if bool((slots["exp_avg_sq"] < 0).any()):
            return f"parameter {index}: exp_avg_sq holds negative values"
    return None


def checkpoint_steps(path: Path) -> int:
    """The step count a checkpoint was written at (reads only its small JSON member, checked
    as `read_checkpoint` checks it)."""
    path = Path(path)
    try:
        with zipfile.ZipFile(path) as archive:
            _check_sizes(archive, path)
            data = _member(archive, META_MEMBER, MAX_META_BYTES, path)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, KeyError) as exc:
        raise CheckpointError(f"{path}: corrupt checkpoint ({exc})") from exc
    return _decode_meta(data, path).num_timesteps
