"""Where the training pieces used to live, kept for code that imports them from here (the
notebooks do): every name is re-exported from its own module, one concept each:
`sb3_policy` (SB3 network and rollout buffer), `ppo_model` (building, loading and exporting
the model), `envs` (a run's environments), `run_files` (run config and logs), `live_eval`
(evaluation while training), `callbacks` (SB3 callbacks).
"""

from __future__ import annotations

from training.callbacks import (
    VALUE_PREFIXES,
    ProgressCallback,
    ValueWarmup,
)
from training.envs import (
    card_set_of,
    check_agents,
    close_env,
    env_options,
    is_policy_path,
    make_env_fn,
    opponent_policies,
    probe_env,
    seat_opponents,
)
from training.live_eval import (
    LivePolicy,
    evaluate_against,
)
from training.ppo_model import (
    build_model,
    export_policy,
    load_checkpoint,
    observation_layout,
    policy_config,
    policy_kwargs,
    structured_vf,
)
from training.run_files import (
    MAX_RUN_CONFIG_BYTES,
    RUN_CONFIG,
    STEP_COLUMN,
    AppendingCSV,
    ResumedTensorBoard,
    read_run_config,
    run_logger,
    stored_config,
    trim_log,
    write_run_config,
)
from training.sb3_policy import (
    MASKED_LOGIT,
    EnvMajorRolloutBuffer,
    FarlightExtractor,
    PassThrough,
    StructuredHeads,
    StructuredPolicy,
    masked_log_probs,
    policy_class,
)

__all__ = [
    "AppendingCSV",
    "EnvMajorRolloutBuffer",
    "FarlightExtractor",
    "LivePolicy",
    "MASKED_LOGIT",
    "MAX_RUN_CONFIG_BYTES",
    "PassThrough",
    "ProgressCallback",
    "RUN_CONFIG",
    "ResumedTensorBoard",
    "STEP_COLUMN",
    "StructuredHeads",
    "StructuredPolicy",
    "VALUE_PREFIXES",
    "ValueWarmup",
    "build_model",
    "card_set_of",
    "check_agents",
    "close_env",
    "env_options",
    "evaluate_against",
    "export_policy",
    "is_policy_path",
    "load_checkpoint",
    "make_env_fn",
    "masked_log_probs",
    "observation_layout",
    "opponent_policies",
    "policy_class",
    "policy_config",
    "policy_kwargs",
    "probe_env",
    "read_run_config",
    "run_logger",
    "seat_opponents",
    "stored_config",
    "structured_vf",
    "trim_log",
    "write_run_config",
]
