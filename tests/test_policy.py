"""Saved policies: the file format round-trips, foreign files are refused without running any
pickled code, the loading agent checks its inputs, and the shipped policy plays legally (the
structured network's own outputs: tests/test_policy_nets.py).

DESIGN: trained policy agents load with `torch.load(..., weights_only=True)` only; bad input
(corrupt or foreign checkpoints) gets a clear error naming what was wrong.
"""

from __future__ import annotations

import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest
from env_states import random_states

torch = pytest.importorskip("torch", reason="policies need the train extra (torch)")

from tiny_policies import ACTION_SIZE, OBS_SIZE, tiny_config, write_payload  # noqa: E402

from agents.farlight.policy import (  # noqa: E402 - after the importorskip above
    ACTOR_PREFIXES,
    POLICY_FORMAT,
    POLICY_VERSION,
    SHIPPED_POLICY,
    PolicyAgent,
    PolicyNet,
    load_policy,
    save_policy,
    shared_policy,
)
from farlight_env import farlight_v0  # noqa: E402

torch.set_num_threads(1)

ROOT = Path(__file__).resolve().parents[1]
PLAYER_COUNTS = (2, 3, 4, 5)


# ------------------------------------------------------------------------------ helpers
def random_net(seed: int = 0) -> tuple[PolicyNet, dict]:
    torch.manual_seed(seed)
    config = tiny_config()
    return PolicyNet(config), config


@pytest.fixture
def saved(tmp_path: Path) -> tuple[Path, PolicyNet, dict]:
    net, config = random_net()
    path = tmp_path / "tiny.pt"
    save_policy(net.state_dict(), config, path)
    return path, net, config


# ------------------------------------------------------------------------------ round trip
def test_each_load_is_a_network_of_its_own_and_a_changed_file_is_read_again(saved) -> None:
    """Loads after the first rebuild the checked file without reading it (tournaments load a
    seat's policy every game); a network changed by its user changes no later load, and a file
    replaced on disk, by another policy or by garbage, is read and checked again."""
    path, net, config = saved
    first, _ = load_policy(path)
    with torch.no_grad():
        for parameter in first.parameters():
            parameter.add_(1.0)
    second, second_config = load_policy(path)
    second_config["name"] = "changed"
    for want, got in zip(net.state_dict().values(), second.state_dict().values(), strict=True):
        assert torch.equal(want, got)
    assert load_policy(path)[1] == config
    other, _ = random_net(seed=1)
    save_policy(other.state_dict(), config, path)
    third, _ = load_policy(path)
    for want, got in zip(other.state_dict().values(), third.state_dict().values(), strict=True):
        assert torch.equal(want, got)
    path.write_bytes(b"PK\x03\x04 not a zip archive")
    with pytest.raises(ValueError, match="not a loadable policy file"):
        load_policy(path)


def test_shared_agents_of_one_file_play_one_network_and_decide_alike(saved) -> None:
    """`shared=True` agents (a league's opponents in every env of a process) hold one network
    per file content and decide exactly as an agent with a network of its own; configs stay
    each caller's, and a file replaced on disk lends a new network."""
    path, _net, config = saved
    first, second = PolicyAgent(path, shared=True), PolicyAgent(path, seed=3, shared=True)
    own = PolicyAgent(path)
    assert first.net is second.net and own.net is not first.net
    first.config["name"] = "changed"
    assert second.config == config == shared_policy(path)[1]
    for observation, mask, info in random_states(2, seed=4):
        assert first.act(observation, mask, info) == own.act(observation, mask, info)
    other, _ = random_net(seed=1)
    save_policy(other.state_dict(), config, path)
    third = PolicyAgent(path, shared=True)
    assert third.net is not first.net
    for want, got in zip(other.state_dict().values(), third.net.state_dict().values(), strict=True):
        assert torch.equal(want, got)


def test_a_played_policys_logits_depend_on_the_position_alone() -> None:
    """A loaded policy's ship-map cache computes the grids it misses one at a time, so its
    logits for a position are bit for bit those of a fresh copy, whatever it saw before: one
    network can serve a whole tournament's games, in any order and worker count. (Batched,
    11 of 116 such positions differed in float rounding.)"""
    states = [s for players in (2, 3, 4, 5) for s in random_states(players, seed=17, every=4)]
    order = np.random.default_rng(0).permutation(len(states))
    warmed = PolicyAgent(SHIPPED_POLICY)
    for i in order:  # another history: every position first, in a random order
        observation, mask, _info = states[i]
        warmed.logits(observation, mask)
    for observation, mask, _info in states:
        fresh = PolicyAgent(SHIPPED_POLICY).logits(observation, mask)
        assert np.array_equal(warmed.logits(observation, mask), fresh)


