"""`farlight docs`: serve (or build) the documentation site with MkDocs.

The site's sources (mkdocs.yml, docs/, the notebooks) live in the repository, not in the
installed package, so this works from a clone installed with `pip install -e`; MkDocs and its
plugins come with the `dev` extra.
"""

from __future__ import annotations

import argparse
import errno
import importlib.util
import os
import socket
import subprocess
import sys
from pathlib import Path

from farlight_cli import argtypes, flags
from farlight_cli.errors import InputError

#: The repository root of this source tree, where mkdocs.yml sits.
ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "mkdocs.yml"
#: Not `farlight serve`'s 8000, so the docs can be read beside a running server.
DEFAULT_PORT = 8001


HELP = "serve the documentation site locally (MkDocs, the dev extra)"
DESCRIPTION = """\
Serve the documentation site (docs/, mkdocs.yml) at http://HOST:PORT, rebuilt whenever a page
changes, or build it once with --build DIR, warnings counted as errors (mkdocs build --strict,
as the tests do). Needs a clone of the repository and the dev extra.
"""


def add(p: argparse.ArgumentParser) -> None:
    flags.host(p, "address to serve on")
    flags.port(p, DEFAULT_PORT)
    flags.folder(
        p, "--build", "build the site into DIR, warnings counted as errors (default: serve it)"
    )


def mkdocs_command(args: argparse.Namespace) -> list[str]:
    """The MkDocs command line `farlight docs` runs for `args`."""
    base = [sys.executable, "-m", "mkdocs"]
    if args.build is not None:
        return [*base, "build", "--strict", "-f", str(CONFIG), "-d", str(args.build.resolve())]
    return [*base, "serve", "-f", str(CONFIG), "-a", f"{args.host}:{args.port}"]


def check_port_free(host: str, port: int) -> None:
    """InputError when nothing could listen on host:port (taken, or no such address), found by
    binding it now: MkDocs would only find out after building the site (~10 s), in a traceback."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise InputError(f"--host {host}: not an address to serve on ({exc})") from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server will
        try:
            probe.bind(address)
        except OSError as exc:
            reason = "in use" if exc.errno == errno.EADDRINUSE else exc.strerror or str(exc)
            raise InputError(
                f"cannot serve on {host}:{port}: {reason}; choose another with --port N "
                f"(farlight serve uses 8000 by default)"
            ) from None


def run(args: argparse.Namespace) -> int:
    if not CONFIG.is_file():
        raise InputError(
            f"the documentation sources are not installed with the package (no {CONFIG}): "
            "run it in a clone of the repository, installed with pip install -e"
        )
    if importlib.util.find_spec("mkdocs") is None:  # one line naming the dev extra (main)
        raise ModuleNotFoundError("No module named 'mkdocs'", name="mkdocs")
    # The material theme's notice about MkDocs 2.0 is not about this site.
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    if args.build is not None:
        argtypes.check_out_dir("--build", args.build)  # before the ~10 s build
    else:
        check_port_free(args.host, args.port)
    command = mkdocs_command(args)
    if args.build is not None:
        return subprocess.run(command, cwd=ROOT, env=env, check=False).returncode
    # Serving runs until stopped: become the server rather than start it as a child, so that
    # a signal to this process (a service manager's SIGTERM, not only Ctrl-C) stops it too.
    os.chdir(ROOT)
    os.execve(command[0], command, env)
