"""`farlight serve`: the web front end (play against agents, replays, leaderboard) on localhost.

The port is bound here, before uvicorn starts, so a busy port or a bad address is one line and
status 2, not a traceback. The server answers only requests whose Host header names it (the
bound address, localhost, any IP literal, and each `--allow-host NAME`), so a web page
elsewhere cannot reach it through DNS rebinding. Bound beyond localhost it says on stderr, in
one line, what the network can then see. uvicorn runs with the bounds of
`farlight_web.server` (read deadlines, connections, no proxy headers); rate limits count the
socket's peer unless `--trusted-proxy` names the proxy in front. Needs the `web` extra
(starlette, uvicorn).
"""

from __future__ import annotations

import argparse
import errno
import ipaddress
import socket
import sys
from pathlib import Path

from farlight_cli import argtypes, flags
from farlight_cli.errors import InputError
from farlight_cli.farlight import game_flags
from farlight_web import limits as web_limits
from farlight_web.clients import parse_address

HELP = "serve the web front end: play against agents, replays, leaderboard"
DESCRIPTION = """\
Start a small web server (Starlette + uvicorn, the `web` extra) and open the printed address in
a browser: play against agents, replay records and tournament games, and see tournaments and
evaluation scorecards found in --data. Games played in the browser are saved as records in
DATA/games and resume after a restart.
"""


def add(p: argparse.ArgumentParser) -> None:
    flags.host(p, "address to listen on; anything but localhost exposes the server to the network")
    p.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also accept requests addressed to this host name (repeatable; e.g. the machine's "
        "name on your network; '*' accepts any, which lets other sites' pages reach the server "
        "through DNS rebinding)",
    )
    p.add_argument(
        "--trusted-proxy",
        type=proxy_address,
        default=None,
        metavar="ADDR",
        help="the IP address of a reverse proxy in front of the server: requests from it are "
        "counted by the client address it appends to X-Forwarded-For (default: none; every "
        "client is its connection's address, whatever headers it sends)",
    )
    flags.port(p, 8000, kind=argtypes.non_negative_int)  # 0: any free port
    flags.folder(
        p,
        "--data",
        "folder for games played here and for records, results.json and scorecard.json files to "
        "list (created if missing)",
        default=Path("farlight-data"),
    )
    game_flags.card_set_flag(
        p,
        "a card file (.toml or .json) every game started here is played with (default: the "
        "shipped standard set); saved games keep the set they began with",
    )
    bounds = p.add_argument_group("limits", "what the server holds and accepts (docs/safety.md)")
    bounds.add_argument(
        "--max-live-games",
        type=argtypes.positive_int,
        default=web_limits.MAX_LIVE_GAMES,
        metavar="N",
        help="games kept in memory; the least recently played is evicted first and reloaded "
        "from its record when asked for (default: %(default)s)",
    )
    bounds.add_argument(
        "--idle-minutes",
        type=argtypes.positive_float,
        default=web_limits.IDLE_SECONDS / 60,
        metavar="M",
        help="a game untouched this long is evicted from memory too (default: %(default)s)",
    )
    proxy = "; behind a proxy all clients share one address"
    _per_minute(
        bounds, "--games-per-minute", web_limits.GAMES_PER_MINUTE, "new games", "start", proxy
    )
    _per_minute(bounds, "--uploads-per-minute", web_limits.UPLOADS_PER_MINUTE, "uploads", "send")
    replays_burst = f"at most {web_limits.REPLAYS_BURST}"
    _per_minute(
        bounds,
        "--replays-per-minute",
        web_limits.REPLAYS_PER_MINUTE,
        "replays",
        "open",
        burst=replays_burst,
    )


def _per_minute(
    group: argparse._ArgumentGroup,
    flag: str,
    default: int,
    things: str,
    verb: str,
    note: str = "",
    burst: str = "N",
) -> None:
    """A rate a client address is held to: `default` `things` it may `verb` a minute, `burst`
    at once; 0 lifts it."""
    group.add_argument(
        flag,
        type=argtypes.non_negative_int,
        default=default,
        metavar="N",
        help=f"{things} one client address may {verb} per minute, {burst} at once (0: no limit; "
        f"default: %(default)s){note}",
    )


