"""A refused file is named in one line of bounded length, whatever it holds (issue #26, item 5):
a card file with 40,000 unknown keys once gave a 389 KB "one-line" error."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from farlight_env.cards.io import card_set_to_dict, load_card_set, standard_card_set
from farlight_env.cards.schema import CardFileError
from farlight_env.game import FarlightGame
from farlight_env.game.rules_options import RuleOptionError, RuleOptions
from farlight_env.platform.records import RecordError
from farlight_env.records.record import load_record
from farlight_env.untrusted.messages import MAX_MESSAGE_CHARS, clip_message

#: The cap plus the "… (N more characters)" tail and a file name.
BOUND = MAX_MESSAGE_CHARS + 40


def card_file(tmp_path: Path, edit) -> Path:
    data = card_set_to_dict(standard_card_set())
    edit(data)
    path = tmp_path / "cards.json"
    path.write_text(json.dumps(data))
    return path


def test_r_cards_5_forty_thousand_unknown_keys_name_five_and_count_the_rest(tmp_path):
    path = card_file(tmp_path, lambda d: d["parts"][0].update({f"k{i}": 1 for i in range(40000)}))
    with pytest.raises(CardFileError) as info:
        load_card_set(path)
    message = str(info.value)
    assert len(message) < BOUND and "\n" not in message
    assert "'k0', 'k1', 'k10', 'k100', 'k1000' … (39995 more): unknown keys" in message
    assert "the allowed keys are name, connectors" in message  # what to write instead


@pytest.mark.parametrize("field", ["name", "crew_cost"])
def test_r_cards_5_a_huge_value_is_quoted_cut(tmp_path, field):
    path = card_file(tmp_path, lambda d: d["parts"][0].update({field: "x" * 100_000}))
    with pytest.raises(CardFileError) as info:
        load_card_set(path)
    assert len(str(info.value)) < BOUND
    assert f"field '{field}'" in str(info.value) and "x…'" in str(info.value)


def test_a_saved_game_with_a_huge_unknown_field_is_refused_in_a_bounded_line():
    data = json.loads(FarlightGame(3, seed=1).to_json())
    data["state"]["x" * 100_000] = 1
    with pytest.raises(ValueError) as info:
        FarlightGame.from_json(json.dumps(data))
    message = str(info.value)
    assert message.startswith("saved game: state: object contains unknown field xxx")
    assert len(message) < BOUND and message.endswith("(99795 more characters)")


def test_unknown_rule_options_are_named_five_at_most():
    with pytest.raises(RuleOptionError) as info:
        RuleOptions.from_mapping({f"n{i}": 1 for i in range(40000)})
    assert len(str(info.value)) < BOUND
    assert "'n0', 'n1', 'n2', 'n3', 'n4' … (39995 more); valid options:" in str(info.value)


def test_a_record_error_is_one_bounded_line(tmp_path):
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"format": "farlight-record", "y" * 50_000: 1}))
    with pytest.raises(RecordError) as info:
        load_record(path)
    assert len(str(info.value)) < BOUND + len(str(path))


def test_clip_message_keeps_short_lines_and_counts_what_it_cuts():
    assert clip_message("short") == "short"
    assert clip_message("a\nb") == "a b"
    assert clip_message("z" * 305, limit=300) == "z" * 300 + "… (5 more characters)"


def test_the_cli_refuses_such_a_card_file_in_one_short_line(tmp_path):
    path = card_file(tmp_path, lambda d: d["parts"][0].update({f"k{i}": 1 for i in range(40000)}))
    done = subprocess.run(
        [sys.executable, "-m", "farlight_cli", "random", "--card-set", str(path), "--games", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) <= 2 and len(lines[0]) < BOUND + len(str(path)), done.stderr
    assert "(39995 more): unknown keys" in lines[0]
