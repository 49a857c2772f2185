"""The box a sealed agent's child runs in (Linux): what the child may touch, and the parent's
hold on everything the child starts. docs/safety.md says what it guarantees and what not.

- Its own session and process group, and a scratch folder of its own (its working folder,
  HOME and TMPDIR), removed when the box closes; an environment of a few plain variables.
- An isolated interpreter (`python -I`): the import path is the project, the folders named in
  the parent's PYTHONPATH (absolute ones other than the working folder) and the interpreter's
  own, never the working folder.
- As root: the child drops, before any project or agent code runs, to a uid and gid of its
  own (no supplementary groups, no capabilities, no new privileges), so it can read neither
  the parent's memory nor files that are not readable by others. Interpreter folders it could
  not reach as that uid (a Python under /root) stay reachable through descriptors opened first.
- The parent is made non-dumpable, so a child of its own uid (a parent that is not root) can
  neither ptrace it nor read /proc/PID/mem; so is each child before any agent code runs, so
  a spare is safe from the children of other games.
- Closing kills the child, its descendants (it is their subreaper) and its process group; as
  root also every process of the child's uid, which catches one that escaped even so.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from farlight_env.processes import descendants, start_time

PR_GET_DUMPABLE = 3
PR_SET_DUMPABLE = 4
#: A root parent's children run as uid (= gid) UID_BASE + (parent pid << SLOT_BITS) + slot:
#: 0x70000000-0x7FFFFFFF is a range systemd assigns to no one; pids are below 2**22 on Linux.
UID_BASE = 0x7000_0000
SLOT_BITS = 6
PID_MASK = (1 << 22) - 1
#: Seconds to wait for killed processes to be gone before a box counts as closed.
KILL_SECONDS = 5.0
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
#: Environment variables a child keeps from its parent (others may hold secrets).
KEPT_ENVIRONMENT = ("PATH", "LANG", "LC_ALL", "TZ", "CUDA_VISIBLE_DEVICES")

_live_slots: set[int] = set()  # uids of this process's boxes that are open
_open: set[Box] = set()  # this process's boxes not closed yet
_swept = False  # whether this process removed the scratch folders of dead parents
#: A scratch folder is TMPDIR/farlight-sealed-<parent pid>-<random>.
SCRATCH_PREFIX = "farlight-sealed-"
#: Signals that end this process by default: a box's first start makes them close every box
#: first (where no handler of the program's own is set), so a terminated worker leaves none.
ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class BoxError(RuntimeError):
    """A box that could not be made (no free uid slot; a root that maps no child uid)."""


def dumpable() -> bool:
    """Whether this process may be ptraced or read through /proc by its own uid (Linux)."""
    return _prctl(PR_GET_DUMPABLE, 0) != 0


def guard_process() -> None:
    """Make this process non-dumpable (Linux; elsewhere nothing): a process of the same uid can
    then neither ptrace it nor read /proc/PID/mem. It holds the live games sealed agents play."""
    _prctl(PR_SET_DUMPABLE, 0)


def _prctl(option: int, value: int) -> int:
    if not sys.platform.startswith("linux"):
        return -1
    try:
        return ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)
    except (OSError, AttributeError):
        return -1


def import_path() -> list[str]:
    """The folders a child imports from before its interpreter's own: the project, then the
    absolute PYTHONPATH folders that are not the working folder."""
    root = str(Path(__file__).resolve().parents[3])
    here = os.path.realpath(os.getcwd())
    paths = [root]
    for entry in os.environ.get("PYTHONPATH", "").split(os.pathsep):
        if os.path.isabs(entry) and os.path.realpath(entry) != here and entry not in paths:
            paths.append(entry)
    return paths


#: Installed packages a child imports before it drops its uid: pettingzoo's registry reads its
#: own modules' source through their resolved paths, which a folder only root may enter (CI's
#: venv under `mktemp -d`) hides from the child's uid. Nothing of the agent has run yet.
PRELOAD = ("pettingzoo",)

#: The child's first lines: the import path, then (as root) the preloads and the uid drop,
#: before any import of the project. {names} are filled in by `Box`.
BOOT = """\
import ctypes, os, stat, sys
sys.path[:0] = {paths!r}
uid = {uid!r}
if sys.platform.startswith("linux"):  # PR_SET_DUMPABLE 0: no other child may ptrace this one
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)

def reachable(path):
    path = os.path.realpath(path)
    while True:
        if not os.stat(path).st_mode & stat.S_IXOTH:
            return False
        if path == "/":
            return True
        path = os.path.dirname(path)

def through(path, moved):
    for entry, fd_path in moved.items():
        if path == entry or path.startswith(entry + os.sep):
            return fd_path + path[len(entry):]
    return path

