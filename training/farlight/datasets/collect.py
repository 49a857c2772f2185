"""Minari datasets of games played by chosen agents: one episode per recorded seat per game.

Each episode is one seat's single-learner view of a game, as `farlight_env/Farlight-v1` would
show it: the seat's own observation (compact uint8) and action mask (`infos["action_mask"]`) at
each of its decisions and once more at the end, its actions, and the env's reward (0 until the
game ends, then the final reward); `training.farlight.datasets.format` says how each form is
stored and gives the dataset's env_spec. The episode's `seed` is the game's seed
(`raw_env.reset(seed=...)`); with the lineup in the dataset's metadata, `replay_episode`
plays the same game again, so every recorded step can be checked against the engine.

A dataset is written in a scratch folder beside its destination and moved into place when
complete: an interrupted or failed run leaves nothing under the dataset's id. A dataset read
back may come from anyone: `read_description`, `episode_seed`, `read_episode` and
`replay_episode` check every field they use and raise `DatasetError`, one line, otherwise.
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
from typing import Annotated, Any, Literal

import msgspec
import numpy as np

from agents.registry import make, unknown_agents
from evaluation.tournament.scheduling import game_seed  # game g's seed: (dataset seed, g)
from farlight_env import GYM_ID_V1, __version__
from farlight_env.env.aec import raw_env
from farlight_env.game.facts import MAX_PLAYERS, MIN_PLAYERS
from farlight_env.untrusted.jsontext import decode
from farlight_env.untrusted.messages import clip_message, short
from training.farlight.datasets import format as dataset_format
from training.farlight.datasets.errors import DatasetError, check_array

#: Minari's storage formats; parquet compresses the sparse observations (snappy), hdf5 and
#: arrow store them raw (16.9 kB a step in the compact form, 65.7 kB in the float one).
DATA_FORMATS = ("parquet", "hdf5", "arrow")
DEFAULT_FORMAT = "parquet"
#: Where Minari keeps datasets when MINARI_DATASETS_PATH is not set.
MINARI_DEFAULT_ROOT = Path("~/.minari/datasets")
ALGORITHM = "farlight-agents"
AUTHOR = "Farlight-Env dataset writer"
#: The project names no public repository (pyproject.toml has no URL): the code, by path.
CODE_LINK = f"training/farlight/datasets/collect.py of farlight-env {__version__}"


@dataclass(frozen=True)
class DatasetSpec:
    """What to record: seat i is played by `agents[i]`; games are seeded from `seed`."""

    dataset_id: str
    agents: tuple[str, ...]
    games: int
    seed: int = 0
    record_seats: tuple[int, ...] | None = None  # None: every seat
    data_format: str = DEFAULT_FORMAT
    #: Extra keyword arguments of an agent, by name; a dataset that uses any has no env_spec
    #: (the recovered env's opponents are built from names alone).
    agent_kwargs: dict[str, dict[str, Any]] = field(default_factory=dict, hash=False)
    #: "compact" (v1's uint8 observations, masks in infos, an env_spec) or "float" (v0's
    #: observation dicts, as written before #49): `training.farlight.datasets.format`.
    observations: str = dataset_format.DEFAULT_OBSERVATIONS

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
            action = _forced(forced[seat], len(track.actions), obs["action_mask"])
        else:
            view = {**info, "seat": seat, "view": env.player_view(name)}
            action = int(agents[seat].act(obs["observation"], obs["action_mask"], view))
        track.actions.append(action)
        env.step(action)
    return tracks, ends


def _episode(
    spec: DatasetSpec, track: _Track, end: tuple[float, bool, bool], seed_of_game: int, seat: int
) -> Any:
    """Minari's EpisodeBuffer of one seat: T decisions, T+1 observations, reward at the end."""
    from minari.data_collector.episode_buffer import EpisodeBuffer

    steps = len(track.actions)
    reward, terminated, truncated = end
    rewards = [0.0] * steps
    rewards[-1] = reward
    observations, infos = dataset_format.stored_observations(
        spec.observations, len(spec.agents), track.observations, track.masks
    )
    return EpisodeBuffer(
        seed=seed_of_game,
        observations=observations,
        actions=np.asarray(track.actions, dtype=np.int64),
        rewards=rewards,
        terminations=[False] * (steps - 1) + [terminated],
        truncations=[False] * (steps - 1) + [truncated],
        # the seat as a list: Minari's arrow formats misread 1-D arrays (2-D ones read back)
        infos={"seat": [seat] * (steps + 1), **infos},
    )