def test_training_opponents_from_one_file_share_its_network(saved) -> None:
    """Opponents named by a policy file, or by a shipped policy's name, share one network."""
    from training.farlight.envs import opponent_policies

    path, _net, _config = saved
    a, b = opponent_policies([str(path), str(path)], seed=0)
    assert a.net is b.net and a.rng is not b.rng
    ppo_a, ppo_b = opponent_policies(["ppo", "ppo"], seed=0)
    assert ppo_a.net is ppo_b.net


def test_make_shared_shares_only_policies(saved) -> None:
    """`make_shared` lends one network per file to shipped policies and `*.pt` files; other
    agents are made as `make` makes them (they take no `shared`)."""
    from agents.registry import make_shared

    path, _net, _config = saved
    assert make_shared(str(path)).net is make_shared(str(path), seed=2).net
    assert make_shared("bidder").net is make_shared("bidder").net
    assert make_shared("heuristic", seed=1).name == "heuristic"


def test_save_load_round_trip_keeps_weights_config_and_outputs(saved) -> None:
    path, net, config = saved
    loaded, loaded_config = load_policy(path)
    assert loaded_config == config
    original = net.state_dict()
    restored = loaded.state_dict()
    assert restored.keys() == original.keys()
    for key, value in original.items():
        assert torch.equal(restored[key], value), key
    obs = torch.rand(3, OBS_SIZE)
    with torch.no_grad():
        assert torch.allclose(loaded(obs), net(obs))
    assert not loaded.training  # ready to act: eval mode


def test_loading_a_policy_leaves_torchs_generator_alone(saved) -> None:
    """A network's random start is overwritten by the file's weights, so loading draws nothing
    from torch's global generator: an opponent loaded inside a training process (in-process
    envs) must not change the learner's action samples (runs equal across --vec-env)."""
    torch.manual_seed(7)
    expected = torch.rand(4)
    torch.manual_seed(7)
    load_policy(saved[0])
    assert torch.equal(torch.rand(4), expected)


def test_save_keeps_only_the_actor_and_writes_atomically(tmp_path: Path) -> None:
    net, config = random_net()
    state = dict(net.state_dict())
    state["value_net.weight"] = torch.zeros(1, 8)  # the critic: not needed to act
    state["mlp_extractor.value_net.0.weight"] = torch.zeros(8, 8)
    path = tmp_path / "sub" / "policy.pt"
    save_policy(state, config, path)
    payload = torch.load(path, weights_only=True)
    assert payload["format"] == POLICY_FORMAT and payload["version"] == POLICY_VERSION
    assert all(k.startswith(ACTOR_PREFIXES) for k in payload["state_dict"])
    assert "value_net.weight" not in payload["state_dict"]
    assert [p.name for p in path.parent.iterdir()] == ["policy.pt"]  # no temp file left


def test_overwriting_a_policy_replaces_it(saved) -> None:
    path, _net, config = saved
    other, _ = random_net(seed=1)
    save_policy(other.state_dict(), config, path)
    loaded, _ = load_policy(path)
    key = "action_net.weight"
    assert torch.equal(loaded.state_dict()[key], other.state_dict()[key])


# ------------------------------------------------------------------------------ foreign files
def test_missing_policy_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no policy file"):
        load_policy(tmp_path / "absent.pt")


def test_plain_dict_without_format_tag_is_refused(tmp_path: Path) -> None:
    path = write_payload(tmp_path / "plain.pt", weights=torch.zeros(2))
    with pytest.raises(ValueError, match="not a Farlight policy"):
        load_policy(path)


def test_a_bare_state_dict_is_refused(tmp_path: Path) -> None:
    net, _ = random_net()
    path = tmp_path / "state_dict.pt"
    torch.save(net.state_dict(), path)
    with pytest.raises(ValueError, match="not a Farlight policy"):
        load_policy(path)


def test_wrong_version_is_refused(saved, tmp_path: Path) -> None:
    path, _net, _config = saved
    payload = torch.load(path, weights_only=True)
    payload["version"] = POLICY_VERSION + 1
    bad = write_payload(tmp_path / "future.pt", **payload)
    with pytest.raises(ValueError, match="version"):
        load_policy(bad)


