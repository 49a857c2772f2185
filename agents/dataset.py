"""Minari datasets of games played by chosen agents: one episode per recorded seat per game.

Each episode is one seat's single-learner view of a game, as `FarlightSingleAgentEnv` would
show it: the seat's own observation and mask (`{"observation", "action_mask"}`, the AEC env's
observation) at each of its decisions and once more at the end, its actions, and the env's
reward (0 until the game ends, then the final reward). The episode's `seed` is the game's seed
(`raw_env.reset(seed=...)`); with the lineup in the dataset's metadata, `replay_episode`
plays the same game again, so every recorded step can be checked against the engine.

A dataset is written in a scratch folder beside its destination and moved into place when
complete: an interrupted or failed run leaves nothing under the dataset's id.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.registry import make
from agents.tournament.scheduling import game_seed  # game g's seed: (dataset seed, g)
from farlight_env import GYM_ID, __version__
from farlight_env.env.aec import raw_env

#: Minari's storage formats; parquet compresses the sparse observations (snappy), hdf5 and
#: arrow store them raw (65 kB a step).
DATA_FORMATS = ("parquet", "hdf5", "arrow")
DEFAULT_FORMAT = "parquet"
#: Where Minari keeps datasets when MINARI_DATASETS_PATH is not set.
MINARI_DEFAULT_ROOT = Path("~/.minari/datasets")
ALGORITHM = "farlight-agents"
AUTHOR = "Farlight-Env dataset writer"
#: The project names no public repository (pyproject.toml has no URL): the code, by path.
CODE_LINK = f"agents/dataset.py of farlight-env {__version__}"


@dataclass(frozen=True)
class DatasetSpec:
    """What to record: seat i is played by `agents[i]`; games are seeded from `seed`."""

    dataset_id: str
    agents: tuple[str, ...]
    games: int
    seed: int = 0
    record_seats: tuple[int, ...] | None = None  # None: every seat
    data_format: str = DEFAULT_FORMAT
    agent_kwargs: dict[str, dict[str, Any]] = field(default_factory=dict, hash=False)

    @property
    def seats(self) -> tuple[int, ...]:
        """The recorded seats, in order."""
        if self.record_seats is None:
            return tuple(range(len(self.agents)))
        return tuple(sorted(set(self.record_seats)))


@dataclass(frozen=True)
class Written:
    """A finished dataset: where it is and how big."""

    dataset_id: str
    path: Path
    episodes: int
    steps: int
    bytes: int

    @property
    def bytes_per_step(self) -> float:
        return self.bytes / max(self.steps, 1)


# ---- seeds --------------------------------------------------------------------------------
def agent_seed(seed_of_game: int, seat: int) -> int:
    """The seed of the agent at `seat` in the game with seed `seed_of_game`."""
    return int(np.random.SeedSequence([seed_of_game, seat]).generate_state(1, np.uint32)[0])


# ---- playing and recording ----------------------------------------------------------------
@dataclass
class _Track:
    """One seat's episode while its game is played."""

    observations: list[np.ndarray] = field(default_factory=list)
    masks: list[np.ndarray] = field(default_factory=list)
    actions: list[int] = field(default_factory=list)


def _seat_agents(
    names: Sequence[str], seed_of_game: int, kwargs: dict[str, dict[str, Any]]
) -> list[Any]:
    """A fresh agent per seat, seeded from the game (so the game replays from its seed)."""
    seats = [
        make(n, seed=agent_seed(seed_of_game, s), **kwargs.get(n, {})) for s, n in enumerate(names)
    ]
    for agent in seats:
        agent.reset()
    return seats


