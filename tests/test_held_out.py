"""Held-out evaluation (#47): a benchmark whose deals cannot be memorized. Under the published
seeds an agent that precomputed the protocol's own games recognises every deal from its first
view and plays the line it knows wins; under a held-out run it recognises none, and plays (and
scores) exactly as an honest copy of itself on the same held-out deals."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest
from evaluation_runs import without_timing

import evaluation
from agents.registry import make
from evaluation.eval_v1 import POLICY_LABEL, _specs, cells, held_out_seed, margin
from evaluation.tournament import play_game
from farlight_env.seeding import WIDE_SEEDS

#: Heuristic tie-breaker seeds the memorizer tries offline on every published game.
CANDIDATES = range(6)
#: The honest line: the heuristic at this seed, which every memorizer falls back to.
HONEST_SEED = 100


class Memorizer:
    """A heuristic that keys each game by its first observation and, in a game it has seen
    offline, plays the tie-breaker seed that won it there (`plan`). `seen` counts them."""

    name = "memorizer"
    needs_observation = True

    def __init__(self, plan: Mapping[str, int], log: dict[str, Any], seed: int) -> None:
        self.plan, self.log, self.seed = plan, log, seed
        self.inner: Any = None

    def __deepcopy__(self, memo: dict) -> Memorizer:
        return Memorizer(self.plan, self.log, self.seed)  # a game's copy shares plan and log

    def reset(self) -> None:
        self.inner = None

    def act(self, observation: np.ndarray, action_mask: np.ndarray, info: Mapping) -> int:
        if self.inner is None:
            key = hashlib.sha256(observation.tobytes() + action_mask.tobytes()).hexdigest()
            self.log.setdefault("keys", []).append(key)
            known = self.plan.get(key)
            self.log["seen"] = self.log.get("seen", 0) + (known is not None)
            self.inner = make("heuristic", seed=self.seed if known is None else known)
        return self.inner.act(observation, action_mask, info)


def won(record: dict) -> bool:
    return record["players"].index(POLICY_LABEL) in record["winners"]


@pytest.fixture(scope="module")
def plan() -> dict[str, int]:
    """The published quick protocol precomputed offline: per game, the seed that did best."""
    best: dict[str, tuple[tuple[bool, int], int]] = {}
    for seed in CANDIDATES:
        log: dict[str, Any] = {}
        records = [play_game(s) for s in _specs(Memorizer({}, log, seed), True, {}, {})]
        for key, record in zip(log["keys"], records, strict=True):
            outcome = (won(record), margin(record))
            if key not in best or outcome > best[key][0]:
                best[key] = (outcome, seed)
    return {key: seed for key, (_, seed) in best.items()}


def wins(card: dict) -> float:
    return sum(cell["wins"] for cell in card["cells"])


def test_memorizing_the_published_deals_pays(plan: dict[str, int]) -> None:
    """The attack is real: the memorizer wins more of the published games than honest play."""
    log: dict[str, Any] = {}
    cheat = evaluation.evaluate(Memorizer(plan, log, HONEST_SEED), quick=True)
    honest = evaluation.evaluate(Memorizer({}, {}, HONEST_SEED), quick=True)
    assert log["seen"] == 15 and cheat["seed_mode"] == "published"
    assert wins(cheat) >= wins(honest) + 3, (wins(cheat), wins(honest))


def test_held_out_deals_cannot_be_memorized(plan: dict[str, int]) -> None:
    """Held out, the memorizer recognises no deal and scores exactly what an honest copy of
    itself scores on the same deals (the run replayed from the scorecard's secret)."""
    log: dict[str, Any] = {}
    cheat = evaluation.evaluate(Memorizer(plan, log, HONEST_SEED), quick=True, held_out=True)
    assert log["seen"] == 0
    secret = cheat["seeds"]["secret"]
    honest = evaluation.evaluate(Memorizer({}, {}, HONEST_SEED), quick=True, held_out_secret=secret)
    assert wins(cheat) == wins(honest)
    assert without_timing(cheat) | {"agent": ""} == without_timing(honest) | {"agent": ""}


def test_a_held_out_scorecard_says_so_and_replays_from_its_secret() -> None:
    config = {"max_rounds": 2}
    card = evaluation.evaluate("random", quick=True, config=config, held_out=True)
    assert card["seed_mode"] == "held-out" and card["seeds"]["base"] is None
    secret = card["seeds"]["secret"]
    assert len(secret) == 64 and int(secret, 16) > 0
    assert card["seeds"]["cells"] == [c.seed for c in cells(True, secret)]
    assert all(seed >= WIDE_SEEDS for seed in card["seeds"]["cells"])
    again = evaluation.evaluate("random", quick=True, config=config, held_out_secret=secret)
    assert without_timing(again) == without_timing(card)
    fresh = evaluation.evaluate("random", quick=True, config=config, held_out=True)
    assert fresh["seeds"]["secret"] != secret
    published = evaluation.evaluate("random", quick=True, config=config)
    assert published["seed_mode"] == "published" and published["seeds"]["secret"] is None


def test_held_out_games_draw_wide_seeds_throughout() -> None:
    """Deals, agents' generators and engine seeds all keep the secret's 128 bits."""
    secret = "ab" * 32
    specs = _specs("random", True, {}, {}, False, secret)
    assert held_out_seed(secret, 2, 0) == cells(True, secret)[0].seed
    from evaluation.tournament import agent_seed
    from farlight_env.env.aec import raw_env

    for spec in specs:
        assert spec.seed >= WIDE_SEEDS
        assert all(agent_seed(spec, s) >= WIDE_SEEDS for s in range(len(spec.lineup)))
    env = raw_env(num_players=2)
    env.reset(seed=specs[0].seed)
    assert env.game.seed.bit_length() > 64


def test_a_malformed_secret_is_refused() -> None:
    with pytest.raises(ValueError, match="64 hexadecimal digits"):
        evaluation.evaluate("random", quick=True, held_out_secret="1234")


def test_cli_held_out_run_killed_then_resumed_keeps_its_deals(tmp_path) -> None:
    """`--held-out --out DIR`: the secret waits in DIR's run key (0600) until the scorecard;
    a resume after losing games plays the same held-out deals to the same scorecard."""
    import json
    import stat

    from evaluation_runs import farlight

    from evaluation.formats.journal import EVAL_GAMES
    from evaluation.run_key import RUN_KEY

    out = tmp_path / "card"
    first = farlight("evaluate", "random", "--quick", "--max-rounds", "2", "--held-out",
                     "--out", str(out), "--no-progress", timeout=300)  # fmt: skip
    assert first.returncode == 0, first.stderr
    card = json.loads((out / "scorecard.json").read_text())
    secret = card["seeds"]["secret"]
    assert card["seed_mode"] == "held-out" and f"--held-out-secret {secret}" in first.stdout
    assert stat.S_IMODE((out / RUN_KEY).stat().st_mode) == 0o600
    assert secret in (out / RUN_KEY).read_text()
    journal = out / EVAL_GAMES
    journal.write_text("".join(journal.read_text().splitlines(keepends=True)[:4]))
    (out / "scorecard.json").unlink()
    again = farlight("evaluate", "--resume", str(out), "--no-progress", timeout=300)
    assert again.returncode == 0, again.stderr
    resumed = json.loads((out / "scorecard.json").read_text())
    assert without_timing(resumed) == without_timing(card)
    argv = ["random", "--quick", "--max-rounds", "2", "--held-out-secret", secret.upper()]
    replay = farlight("evaluate", *argv, "--no-progress", timeout=300)
    assert replay.returncode == 0 and secret in replay.stdout


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["random", "--held-out-secret", "12"], "expected the 64 hexadecimal digits"),
        (["random", "--held-out", "--held-out-secret", "a" * 64], "give one"),
    ],
)
def test_cli_held_out_mistakes_are_one_line(argv: list[str], fragment: str) -> None:
    from evaluation_runs import farlight

    proc = farlight("evaluate", *argv, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert fragment in proc.stderr and len(proc.stderr.strip().splitlines()) <= 2
