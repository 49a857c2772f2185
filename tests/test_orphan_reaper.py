"""The orphan reaper ends a killed driver's local Ray session whole: besides the driver's
descendants, Ray's processes still holding files of that session, which an agent orphaned
before the reaper's last look (its raylet died first) is, while a reader of the session's logs
that is not Ray's is left alone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processes import alive

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

#: Starts a detached process titled like a Ray agent, holding a file inside the session.
#: The double fork reparents it away from the driver before the reaper ever looks.
DRIVER = """
import os, subprocess, sys, time
from farlight_env.processes import start_orphan_reaper
session, ready = sys.argv[1], sys.argv[2]
holder = "import sys, time; f = open(sys.argv[1], 'a'); time.sleep(600)"
def detached(title, path):
    if os.fork() == 0:
        os.setsid()
        subprocess.Popen(["bash", "-c", f'exec -a {title} "$0" -c "$1" "$2"',
                          sys.executable, holder, path])
        os._exit(0)
    os.wait()
detached("ray::FakeAgent", session + "/logs/agent.out")
detached("log-reader", session + "/logs/raylet.out")
start_orphan_reaper()
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)",
                  "--session_dir=" + session])  # the raylet: names its session
time.sleep(2)  # a few looks of the reaper
open(ready, "w").close()
time.sleep(600)
"""


def holders(folder: Path) -> dict[int, str]:
    """pid -> command line of every process with a file open under `folder`."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            links = [os.readlink(fd) for fd in (entry / "fd").iterdir()]
            command = (entry / "cmdline").read_bytes().split(b"\0")[0].decode()
        except OSError:
            continue
        if any(link.startswith(f"{folder}/") for link in links):
            found[int(entry.name)] = command
    return found


def wait_until(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_killed_drivers_ray_session_dies_but_not_a_log_reader(tmp_path: Path) -> None:
    session = tmp_path / "ray" / "session_2026-11-24_03-42-22_965705_6546"
    (session / "logs").mkdir(parents=True)
    ready = tmp_path / "ready"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    driver = subprocess.Popen([sys.executable, "-c", DRIVER, str(session), str(ready)], env=env)
    others: dict[int, str] = {}
    try:
        assert wait_until(ready.exists, 30), "the driver never got ready"
        assert wait_until(lambda: len(holders(session)) == 2, 10), holders(session)
        others = holders(session)
        agent = next(pid for pid, cmd in others.items() if cmd == "ray::FakeAgent")
        reader = next(pid for pid, cmd in others.items() if cmd == "log-reader")
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait(timeout=10)
        assert wait_until(lambda: not alive(agent), 10), "the orphaned Ray agent outlived it"
        time.sleep(1)  # the reaper is done by now; the reader must still run
        assert alive(reader)
    finally:
        if driver.poll() is None:
            driver.kill()
        for pid in others:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