def play_game(
    names: Sequence[str],
    seed_of_game: int,
    *,
    forced: dict[int, Sequence[int]] | None = None,
    agent_kwargs: dict[str, dict[str, Any]] | None = None,
) -> tuple[dict[int, _Track], dict[int, tuple[float, bool, bool]]]:
    """Play one game; every seat's observations, masks and actions, and each seat's final
    (reward, terminated, truncated). `forced[seat]` replaces that seat's agent by a list of
    actions (a replay)."""
    env = raw_env(num_players=len(names))
    env.reset(seed=seed_of_game)
    agents = _seat_agents(names, seed_of_game, agent_kwargs or {})
    tracks = {s: _Track() for s in range(len(names))}
    ends: dict[int, tuple[float, bool, bool]] = {}
    for name in env.agent_iter():
        seat = env.agent_name_mapping[name]
        obs, reward, terminated, truncated, info = env.last()
        track = tracks[seat]
        track.observations.append(obs["observation"])
        track.masks.append(obs["action_mask"])
        if terminated or truncated:
            ends[seat] = (float(reward), bool(terminated), bool(truncated))
            env.step(None)
            continue
        if forced is not None and seat in forced:
            action = int(forced[seat][len(track.actions)])
        else:
            view = {**info, "seat": seat, "view": env.player_view(name)}
            action = int(agents[seat].act(obs["observation"], obs["action_mask"], view))
        track.actions.append(action)
        env.step(action)
    return tracks, ends


def _episode(track: _Track, end: tuple[float, bool, bool], seed_of_game: int, seat: int) -> Any:
    """Minari's EpisodeBuffer of one seat: T decisions, T+1 observations, reward at the end."""
    from minari.data_collector.episode_buffer import EpisodeBuffer

    steps = len(track.actions)
    reward, terminated, truncated = end
    rewards = [0.0] * steps
    rewards[-1] = reward
    return EpisodeBuffer(
        seed=seed_of_game,
        observations={
            "observation": np.stack(track.observations),
            "action_mask": np.stack(track.masks),
        },
        actions=np.asarray(track.actions, dtype=np.int64),
        rewards=rewards,
        terminations=[False] * (steps - 1) + [terminated],
        truncations=[False] * (steps - 1) + [truncated],
        infos={"seat": [seat] * (steps + 1)},  # a list: Minari's arrow formats misread 1-D arrays
    )


def game_episodes(spec: DatasetSpec, game: int) -> list[Any]:
    """The recorded seats' episodes of game `game` (a seat that never decided has none)."""
    seed_of_game = game_seed(spec.seed, game)
    tracks, ends = play_game(spec.agents, seed_of_game, agent_kwargs=spec.agent_kwargs)
    return [_episode(tracks[s], ends[s], seed_of_game, s) for s in spec.seats if tracks[s].actions]


def replay_episode(agents: Sequence[str], seat: int, seed: int, actions: Sequence[int]) -> _Track:
    """Play the game with seed `seed` again, `seat` taking `actions` and the other seats their
    seeded agents: the seat's observations and masks, for checking a recorded episode."""
    tracks, _ = play_game(agents, seed, forced={seat: list(actions)})
    return tracks[seat]


# ---- the dataset on disk ------------------------------------------------------------------
def datasets_root(root: Path | None = None) -> Path:
    """The folder datasets go to: `root`, else MINARI_DATASETS_PATH, else Minari's default."""
    if root is not None:
        return Path(root)
    env = os.environ.get("MINARI_DATASETS_PATH")
    return Path(env) if env else MINARI_DEFAULT_ROOT.expanduser()


def check_dataset_id(dataset_id: str) -> None:
    """ValueError unless `dataset_id` is a Minari id with a version, e.g. farlight/heuristic-v0."""
    from minari.dataset.minari_dataset import parse_dataset_id

    try:
        parse_dataset_id(dataset_id)
    except (ValueError, TypeError):
        raise ValueError(
            f"bad dataset id {dataset_id!r}: expected (namespace/)name-vN, "
            "e.g. farlight/heuristic-v0"
        ) from None


@contextmanager
def _minari_root(path: Path) -> Iterator[None]:
    """Point Minari (which reads MINARI_DATASETS_PATH on every call) at `path` for a while."""
    old = os.environ.get("MINARI_DATASETS_PATH")
    os.environ["MINARI_DATASETS_PATH"] = str(path)
    try:
        yield
    finally:
        if old is None:
            del os.environ["MINARI_DATASETS_PATH"]
        else:
            os.environ["MINARI_DATASETS_PATH"] = old


