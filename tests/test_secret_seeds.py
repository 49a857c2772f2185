"""Seeds nobody can guess (#47): every seed the project draws itself has 128 bits from
`secrets`, and every hidden fact and bot generator of such a game derives from all of them;
a person's own small seed keeps today's derivation (the golden files prove that part)."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from evaluation.tournament import GameSpec, agent_seed, game_seed
from farlight_cli.main import main
from farlight_cli.play_platform import opponent_seed
from farlight_env import seeding as seeds_module
from farlight_env.env.aec import raw_env
from farlight_env.game import FarlightGame
from farlight_env.records.record import load_record
from farlight_env.seeding import WIDE_SEEDS, derive_seed, secure_seed

#: The web server's and `farlight play`'s old seeds were below 2**31, and every engine seed an
#: env drew from such a seed (the brute force of #47) is below 2**63.
OLD_ENGINE_SEEDS = 2**63


def test_secure_seeds_have_128_bits_from_secrets(monkeypatch) -> None:
    drawn = [secure_seed() for _ in range(200)]
    assert len(set(drawn)) == 200
    assert all(2**128 <= s < 2**129 for s in drawn)
    monkeypatch.setattr(seeds_module.secrets, "randbits", lambda bits: bits)
    assert secure_seed() == 2**128 + 128  # the bits are the OS source's, asked for 128


def test_a_secure_seed_deals_outside_the_old_seed_space() -> None:
    """No brute force over the old derivation finds the game: its engine seed is not below
    2**63, where every game of an env seed below 2**32 lies."""
    for _ in range(50):
        env = raw_env(num_players=3)
        env.reset(seed=secure_seed())
        assert env.game.seed >= OLD_ENGINE_SEEDS
    old = raw_env(num_players=3)
    for seed in (0, 2**31 - 1, 2**32 - 1, WIDE_SEEDS - 1):
        old.reset(seed=seed)
        assert old.game.seed < OLD_ENGINE_SEEDS  # a person's small seed: as before


def test_unseeded_games_and_envs_draw_128_bits() -> None:
    assert max(FarlightGame(2).seed for _ in range(20)) >= OLD_ENGINE_SEEDS
    env = raw_env(num_players=2)
    env.reset()
    first = env.game.seed
    env.reset()
    assert max(first, env.game.seed) >= OLD_ENGINE_SEEDS and first != env.game.seed


def test_seeds_drawn_from_a_secret_seed_stay_wide_and_one_way() -> None:
    """Blocks, agents and bots of a secret game get 128-bit seeds that are SHA-256 of the
    parent: an agent's own seed does not give its game's back."""
    parent = secure_seed()
    spec = GameSpec(index=3, seed=game_seed(parent, 0), lineup=("a", "b"))
    drawn = [spec.seed, agent_seed(spec, 0), agent_seed(spec, 1), opponent_seed(parent, 1)]
    assert all(s >= WIDE_SEEDS for s in drawn) and len(set(drawn)) == 4
    assert derive_seed(7, 1) == int(np.random.SeedSequence([7, 1]).generate_state(1)[0])


def test_play_without_a_seed_shows_it_only_at_the_end(tmp_path: Path, monkeypatch, capsys):
    """Neither the screen nor the record's file name says the seed before the game ends;
    the end of the game shows it, and the record replays from it."""
    monkeypatch.chdir(tmp_path)
    script = ("1\n" + "".join(f"a{tile}\n" for tile in range(5))) * 200
    monkeypatch.setattr(sys, "stdin", io.StringIO(script))
    status = main(["play", "--opponents", "heuristic", "--max-rounds", "1"])
    out = capsys.readouterr().out
    assert status == 0
    (path,) = tmp_path.glob("farlight-game-*.json")
    record = load_record(path)
    seed = record["env_seed"]
    assert seed >= WIDE_SEEDS
    assert str(seed) not in path.name
    assert re.fullmatch(r"farlight-game-\d{8}-\d{6}-[0-9a-f]{6}\.json", path.name)
    shown = out.index(f"seed {seed}\n(play the same deal again with --seed {seed})")
    assert str(seed) not in out[:shown] and shown > out.index("winner")
    assert "seed drawn secretly, shown at the end" in out


@pytest.mark.parametrize("seed", [0, 2**31 - 1])
def test_a_given_seed_is_shown_and_names_the_record(tmp_path: Path, monkeypatch, capsys, seed):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO("q\n"))
    main(["play", "--opponents", "random", "--max-rounds", "1", "--seed", str(seed)])
    assert f"seed {seed}" in capsys.readouterr().out
    assert (tmp_path / f"farlight-game-{seed}.json").is_file()


def test_a_deal_key_mixes_into_every_training_game_one_way() -> None:
    """A held-out best response trains on deals from a secret key (#47): the same env seeds
    deal other, wide games with the key, the same ones again with the same key, and a key
    that is not wide (so not one-way) is refused."""
    from farlight_env.env.single_agent import FarlightSingleAgentEnv
    from farlight_env.game.config import ConfigError

    def engine_seeds(deal_key: int | None) -> list[int]:
        env = FarlightSingleAgentEnv(num_players=2, opponents="random", deal_key=deal_key)
        out = []
        for episode in range(3):
            env.reset(seed=7 if episode == 0 else None)
            out.append(env.aec.game.seed)
        return out

    key = secure_seed()
    plain, keyed = engine_seeds(None), engine_seeds(key)
    assert keyed == engine_seeds(key)  # reproducible for whoever holds the key
    assert not set(plain) & set(keyed)
    assert all(seed >= OLD_ENGINE_SEEDS for seed in keyed)
    assert engine_seeds(secure_seed()) != keyed
    for bad in (5, -1, True, 2.0**70):
        with pytest.raises(ConfigError, match="deal_key"):
            FarlightSingleAgentEnv(deal_key=bad)
