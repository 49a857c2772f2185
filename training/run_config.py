"""What every run config shares, whatever its game or library: fields with help texts, the
rollout defaults, bounds, the `Literal` choices check, and resuming (the stored config, with
only the options a run may change on resume taken from the command line)."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Collection
from dataclasses import field
from typing import Any, Literal

import numpy as np

#: Widest layer a run may ask for; the same bound holds for policy files
#: (agents.farlight.policy).
MAX_WIDTH = 4096


#: What `--n-steps 0` and `--batch-size 0` (the defaults) stand for: a rollout of about this
#: many steps over all environments, and minibatches of this size (or the rollout, if smaller).
ROLLOUT_STEPS = 1024
MINIBATCH = 256


def resolve_rollout(config: Any) -> None:
    """Replace `n_steps` 0 and `batch_size` 0 by what they stand for, so any `--n-envs` works
    with the defaults and run_config.json stores the numbers used (bad values are left to
    `config_problems`)."""
    n_envs = config.n_envs
    if config.n_steps == 0 and not bad_int(n_envs) and n_envs >= 1:
        config.n_steps = max(1, ROLLOUT_STEPS // n_envs)
    if config.batch_size == 0 and not bad_int(config.n_steps) and not bad_int(n_envs):
        config.batch_size = max(2, min(MINIBATCH, config.n_steps * n_envs))


def opt(default: Any, help: str, metavar: str | None = None, flag: bool = True) -> Any:
    """A config field with its help text (lists get a fresh copy per instance); `metavar`
    names a text option's value in --help when it is no PATH; `flag=False` keeps a field a
    protocol sets off the command line."""
    metadata = {"help": help, **({"metavar": metavar} if metavar else {})}
    if not flag:
        metadata["flag"] = False
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda d=default: d.copy(), metadata=metadata)
    return field(default=default, metadata=metadata)


MAXIMUM = {"n_envs": 64, "n_steps": 65_536, "batch_size": 1 << 20, "n_epochs": 1_000}
MAXIMUM |= {"minibatch_chunk": 65_536}
#: Step counts stay at most 10**12 (training.checkpoints.MAX_COUNTER; centuries of training).
MAXIMUM |= {"total_steps": 10**12, "value_warmup_steps": 10**12}


def bad_int(value: Any) -> bool:
    """Whether a config value is not a plain int (a bool is not one)."""
    return isinstance(value, bool) or not isinstance(value, int)


def literal_problems(config: Any) -> list[str]:
    """A run config's fields (PPO, self-play, RLlib) whose value is outside their `Literal` choices,
    one sentence each."""
    problems = []
    hints = typing.get_type_hints(type(config))
    for f in dataclasses.fields(config):
        choices = literal_choices(hints[f.name])
        value = getattr(config, f.name)
        if choices and value not in choices:
            problems.append(
                f"--{flag_name(f.name)} must be one of {', '.join(choices)}, got {value!r}"
            )
    return problems


def flag_name(name: str) -> str:
    """A config field's command-line flag (without the dashes)."""
    return name.replace("_", "-")


def literal_choices(hint: Any) -> tuple[str, ...]:
    """The choices of a `Literal[...]` field's type; () for any other type."""
    return typing.get_args(hint) if typing.get_origin(hint) is Literal else ()


def shown(value: Any) -> str:
    """A value as it is typed on the command line (never a Python repr such as {})."""
    if isinstance(value, dict):
        return ",".join(f"{k}={v}" for k, v in value.items()) or "none"
    if isinstance(value, list):
        return ",".join(map(str, value)) if value else "none"
    return "none" if value == "" else str(value)


def stream_seed(seed: int, steps: int) -> int:
    """The seed a run's random streams (games, opponents, the learner's sampling) start from
    when it begins at `steps` trained steps: the run's own seed at 0, and at a resume one of
    its own per step count, so a resumed run plays new deals instead of replaying those the
    run began with (the same run resumed at the same step plays the same games)."""
    if steps == 0:
        return seed
    return int(np.random.SeedSequence([seed, steps]).generate_state(1)[0] >> 1)  # < 2**31


def resume_config(
    stored: Any,
    requested: Any,
    given: Collection[str],
    resumable: Collection[str],
) -> Any:
    """The stored config with the `resumable` options of `requested` that were `given`; any
    other given option that differs from the stored value is refused by name."""
    refused = sorted(
        name
        for name in given
        if name not in resumable and getattr(requested, name) != getattr(stored, name)
    )
    if refused:
        flags = ", ".join(
            f"--{flag_name(n)} (stored: {shown(getattr(stored, n))})" for n in refused
        )
        raise ValueError(
            f"--resume continues with the run's stored options; drop {flags}, or start a new "
            "run in another --run-dir"
        )
    merged = dataclasses.replace(
        stored, **{n: getattr(requested, n) for n in given if n in resumable}
    )
    merged.run_dir = requested.run_dir
    return merged