def test_weights_that_do_not_match_the_config_are_refused(saved, tmp_path: Path) -> None:
    path, _net, _config = saved
    payload = torch.load(path, weights_only=True)
    payload["config"] = {**payload["config"], "pi": [16]}  # another hidden size
    bad = write_payload(tmp_path / "mismatch.pt", **payload)
    with pytest.raises(ValueError, match="weights do not match"):
        load_policy(bad)


def test_missing_weights_are_refused(saved, tmp_path: Path) -> None:
    path, _net, _config = saved
    payload = torch.load(path, weights_only=True)
    del payload["state_dict"]["action_net.bias"]
    bad = write_payload(tmp_path / "partial.pt", **payload)
    with pytest.raises(ValueError, match="weights do not match"):
        load_policy(bad)


@pytest.mark.parametrize(
    "extra",
    [
        {},  # no config, no weights
        {"config": {}, "state_dict": {}},  # a config without a layout
        {"config": "ppo", "state_dict": {}},  # a config that is not a mapping
    ],
    ids=["no-config", "empty-config", "config-not-a-dict"],
)
def test_format_tag_with_a_broken_config_is_refused_with_value_error(
    tmp_path: Path, extra: dict
) -> None:
    """A file claiming the format but lacking a usable config is still foreign: ValueError
    naming the file, not a bare KeyError/TypeError from deep inside PolicyNet."""
    path = write_payload(
        tmp_path / "hollow.pt", format=POLICY_FORMAT, version=POLICY_VERSION, **extra
    )
    with pytest.raises(ValueError, match="hollow.pt"):
        load_policy(path)