if uid is not None:
    for name in {preload!r}:  # read their own files by resolved path at import: as root
        try:
            __import__(name)
        except ImportError:
            pass
    moved = {{}}
    for i, entry in enumerate(sys.path):
        if os.path.isdir(entry) and not reachable(entry):
            fd = os.open(entry, os.O_PATH | os.O_DIRECTORY)
            moved[entry] = sys.path[i] = f"/proc/self/fd/{{fd}}"
    for module in list(sys.modules.values()):  # packages imported already
        if isinstance(getattr(module, "__path__", None), list):
            module.__path__[:] = [through(path, moved) for path in module.__path__]
    sys.path_importer_cache.clear()
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    ctypes.CDLL(None).prctl(38, 1, 0, 0, 0)  # PR_SET_NO_NEW_PRIVS
    if os.getuid() != uid or os.getgid() != uid or os.getgroups():
        os._exit(70)
del ctypes, os, stat, reachable, through, uid
from agents.farlight.sealed.child import main
main({parent}, {warm!r})
"""


class Box:
    """One child process in its box, started at once: a Python that runs `child.main` (with
    `warm` "torch", torch is imported before the first request)."""

    def __init__(self, warm: str = "") -> None:
        guard_process()
        _close_on_ending_signals()
        _remove_orphaned_scratch()
        self.uid = _take_uid() if drops_uid() else None
        try:
            if self.uid is not None and not _mapped(self.uid):
                raise BoxError(
                    f"this root maps no uid {self.uid:#x} (a user namespace): a sealed child "
                    "cannot drop to a uid of its own; run as a plain user, or map "
                    f"{UID_BASE:#x}-{UID_BASE + (1 << 28) - 1:#x}"
                )
            self.scratch = Path(tempfile.mkdtemp(prefix=f"{SCRATCH_PREFIX}{os.getpid()}-"))
            if self.uid is not None:
                kill_uid(self.uid)  # a process left by an earlier holder of this uid
                os.chown(self.scratch, self.uid, self.uid)
            env = {k: os.environ[k] for k in KEPT_ENVIRONMENT if k in os.environ}
            env |= {"HOME": str(self.scratch), "TMPDIR": str(self.scratch)}
            env |= {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
            code = BOOT.format(
                paths=import_path(), uid=self.uid, preload=PRELOAD, parent=os.getpid(), warm=warm
            )
            self.process = subprocess.Popen(
                [sys.executable, "-I", "-c", code],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                cwd=self.scratch,
                env=env,
                start_new_session=True,
            )
        except BaseException:
            self._release()
            raise
        _open.add(self)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.requests = self.process.stdin.fileno()
        self.replies = self.process.stdout.fileno()

    @property
    def pid(self) -> int:
        return self.process.pid

    def alive(self) -> bool:
        """Whether the child still runs (a dead one is not reaped yet: its pid stays its own)."""
        if not hasattr(os, "waitid"):  # not Linux: no box around it (docs/safety.md)
            return self.process.poll() is None
        return self._ended() is None

    def _ended(self) -> os.waitid_result | None:
        """The child's end as waitid reports it, without reaping it (None while it runs)."""
        if self.process.returncode is not None:
            raise RuntimeError("the box was closed")
        return os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)

    def cpu_seconds(self) -> float:
        """User and system CPU of the child, its threads and every descendant, alive or waited
        for, as the kernel counts them (/proc), since the child started."""
        ticks = 0
        for pid in (self.pid, *descendants(self.pid)):
            with contextlib.suppress(OSError, ValueError, IndexError):
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                ticks += sum(int(fields[k]) for k in (11, 12, 13, 14))  # u, s, cu, cs time
        return ticks / CLOCK_TICKS

    def exit_code(self, seconds: float = 5.0) -> int | None:
        """The child's exit status once it ends (waiting up to `seconds`), else None; a child
        killed by a signal gives minus its number, as subprocess does."""
        if not hasattr(os, "waitid"):
            with contextlib.suppress(subprocess.TimeoutExpired):
                return self.process.wait(timeout=seconds)
            return None
        deadline = time.monotonic() + seconds
        while (ended := self._ended()) is None and time.monotonic() < deadline:
            time.sleep(0.02)
        if ended is None:
            return None
        return -ended.si_status if ended.si_code != os.CLD_EXITED else ended.si_status

    def close(self) -> None:
        """Kill the child, its descendants and its process group (as root also every process
        of its uid), then remove its scratch folder."""
        if self not in _open:
            return  # closed already
        if self.process.returncode is None:  # not reaped: its pid and group id are its own
            _kill_tree(self.pid)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()
        self._release()

    def _release(self) -> None:
        _open.discard(self)
        if self.uid is not None:
            kill_uid(self.uid)
            _live_slots.discard(self.uid)
        scratch = getattr(self, "scratch", None)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)


