"""Worker processes that end with their parent: no game or environment outlives a killed job.

On Linux the kernel delivers SIGKILL to the worker when its parent dies
(prctl(PR_SET_PDEATHSIG)); elsewhere a daemon thread polls the parent's pid. A spawned or
forked worker's parent is the process that started it (the main process of a tournament or a
training run), which is the process a user kills. Processes started on our behalf by others
(Ray's agents, children of the raylet) are ended by an orphan reaper, a watchdog of the main
process.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

PR_SET_PDEATHSIG = 1
POLL_SECONDS = 1.0
REAP_POLL_SECONDS = 0.5
#: Seconds to wait for a Ray cluster's port to answer (Ray itself retries for minutes).
RAY_ADDRESS_TIMEOUT = 5.0
#: A Ray session directory as the raylet and the GCS server name it on their command lines.
RAY_SESSION = re.compile(r"/[^\s=,'\"]*/session_\d{4}-\d\d-\d\d_[\d_-]+")
#: Ray's own programs: retitled workers and agents (ray::…), or a program of the ray package.
RAY_PROGRAM = re.compile(r"^ray::|/(?:site|dist)-packages/ray/")


def die_with_parent(parent_pid: int) -> None:
    """Arrange for this process to end when `parent_pid` does; call it in the worker."""
    if sys.platform.startswith("linux") and _set_pdeathsig():
        if os.getppid() != parent_pid:  # the parent died before the signal was armed
            os._exit(1)
        return
    threading.Thread(target=_watch, args=(parent_pid,), daemon=True, name="parent-watch").start()


def _set_pdeathsig() -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(POLL_SECONDS)
    os._exit(1)


# --------------------------------------------------------------------------- orphan reaper
def start_orphan_reaper() -> subprocess.Popen | None:
    """Start a watchdog that SIGKILLs this process's descendants if this process dies (Linux).

    Ray's per-node agents (started by the raylet, not by us) outlive a killed driver by about a
    minute; the watchdog ends them at once. Stop it with `stop_orphan_reaper` after a clean
    shutdown. It runs in its own session, so a terminal's signals leave it to do its job.
    """
    if not sys.platform.startswith("linux"):
        return None
    root = str(Path(__file__).resolve().parents[1])  # so that the child imports this agents
    path = os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))
    return subprocess.Popen(
        [sys.executable, "-c", f"from farlight_env.processes import reap; reap({os.getpid()})"],
        stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": path},
        start_new_session=True,
    )


def stop_orphan_reaper(reaper: subprocess.Popen | None) -> None:
    if reaper is not None:
        reaper.terminate()
        reaper.wait()


def reap(parent_pid: int) -> None:
    """Watchdog body: remember `parent_pid`'s descendants while it lives, kill them when it dies.

    Also kills Ray's processes of the sessions those descendants named: an agent the raylet
    started after the last look, orphaned when the raylet died first, is no one's descendant.
    """
    known: dict[int, str] = {}
    sessions: set[str] = set()
    while True:
        snapshot = {pid: started for pid in descendants(parent_pid) if (started := start_time(pid))}
        if os.getppid() != parent_pid:  # died during the snapshot: trust the previous one
            break
        sessions |= ray_sessions(snapshot.keys() - known.keys())
        # Kept across looks while alive: one look that missed a process never forgets it.
        still = {pid: started for pid, started in known.items() if start_time(pid) == started}
        known = {pid: t for pid, t in (still | snapshot).items() if pid != os.getpid()}
        time.sleep(REAP_POLL_SECONDS)
    _kill_trees(known)
    _kill_session_members(sessions)


def ray_sessions(pids: set[int]) -> set[str]:
    """Ray session directories named on these processes' command lines (raylet, GCS server)."""
    found: set[str] = set()
    for pid in pids:
        found |= set(RAY_SESSION.findall(command_line(pid)))
    return found


def command_line(pid: int) -> str:
    """`pid`'s command line, arguments separated by spaces ("" if it is gone)."""
    return _proc_file(pid, "cmdline").replace("\0", " ")


def _kill_session_members(sessions: set[str]) -> None:
    """SIGKILL Ray's processes that hold a file open inside one of `sessions`; other programs
    (a `tail -f` of a log there) are left alone."""
    if not sessions:
        return
    inside = tuple(session.rstrip("/") + "/" for session in sessions)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        if RAY_PROGRAM.search(command_line(int(entry.name))) and _holds_file_in(entry, inside):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(int(entry.name), signal.SIGKILL)


def _holds_file_in(proc: Path, folders: tuple[str, ...]) -> bool:
    """Whether the process behind /proc/PID has a file open under one of `folders` (a process
    whose open files cannot be read counts as not)."""
    try:
        fds = list((proc / "fd").iterdir())
    except OSError:
        return False
    for fd in fds:
        with contextlib.suppress(OSError):
            if os.readlink(fd).startswith(folders):
                return True
    return False


def _kill_trees(known: dict[int, str]) -> None:
    """Stop the known processes and everything they started since the last look, then kill all.

    Stopped processes start nothing new, so the walk over their children ends complete: a worker
    the raylet started after the last snapshot dies with the rest.
    """
    stopped: dict[int, str] = {}
    todo = dict(known)
    while todo:
        for pid, started in todo.items():
            if start_time(pid) == started:  # the same process, not a reused pid
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGSTOP)
                    stopped[pid] = started
        found = {kid for pid in todo for kid in descendants(pid)} - stopped.keys() - {os.getpid()}
        todo = {pid: started for pid in found if (started := start_time(pid))}
    for pid, started in stopped.items():
        if start_time(pid) == started:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


def descendants(pid: int) -> set[int]:
    """All living descendants of `pid` (Linux /proc; empty once `pid` is gone)."""
    found: set[int] = set()
    todo = [pid]
    while todo:
        for kid in children(todo.pop()):
            if kid not in found:
                found.add(kid)
                todo.append(kid)
    return found


def children(pid: int) -> set[int]:
    """Children of every thread of `pid`. A thread that ends meanwhile is skipped, not the
    rest, so one short-lived thread cannot hide another thread's children from the reaper."""
    kids: set[int] = set()
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:  # the process ended meanwhile
        return kids
    for task in tasks:
        with contextlib.suppress(OSError):
            kids |= {int(k) for k in (task / "children").read_text().split()}
    return kids


def start_time(pid: int) -> str:
    """The kernel's start time of `pid` ("" if it is gone): tells a pid's reuse apart."""
    stat = _proc_file(pid, "stat")
    return stat.rsplit(")", 1)[1].split()[19] if stat else ""


def _proc_file(pid: int, name: str) -> str:
    """/proc/PID/NAME as text ("" once the process is gone)."""
    try:
        return Path(f"/proc/{pid}/{name}").read_bytes().decode(errors="replace")
    except OSError:
        return ""


def check_ray_address(address: str | None, flag: str) -> None:
    """Refuse a malformed or unreachable Ray cluster address in seconds (ValueError naming
    `flag`); Ray itself retries for minutes. "auto" and no address are left to Ray."""
    if not address or address == "auto":
        return
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{flag} must be auto, HOST:PORT or ray://HOST:PORT, got {address!r}")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=RAY_ADDRESS_TIMEOUT).close()
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise ValueError(f"{flag} {address}: no Ray cluster reachable there ({reason})") from None
