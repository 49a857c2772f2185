"""`farlight dataset`: Minari datasets of agents' games, read back, replayed, and learned from.

The command runs in a subprocess as a user would; the datasets go to temporary folders
(MINARI_DATASETS_PATH or --root), never to ~/.minari. Since #49 observations are farlight_v1's
compact bytes, masks are in infos, and an env_spec rebuilds the env (`recover_environment`).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import gymnasium
import numpy as np
import pytest

minari = pytest.importorskip("minari")

from test_cli_errors import assert_one_clear_error  # noqa: E402

from agents import make  # noqa: E402
from farlight_env import GYM_ID_V1  # noqa: E402
from farlight_env.env.aec import raw_env  # noqa: E402
from training.farlight.datasets.collect import (  # noqa: E402
    DatasetSpec,
    agent_seed,
    episode_seed,
    read_description,
    read_episode,
    replay_episode,
    write_dataset,
)
from training.farlight.datasets.format import codec  # noqa: E402

AGENTS = ("heuristic", "random", "heuristic")
GAMES = 2
DATASET = "farlight/test-v0"


def farlight(*args: str, root: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if root is not None:
        env["MINARI_DATASETS_PATH"] = str(root)
    return subprocess.run(
        [sys.executable, "-m", "farlight_cli", "dataset", "--no-progress", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A datasets folder holding DATASET, written by the command (MINARI_DATASETS_PATH)."""
    folder = tmp_path_factory.mktemp("minari")
    proc = farlight("--agents", ",".join(AGENTS), "--games", str(GAMES), "--out", DATASET,
                    "--seed", "7", root=folder)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert f"wrote {DATASET}: {GAMES * len(AGENTS)} episodes" in proc.stdout
    assert "bytes a step" in proc.stdout
    return folder


@pytest.fixture()
def dataset(root: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(root))
    return minari.load_dataset(DATASET)


def test_the_dataset_loads_with_its_spaces_metadata_and_one_episode_per_seat_per_game(dataset):
    """#49: the observation space is the registered v1 env's compact Box, not v0's Dict."""
    assert dataset.total_episodes == GAMES * len(AGENTS)
    registered = gymnasium.make(GYM_ID_V1, num_players=len(AGENTS))
    assert dataset.observation_space == registered.observation_space
    assert dataset.observation_space.dtype == np.uint8
    assert dataset.observation_space.shape == (16351,)
    assert dataset.action_space == registered.action_space
    metadata = dataset.storage.metadata
    assert metadata["author"] and metadata["algorithm_name"].endswith("heuristic,random,heuristic")
    assert metadata["data_format"] == "parquet"
    facts = read_description(dataset)
    assert facts["agents"] == list(AGENTS) and facts["seed"] == 7
    assert facts["recorded_seats"] == [0, 1, 2] and facts["num_players"] == 3
    assert facts["observations"] == "compact" and facts["gym_id"] == GYM_ID_V1
    seats = [int(episode.infos["seat"][0]) for episode in dataset.iterate_episodes()]
    assert sorted(seats) == sorted(list(range(len(AGENTS))) * GAMES)
    # a game's seats share its seed; the games have different ones
    seeds = [episode_seed(dataset, i) for i in range(dataset.total_episodes)]
    assert len(set(seeds)) == GAMES


def test_actions_are_legal_under_their_masks_and_the_reward_comes_at_the_end(dataset):
    """#49: each observation's mask is recorded, int8, in infos["action_mask"]."""
    for episode in dataset.iterate_episodes():
        masks = episode.infos["action_mask"]
        steps = len(episode.actions)
        assert masks.shape == (steps + 1, 496) and masks.dtype == np.int8
        assert episode.observations.shape == (steps + 1, 16351)
        assert episode.observations.dtype == np.uint8
        assert masks[np.arange(steps), episode.actions].all()
        assert not masks[-1].any()  # the game is over
        assert not episode.rewards[:-1].any()
        assert episode.terminations[-1] or episode.truncations[-1]
        assert not episode.terminations[:-1].any()


