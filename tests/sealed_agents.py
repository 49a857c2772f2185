"""Agents for tests/test_sealed.py, built inside a sealed child as "tests.sealed_agents:NAME".

`Spy` plays exactly as the random agent with its seed, and meanwhile tries every way Python
offers to reach hidden state: `info["view"]._game`, `vars(view)`, `gc.get_referents` from the
view, `__dict__` walks, every object in its process (`gc.get_objects`); it also vandalises
every game it finds. It writes what it found to `log` (one JSON line per decision).
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import json
import os
import time
import types
from pathlib import Path
from typing import Any

from agents.random_agent import RandomAgent
from farlight_env.game import FarlightGame


def hidden_facts(game: FarlightGame) -> dict[str, Any]:
    """What a spy wants: the deck's order, the face-down awards' order, every hand, the bids'
    tile values and the chance generator's state."""
    return {
        "deck": list(game.deck),
        "awards_down": list(game.awards_down),
        "hands": [list(hand) for hand in game.hands],
        "bids": [[list(b) for b in placed] for placed in game.bids],
        "rng": game.rng.bit_generator.state["state"]["state"],
    }


#: Not walked through: from a class or a module everything in the process is reachable, which
#: `all_games` covers (gc.get_objects) every few decisions.
OPAQUE = (type, types.ModuleType, types.FunctionType, types.BuiltinFunctionType)


def games_reachable(root: Any, limit: int = 200_000) -> list[FarlightGame]:
    """Every FarlightGame reachable from `root` by gc.get_referents, vars() and __dict__
    (through instances and containers)."""
    found, seen, todo = [], set(), [root]
    while todo and len(seen) < limit:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, OPAQUE):
            continue
        seen.add(id(obj))
        if isinstance(obj, FarlightGame):
            found.append(obj)
        todo.extend(gc.get_referents(obj))
        with contextlib.suppress(TypeError):  # no __dict__
            todo.extend(vars(obj).values())
    return found


def all_games() -> list[FarlightGame]:
    return [obj for obj in gc.get_objects() if isinstance(obj, FarlightGame)]


class Spy:
    """Plays as RandomAgent(seed); looks for hidden state and vandalises what it finds."""

    name = "spy"
    needs_observation = False

    def __init__(
        self, seed: int | None = None, log: str = "", vandal: bool = True, every: int = 5
    ) -> None:
        self.inner = RandomAgent(seed=seed)
        self.log = log
        self.vandal = vandal
        self.every = every  # search the whole process every `every` decisions (0: never)
        self.decisions = 0

    def reset(self) -> None:
        self.inner.reset()

    def act(self, observation: Any, action_mask: Any, info: Any) -> int:
        view = info["view"]
        direct = [view._game] + [v for v in vars(view).values() if isinstance(v, FarlightGame)]
        reachable = games_reachable(info)
        look = self.every and self.decisions % self.every == 0
        self.decisions += 1
        anywhere = all_games() if look else []
        report = {
            "view": type(view).__name__,
            "seat": view.seat,
            "direct": [g.to_json() for g in direct],
            "reachable": [g.to_json() for g in reachable],
            "anywhere": [hidden_facts(g) for g in anywhere],
        }
        if self.log:
            with open(self.log, "a") as fh:
                fh.write(json.dumps(report) + "\n")
        action = self.inner.act(observation, action_mask, info)
        found = {id(g): g for g in direct + reachable + anywhere}
        for game in found.values() if self.vandal else ():
            game.deck.reverse()
            game.crew[:] = [99] * len(game.crew)
            game.hands[view.seat] = []
        return action


class Crash:
    """Raises on its first decision."""

    name = "crash"
    needs_observation = False

    def __init__(self, seed: int | None = None, how: str = "raise") -> None:
        self.how = how

    def reset(self) -> None:
        pass

    def act(self, observation: Any, action_mask: Any, info: Any) -> int:
        if self.how == "exit":
            os._exit(3)
        if self.how == "sleep":
            time.sleep(30)
        if self.how == "illegal":
            return int(action_mask.argmin())  # a forbidden index
        raise ValueError("the crash agent crashed\nsecond line")


