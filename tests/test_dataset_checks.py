"""Minari datasets from others, read back by training.farlight.datasets.collect (#53): a crafted
dataset, one whose fields are missing, of the wrong shape or dtype, or impossible, is one
DatasetError of one line naming the field, never a KeyError, a JSONDecodeError or an IndexError from
deep inside.

Crafted datasets are a good one's folder with a file edited (as a downloaded dataset could
be), or Minari's own `create_dataset_from_buffers` given altered episodes and spaces. Both
forms are read (#49): compact bytes with masks in infos, and the float dicts of datasets
written before, whose description names no form.
"""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

minari = pytest.importorskip("minari")

import gymnasium as gym  # noqa: E402
from minari.data_collector.episode_buffer import EpisodeBuffer  # noqa: E402

from training.farlight.datasets.collect import (  # noqa: E402
    DatasetError,
    DatasetSpec,
    episode_seed,
    read_description,
    read_episode,
    replay_episode,
    write_dataset,
)
from training.farlight.datasets.format import codec  # noqa: E402

GOOD = "farlight/good-v0"
#: The same game in the float form, its description as written before #49 (no form named).
OLD = "farlight/old-v0"
AGENTS = ("random", "heuristic")


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("minari")
    write_dataset(DatasetSpec(GOOD, AGENTS, games=1, seed=5), folder, progress=False)
    old = DatasetSpec(OLD, AGENTS, games=1, seed=5, observations="float")
    write_dataset(old, folder, progress=False)
    metadata = folder / OLD / "data" / "metadata.json"
    description = json.loads(json.loads(metadata.read_text())["description"])
    del description["observations"]
    edit_json(metadata, description=json.dumps(description))
    return folder


@pytest.fixture()
def datasets(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(root))
    return root


def copy_of_good(root: Path, name: str) -> Path:
    """A copy of the good dataset under id farlight/NAME-v0; returns its data folder."""
    target = root / "farlight" / f"{name}-v0"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(root / GOOD, target)
    edit_json(target / "data" / "metadata.json", dataset_id=f"farlight/{name}-v0")
    return target / "data"


def edit_json(path: Path, **changes: Any) -> None:
    data = json.loads(path.read_text())
    for key, value in changes.items():
        if value is DROP:
            data.pop(key)
        else:
            data[key] = value
    path.write_text(json.dumps(data))


DROP = object()


def assert_one_line(caught: pytest.ExceptionInfo, *fragments: str) -> None:
    message = str(caught.value)
    assert isinstance(caught.value, ValueError)
    assert "\n" not in message and len(message) < 400, message
    for fragment in fragments:
        assert fragment in message, message


@pytest.mark.parametrize(("dataset_id", "form"), [(GOOD, "compact"), (OLD, "float")])
def test_the_good_dataset_reads_back_checked(datasets: Path, dataset_id: str, form: str) -> None:
    """#49: a compact dataset and one of the float form written before both read back as
    float32 observations and int8 masks that a replay of the game gives again."""
    dataset = minari.load_dataset(dataset_id)
    facts = read_description(dataset)
    assert facts["agents"] == list(AGENTS) and facts["recorded_seats"] == [0, 1]
    assert facts.get("observations") == (None if form == "float" else "compact")
    assert (dataset.env_spec is None) == (form == "float")
    for episode_id in range(dataset.total_episodes):
        episode = read_episode(dataset, episode_id)
        assert episode.form == form and episode.seed == episode_seed(dataset, episode_id)
        assert episode.observations.dtype == np.float32 and episode.masks.dtype == np.int8
        assert len(episode.actions) + 1 == len(episode.observations) == len(episode.masks)
        track = replay_episode(AGENTS, episode.seat, episode.seed, episode.actions)
        np.testing.assert_array_equal(np.stack(track.observations), episode.observations)
        np.testing.assert_array_equal(np.stack(track.masks), episode.masks)


def test_both_forms_hold_the_same_game(datasets: Path) -> None:
    """#49: the compact dataset expands to the float one's observations bit for bit."""
    new, old = minari.load_dataset(GOOD), minari.load_dataset(OLD)
    for episode_id in range(new.total_episodes):
        compact, floats = read_episode(new, episode_id), read_episode(old, episode_id)
        assert compact.observations.tobytes() == floats.observations.tobytes()
        np.testing.assert_array_equal(compact.masks, floats.masks)
        np.testing.assert_array_equal(compact.actions, floats.actions)