def game_episodes(spec: DatasetSpec, game: int) -> list[Any]:
    """The recorded seats' episodes of game `game` (a seat that never decided has none)."""
    seed_of_game = game_seed(spec.seed, game)
    tracks, ends = play_game(spec.agents, seed_of_game, agent_kwargs=spec.agent_kwargs)
    return [
        _episode(spec, tracks[s], ends[s], seed_of_game, s) for s in spec.seats if tracks[s].actions
    ]


def _forced(actions: Sequence[int], k: int, mask: np.ndarray) -> int:
    """A replayed seat's k-th action, which the game must still ask for and allow."""
    if k >= len(actions):
        raise DatasetError(f"replay: the game goes on after the episode's {len(actions)} actions")
    action = int(actions[k])
    if not 0 <= action < len(mask) or not mask[action]:
        raise DatasetError(f"replay: the episode's action {k} ({action}) is not legal there")
    return action


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
                "env": _ENV_TEXT[spec.observations],
                "gym_id": GYM_ID_V1,
                "observations": spec.observations,
                "num_players": len(spec.agents),
                "agents": list(spec.agents),
                "recorded_seats": list(spec.seats),
                "seed": spec.seed,
                "games": spec.games,
                "episode_seed": "the game's seed: raw_env.reset(seed=episode.seed); the agent at "
                "seat s is agents.make(name, seed="
                "training.farlight.datasets.collect.agent_seed(seed, s))",
                "lineup": lineup,
            },
            sort_keys=True,
        ),
        "data_format": spec.data_format,
    }


#: The description's "env": what an episode is, in each form.
_ENV_TEXT = {
    "compact": "farlight_env/Farlight-v1's single-learner view: observations are its compact "
    "uint8 vectors (its observation_space), infos['action_mask'] the int8 mask of each",
    "float": "farlight_v0 (raw_env) single-learner view; observation_space is "
    "raw_env.observation_space(agent)",
}