def _metadata(spec: DatasetSpec) -> dict[str, Any]:
    """What create_dataset_from_buffers stores besides the data: who played, and how."""
    lineup = ", ".join(f"seat {i}: {n}" for i, n in enumerate(spec.agents))
    return {
        "algorithm_name": f"{ALGORITHM}: {','.join(spec.agents)}",
        "author": AUTHOR,
        "code_permalink": CODE_LINK,
        "description": json.dumps(
            {
                "farlight_env": __version__,
                "env": "farlight_v0 (raw_env) single-learner view; observation_space is "
                "raw_env.observation_space(agent)",
                "gym_id": GYM_ID,
                "num_players": len(spec.agents),
                "agents": list(spec.agents),
                "recorded_seats": list(spec.seats),
                "seed": spec.seed,
                "games": spec.games,
                "episode_seed": "the game's seed: raw_env.reset(seed=episode.seed); the agent "
                "at seat s is agents.make(name, seed=agents.dataset.agent_seed(seed, s))",
                "lineup": lineup,
            },
            sort_keys=True,
        ),
        "data_format": spec.data_format,
    }


def read_description(dataset: Any) -> dict[str, Any]:
    """The recording facts (agents, seats, seed) a dataset written here carries."""
    return json.loads(dataset.storage.metadata["description"])


def episode_seed(dataset: Any, episode_id: int) -> int:
    """The seed of the game episode `episode_id` was recorded from (Minari keeps it in the
    episode's metadata, not in its EpisodeData)."""
    (metadata,) = dataset.storage.get_episode_metadata([episode_id])
    return int(metadata["seed"])


def _folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _create(spec: DatasetSpec, first: list[Any]) -> Any:
    """The dataset with its first game's episodes (Minari needs episodes to create one)."""
    import warnings

    from minari import create_dataset_from_buffers

    space = raw_env(num_players=len(spec.agents)).observation_space("player_0")
    action_space = raw_env(num_players=len(spec.agents)).action_space("player_0")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "env is None": the spaces are given, on purpose
        return create_dataset_from_buffers(
            spec.dataset_id,
            first,
            observation_space=space,
            action_space=action_space,
            **_metadata(spec),
        )


def write_dataset(
    spec: DatasetSpec,
    root: Path | None = None,
    *,
    force: bool = False,
    progress: bool = True,
    on_game: Callable[[int], None] | None = None,
) -> Written:
    """Play `spec.games` games and write them as Minari dataset `spec.dataset_id` under `root`
    (see `datasets_root`); FileExistsError if it exists, unless `force` replaces it."""
    from tqdm.auto import tqdm

    check_dataset_id(spec.dataset_id)
    base = datasets_root(root)
    final = base / spec.dataset_id
    if final.exists() and not force:
        raise FileExistsError(f"dataset {spec.dataset_id} exists at {final}; --force replaces it")
    base.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".farlight-dataset-", dir=base))
    try:
        with (
            _minari_root(scratch),
            tqdm(total=spec.games, desc="games", unit="game", disable=not progress) as bar,
        ):
            dataset = None
            for game in range(spec.games):
                episodes = game_episodes(spec, game)
                if dataset is None:
                    dataset = _create(spec, episodes)
                else:
                    dataset.update_dataset_from_buffer(episodes)
                bar.update()
                if on_game is not None:
                    on_game(game)
        assert dataset is not None
        written = Written(
            spec.dataset_id,
            final,
            dataset.total_episodes,
            dataset.total_steps,
            _folder_bytes(scratch / spec.dataset_id / "data"),
        )
        _move_into_place(scratch / spec.dataset_id, final)
        _copy_namespaces(scratch, base, spec.dataset_id)
        return written
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _move_into_place(built: Path, final: Path) -> None:
    """Rename the finished dataset to its id's folder; an old one is removed only after."""
    final.parent.mkdir(parents=True, exist_ok=True)
    old = None
    if final.exists():
        old = final.with_name(f".{final.name}.old-{os.getpid()}")
        final.rename(old)
    built.rename(final)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _copy_namespaces(scratch: Path, base: Path, dataset_id: str) -> None:
    """Minari's namespace files (namespace_metadata.json), where the real root lacks them."""
    parts = dataset_id.split("/")[:-1]
    for depth in range(1, len(parts) + 1):
        name = Path(*parts[:depth]) / "namespace_metadata.json"
        if (scratch / name).is_file() and not (base / name).exists():
            shutil.copyfile(scratch / name, base / name)