def limits(args: argparse.Namespace) -> web_limits.Limits:
    """The server's limits from the options (a per-minute rate also allows that many at once)."""
    return web_limits.Limits(
        max_live_games=args.max_live_games,
        idle_seconds=args.idle_minutes * 60,
        new_games=web_limits.Rate(args.games_per_minute, max(1, args.games_per_minute)),
        uploads=web_limits.Rate(args.uploads_per_minute, max(1, args.uploads_per_minute)),
        replays=web_limits.Rate(
            args.replays_per_minute, max(1, min(args.replays_per_minute, web_limits.REPLAYS_BURST))
        ),
    )


def proxy_address(text: str) -> str:
    """--trusted-proxy: an IP address (a name would be looked up, and could change)."""
    if parse_address(text) is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not an IP address")
    return text


def check_data(folder: Path) -> Path:
    """The data folder, created if missing; InputError when it cannot be one."""
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--data {folder}: exists and is not a folder")
    for name in ("games", "uploads"):
        if (folder / name).is_symlink():
            raise InputError(
                f"--data {folder}: {name} is a symbolic link; the server follows none, make it "
                "a real folder"
            )
    try:
        (folder / "games").mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--data {folder}: cannot create it: {exc.strerror or exc}") from None
    return folder


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on (host, port); InputError naming the problem otherwise."""
    if port > 65535:
        raise InputError(f"--port {port}: must be 0..65535")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise InputError(f"--host {host}: unknown address ({exc.strerror})") from None
    family, kind, proto, _name, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise InputError(
                f"port {port} on {host} is already in use; choose another with --port"
            ) from None
        raise InputError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


def is_loopback(host: str) -> bool:
    """Whether `host` (as given to --host) is only reachable from this machine."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def exposure_warning(host: str, port: int) -> str:
    """The one line printed when the server listens beyond localhost."""
    return (
        f"farlight serve: warning: listening on {host}:{port}, reachable from the network: "
        "anyone who can reach it can start games (using this machine's CPU), watch any game "
        "whose id they know (spectator view), and list and replay the records, tournaments "
        "and scorecards under --data; seats need their tokens; no TLS"
    )


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from farlight_web import heap
        from farlight_web.app import make_app
        from farlight_web.server import server_config
    except ImportError as exc:
        raise InputError(
            f"needs the web extra ({exc.name} is missing): pip install -e '.[web]'"
        ) from None
    if args.data.exists() and not args.data.is_dir():
        raise InputError(f"--data {args.data}: exists and is not a folder")
    sock = bind(args.host, args.port)
    try:
        data = check_data(args.data)
    except InputError:
        sock.close()
        raise
    port = sock.getsockname()[1]
    shown = f"[{args.host}]" if ":" in args.host else args.host
    cards = "standard" if args.card_set is None else str(args.card_set)
    print(
        f"Farlight in the browser: http://{shown}:{port}/  (data: {data}; cards: {cards}; "
        "Ctrl-C stops)"
    )
    sys.stdout.flush()
    if not is_loopback(args.host):
        print(exposure_warning(args.host, port), file=sys.stderr, flush=True)
    card_set = None if args.card_set is None else args.card_set.cards
    hosts = [args.host, *args.allow_host]
    bounds = limits(args)
    app = make_app(
        data,
        card_set=card_set,
        allowed_hosts=hosts,
        limits=bounds,
        trusted_proxy=args.trusted_proxy,
    )
    server = uvicorn.Server(server_config(app, bounds))
    heap.limit_arenas()  # before the thread pool's first thread allocates
    trimming = heap.start_trimming()
    try:
        server.run(sockets=[sock])
    finally:
        trimming.set()
        sock.close()
    return 0