def test_replaying_an_episode_from_its_seed_gives_the_recorded_observations(dataset):
    """Each episode's actions, played from its seed with the other seats' seeded agents, give
    its observations and masks again; each observation is the seat's own: computed from the
    seat's redacted view (only what that seat may know) it is the same vector. #49: the stored
    bytes are the compact form of those floats, and expand to them bit for bit."""
    compact = codec(len(AGENTS))
    for episode in dataset.iterate_episodes():
        seat = int(episode.infos["seat"][0])
        seed = episode_seed(dataset, episode.id)
        track = replay_episode(AGENTS, seat, seed, episode.actions)
        floats = np.stack(track.observations)
        np.testing.assert_array_equal(compact.compact(floats), episode.observations)
        assert compact.expand(episode.observations).tobytes() == floats.tobytes()
        np.testing.assert_array_equal(np.stack(track.masks), episode.infos["action_mask"])

    episode = dataset[1]
    seat, seed = int(episode.infos["seat"][0]), episode_seed(dataset, 1)
    env = raw_env(num_players=len(AGENTS))
    env.reset(seed=seed)
    agents = [make(n, seed=agent_seed(seed, s)) for s, n in enumerate(AGENTS)]
    mine = 0
    for name in env.agent_iter():
        obs, reward, done, cut, info = env.last()
        if done or cut:
            if env.agent_name_mapping[name] == seat:
                assert reward == episode.rewards[-1]
            env.step(None)
            continue
        s = env.agent_name_mapping[name]
        if s == seat:
            own = env.encoder.encode(env.player_view(name).redacted(), seat)
            np.testing.assert_array_equal(own, compact.expand(episode.observations[mine]))
            action = int(episode.actions[mine])
            mine += 1
        else:
            action = agents[s].act(obs["observation"], obs["action_mask"],
                                   {**info, "seat": s, "view": env.player_view(name)})  # fmt: skip
        env.step(action)
    assert mine == len(episode.actions)


def test_the_env_spec_rebuilds_the_recorded_table(dataset):
    """#49: the dataset carries an env_spec of farlight_env/Farlight-v1 (plain JSON kwargs:
    the agents as opponents, a random learner seat), so recover_environment() builds it."""
    spec = dataset.env_spec
    assert spec.id == GYM_ID_V1
    assert spec.kwargs == {"num_players": 3, "opponents": list(AGENTS), "learner_seat": "random"}
    stored = dataset.storage.metadata["env_spec"]
    assert gymnasium.envs.registration.EnvSpec.from_json(stored) == spec
    env = dataset.recover_environment()
    single = env.unwrapped
    assert type(single).__name__ == "FarlightSingleAgentEnvV1" and single.num_players == 3
    assert env.observation_space == dataset.observation_space
    assert [type(single.opponents[s]).__name__ for s in range(3)] == [
        type(make(name)).__name__ for name in AGENTS
    ]
    obs, info = env.reset(seed=3)
    rng, done, steps = np.random.default_rng(0), False, 0
    while not done:
        assert dataset.observation_space.contains(obs)
        action = rng.choice(np.flatnonzero(env.unwrapped.action_masks()))
        obs, reward, terminated, truncated, info = env.step(action)
        done, steps = terminated or truncated, steps + 1
    assert terminated and reward in (-1.0, 0.0, 1.0) and steps > 5


@pytest.mark.parametrize("data_format", ["hdf5", "arrow"])
def test_every_storage_format_writes_the_compact_form(data_format: str, tmp_path: Path):
    """#49: hdf5 and arrow store a byte a value (about 17-19 kB a step, 65-70 kB before), and
    their episodes read back checked, masks included, with an env to recover."""
    proc = farlight("--agents", "random,heuristic", "--games", "1", "--out", "farlight/f-v0",
                    "--format", data_format, "--root", str(tmp_path))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    per_step = int(proc.stdout.split("(")[1].split(" bytes a step")[0])
    assert 16351 < per_step < 25_000, proc.stdout
    os.environ["MINARI_DATASETS_PATH"] = str(tmp_path)
    try:
        dataset = minari.load_dataset("farlight/f-v0")
    finally:
        del os.environ["MINARI_DATASETS_PATH"]
    assert dataset.storage.metadata["data_format"] == data_format
    for episode_id in range(dataset.total_episodes):
        episode = read_episode(dataset, episode_id)
        assert episode.form == "compact" and episode.observations.dtype == np.float32
        track = replay_episode(("random", "heuristic"), episode.seat, episode.seed, episode.actions)
        np.testing.assert_array_equal(np.stack(track.observations), episode.observations)
        np.testing.assert_array_equal(np.stack(track.masks), episode.masks)
    assert dataset.recover_environment().observation_space == dataset.observation_space