@pytest.mark.parametrize("content", [b"", b"\x00" * 64, bytes(range(256)) * 4])
def test_corrupt_bytes_are_refused(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "corrupt.pt"
    path.write_bytes(content)
    with pytest.raises(ValueError, match="not a loadable policy file"):
        load_policy(path)


class Payload:
    """Unpickling this runs code (touches a marker file): weights_only must refuse it."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


@pytest.mark.parametrize("writer", ["torch.save", "pickle.dump"])
def test_pickled_code_never_runs(tmp_path: Path, writer: str) -> None:
    live = tmp_path / "live"
    pickle.loads(pickle.dumps(Payload(live)))  # the payload is real: plain unpickling runs it
    assert live.exists()
    marker = tmp_path / "pwned"
    path = tmp_path / "evil.pt"
    obj = {"format": POLICY_FORMAT, "version": POLICY_VERSION, "config": Payload(marker)}
    if writer == "torch.save":
        torch.save(obj, path)
    else:
        with path.open("wb") as fh:
            pickle.dump(obj, fh, protocol=2)
    with pytest.raises(ValueError, match="not a loadable policy file"):
        load_policy(path)
    assert not marker.exists()
    with pytest.raises(ValueError):
        PolicyAgent(path)
    assert not marker.exists()


# ------------------------------------------------------------------------------ the agent
def test_agent_checks_observation_and_mask_sizes(saved) -> None:
    path, _net, _config = saved
    agent = PolicyAgent(path, seed=0)
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    mask = np.zeros(ACTION_SIZE, dtype=np.int8)
    mask[3] = 1
    assert agent.act(obs, mask, {}) == 3
    with pytest.raises(ValueError, match="expects observations of"):
        agent.act(obs[:-1], mask, {})
    with pytest.raises(ValueError, match="expects observations of"):
        agent.act(obs, np.ones(ACTION_SIZE + 1, dtype=np.int8), {})


def test_agent_takes_name_from_config(saved) -> None:
    path, _net, _config = saved
    agent = PolicyAgent(path)
    assert agent.name == "tiny"
    agent.reset()  # part of the Agent protocol; stateless


@pytest.mark.parametrize("deterministic", [True, False])
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_agent_acts_legally_at_random_states(saved, num_players: int, deterministic: bool) -> None:
    path, _net, _config = saved
    agent = PolicyAgent(path, seed=num_players, deterministic=deterministic)
    count = 0
    for obs, mask, info in random_states(num_players, seed=100 + num_players):
        action = agent.act(obs, mask, info)
        assert mask[action] == 1, (num_players, action)
        count += 1
    assert count > 10


def test_deterministic_agent_picks_the_best_legal_logit(saved) -> None:
    path, net, _config = saved
    agent = PolicyAgent(path)
    for obs, mask, info in random_states(3, seed=5, every=11):
        with torch.no_grad():
            logits = net(torch.as_tensor(obs)[None])[0].numpy()
        legal = np.flatnonzero(mask)
        assert agent.act(obs, mask, info) == legal[np.argmax(logits[legal])]


def test_sampling_agent_is_reproducible_from_its_seed(saved) -> None:
    path, _net, _config = saved
    states = list(random_states(2, seed=9, every=5))
    runs = []
    for _ in range(2):
        agent = PolicyAgent(path, seed=123, deterministic=False)
        runs.append([agent.act(obs, mask, info) for obs, mask, info in states])
    assert runs[0] == runs[1]


def test_registry_makes_an_agent_from_a_policy_path(saved, tmp_path: Path) -> None:
    import agents

    path, _net, _config = saved
    agent = agents.make(str(path), seed=1)
    assert isinstance(agent, PolicyAgent)
    obs, mask, info = next(random_states(4, seed=1))
    assert mask[agent.act(obs, mask, info)] == 1
    with pytest.raises(FileNotFoundError):
        agents.make(str(tmp_path / "absent.pt"))


# ------------------------------------------------------------------------------ shipped policy
shipped = pytest.mark.skipif(not SHIPPED_POLICY.exists(), reason="shipped policy not trained yet")


@shipped
def test_shipped_policy_file_loads() -> None:
    net, config = load_policy(SHIPPED_POLICY)
    assert config["obs_size"] == OBS_SIZE
    assert config["action_size"] == ACTION_SIZE
    assert not net.training


@shipped
def test_shipped_policy_records_how_it_was_trained() -> None:
    """The training page's reproduction commands (docs/training.md, "The shipped policy") match
    what the file says about itself: its last stage was league self-play across 2-5 players."""
    _net, config = load_policy(SHIPPED_POLICY)
    readme = (ROOT / "docs" / "training.md").read_text()
    assert config["arch"] == "structured"
    assert config["name"] == "league"
    assert config["player_counts"] == [2, 3, 4, 5, 2, 2]
    assert "farlight train self-play --run-dir runs/league" in readme
    assert "--player-counts 2,3,4,5,2,2 --n-envs 6 --baselines heuristic" in readme
    assert f"--seed {config['seed']}\n" in readme
    assert f"{config['trained_steps']:,} PPO steps" in readme


@shipped
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_shipped_policy_acts_legally(num_players: int) -> None:
    import agents

    agent = agents.make("ppo", seed=num_players)
    agent.reset()
    count = 0
    for obs, mask, info in random_states(num_players, seed=200 + num_players, every=5):
        action = agent.act(obs, mask, info)
        assert mask[action] == 1, (num_players, action)
        count += 1
    assert count > 10


@shipped
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_shipped_policy_plays_whole_games(num_players: int) -> None:
    import agents

    env = farlight_v0.env(num_players=num_players)
    env.reset(seed=num_players)
    players = [agents.make("ppo", seed=s) for s in range(num_players)]
    for agent in env.agent_iter():
        obs, _r, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.unwrapped.agent_name_mapping[agent]
        view = {**info, "seat": seat, "view": env.unwrapped.player_view(agent)}
        env.step(players[seat].act(obs["observation"], obs["action_mask"], view))
    assert env.unwrapped.game.is_over


# ------------------------------------------------------------------------------ bounds
@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"embed": 10**7}, r"Expected `int` <= 4096 - at `\$.embed`"),
        ({"arch": "structured", "hidden": 10**7}, r"<= 4096 - at `\$.hidden`"),
        ({"pi": [4096] * 9}, r"length <= 8 - at `\$.pi`"),
        ({"obs_size": -1}, r">= 1 - at `\$.obs_size`"),
        ({"action_size": "496"}, r"Expected `int`, got `str` - at `\$.action_size`"),
        ({"embed": True}, r"Expected `int`, got `bool`"),
        ({"name": "x" * 1000}, r"length <= 200 - at `\$.name`"),
        ({"obs_size": 10}, "does not fit an observation of 10"),
        ({"layout": {}}, "layout lacks"),
    ],
    ids=[
        "huge-embed",
        "huge-hidden",
        "too-many-layers",
        "negative-obs",
        "string-size",
        "bool-width",
        "long-name",
        "layout-outside-obs",
        "no-layout",
    ],
)
def test_every_config_field_is_validated(tmp_path: Path, change: dict, message: str) -> None:
    """A policy file cannot make the loader build something unexpected: each field is
    type- and range-checked before a network exists (hidden=10**7 once meant 17.9 GB)."""
    net, config = random_net()
    path = write_payload(
        tmp_path / "odd.pt",
        format=POLICY_FORMAT,
        version=POLICY_VERSION,
        config={**config, **change},
        state_dict=net.state_dict(),
    )
    with pytest.raises(ValueError, match=message) as info:
        load_policy(path)
    assert "odd.pt" in str(info.value) and len(str(info.value).splitlines()) == 1


def test_a_network_beyond_the_parameter_limit_is_refused_unbuilt(tmp_path: Path) -> None:
    """Widths within bounds can still multiply to a huge network: counted on the meta
    device (no memory) and refused by its size."""
    from agents.farlight import policy as policy_module

    net, config = random_net()
    config = {**config, "embed": 4096, "pi": [4096, 4096, 4096, 4096]}
    assert policy_module.parameter_count(config) > policy_module.MAX_PARAMETERS
    path = write_payload(
        tmp_path / "big.pt",
        format=POLICY_FORMAT,
        version=POLICY_VERSION,
        config=config,
        state_dict=net.state_dict(),
    )
    with pytest.raises(ValueError, match="parameters, more than 50,000,000"):
        load_policy(path)


def test_an_oversized_file_is_refused_unread(tmp_path: Path, monkeypatch) -> None:
    from agents.farlight.policy import file as policy_module

    path = tmp_path / "big.pt"
    path.write_bytes(b"\0" * 2048)
    monkeypatch.setattr(policy_module, "MAX_POLICY_BYTES", 1024)
    with pytest.raises(ValueError, match="larger than 1024 bytes"):
        load_policy(path)


def deflated_copy(source: Path, target: Path) -> Path:
    """`source` with every zip member deflated: what torch.load would inflate in memory."""
    with zipfile.ZipFile(source) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info))
    return target


def test_a_compressed_file_is_refused_before_torch_inflates_it(tmp_path: Path) -> None:
    """torch.load allocates a storage at the size the zip declares: 40 MB of zeros deflate to
    40 KB, so a 256 MB file could ask for terabytes. torch.save never compresses."""
    raw = write_payload(
        tmp_path / "raw.pt",
        format=POLICY_FORMAT,
        version=POLICY_VERSION,
        state_dict={"w": torch.zeros(10_000_000)},
    )
    bomb = deflated_copy(raw, tmp_path / "bomb.pt")
    assert bomb.stat().st_size < raw.stat().st_size // 100
    with pytest.raises(ValueError, match=r"bomb\.pt: not a loadable policy file .*is compressed"):
        load_policy(bomb)


def test_members_declaring_more_than_the_bound_are_refused_unread(saved) -> None:
    """Stored members may overlap in a crafted zip, so their declared sizes are summed."""
    from farlight_env.untrusted.files import check_torch_archive

    path, _net, _config = saved
    check_torch_archive(path, path.stat().st_size)
    with pytest.raises(ValueError, match="more than 1,000"):
        check_torch_archive(path, 1000)
    with pytest.raises(ValueError, match="more than 1,000"):
        check_torch_archive(path.read_bytes(), 1000)


def test_torchs_legacy_format_is_refused(saved, tmp_path: Path) -> None:
    """The pre-zip format sizes storages from its pickle alone: not a file this project writes."""
    _path, net, config = saved
    path = tmp_path / "legacy.pt"
    payload = {
        "format": POLICY_FORMAT,
        "version": POLICY_VERSION,
        "config": config,
        "state_dict": net.state_dict(),
    }
    torch.save(payload, path, _use_new_zipfile_serialization=False)
    with pytest.raises(ValueError, match="not a PyTorch file") as refused:
        load_policy(path)
    assert "weights_only" not in str(refused.value)


def test_weights_that_are_not_tensors_are_refused(saved, tmp_path: Path) -> None:
    _path, net, config = saved
    state = {k: v.tolist() for k, v in net.state_dict().items()}
    path = write_payload(
        tmp_path / "lists.pt",
        format=POLICY_FORMAT,
        version=POLICY_VERSION,
        config=config,
        state_dict=state,
    )
    with pytest.raises(ValueError, match="state_dict must map names to tensors"):
        load_policy(path)
