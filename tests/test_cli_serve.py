"""`farlight serve`: serves the page and the API on localhost; a busy port or a bad --data is
one line on stderr and status 2."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("uvicorn", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("starlette", reason="the web extra is not installed")

ROOT = Path(__file__).resolve().parents[1]


def _farlight(*args: str, **kw) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "farlight_cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        **kw,
    )


def test_serve_answers_health_and_serves_the_page(tmp_path: Path) -> None:
    proc = _farlight("serve", "--port", "0", "--data", str(tmp_path / "d"))
    try:
        line = proc.stdout.readline()
        assert line.startswith("Farlight in the browser: http://127.0.0.1:"), line
        url = line.split()[4]
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(url + "api/health", timeout=2) as response:
                    assert json.load(response) == {"status": "ok"}
                    break
            except OSError:
                assert time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.1)
        with urllib.request.urlopen(url, timeout=5) as response:
            assert b"board.js" in response.read()
        assert (tmp_path / "d" / "games").is_dir()
    finally:
        proc.terminate()
        proc.wait(10)


def test_a_busy_port_is_one_line_and_status_2(tmp_path: Path) -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1)
    port = sock.getsockname()[1]
    try:
        proc = _farlight("serve", "--port", str(port), "--data", str(tmp_path / "d"))
        out, err = proc.communicate(timeout=60)
    finally:
        sock.close()
    assert proc.returncode == 2
    assert err.strip() == (
        f"farlight serve: error: port {port} on 127.0.0.1 is already in use; "
        "choose another with --port"
    )
    assert not (tmp_path / "d").exists()


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--data", "FILE"], "exists and is not a folder"),
        (["--port", "70000"], "--port 70000: must be 0..65535"),
        (["--port", "x"], "argument --port: must be an integer >= 0"),
        (["--host", "no.such.host.invalid"], "--host no.such.host.invalid: unknown address"),
        (["--max-live-games", "0"], "argument --max-live-games: must be a positive integer"),
        (["--idle-minutes", "-1"], "argument --idle-minutes: must be a positive number"),
        (["--games-per-minute", "x"], "argument --games-per-minute: must be an integer >= 0"),
        (["--data", "LINKED"], "games is a symbolic link"),
    ],
)
def test_bad_options_are_one_or_two_lines(tmp_path: Path, args: list[str], needle: str) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "games").symlink_to(tmp_path)
    args = [{"FILE": str(afile), "LINKED": str(linked)}.get(a, a) for a in args]
    proc = _farlight("serve", "--port", "0", *args)
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert needle in err and "Traceback" not in err
    assert len(err.strip().splitlines()) <= 2


def _variant_cards(tmp_path: Path) -> Path:
    from farlight_env.cards import standard_card_set
    from farlight_env.cards.io import card_set_to_dict

    data = card_set_to_dict(standard_card_set())
    data["name"] = "club variant"
    path = tmp_path / "club.json"
    path.write_text(json.dumps(data))
    return path


def test_serve_plays_every_new_game_with_the_card_set(tmp_path: Path) -> None:
    proc = _farlight(
        "serve",
        "--port",
        "0",
        "--data",
        str(tmp_path / "d"),
        "--card-set",
        str(_variant_cards(tmp_path)),
    )
    try:
        line = proc.stdout.readline()
        assert "cards: " in line and "club.json" in line, line
        url = line.split()[4]
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(url + "api/options", timeout=2) as response:
                    assert json.load(response)["card_set"] == "club variant"
                    break
            except OSError:
                assert time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.1)
        body = json.dumps({"players": 2, "opponents": ["random"], "seed": 3}).encode()
        request = urllib.request.Request(
            url + "api/games", data=body, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            game_id = json.load(response)["id"]
        record = json.loads((tmp_path / "d" / "games" / f"{game_id}.json").read_text())
        assert record["card_set"]["name"] == "club variant"
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_serve_refuses_a_bad_card_file_in_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("{not toml")
    proc = _farlight("serve", "--port", "0", "--data", str(tmp_path / "d"), "--card-set", str(bad))
    _out, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert "--card-set" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) <= 2


def _get_status(url: str, host: str | None = None) -> int:
    request = urllib.request.Request(url, headers={"Host": host} if host else {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_beyond_localhost_one_warning_line_and_only_named_hosts(tmp_path: Path) -> None:
    """--host 0.0.0.0 says in one stderr line what the network can see; requests naming
    another host (DNS rebinding) are refused unless --allow-host names it."""
    proc = _farlight(
        "serve", "--host", "0.0.0.0", "--port", "0", "--data", str(tmp_path / "d"),
        "--allow-host", "farlight.lan",
    )  # fmt: skip
    try:
        line = proc.stdout.readline()
        port = int(line.split()[4].rstrip("/").rsplit(":", 1)[1])
        warning = proc.stderr.readline()
        assert warning.startswith("farlight serve: warning: listening on 0.0.0.0:"), warning
        assert "--data" in warning and "tokens" in warning
        url = f"http://127.0.0.1:{port}/api/health"
        deadline = time.monotonic() + 20
        while True:
            try:
                assert _get_status(url) == 200
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.1)
        assert _get_status(url, "attacker.example") == 400
        assert _get_status(url, f"farlight.lan:{port}") == 200
        assert _get_status(url, f"localhost:{port}") == 200
    finally:
        proc.terminate()
        proc.wait(10)


def test_on_localhost_no_warning(tmp_path: Path) -> None:
    proc = _farlight("serve", "--port", "0", "--data", str(tmp_path / "d"))
    try:
        assert proc.stdout.readline().startswith("Farlight in the browser")
    finally:
        proc.terminate()
        _out, err = proc.communicate(timeout=10)
    assert "warning" not in err
