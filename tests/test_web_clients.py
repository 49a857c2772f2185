"""Whom the web server's rate limits count (issue 53): the socket's peer, never a header it
writes, with every loopback address one client and IPv6 per /64; X-Forwarded-For only from
the proxy `farlight serve --trusted-proxy ADDR` names. Checked on `farlight serve` itself."""

from __future__ import annotations

import http.client
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from farlight_web.clients import LOOPBACK, parse_address, request_client

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("peer", "key"),
    [
        ("127.0.0.1", LOOPBACK),
        ("127.45.6.7", LOOPBACK),
        ("::1", LOOPBACK),
        ("::ffff:127.0.0.2", LOOPBACK),
        ("10.0.0.1", "10.0.0.1"),
        ("::ffff:10.0.0.1", "10.0.0.1"),
        ("2001:db8:0:7::1", "2001:db8:0:7::/64"),
        ("2001:db8:0:7:ffff:1:2:3", "2001:db8:0:7::/64"),
        ("2001:db8:0:8::1", "2001:db8:0:8::/64"),
        ("fe80::1%eth0", "unknown"),
        ("not an address", "unknown"),
    ],
)
def test_a_client_is_its_address_loopback_one_and_ipv6_per_64(peer: str, key: str) -> None:
    assert request_client(peer, [], None) == key


def test_x_forwarded_for_counts_only_from_the_trusted_proxy() -> None:
    proxy = parse_address("10.0.0.9")
    forwarded = ["6.6.6.6, 1.2.3.4", "2001:db8::5"]  # the proxy appended the last one
    assert request_client("10.0.0.9", forwarded, proxy) == "2001:db8::/64"
    assert request_client("10.0.0.8", forwarded, proxy) == "10.0.0.8"  # not the proxy
    assert request_client("10.0.0.9", forwarded, None) == "10.0.0.9"  # no proxy trusted
    assert request_client("10.0.0.9", ["junk"], proxy) == "10.0.0.9"  # nothing usable
    assert request_client("10.0.0.9", [], proxy) == "10.0.0.9"


# ---------------------------------------------------------------------------------- the server
@contextmanager
def farlight_serve(data: Path, *options: str) -> Iterator[int]:
    """`farlight serve` on 127.0.0.1 (uploads limited to 2 per client); yields its port."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "farlight_cli", "serve", "--port", "0", "--data", str(data)]
        + ["--uploads-per-minute", "2", *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        line = proc.stdout.readline()
        assert line.startswith("Farlight in the browser: http://"), line + proc.stderr.read()
        port = int(line.split()[4].rstrip("/").rpartition(":")[2])
        deadline = time.monotonic() + 30
        while _status(port, "127.0.0.1", {}, "GET", "/api/health") != 200:
            assert time.monotonic() < deadline, "the server did not answer"
            time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        proc.wait(20)


def _status(port: int, source: str, headers: dict[str, str], method: str, path: str) -> int:
    """The status of one request to the server from the local address `source`."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))
    try:
        body = b"junk" if method == "POST" else None
        conn.request(
            method, path, body=body, headers={"content-type": "application/json", **headers}
        )
        return conn.getresponse().status
    except ConnectionRefusedError:
        return 0
    finally:
        conn.close()


def _upload(port: int, source: str = "127.0.0.1", forwarded: str | None = None) -> int:
    """An upload that is no record (a 400), or a 429 when the client has used its rate."""
    headers = {"x-forwarded-for": forwarded} if forwarded else {}
    return _status(port, source, headers, "POST", "/api/replays/upload")


@pytest.mark.skipif(sys.platform != "linux", reason="binds 127.0.0.x source addresses (Linux)")
def test_farlight_serve_counts_the_peer_not_the_headers_or_other_loopback_addresses(
    tmp_path: Path,
) -> None:
    with farlight_serve(tmp_path / "d") as port:
        forged = [_upload(port, forwarded=f"198.51.100.{k}") for k in range(3)]
        other_loopback = [_upload(port, source=f"127.0.0.{k}") for k in range(2, 5)]
    assert forged == [400, 400, 429]  # a header is no new client
    assert other_loopback == [429, 429, 429]  # nor is another 127.x address


def test_farlight_serve_with_a_trusted_proxy_counts_the_address_it_forwards(
    tmp_path: Path,
) -> None:
    with farlight_serve(tmp_path / "d", "--trusted-proxy", "127.0.0.1") as port:
        forwarded = [_upload(port, forwarded=f"198.51.100.{k}") for k in range(3)]
        same = [_upload(port, forwarded="203.0.113.7") for _ in range(3)]
    assert forwarded == [400, 400, 400]
    assert same == [400, 400, 429]


def test_a_trusted_proxy_that_is_no_address_is_one_line_and_status_2(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "farlight_cli", "serve", "--trusted-proxy", "proxy.lan"]
        + ["--data", str(tmp_path / "d"), "--port", "0"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert done.returncode == 2 and "not an IP address" in done.stderr
    assert len(done.stderr.strip().splitlines()) <= 2 and "Traceback" not in done.stderr


def test_the_serve_options_set_the_replay_rate_and_the_trusted_proxy() -> None:
    from farlight_cli import serve_cmd
    from farlight_cli.main import build_parser
    from farlight_web.limits import REPLAYS_BURST, Rate

    args = build_parser().parse_args(
        ["serve", "--replays-per-minute", "60", "--trusted-proxy", "::1"]
    )
    assert serve_cmd.limits(args).replays == Rate(60, REPLAYS_BURST)
    assert args.trusted_proxy == "::1"
    off = build_parser().parse_args(["serve", "--replays-per-minute", "0"])
    assert serve_cmd.limits(off).replays == Rate(0, 1) and off.trusted_proxy is None
