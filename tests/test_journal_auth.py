"""A journal reads back only the games its own run wrote (#53: a forged --resume was accepted):
every line carries the HMAC of the run's key (run.key, 0600) and replays from its seed to its
recorded scores, so invented, edited or foreign games are refused, naming the line."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from evaluation.formats.journal import EVAL_GAMES
from evaluation.journal import JournalError
from evaluation.run_key import MAC_FIELD, RUN_KEY, read_run_key, sign


@pytest.fixture(scope="module")
def evaluated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished quick evaluation of `random`, journalled (15 two-round games)."""
    import evaluation

    out = tmp_path_factory.mktemp("eval") / "card"
    evaluation.evaluate("random", quick=True, config={"max_rounds": 2}, out_dir=out)
    return out


def copy_of(evaluated: Path, tmp_path: Path) -> Path:
    out = tmp_path / "card"
    out.mkdir()
    for path in evaluated.iterdir():
        (out / path.name).write_bytes(path.read_bytes())
        (out / path.name).chmod(path.stat().st_mode)
    return out


def lines(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / EVAL_GAMES).read_text().splitlines()]


def write(out: Path, records: list[dict]) -> None:
    (out / EVAL_GAMES).write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in records))


def resume(out: Path) -> None:
    from evaluation.eval_v1 import resume_evaluation

    resume_evaluation(out)


def test_the_run_key_is_its_owners_alone_and_every_line_is_signed(evaluated: Path) -> None:
    mode = stat.S_IMODE((evaluated / RUN_KEY).stat().st_mode)
    assert mode == 0o600
    key = read_run_key(evaluated)
    assert key is not None and len(key.journal_key) == 64
    assert key.held_out_secret is None  # a published-seed run has no secret
    assert all(isinstance(r[MAC_FIELD], str) and len(r[MAC_FIELD]) == 64 for r in lines(evaluated))


def test_invented_wins_are_refused(evaluated: Path, tmp_path: Path) -> None:
    """The attack of #53: every game's winners rewritten to the policy's seat."""
    out = copy_of(evaluated, tmp_path)
    forged, first = [], None
    for number, record in enumerate(lines(out), 1):
        seat = record["players"].index("policy")
        if record["winners"] != [seat] and first is None:
            first = number
        forged.append({**record, "winners": [seat]})
    write(out, forged)
    with pytest.raises(JournalError, match=f"{EVAL_GAMES}:{first}: not written by this run"):
        resume(out)


def test_a_line_without_a_code_is_refused(evaluated: Path, tmp_path: Path) -> None:
    out = copy_of(evaluated, tmp_path)
    records = lines(out)
    del records[3][MAC_FIELD]
    write(out, records)
    with pytest.raises(JournalError, match=f"{EVAL_GAMES}:4: not written by this run"):
        resume(out)


def test_a_signed_game_that_does_not_replay_is_refused(evaluated: Path, tmp_path: Path) -> None:
    """Whoever holds the key still cannot journal a game its seed and moves do not give."""
    out = copy_of(evaluated, tmp_path)
    key = read_run_key(out)
    records = lines(out)
    record = {k: v for k, v in records[0].items() if k != MAC_FIELD}
    record["scores"] = [s + 5 for s in record["scores"]]
    records[0] = sign(key, record)
    write(out, records)
    with pytest.raises(JournalError, match=f"{EVAL_GAMES}:1: game 0 does not replay"):
        resume(out)


def test_games_journalled_without_a_key_are_refused(evaluated: Path, tmp_path: Path) -> None:
    """A journal whose key was removed (or one written before journals were signed)."""
    out = copy_of(evaluated, tmp_path)
    (out / RUN_KEY).unlink()
    with pytest.raises(JournalError, match="not written by this run"):
        resume(out)


def test_a_malformed_key_is_one_clear_error(evaluated: Path, tmp_path: Path) -> None:
    out = copy_of(evaluated, tmp_path)
    (out / RUN_KEY).write_text('{"format": "farlight-run-key", "version": 1}')
    with pytest.raises(JournalError, match="not a run key"):
        resume(out)


def test_an_untouched_journal_still_resumes(evaluated: Path, tmp_path: Path) -> None:
    out = copy_of(evaluated, tmp_path)
    records = lines(out)
    write(out, records[:5])
    from evaluation.eval_v1 import resume_evaluation

    card = resume_evaluation(out)
    assert card["games"] == 15 and len(lines(out)) == 15