# --------------------------------------------------------------------------- the box
def drop_folder() -> str:
    """A folder a sealed child may write its reports to (as root it runs as another uid)."""
    import tempfile

    folder = tempfile.mkdtemp(prefix="farlight-drop-")
    os.chmod(folder, 0o777)
    return folder


def _attempt(action: Any) -> str:
    """ "ok", or the name of the exception `action()` raised."""
    try:
        action()
    except Exception as exc:  # noqa: BLE001 - the name is the finding
        return type(exc).__name__
    return "ok"


def _read_parent_memory() -> None:
    parent = os.getppid()
    with open(f"/proc/{parent}/maps") as fh:
        start = int(fh.readline().split("-")[0], 16)
    with open(f"/proc/{parent}/mem", "rb") as mem:
        mem.seek(start)
        mem.read(16)


def _open_for(mode: str, path: str) -> Any:
    def action() -> None:
        open(path, mode).close()

    return action


class Probe:
    """Plays as RandomAgent(seed); on its first decision writes to `log` (JSON) what its box
    lets it do: who it is, the parent's memory, the files in `targets` (os.pathsep-separated),
    its folder, environment and import path."""

    name = "probe"
    needs_observation = False

    def __init__(self, seed: int | None = None, log: str = "", targets: str = "") -> None:
        self.inner = RandomAgent(seed=seed)
        self.log, self.targets = log, [t for t in targets.split(os.pathsep) if t]
        self.done = False

    def reset(self) -> None:
        self.inner.reset()

    def act(self, observation: Any, action_mask: Any, info: Any) -> int:
        if not self.done:
            self.done = True
            with open(self.log, "w") as fh:
                json.dump(self.report(), fh)
        return self.inner.act(observation, action_mask, info)

    def report(self) -> dict[str, Any]:
        import sys

        import msgspec

        lines = Path("/proc/self/status").read_text().splitlines()
        status = dict(line.split(":", 1) for line in lines)
        return {
            "uid": os.getuid(),
            "gid": os.getgid(),
            "groups": os.getgroups(),
            "capabilities": status["CapEff"].strip(),
            "dumpable": ctypes.CDLL(None).prctl(3, 0, 0, 0, 0),  # PR_GET_DUMPABLE
            "parent_memory": _attempt(_read_parent_memory),
            "read": {path: _attempt(_open_for("rb", path)) for path in self.targets},
            "write": {path: _attempt(_open_for("ab", path)) for path in self.targets},
            "cwd": os.getcwd(),
            "cwd_writable": _attempt(_open_for("w", "scratch.txt")),
            "environment": sorted(os.environ),
            "sys_path": sys.path,
            "msgspec": msgspec.__file__,
        }


class Lingerer:
    """Plays as RandomAgent(seed); on its first decision starts helpers that would outlive it,
    and writes their pids to `log`: a sleeping grandchild, one that left the process group
    (its own session) and an orphan (its parent shell exits at once); with `fail`, it then
    raises; with `stall`, it then sleeps that many seconds."""

    name = "lingerer"
    needs_observation = False

    def __init__(
        self, seed: int | None = None, log: str = "", fail: bool = False, stall: float = 0.0
    ) -> None:
        self.inner = RandomAgent(seed=seed)
        self.log, self.fail, self.stall = log, fail, stall
        self.pids: list[int] = []

    def reset(self) -> None:
        self.inner.reset()

    def act(self, observation: Any, action_mask: Any, info: Any) -> int:
        import subprocess

        if not self.pids:
            sleeper = subprocess.Popen(["sleep", "300"])
            leaver = subprocess.Popen(["sleep", "301"], start_new_session=True)
            shell = subprocess.run(
                ["sh", "-c", "sleep 302 >/dev/null 2>&1 & echo $!"], capture_output=True, text=True
            )
            self.pids = [sleeper.pid, leaver.pid, int(shell.stdout)]
            with open(self.log, "w") as fh:
                json.dump(self.pids, fh)
            if self.fail:
                raise RuntimeError("lingered, then failed")
            time.sleep(self.stall)
        return self.inner.act(observation, action_mask, info)


