"""The web server's connections (issue 53), against a real uvicorn server on 127.0.0.1 with the
settings `farlight serve` uses (`farlight_web.server.server_config`): a request that is slow to
arrive is cut off at its deadline (silent, headers byte by byte, a slow body), connections
past the cap are answered 503, an aborted POST is one short log line, and malformed Host
headers (IPv6 zone ids, junk after `]`, bad hex or ports) are refused."""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

pytest.importorskip("uvicorn", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("starlette", reason="the web extra is not installed")

import uvicorn  # noqa: E402

from farlight_web.app import make_app  # noqa: E402
from farlight_web.limits import Limits  # noqa: E402
from farlight_web.server import server_config  # noqa: E402

#: Deadlines short enough for a test; the waits below allow many times them.
QUICK = Limits(header_seconds=0.5, body_seconds=0.5, keep_alive_seconds=1, max_connections=4)
#: Longer than any deadline above by far: a connection still open after it was never cut off.
PATIENCE = 10.0
UPLOAD_HEAD = (
    b"POST /api/replays/upload HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
)


@contextmanager
def serving(data: Path, limits: Limits = QUICK) -> Iterator[int]:
    """A real server (uvicorn, `farlight serve`'s settings) on 127.0.0.1; yields its port."""
    app = make_app(data, limits=limits)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    server = uvicorn.Server(server_config(app, limits))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        for _ in range(400):
            if server.started:
                break
            time.sleep(0.025)
        assert server.started, "the server did not start"
        yield sock.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(PATIENCE)
        sock.close()


def _connect(port: int) -> socket.socket:
    conn = socket.create_connection(("127.0.0.1", port), timeout=PATIENCE)
    return conn


def _read_all(conn: socket.socket) -> bytes:
    """Everything the server sends until it closes (PATIENCE at most, then what came)."""
    chunks = []
    deadline = time.monotonic() + PATIENCE
    while time.monotonic() < deadline:
        try:
            chunk = conn.recv(4096)
        except TimeoutError:
            break
        except ConnectionResetError:
            break
        if not chunk:
            return b"".join(chunks) + b"<closed>"
        chunks.append(chunk)
    return b"".join(chunks)


def _request(port: int, head: bytes) -> bytes:
    with _connect(port) as conn:
        conn.sendall(head)
        return _read_all(conn)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "data"


def test_a_connection_that_never_sends_is_closed_with_a_408(data: Path) -> None:
    with serving(data) as port, _connect(port) as conn:
        answer = _read_all(conn)
    assert answer.startswith(b"HTTP/1.1 408") and answer.endswith(b"<closed>")


def test_headers_sent_byte_by_byte_are_cut_off_at_the_deadline(data: Path) -> None:
    """A slowloris: one byte every 50 ms would take 15 s for these headers; the server closes
    the connection after its 0.5 s header deadline, long before."""
    head = b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: " + b"a" * 300 + b"\r\n\r\n"
    sent = 0
    with serving(data) as port, _connect(port) as conn:
        conn.settimeout(0.05)
        answer = b""
        for byte in head:
            try:
                conn.send(bytes([byte]))
                sent += 1
                answer = conn.recv(4096)
            except TimeoutError:
                continue
            except OSError:
                break
            break
    assert sent < len(head) // 2, f"{sent} of {len(head)} bytes sent before the server gave up"
    assert answer == b"" or answer.startswith(b"HTTP/1.1 408")


def test_a_body_that_stops_arriving_is_cut_off_and_logged_in_one_line(
    data: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO), serving(data) as port:
        answer = _request(port, UPLOAD_HEAD + b"0123456789")
        assert answer == b"<closed>"  # nobody reads an answer when the body never came
        time.sleep(0.5)  # the app's log line is written as the request task ends
    lines = [r for r in caplog.records if "went away" in r.getMessage()]
    assert len(lines) == 1 and lines[0].exc_info is None
    assert "10 of 1000 bytes" in lines[0].getMessage() and len(lines[0].getMessage()) < 200


def test_an_aborted_post_is_one_short_log_line_without_a_traceback(
    data: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO), serving(data) as port:
        for _ in range(3):
            with _connect(port) as conn:
                conn.sendall(UPLOAD_HEAD + b"0123456789")
                time.sleep(0.1)  # the app is reading the body when the client leaves
        with _connect(port) as conn:  # the server goes on answering
            conn.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            assert conn.recv(4096).startswith(b"HTTP/1.1 200")
        time.sleep(0.5)
    about = [r for r in caplog.records if "upload" in r.getMessage() or r.exc_info]
    assert len(about) == 3, [r.getMessage() for r in about]
    for record in about:
        assert record.exc_info is None and "\n" not in record.getMessage()
        assert len(record.getMessage()) < 200


def test_connections_past_the_cap_are_answered_503(data: Path) -> None:
    with serving(data) as port:
        held = [_connect(port) for _ in range(QUICK.max_connections)]
        try:
            time.sleep(0.1)  # the server has accepted them all
            answer = _request(port, b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        finally:
            for conn in held:
                conn.close()
        assert answer.startswith(b"HTTP/1.1 503")
        time.sleep(0.2)
        again = _request(port, b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert again.startswith(b"HTTP/1.1 200")


def test_an_idle_keep_alive_connection_is_closed(data: Path) -> None:
    with serving(data) as port, _connect(port) as conn:
        conn.sendall(b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        answer = _read_all(conn)
    assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"<closed>")


@pytest.mark.parametrize(
    "host",
    [
        b"[fe80::1%eth0]:8000",  # a zone id
        b"[::1%25lo]",
        b"[::1]junk",  # anything after ] but a port
        b"[::1]:80x",
        b"[::1]:",
        b"[::1]:123456",
        b"[::1]:99999",
        b"[zz::1]",  # invalid hex
        b"[::1",
        b"::1",  # an IPv6 address without brackets
        b"127.0.0.1:http",
        b"localhost:",
    ],
)
def test_a_malformed_host_header_is_refused(data: Path, host: bytes) -> None:
    with serving(data, Limits()) as port:
        head = b"GET /api/health HTTP/1.1\r\nHost: " + host + b"\r\nConnection: close\r\n\r\n"
        answer = _request(port, head)
    assert answer.startswith(b"HTTP/1.1 400"), answer[:100]


@pytest.mark.parametrize(
    "host", [b"[::1]", b"[::1]:8000", b"[2001:db8::1]:65535", b"127.0.0.1", b"localhost:8000"]
)
def test_well_formed_host_headers_are_answered(data: Path, host: bytes) -> None:
    with serving(data, Limits()) as port:
        head = b"GET /api/health HTTP/1.1\r\nHost: " + host + b"\r\nConnection: close\r\n\r\n"
        assert _request(port, head).startswith(b"HTTP/1.1 200")