def test_an_existing_dataset_is_refused_and_force_replaces_it(root: Path, tmp_path: Path):
    proc = farlight("--games", "1", "--out", DATASET, root=root)
    assert_one_clear_error(proc, "exists", "--force")
    other = tmp_path / "other"
    first = farlight("--games", "1", "--out", "solo-v1", "--root", str(other))
    assert first.returncode == 0, first.stderr
    again = farlight("--games", "1", "--out", "solo-v1", "--root", str(other), "--force",
                     "--record-seat", "1", "--format", "hdf5")  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert "wrote solo-v1: 1 episodes" in again.stdout
    assert sorted(p.name for p in other.iterdir()) == ["solo-v1"]  # no scratch, no old copy


@pytest.mark.parametrize(
    ("argv", "fragments"),
    [
        (["--out", "farlight/no-version"], ["--out", "name-vN"]),
        (["--out", "x-v0", "--agents", "heuristic,nobody"], ["unknown agent", "nobody"]),
        (["--out", "x-v0", "--agents", "heuristic"], ["2..5 agents, got 1"]),
        (["--out", "x-v0", "--agents", "random,random,random,random,random,random"], ["got 6"]),
        (["--out", "x-v0", "--record-seat", "2"], ["seats are 0..1"]),
        (["--out", "x-v0", "--record-seat", "a"], ["--record-seat"]),
        (["--out", "x-v0", "--agents", "missing.pt"], ["no such policy file"]),
        (["--out", "x-v0", "--games", "0"], ["--games"]),
    ],
)
def test_user_mistakes_are_one_or_two_lines(argv, fragments, tmp_path: Path):
    assert_one_clear_error(farlight(*argv, "--root", str(tmp_path)), *fragments)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "text", ["a-v0", "farlight/a-v1", "x/y/z_1-v12", "a", "a-v", "/a-v0", "a b-v0", "farlight/a"]
)
def test_the_commands_id_check_agrees_with_minari(text: str):
    import argparse

    from minari.dataset.minari_dataset import parse_dataset_id

    from farlight_cli.farlight import dataset_cmd
    from training.farlight.datasets.collect import DATA_FORMATS

    assert dataset_cmd.DATA_FORMATS == DATA_FORMATS
    try:
        parse_dataset_id(text)
        minari_takes = True
    except (ValueError, TypeError):
        minari_takes = False
    try:
        dataset_cmd.dataset_id(text)
        we_take = True
    except argparse.ArgumentTypeError:
        we_take = False
    assert we_take == minari_takes


def test_a_root_that_is_a_file_is_one_line(tmp_path: Path):
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert_one_clear_error(farlight("--out", "x-v0", "--root", str(afile)), "not a directory")


def test_an_interrupted_run_leaves_nothing(tmp_path: Path):
    def stop(game: int) -> None:
        if game == 1:
            raise KeyboardInterrupt

    spec = DatasetSpec("farlight/cut-v0", ("random", "random"), games=3)
    with pytest.raises(KeyboardInterrupt):
        write_dataset(spec, tmp_path, progress=False, on_game=stop)
    assert list(tmp_path.iterdir()) == []


