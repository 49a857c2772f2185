"""Game records: `record` builds, loads, validates, replays and saves them; `format` is the
record file's schema (msgspec)."""

from farlight_env.records.record import (
    RECORD_FORMAT,
    RECORD_VERSION,
    TOURNAMENT_FORMAT,
    RecordError,
    build_record,
    iter_replay,
    load_record,
    record_actions,
    record_card_set,
    record_config,
    replay_record,
    save_record,
    validate_record,
    verify_record,
)

__all__ = [
    "RECORD_FORMAT",
    "RECORD_VERSION",
    "TOURNAMENT_FORMAT",
    "RecordError",
    "build_record",
    "iter_replay",
    "load_record",
    "record_actions",
    "record_card_set",
    "record_config",
    "replay_record",
    "save_record",
    "validate_record",
    "verify_record",
]