def described(text: Any) -> str:
    return text if isinstance(text, str) else json.dumps(text)


GOOD_FACTS = {"num_players": 2, "agents": list(AGENTS), "recorded_seats": [0, 1], "seed": 5,
              "games": 1}  # fmt: skip


@pytest.mark.parametrize(
    ("description", "words"),
    [
        (DROP, "no description, so no dataset farlight dataset wrote"),
        ("not json", "its description is not JSON"),
        ('{"a":' * 100_000 + "1" + "}" * 100_000, "not JSON (JSON is nested too deeply)"),
        ([1, 2], "not a Farlight recording's description"),
        ({**GOOD_FACTS, "agents": DROP}, "missing required field `agents`"),
        ({**GOOD_FACTS, "seed": -1}, "$.seed"),
        ({**GOOD_FACTS, "agents": "random,random"}, "$.agents"),
        ({**GOOD_FACTS, "num_players": 3}, "2 agents for 3 seats"),
        ({**GOOD_FACTS, "recorded_seats": [1, 3]}, "recorded seat 3 in a 2-player game"),
        ({**GOOD_FACTS, "recorded_seats": [9]}, "$.recorded_seats[0]"),
        ({**GOOD_FACTS, "observations": "pixels"}, "$.observations"),
    ],
)
def test_a_crafted_description_is_one_clear_error(
    datasets: Path, description: Any, words: str
) -> None:
    """#53: it was json.loads(...)[...] unchecked: KeyError, JSONDecodeError, RecursionError."""
    if isinstance(description, dict):
        description = {k: v for k, v in description.items() if v is not DROP}
    data = copy_of_good(datasets, "description")
    value = description if description is DROP else described(description)
    edit_json(data / "metadata.json", description=value)
    dataset = minari.load_dataset("farlight/description-v0")
    for read in (read_description, lambda d: read_episode(d, 0)):
        with pytest.raises(DatasetError) as caught:
            read(dataset)
        assert_one_line(caught, "dataset farlight/description-v0: ", words)


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        ({"seed": None}, "its seed must be a game seed (an int in 0..2**128-1), got None"),
        ({"seed": "7"}, "got '7'"),
        ({"seed": -3}, "got -3"),
        ({"seed": True}, "got True"),
        ({"seed": DROP}, "got None"),
        ("{not json", "episode 0: no metadata (JSONDecodeError"),
        (None, "episode 0: no metadata (FileNotFoundError"),
    ],
)
def test_a_crafted_episode_seed_is_one_clear_error(datasets: Path, edit: Any, words: str) -> None:
    """#53: int(metadata["seed"]) took "7", True and -3, and raised TypeError on None."""
    path = copy_of_good(datasets, "seed") / "0" / "metadata.json"
    if isinstance(edit, dict):
        edit_json(path, **edit)
    elif edit is None:
        path.unlink()
    else:
        path.write_text(edit)
    dataset = minari.load_dataset("farlight/seed-v0")
    for read in (episode_seed, read_episode):
        with pytest.raises(DatasetError) as caught:
            read(dataset, 0)
        assert_one_line(caught, words)
    with pytest.raises(DatasetError, match="no episode 99"):
        episode_seed(dataset, 99)


# ------------------------------------------------------------------ episodes of the wrong make
@pytest.fixture(scope="module")
def good_episodes(root: Path) -> dict[str, Any]:
    """Form -> the first episode of the dataset of that form."""
    import os

    os.environ["MINARI_DATASETS_PATH"] = str(root)
    try:
        return {"compact": minari.load_dataset(GOOD)[0], "float": minari.load_dataset(OLD)[0]}
    finally:
        del os.environ["MINARI_DATASETS_PATH"]


def box(array: np.ndarray) -> gym.spaces.Box:
    if np.issubdtype(array.dtype, np.integer):
        bounds = np.iinfo(array.dtype)
        return gym.spaces.Box(bounds.min, bounds.max, array.shape[1:], array.dtype)
    return gym.spaces.Box(-np.inf, np.inf, array.shape[1:], array.dtype)


