"""A real two-node Ray cluster: Ray's own test cluster (`ray.cluster_utils.Cluster`), a head
and a worker node with CPUs of their own, on 127.0.0.1 only. `farlight tournament --backend ray
--ray-address` plays its games on both nodes and writes the files of a local run; `farlight
train rllib --address` samples on the worker node; a worker node lost mid-tournament costs only
the games it had in flight, and a --resume after that ends with an uninterrupted run's files."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("ray")

from ray.cluster_utils import Cluster  # noqa: E402

from evaluation.formats.journal import GAMES  # noqa: E402
from farlight_env.processes import RAY_PROGRAM, command_line  # noqa: E402

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
#: Hard limit on one command, Ray's start-up included (the machine may be shared and slow).
COMMAND_TIMEOUT = 400
#: Files of a tournament that hold no timings: the same bytes wherever the games were played.
RESULT_FILES = ("results.json", "games.csv", "ratings.png", "auction_diagnostics.png")
#: Games short enough for a test (a hundredth of a second each), on both nodes.
QUICK_GAMES = ["--agents", "heuristic,random", "--players", "2", "--games", "16", "--seed", "5"]
#: Games of a few tenths of a second each: the tournament is still going when a node is lost.
SLOW_GAMES = [
    "--agents",
    "ismcts,random",
    "--ismcts-iterations",
    "10",
    "--players",
    "2",
    "--games",
    "48",
    "--seed",
    "6",
]


@dataclass(frozen=True)
class TwoNodes:
    """A running cluster: a head (the drivers' node) and one worker node."""

    cluster: Cluster
    worker: Any  # ray._private.node.Node

    @property
    def address(self) -> str:
        return self.cluster.address

    @property
    def head_id(self) -> str:
        return self.cluster.head_node.node_id

    @property
    def worker_id(self) -> str:
        return self.worker.node_id

    def lose_worker(self) -> None:
        """Kill the worker node's raylet and every process of it at once (no graceful exit)."""
        self.cluster.remove_node(self.worker, allow_graceful=False)

    def actors(self) -> list[dict[str, Any]]:
        """Every actor the cluster's GCS knows of, dead ones included (class, node, state)."""
        return list(self.cluster.global_state.actor_table(None).values())


def free_port() -> int:
    with contextlib.closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ray_processes_in(folder: str) -> set[int]:
    """Ray's processes holding a file open under `folder` (a cluster's temp dir): those of this
    test's cluster, whoever else runs Ray on the machine."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or not RAY_PROGRAM.search(command_line(int(entry.name))):
            continue
        with contextlib.suppress(OSError):
            if any(os.readlink(fd).startswith(folder) for fd in (entry / "fd").iterdir()):
                found.add(int(entry.name))
    return found


@pytest.fixture
def start_cluster(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[int], TwoNodes]]:
    """Start a head of `head_cpus` CPUs and a worker node of 1 CPU; whatever happens, the
    cluster is shut down at the end and any process of it still running is killed."""
    # short: Ray's socket paths inside it must fit in 107 bytes
    temp = tempfile.mkdtemp(prefix="farlight-rc-", dir="/tmp")
    # Ray notes the cluster's address in RAY_TMPDIR/ray/ray_current_cluster, where every
    # ray.init() of the machine would find and join it (it is /tmp/ray by default)
    monkeypatch.setenv("RAY_TMPDIR", temp)
    # the nodes' workers (env runners, tournament tasks) import this checkout
    path = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    monkeypatch.setenv("PYTHONPATH", path)
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    clusters: list[Cluster] = []

    def start(head_cpus: int) -> TwoNodes:
        loopback = {"node_ip_address": "127.0.0.1", "object_store_memory": 80 << 20}
        cluster = Cluster(
            initialize_head=True,
            head_node_args={
                **loopback,
                "num_cpus": head_cpus,
                "include_dashboard": False,
                # Ray's fixed defaults would clash with another test's cluster or instance
                "dashboard_port": free_port(),
                "dashboard_agent_listen_port": free_port(),
            },
        )
        clusters.append(cluster)
        worker = cluster.add_node(**loopback, num_cpus=1)
        cluster.wait_for_nodes(timeout=120)
        return TwoNodes(cluster, worker)

    try:
        yield start
    finally:
        for cluster in clusters:
            cluster.shutdown()
        deadline = time.monotonic() + 30
        while ray_processes_in(temp) and time.monotonic() < deadline:
            time.sleep(0.2)
        for pid in ray_processes_in(temp):  # no raylet or worker outlives the test
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        shutil.rmtree(temp, ignore_errors=True)


def farlight(*argv: str, **kw: Any) -> subprocess.Popen:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "OMP_NUM_THREADS": "1",
        # Ray 2.60 turns a driver's 127.0.0.1 into the machine's outward address
        # (services.resolve_ip_for_localhost) unless its clusters are off: so the driver too
        # keeps to loopback, where the nodes listen
        "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
    }
    return subprocess.Popen(
        [sys.executable, "-m", "farlight_cli", *argv],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


def succeeds(*argv: str) -> str:
    """Run `farlight ARGV` to its end; its stdout (the test fails on a non-zero status)."""
    proc = farlight(*argv)
    try:
        out, err = proc.communicate(timeout=COMMAND_TIMEOUT)
    finally:
        proc.kill()
    assert proc.returncode == 0, err[-3000:]
    return out


def journal(out: Path) -> list[str]:
    """The complete lines of the tournament's journal (games.jsonl) as they are now."""
    with contextlib.suppress(FileNotFoundError):
        data = (out / GAMES).read_text()
        return data[: data.rfind("\n") + 1].splitlines()
    return []


def nodes_of(lines: list[str]) -> list[str]:
    """The node that played each journalled game (the Ray backend notes it in its timing)."""
    return [json.loads(line)["timing"]["node"] for line in lines]


def wait_for(condition: Callable[[], bool], proc: subprocess.Popen, what: str) -> None:
    deadline = time.monotonic() + COMMAND_TIMEOUT
    while not condition():
        if proc.poll() is not None:
            pytest.fail(f"exited ({proc.returncode}) before {what}: {proc.stderr.read()[-3000:]}")
        if time.monotonic() > deadline:
            pytest.fail(f"not within {COMMAND_TIMEOUT} s: {what}")
        time.sleep(0.05)


def assert_same_result_files(one: Path, other: Path) -> None:
    for name in RESULT_FILES:
        assert (one / name).read_bytes() == (other / name).read_bytes(), name


def test_a_tournament_plays_on_both_nodes_and_writes_a_local_runs_files(start_cluster, tmp_path):
    nodes = start_cluster(1)
    on_cluster, local = tmp_path / "cluster", tmp_path / "local"
    ray = ["--backend", "ray", "--ray-address", nodes.address]
    succeeds("tournament", *QUICK_GAMES, *ray, "--out", str(on_cluster), "--no-progress")
    assert set(nodes_of(journal(on_cluster))) == {nodes.head_id, nodes.worker_id}
    succeeds("tournament", *QUICK_GAMES, "--out", str(local), "--no-progress")
    assert_same_result_files(on_cluster, local)


def test_rllib_samples_on_the_worker_node(start_cluster, tmp_path):
    """A head of no CPUs takes no work (Ray's advice for a cluster's head): the env runner
    sits on the worker node, the learner in the driver."""
    nodes = start_cluster(0)
    run = tmp_path / "run"
    tiny = "--num-env-runners 1 --num-envs-per-env-runner 2 --train-batch-size 128 "
    tiny += "--minibatch-size 64 --num-epochs 1 --embed 8 --ship-features 4 --hidden 16 --vf 8 "
    tiny += "--checkpoint-every 0 --snapshot-every 0 --eval-every 0 --no-progress"
    out = succeeds(
        "train", "rllib", "--run-dir", str(run), "--address", nodes.address, "--iterations", "1",
        *tiny.split(),
    )  # fmt: skip
    assert "trained 1 iterations" in out and (run / "policy.pt").is_file()
    runners = [a for a in nodes.actors() if a["ActorClassName"].endswith("EnvRunner")]
    assert len(runners) == 1, nodes.actors()
    assert runners[0]["Address"]["NodeID"] == nodes.worker_id


def test_a_lost_worker_node_costs_only_its_games_in_flight(start_cluster, tmp_path):
    """The tournament plays on when the worker node dies (Ray runs the games it had in flight
    again on the head); killed after that, --resume on what is left of the cluster plays only
    the games missing from the journal, and the files are those of an uninterrupted run."""
    nodes = start_cluster(1)
    out, whole = tmp_path / "cluster", tmp_path / "whole"
    ray = ["--backend", "ray", "--ray-address", nodes.address, "--no-progress"]
    proc = farlight("tournament", *SLOW_GAMES, *ray, "--out", str(out))
    try:
        wait_for(lambda: nodes.worker_id in nodes_of(journal(out)), proc, "a game on the worker")
        nodes.lose_worker()
        at_loss = journal(out)
        after_loss = lambda: nodes_of(journal(out)[len(at_loss) :])  # noqa: E731
        wait_for(lambda: nodes.head_id in after_loss(), proc, "a game on the head after the loss")
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=60)
    finally:
        proc.kill()
        proc.communicate()
    kept = journal(out)
    assert len(kept) < 48, "the tournament ended before it was killed"
    succeeds("tournament", "--resume", str(out), *ray)
    lines = journal(out)
    assert lines[: len(kept)] == kept  # finished games are kept, not played again
    assert sorted(json.loads(line)["index"] for line in lines) == list(range(48))
    assert nodes.worker_id in nodes_of(kept)  # among them, games the lost node finished
    assert set(nodes_of(lines[len(kept) :])) == {nodes.head_id}  # the resume: the node left
    succeeds("tournament", *SLOW_GAMES, "--out", str(whole), "--no-progress")
    assert_same_result_files(out, whole)