class Burner:
    """Plays as RandomAgent(seed), but on the decisions in `at` (comma-separated numbers, from
    0) spends `seconds` of CPU first: `how` "thread" in another thread, "process" in a child
    process it waits for; or sleeps them ("sleep"). With `once` (a folder), each decision
    number spends only once over the children that play its seat (a forfeit restarts the
    count). It also makes time.process_time report 0, so a child that timed itself would
    claim no CPU at all."""

    name = "burner"
    needs_observation = False

    def __init__(
        self,
        seed: int | None = None,
        seconds: float = 1.0,
        how: str = "thread",
        at: str = "0",
        once: str = "",
    ) -> None:
        self.inner = RandomAgent(seed=seed)
        self.seconds, self.how, self.once = seconds, how, once
        self.at = {int(k) for k in at.split(",") if k}
        self.decisions = 0
        time.process_time = lambda: 0.0  # the lie

    def reset(self) -> None:
        self.inner.reset()

    def act(self, observation: Any, action_mask: Any, info: Any) -> int:
        if self.decisions in self.at and self._first_time():
            self._spend()
        self.decisions += 1
        return self.inner.act(observation, action_mask, info)

    def _first_time(self) -> bool:
        if not self.once:
            return True
        flag = Path(self.once) / f"spent-{self.decisions}"
        if flag.exists():
            return False
        flag.touch()
        return True

    def _spend(self) -> None:
        import multiprocessing
        import threading

        if self.how == "sleep":
            time.sleep(self.seconds)
            return
        end = time.thread_time() + self.seconds if self.how == "thread" else None
        if self.how == "thread":
            worker = threading.Thread(target=_spin_thread, args=(end,))
        else:
            worker = multiprocessing.get_context("fork").Process(target=_spin, args=(self.seconds,))
        worker.start()
        worker.join()


def _spin_thread(end: float) -> None:
    while time.thread_time() < end:
        pass


def _spin(seconds: float) -> None:
    end = time.thread_time() + seconds  # process_time lies in this process (and its forks)
    while time.thread_time() < end:
        pass


#: Module-level state a sealed agent may change: the next game's child must not see it.
MEMORY: dict[str, Any] = {}


class Marker:
    """Plays as RandomAgent(seed); writes what MEMORY held when it was made to `log` (a new
    file), then marks MEMORY with its own name (`label`)."""

    needs_observation = False

    def __init__(self, seed: int | None = None, log: str = "", label: str = "marker") -> None:
        self.inner = RandomAgent(seed=seed)
        self.name = label
        with open(log, "w") as fh:
            json.dump({"label": label, "saw": dict(MEMORY)}, fh)
        MEMORY[label] = True

    def reset(self) -> None:
        self.inner.reset()

    def act(self, observation: Any, action_mask: Any, info: Any) -> int:
        return self.inner.act(observation, action_mask, info)


class Desync:
    """Plays as RandomAgent(seed), but on its first decision writes a forged answer frame
    to every pipe it may write to (the parent's answer pipe among them)."""

    name = "desync"
    needs_observation = False

    def __init__(self, seed: int | None = None) -> None:
        self.inner = RandomAgent(seed=seed)
        self.done = False

    def reset(self) -> None:
        self.inner.reset()

    def act(self, observation: Any, action_mask: Any, info: Any) -> int:
        import msgspec

        from agents.farlight.sealed.protocol import Chose, write_frame

        if not self.done:
            self.done = True
            forged = msgspec.msgpack.encode(Chose(10_000, 0))
            for name in os.listdir("/proc/self/fd"):
                fd = int(name)
                if fd > 2 and os.readlink(f"/proc/self/fd/{name}").startswith("pipe:"):
                    with contextlib.suppress(OSError):
                        write_frame(fd, forged)
        return self.inner.act(observation, action_mask, info)