def _remove_orphaned_scratch() -> None:
    """Once per process: remove the scratch folders of parents that died without closing their
    boxes (killed ones), and have a multiprocessing worker close its own when it ends."""
    global _swept
    if _swept or not sys.platform.startswith("linux"):  # /proc tells the dead parents
        return
    _swept = True
    # A multiprocessing worker ends without exit handlers, but runs these finalizers.
    multiprocessing.util.Finalize(None, close_all, exitpriority=0)
    for folder in Path(tempfile.gettempdir()).glob(f"{SCRATCH_PREFIX}*-*"):
        owner = folder.name[len(SCRATCH_PREFIX) :].split("-", 1)[0]
        if owner.isdigit() and not Path(f"/proc/{owner}").exists():
            shutil.rmtree(folder, ignore_errors=True)


def close_all() -> None:
    """Close every box of this process (its children and all they started)."""
    for box in list(_open):
        box.close()


def _close_on_ending_signals() -> None:
    """SIGTERM and SIGHUP close every box, then end this process as they would have."""
    if threading.current_thread() is not threading.main_thread():
        return
    for number in ENDING_SIGNALS:
        if signal.getsignal(number) == signal.SIG_DFL:
            signal.signal(number, _end)


def _end(number: int, _frame: object) -> None:
    close_all()
    signal.signal(number, signal.SIG_DFL)
    os.kill(os.getpid(), number)


def _forget_boxes() -> None:
    """A forked process does not own its parent's boxes: it must neither close nor count them."""
    global _swept
    _open.clear()
    _live_slots.clear()
    _swept = False


os.register_at_fork(after_in_child=_forget_boxes)


def drops_uid() -> bool:
    """Whether children run as a uid of their own: when this process is root (on Linux)."""
    return sys.platform.startswith("linux") and os.geteuid() == 0


def _kill_tree(pid: int) -> None:
    """Stop `pid` and its descendants (the child is their subreaper) until no new one appears,
    so none forks meanwhile, then kill them all: this reaches those that left its group."""
    stopped: dict[int, str] = {}
    todo = {pid} | descendants(pid)
    while todo:
        for kid in todo:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(kid, signal.SIGSTOP)
                stopped[kid] = start_time(kid)
        todo = {kid for known in list(stopped) for kid in descendants(known)} - stopped.keys()
    for kid, started in stopped.items():
        if start_time(kid) == started:  # the same process, not a reused pid
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(kid, signal.SIGKILL)
    deadline = time.monotonic() + KILL_SECONDS  # SIGKILL is sent at once, obeyed a bit later
    while any(_running(kid, started) for kid, started in stopped.items()):
        if time.monotonic() > deadline:
            break
        time.sleep(0.005)


def _running(pid: int, started: str) -> bool:
    """Whether the process `pid` that started at `started` still runs (not a zombie)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[19] == started and fields[0] not in ("Z", "X")


def _mapped(uid: int) -> bool:
    """Whether `uid` is a uid and gid of this process's user namespace."""
    for name in ("uid_map", "gid_map"):
        try:
            lines = Path(f"/proc/self/{name}").read_text().splitlines()
        except OSError:
            continue  # no user namespaces: every id is the kernel's
        ranges = [tuple(map(int, line.split())) for line in lines if line.strip()]
        if not any(first <= uid < first + count for first, _, count in ranges):
            return False
    return True


def _take_uid() -> int:
    """A free uid of this process's range (a root parent's)."""
    base = UID_BASE + ((os.getpid() & PID_MASK) << SLOT_BITS)
    for slot in range(1 << SLOT_BITS):
        if base + slot not in _live_slots:
            _live_slots.add(base + slot)
            return base + slot
    raise BoxError(f"at most {1 << SLOT_BITS} sealed children may be open in one process")


def kill_uid(uid: int) -> None:
    """SIGKILL every process of `uid` at once: kill(-1) sent as that uid reaches exactly its
    processes, and no fork escapes it (root only)."""
    kill = shutil.which("kill", path="/usr/bin:/bin") or "/bin/kill"
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        subprocess.run(
            [kill, "-9", "-1"],
            user=uid,
            group=uid,
            extra_groups=[],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=10,
        )


def protect_folder(folder: Path) -> None:
    """Make `folder` (an evaluation's or tournament's journal) its owner's alone (mode 0700),
    so a child of another uid can neither read nor change what is in it."""
    Path(folder).chmod(0o700)
