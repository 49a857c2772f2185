"""`farlight dataset`: Minari datasets of agents' games, read back, replayed, and learned from.

The command runs in a subprocess as a user would; the datasets go to temporary folders
(MINARI_DATASETS_PATH or --root), never to ~/.minari.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

minari = pytest.importorskip("minari")

from test_cli_errors import assert_one_clear_error  # noqa: E402

from agents import make  # noqa: E402
from agents.dataset import (  # noqa: E402
    DatasetSpec,
    agent_seed,
    episode_seed,
    read_description,
    replay_episode,
    write_dataset,
)
from farlight_env.env.aec import raw_env  # noqa: E402

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
    assert dataset.total_episodes == GAMES * len(AGENTS)
    assert set(dataset.observation_space.spaces) == {"observation", "action_mask"}
    assert dataset.action_space.n == 496
    metadata = dataset.storage.metadata
    assert metadata["author"] and metadata["algorithm_name"].endswith("heuristic,random,heuristic")
    assert metadata["data_format"] == "parquet"
    facts = read_description(dataset)
    assert facts["agents"] == list(AGENTS) and facts["seed"] == 7
    assert facts["recorded_seats"] == [0, 1, 2] and facts["num_players"] == 3
    seats = [int(episode.infos["seat"][0]) for episode in dataset.iterate_episodes()]
    assert sorted(seats) == sorted(list(range(len(AGENTS))) * GAMES)
    # a game's seats share its seed; the games have different ones
    seeds = [episode_seed(dataset, i) for i in range(dataset.total_episodes)]
    assert len(set(seeds)) == GAMES


def test_actions_are_legal_under_their_masks_and_the_reward_comes_at_the_end(dataset):
    for episode in dataset.iterate_episodes():
        masks = episode.observations["action_mask"]
        steps = len(episode.actions)
        assert masks.shape == (steps + 1, 496)
        assert episode.observations["observation"].shape == (steps + 1, 16306)
        assert masks[np.arange(steps), episode.actions].all()
        assert not masks[-1].any()  # the game is over
        assert not episode.rewards[:-1].any()
        assert episode.terminations[-1] or episode.truncations[-1]
        assert not episode.terminations[:-1].any()


def test_replaying_an_episode_from_its_seed_gives_the_recorded_observations(dataset):
    """Each episode's actions, played from its seed with the other seats' seeded agents, give
    its observations and masks again; each observation is the seat's own: computed from the
    seat's redacted view (only what that seat may know) it is the same vector."""
    for episode in dataset.iterate_episodes():
        seat = int(episode.infos["seat"][0])
        seed = episode_seed(dataset, episode.id)
        track = replay_episode(AGENTS, seat, seed, episode.actions)
        np.testing.assert_array_equal(
            np.stack(track.observations), episode.observations["observation"]
        )
        np.testing.assert_array_equal(np.stack(track.masks), episode.observations["action_mask"])

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
            np.testing.assert_array_equal(own, episode.observations["observation"][mine])
            action = int(episode.actions[mine])
            mine += 1
        else:
            action = agents[s].act(obs["observation"], obs["action_mask"],
                                   {**info, "seat": s, "view": env.player_view(name)})  # fmt: skip
        env.step(action)
    assert mine == len(episode.actions)


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

    from agents.dataset import DATA_FORMATS
    from farlight_cli import dataset_cmd

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

    def arrays(episodes) -> tuple:
        obs = np.concatenate([e.observations["observation"][:-1] for e in episodes])
        masks = np.concatenate([e.observations["action_mask"][:-1] for e in episodes])
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


def test_the_docs_page_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from doc_snippets import run_page

    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path))
    out = run_page("docs/interop/minari.md", expected_blocks=2)
    assert "4 episodes" in out and "bytes a step" in out