def parts(form: str, episode: Any) -> tuple[np.ndarray, np.ndarray]:
    """An episode's stored observation vectors and masks, wherever its form keeps them."""
    if form == "compact":
        return episode.observations, episode.infos["action_mask"]
    return episode.observations["observation"], episode.observations["action_mask"]


def crafted(form: str, episode: Any, **changes: Any) -> Any:
    """A dataset of one episode: the good one of `form` with `changes` (observation,
    action_mask, observations, actions, infos entries, rewards), its spaces made to fit, the
    good one's description naming `form`."""
    vectors, masks = parts(form, episode)
    vectors = changes.get("observation", vectors)
    masks = changes.get("action_mask", masks)
    actions = changes.get("actions", episode.actions)
    steps = len(actions)
    infos: dict[str, Any] = {"seat": [0] * (steps + 1)}
    if form == "compact":
        infos["action_mask"], observations = masks, vectors
    else:
        observations = {"observation": vectors, "action_mask": masks}
    observations = changes.get("observations", observations)
    infos.update(changes.get("infos", {}))
    infos = {k: v for k, v in infos.items() if v is not DROP}
    if isinstance(observations, dict):
        space = gym.spaces.Dict({k: box(v) for k, v in observations.items()})
    else:
        space = box(observations)
    if np.issubdtype(actions.dtype, np.integer):
        action_space = gym.spaces.Discrete(10**6)
    else:
        action_space = box(actions[:, None])
        actions = actions[:, None]
    buffer = EpisodeBuffer(
        seed=5,
        observations=observations,
        actions=actions,
        rewards=list(changes.get("rewards", episode.rewards)),
        terminations=[False] * (steps - 1) + [True],
        truncations=[False] * steps,
        infos=infos,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return minari.create_dataset_from_buffers(
            "farlight/crafted-v0",
            [buffer],
            observation_space=space,
            action_space=action_space,
            algorithm_name="crafted",
            description=json.dumps({**GOOD_FACTS, "observations": form}),
            data_format="parquet",
        )


def shared_cases(form: str, episode: Any) -> dict[str, tuple[dict[str, Any], str]]:
    """Altered actions, seats and rewards -> (changes, the error's words), either form."""
    _, masks = parts(form, episode)
    steps = len(episode.actions)
    illegal = episode.actions.copy()
    illegal[2] = int(np.flatnonzero(masks[2] == 0)[0])
    twos = masks.copy()
    twos[0, 0] = 2
    return {
        "a mask of twos": ({"action_mask": twos}, "values other than 0 and 1"),
        "actions of floats": (
            {"actions": episode.actions.astype(np.float32)},
            "actions must be of dtype integer",
        ),
        "an illegal action": ({"actions": illegal}, "action 2 is not legal under its mask"),
        "no seat": ({"infos": {"seat": DROP}}, "infos['seat'] must be an array, got NoneType"),
        "two seats": (
            {"infos": {"seat": [0] * steps + [1]}},
            "infos['seat'] must name one recorded seat",
        ),
        "infinite reward": (
            {"rewards": [0.0] * (steps - 1) + [np.inf]},
            "rewards hold NaN or infinite values",
        ),
    }


def compact_cases(episode: Any) -> dict[str, tuple[dict[str, Any], str]]:
    """#49: compact episodes whose bytes or masks are not what the writer stores."""
    codes, masks = parts("compact", episode)
    rows = len(codes)
    flag = int(np.flatnonzero(codec(2).high == 1)[0])  # a 0/1 element
    over = codes.copy()
    over[1, flag] = 2
    return {
        "observations of another size": (
            {"observation": codes[:, :5]},
            f"observations must have shape ({rows}, 16351), got ({rows}, 5)",
        ),
        "observations of float32": (
            {"observation": codes.astype(np.float32)},
            "observations must be of dtype uint8, got float32",
        ),
        "the float form's dict": (
            {"observations": {"observation": codes, "action_mask": masks}},
            "observations must be an array, got dict",
        ),
        "a byte above its bound": ({"observation": over}, f"byte {flag} exceeds its bound"),
        "no action mask": (
            {"infos": {"action_mask": DROP}},
            "infos['action_mask'] must be an array, got NoneType",
        ),
        "mask of floats": (
            {"action_mask": masks.astype(np.float32)},
            "infos['action_mask'] must be of dtype int8, got float32",
        ),
    }


def float_cases(episode: Any) -> dict[str, tuple[dict[str, Any], str]]:
    """Float-form episodes (datasets written before #49) of the wrong make."""
    vectors, masks = parts("float", episode)
    rows = len(vectors)
    negative = vectors.copy()
    negative[1, 3] = -1.0
    return {
        "observation of another size": (
            {"observation": vectors[:, :5]},
            f"observation must have shape ({rows}, 16306), got ({rows}, 5)",
        ),
        "observation of float64": (
            {"observation": vectors.astype(np.float64)},
            "observation must be of dtype float32, got float64",
        ),
        "no action mask": ({"observations": vectors}, "observations must be a dict of"),
        "mask of floats": (
            {"action_mask": masks.astype(np.float32)},
            "action_mask must be of dtype int8, got float32",
        ),
        "negative observation": ({"observation": negative}, "negative, NaN or infinite"),
    }


def episode_cases(form: str, episode: Any) -> dict[str, tuple[dict[str, Any], str]]:
    """Altered episodes of `form` -> (changes, the error's words)."""
    own = compact_cases(episode) if form == "compact" else float_cases(episode)
    return {**shared_cases(form, episode), **own}


SHARED = ["a mask of twos", "actions of floats", "an illegal action", "no seat", "two seats",
          "infinite reward"]  # fmt: skip
CASES = [
    *[("compact", case) for case in SHARED],
    ("compact", "observations of another size"),
    ("compact", "observations of float32"),
    ("compact", "the float form's dict"),
    ("compact", "a byte above its bound"),
    ("compact", "no action mask"),
    ("compact", "mask of floats"),
    *[("float", case) for case in SHARED],
    ("float", "observation of another size"),
    ("float", "observation of float64"),
    ("float", "no action mask"),
    ("float", "mask of floats"),
    ("float", "negative observation"),
]


@pytest.mark.parametrize(("form", "case"), CASES)
def test_an_episode_of_the_wrong_make_is_one_clear_error(
    datasets: Path, good_episodes: dict[str, Any], form: str, case: str
) -> None:
    """#53: such episodes reached their reader as whatever Minari decoded; #49: in both forms."""
    changes, words = episode_cases(form, good_episodes[form])[case]
    shutil.rmtree(datasets / "farlight" / "crafted-v0", ignore_errors=True)
    dataset = crafted(form, good_episodes[form], **changes)
    with pytest.raises(DatasetError) as caught:
        read_episode(dataset, 0)
    assert_one_line(caught, "dataset farlight/crafted-v0: episode 0: ", words)


def test_the_episode_cases_are_all_run(good_episodes: dict[str, Any]) -> None:
    listed = sorted(CASES)
    assert listed == sorted(
        (f, c) for f in good_episodes for c in episode_cases(f, good_episodes[f])
    )


def test_replaying_what_no_recorded_game_could_hold_is_one_clear_error(
    datasets: Path,
) -> None:
    """#53: a short list of actions was an IndexError, an illegal one the env's own error."""
    dataset = minari.load_dataset(GOOD)
    episode = read_episode(dataset, 0)
    actions = list(episode.actions)
    illegal = list(actions)
    illegal[1] = int(np.flatnonzero(episode.masks[1] == 0)[0])
    seat, seed = episode.seat, episode.seed
    cases = [
        (("nobody", "random"), seat, seed, actions, "agent 'nobody' is unknown here"),
        (("random",), seat, seed, actions, "a lineup is 2..5 agent names"),
        (AGENTS, 2, seed, actions, "seat must be in 0..1, got 2"),
        (AGENTS, seat, -1, actions, "seed must be a game seed"),
        (AGENTS, seat, seed, [1.5, 2.5], "actions must be a 1-D sequence of ints"),
        (AGENTS, seat, seed, actions[:3], "the game goes on after the episode's 3 actions"),
        (AGENTS, seat, seed, actions + [0, 0], f"the game ended after {len(actions)} of"),
        (AGENTS, seat, seed, illegal, f"action 1 ({illegal[1]}) is not legal there"),
    ]
    for agents, seat, seed, moves, words in cases:
        with pytest.raises(DatasetError) as caught:
            replay_episode(agents, seat, seed, moves)
        assert_one_line(caught, "replay: ", words)
