"""Another game than Farlight in a real browser (#50): with the duel registered, the page
offers a game chooser; a duel against the random bot is played by clicking its action
buttons, its board shown as the server's text for the seat, then replayed as text.
Skips like tests/test_web_browser.py when Chromium or Playwright is missing."""

from __future__ import annotations

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed (pip install -e '.[web]')")
pytest.importorskip("uvicorn", reason="the web extra is not installed")

from farlight_env.platform import register  # noqa: E402
from farlight_env.platform.registry import unregister  # noqa: E402
from tests.test_web_browser import browser, live_server  # noqa: E402, F401 - fixtures
from tests.toy_game import DUEL  # noqa: E402

STATE = "() => { const t = document.querySelector('#play-board pre'); return t && %s; }"


@pytest.fixture(autouse=True)
def duel_registered():
    register(DUEL, replace=True)
    yield
    unregister("duel")


def test_a_duel_is_played_and_replayed_as_text_with_buttons(browser, live_server) -> None:  # noqa: F811
    page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{live_server}/?speed=0")
    page.locator("#game-name").select_option("duel")
    assert page.locator("#opponents").input_value() == "random"
    page.locator("#game-options").fill('{"stakes": 2}')
    page.locator("#start").click()
    page.wait_for_function(STATE % "t.dataset.state === 'your-turn'")
    assert "?" in page.locator("#play-board pre").inner_text()  # the bot's card is hidden
    labels = page.locator("#choices .action-btn").all_inner_texts()
    assert labels == ["fold", "stay"]
    page.locator("#choices .action-btn", has_text="stay").click()
    page.wait_for_function(STATE % "t.dataset.state === 'over'")
    assert "?" not in page.locator("#play-board pre").inner_text()
    assert page.locator("#play-status").inner_text().startswith("Game over. Scores")
    assert page.locator("#log li").all_inner_texts() == ["P0: stay", "P1 moved"]
    page.locator("#choices .open-replay").click()
    page.wait_for_function("() => document.querySelector('#replay-board pre')")
    assert page.locator("#replay-board pre").inner_text().count("?") == 2  # the start, unseen
    page.locator("#last").click()
    page.wait_for_function(
        "() => document.querySelector('#step-label').textContent.startsWith('2/2')"
    )
    assert "?" not in page.locator("#replay-board pre").inner_text()
    assert not errors, errors
