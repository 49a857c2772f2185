"""Take the browser screenshot of docs/web.md: `farlight serve`'s page in Debian's Chromium.

    python scripts/web_screenshot.py                      # writes docs/images/web.png
    python scripts/web_screenshot.py --seed 3 --round 4 --out x.png

Starts the app on a free localhost port (empty temporary --data), opens the page at 1280x800,
starts a 3-player game (you at seat 0 against two heuristics) with `--seed`, and plays by
clicking (the first highlighted target and tile while bidding, the first highlighted ship cell
when installing, otherwise the first choice) until round `--round`, where it picks a bidding
target and takes the picture. Needs the web extra and /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path

import uvicorn
from playwright.sync_api import sync_playwright

from farlight_web.app import make_app

ROOT = Path(__file__).resolve().parents[1]


def serve(data: Path) -> tuple[uvicorn.Server, str]:
    """The app on a free port in a daemon thread; returns the server and its address."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(make_app(data), log_level="warning"))
    threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True).start()
    while not server.started:
        time.sleep(0.02)
    return server, f"http://127.0.0.1:{sock.getsockname()[1]}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--round", type=int, default=4, dest="round_")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "images" / "web.png")
    args = parser.parse_args()
    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("web_screenshot: needs chromium (apt-get install -y chromium)")
    with tempfile.TemporaryDirectory() as data:
        server, url = serve(Path(data))
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, headless=True)
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"{url}/?speed=0")
            page.locator("#players").select_option("3")
            page.locator("#seed").fill(str(args.seed))
            page.locator("#start").click()
            board = page.locator("#play-board svg")
            while True:
                page.wait_for_selector(
                    "#play-board svg[data-state='your-turn'], #play-board svg[data-state='over']"
                )
                if board.get_attribute("data-state") == "over":
                    raise SystemExit(f"the game ended before round {args.round_}")
                targets = page.locator("#play-board .target")
                round_now = int(board.get_attribute("data-round"))
                if round_now >= args.round_ and targets.count():
                    targets.nth(min(2, targets.count() - 1)).click()
                    break
                if targets.count():
                    targets.first.click()
                    page.locator("#choices .bid-choice").first.click()
                elif page.locator("#play-board .install-cell").count():
                    page.locator("#play-board .install-cell").first.click()
                else:
                    page.locator("#choices .action-btn").first.click()
            args.out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(args.out))
            browser.close()
        server.should_exit = True
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