def _folder_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _create(spec: DatasetSpec, first: list[Any]) -> Any:
    """The dataset with its first game's episodes (Minari needs episodes to create one)."""
    import warnings

    from minari import create_dataset_from_buffers

    n = len(spec.agents)
    # the float form matches no registered env; nor do agents with extra keyword arguments
    recoverable = spec.observations == "compact" and not spec.agent_kwargs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # no eval_env, no author_email: on purpose
        return create_dataset_from_buffers(
            spec.dataset_id,
            first,
            env=dataset_format.env_spec(spec.agents) if recoverable else None,
            observation_space=dataset_format.observation_space(spec.observations, n),
            action_space=dataset_format.action_space(n),
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
    dataset_format.check_form(spec.observations)
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


# ---- reading a dataset back (from anyone: every field checked) ------------------------------
#: A description longer than this is no recording's (write_dataset's is well under 2 kB).
MAX_DESCRIPTION_CHARS = 1 << 20
#: Game seeds are below 2**128 (farlight_env.seeding.secure_seed draws 128 bits).
SEED_BOUND = 2**128


class RecordingFacts(msgspec.Struct):
    """The description's fields the readers rely on (the others are kept, not checked)."""

    num_players: Annotated[int, msgspec.Meta(ge=MIN_PLAYERS, le=MAX_PLAYERS)]
    agents: list[Annotated[str, msgspec.Meta(min_length=1, max_length=4096)]]
    recorded_seats: Annotated[
        list[Annotated[int, msgspec.Meta(ge=0, lt=MAX_PLAYERS)]], msgspec.Meta(min_length=1)
    ]
    #: Below SEED_BOUND too, checked after conversion (msgspec's bounds stop at 2**63).
    seed: Annotated[int, msgspec.Meta(ge=0)]
    games: Annotated[int, msgspec.Meta(ge=1)]
    #: How observations are stored (training.farlight.datasets.format); none named: the float form.
    observations: Literal["compact", "float"] = dataset_format.LEGACY_OBSERVATIONS


@dataclass(frozen=True)
class RecordedEpisode:
    """One seat's episode read back: T decisions, each array as `write_dataset` stores it."""

    id: int
    seat: int
    seed: int
    observations: np.ndarray  # float32 (T + 1, observation size), finite, >= 0 (expanded)
    masks: np.ndarray  # int8 (T + 1, actions) of 0 and 1
    actions: np.ndarray  # int64 (T,), each legal under its step's mask
    rewards: np.ndarray  # float64 (T,), finite
    form: str = dataset_format.DEFAULT_OBSERVATIONS  # how the dataset stored observations


def _stored_metadata(dataset: Any) -> dict[str, Any]:
    """Minari's metadata of `dataset` (read from its metadata.json on each call)."""
    try:
        metadata = dataset.storage.metadata
    except Exception as exc:  # noqa: BLE001 - Minari reads a file others wrote
        raise DatasetError(f"the dataset's metadata is unreadable ({_why(exc)})") from None
    if not isinstance(metadata, dict):
        raise DatasetError("the dataset's metadata is not a JSON object")
    return metadata


def _name(dataset: Any) -> str:
    dataset_id = _stored_metadata(dataset).get("dataset_id")
    return f"dataset {short(dataset_id)}" if isinstance(dataset_id, str) else "the dataset"


def _why(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {clip_message(str(exc), 120)}"


def read_description(dataset: Any) -> dict[str, Any]:
    """The recording facts (agents, seats, seed) a dataset written here carries, checked: a
    dataset written elsewhere or edited is a DatasetError naming the field."""
    name = _name(dataset)
    text = _stored_metadata(dataset).get("description")
    if not isinstance(text, str):
        raise DatasetError(f"{name}: no description, so no dataset farlight dataset wrote")
    if len(text) > MAX_DESCRIPTION_CHARS:
        raise DatasetError(f"{name}: a description of {len(text):,} characters")
    try:
        facts = decode(text, dict[str, Any])
        checked = msgspec.convert(facts, RecordingFacts)
    except msgspec.ValidationError as exc:
        raise DatasetError(f"{name}: not a Farlight recording's description ({exc})") from None
    except msgspec.DecodeError as exc:
        raise DatasetError(f"{name}: its description is not JSON ({exc})") from None
    if checked.seed >= SEED_BOUND:
        raise DatasetError(
            f"{name}: description: seed {short(str(checked.seed))} is 2**128 or more"
        )
    if len(checked.agents) != checked.num_players:
        raise DatasetError(
            f"{name}: description: {len(checked.agents)} agents for {checked.num_players} seats"
        )
    if max(checked.recorded_seats) >= checked.num_players:
        raise DatasetError(
            f"{name}: description: recorded seat {max(checked.recorded_seats)} in a "
            f"{checked.num_players}-player game"
        )
    return facts


def _check_id(dataset: Any, episode_id: Any, name: str) -> int:
    if not _is_int(episode_id, 0, 2**63) or episode_id not in np.asarray(dataset.episode_indices):
        raise DatasetError(f"{name}: no episode {short(repr(episode_id))}")
    return int(episode_id)


def episode_seed(dataset: Any, episode_id: int) -> int:
    """The seed of the game episode `episode_id` was recorded from (Minari keeps it in the
    episode's metadata, not in its EpisodeData), checked to be a game seed."""
    name = _name(dataset)
    episode_id = _check_id(dataset, episode_id, name)
    try:
        (metadata,) = dataset.storage.get_episode_metadata([episode_id])
    except (OSError, ValueError, RecursionError) as exc:  # a missing or malformed file
        raise DatasetError(f"{name}: episode {episode_id}: no metadata ({_why(exc)})") from None
    seed = metadata.get("seed") if isinstance(metadata, dict) else None
    if not _is_int(seed, 0, SEED_BOUND):
        raise DatasetError(
            f"{name}: episode {episode_id}: its seed must be a game seed (an int in "
            f"0..2**128-1), got {short(repr(seed))}"
        )
    return int(seed)


def _is_int(value: Any, low: int, high: int) -> bool:
    """An int (a numpy one too, never a bool) in low..high-1."""
    return (
        isinstance(value, (int, np.integer)) and not isinstance(value, bool) and low <= value < high
    )


def read_episode(dataset: Any, episode_id: int) -> RecordedEpisode:
    """Episode `episode_id`, every field checked against the recording: a field missing, of
    the wrong shape or dtype, or impossible (an action its mask forbids) is a DatasetError."""
    facts = msgspec.convert(read_description(dataset), RecordingFacts)
    name = _name(dataset)
    seed = episode_seed(dataset, episode_id)
    where = f"{name}: episode {episode_id}"
    try:
        episode = next(iter(dataset.iterate_episodes([episode_id])))
    except Exception as exc:  # noqa: BLE001 - Minari and pyarrow raise many kinds on bad files
        raise DatasetError(f"{where}: unreadable ({_why(exc)})") from None
    actions = check_array(episode.actions, where, "actions", np.integer, None)
    rows = len(actions) + 1  # an observation at each decision and once more at the end
    vectors, masks = dataset_format.read_observations(
        facts.observations, episode, where, rows, facts.num_players
    )
    rewards = check_array(episode.rewards, where, "rewards", np.number, (rows - 1,))
    infos = episode.infos if isinstance(episode.infos, dict) else {}
    seats = check_array(infos.get("seat"), where, "infos['seat']", np.integer, (rows,))
    _check_values(where, facts, vectors, masks, actions, rewards, seats)
    return RecordedEpisode(
        episode_id,
        int(seats[0]),
        seed,
        vectors,
        masks,
        actions.astype(np.int64),
        rewards.astype(np.float64),
        facts.observations,
    )


def _check_values(
    where: str,
    facts: RecordingFacts,
    vectors: np.ndarray,
    masks: np.ndarray,
    actions: np.ndarray,
    rewards: np.ndarray,
    seats: np.ndarray,
) -> None:
    """What the shapes cannot say: one recorded seat, legal actions, finite numbers."""
    steps = len(actions)
    if steps < 1:
        raise DatasetError(f"{where}: no decisions (a seat that never decided has no episode)")
    if (seats != seats[0]).any() or int(seats[0]) not in facts.recorded_seats:
        raise DatasetError(f"{where}: infos['seat'] must name one recorded seat throughout")
    if not np.isfinite(vectors).all() or (vectors < 0).any():
        raise DatasetError(f"{where}: observation holds negative, NaN or infinite values")
    if ((masks != 0) & (masks != 1)).any():
        raise DatasetError(f"{where}: action_mask holds values other than 0 and 1")
    if (actions < 0).any() or (actions >= masks.shape[1]).any():
        raise DatasetError(f"{where}: actions must be in 0..{masks.shape[1] - 1}")
    illegal = np.flatnonzero(masks[np.arange(steps), actions] == 0)
    if len(illegal):
        raise DatasetError(f"{where}: action {illegal[0]} is not legal under its mask")
    if not np.isfinite(rewards).all():
        raise DatasetError(f"{where}: rewards hold NaN or infinite values")


def replay_episode(agents: Sequence[str], seat: int, seed: int, actions: Sequence[int]) -> _Track:
    """Play the game with seed `seed` again, `seat` taking `actions` and the other seats their
    seeded agents: the seat's observations and masks, for checking a recorded episode. A
    lineup, seat, seed or actions no recorded game could have is a DatasetError."""
    names = list(agents)
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS or not all(isinstance(n, str) for n in names):
        raise DatasetError(f"replay: a lineup is {MIN_PLAYERS}..{MAX_PLAYERS} agent names")
    unknown = unknown_agents(names)
    if unknown:
        raise DatasetError(f"replay: the recording's agent {short(unknown[0])!r} is unknown here")
    if not _is_int(seat, 0, len(names)):
        raise DatasetError(f"replay: seat must be in 0..{len(names) - 1}, got {short(repr(seat))}")
    if not _is_int(seed, 0, SEED_BOUND):
        raise DatasetError(f"replay: seed must be a game seed, got {short(repr(seed))}")
    moves = np.asarray(actions)
    if moves.ndim != 1 or not (np.issubdtype(moves.dtype, np.integer) or moves.size == 0):
        raise DatasetError("replay: actions must be a 1-D sequence of ints")
    tracks, _ = play_game(names, int(seed), forced={int(seat): moves.tolist()})
    track = tracks[int(seat)]
    if len(track.actions) != len(moves):
        raise DatasetError(
            f"replay: the game ended after {len(track.actions)} of the episode's {len(moves)} "
            "actions"
        )
    return track