# ---- behaviour cloning --------------------------------------------------------------------
def test_behaviour_cloning_from_a_dataset_beats_the_masked_uniform_baseline(tmp_path: Path):
    """A small MLP with masked logits, trained a few hundred steps on heuristic games, picks
    the heuristic's action on held-out games more than twice as often as a uniform legal choice."""
    torch = pytest.importorskip("torch")
    start = time.perf_counter()
    spec = DatasetSpec("farlight/bc-v0", ("heuristic", "heuristic"), games=12, seed=1)
    write_dataset(spec, tmp_path, progress=False)
    os.environ["MINARI_DATASETS_PATH"] = str(tmp_path)
    try:
        data = minari.load_dataset("farlight/bc-v0")
    finally:
        del os.environ["MINARI_DATASETS_PATH"]

    expand = codec(2).expand  # v0's floats, bit for bit (#49: stored as compact bytes)

    def arrays(episodes) -> tuple:
        obs = np.concatenate([expand(e.observations[:-1]) for e in episodes])
        masks = np.concatenate([e.infos["action_mask"][:-1] for e in episodes])
        actions = np.concatenate([e.actions for e in episodes])
        return torch.from_numpy(obs), torch.from_numpy(masks).bool(), torch.from_numpy(actions)

    episodes = list(data.iterate_episodes())
    train, test = arrays(episodes[:18]), arrays(episodes[18:])  # held out: the last 3 games
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Linear(train[0].shape[1], 64), torch.nn.ReLU(), torch.nn.Linear(64, 496)
    )
    optimiser = torch.optim.Adam(net.parameters(), lr=3e-3)
    generator = torch.Generator().manual_seed(0)
    for _ in range(300):
        batch = torch.randint(len(train[2]), (128,), generator=generator)
        logits = net(train[0][batch]).masked_fill(~train[1][batch], -1e9)
        loss = torch.nn.functional.cross_entropy(logits, train[2][batch])
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    with torch.no_grad():
        guess = net(test[0]).masked_fill(~test[1], -1e9).argmax(1)
    accuracy = (guess == test[2]).float().mean().item()
    uniform = (1.0 / test[1].sum(1).float()).mean().item()
    print(f"held-out accuracy {accuracy:.2f}, masked uniform {uniform:.2f}")
    assert accuracy > 2 * uniform  # measured: 0.41 against 0.18
    assert time.perf_counter() - start < 60


def test_a_policy_cloned_from_a_dataset_plays_the_recovered_env(dataset):
    """#49, as Minari's behaviour-cloning tutorial goes: fit a tiny torch policy to the
    dataset's compact observations and actions, then play the env `recover_environment()`
    rebuilds, stepping it with the 0-d integer array the policy's argmax gives, masked by
    `env.unwrapped.action_masks()`."""
    torch = pytest.importorskip("torch")
    episodes = list(dataset.iterate_episodes())
    observations = torch.from_numpy(np.concatenate([e.observations[:-1] for e in episodes]))
    actions = torch.from_numpy(np.concatenate([e.actions for e in episodes]))
    torch.manual_seed(0)
    policy = torch.nn.Sequential(
        torch.nn.Linear(observations.shape[1], 32), torch.nn.ReLU(), torch.nn.Linear(32, 496)
    )
    optimiser = torch.optim.Adam(policy.parameters(), lr=1e-3)
    first = None
    for _ in range(30):
        loss = torch.nn.functional.cross_entropy(policy(observations.float() / 255), actions)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        first = loss.item() if first is None else first
    assert loss.item() < first  # it learns something from the dataset

    env = dataset.recover_environment()
    obs, _ = env.reset(seed=42)
    done, played = False, 0
    while not done:
        mask = torch.from_numpy(env.unwrapped.action_masks())
        with torch.no_grad():
            logits = policy(torch.from_numpy(obs).float()[None] / 255)[0]
        action = logits.masked_fill(~mask, -torch.inf).argmax().numpy()
        assert isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind == "i"
        obs, reward, terminated, truncated, info = env.step(action)
        done, played = terminated or truncated, played + 1
    assert terminated and info["illegal_action"] == -1 and played > 5
    env.close()


def test_the_docs_page_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from doc_snippets import run_page

    pytest.importorskip("jax", reason="the page's DataCollector needs minari[create] (interop)")
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    out = run_page("docs/interop/minari.md", expected_blocks=4)
    assert "4 episodes" in out and "bytes a step" in out
    assert "2 episodes; {'num_players': 2}" in out
