"""A Predict's progress survives a reload: the guess locked in (and a second try) comes back when
the page is opened again, from the browser's own storage, and the rest of the lesson stays open;
a fresh browser (another learner's profile) starts with nothing. On the page with no kernel that
the static site uses (tools/widget_page.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gradkit.widgets import Predict
from tools.widget_page import write_page

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def page_url(tmp_path_factory) -> str:
    widget = Predict("07-calls-n10", compute=lambda: 22)
    path = write_page([widget], tmp_path_factory.mktemp("progress") / "page.html")
    widget.close()
    return Path(path).resolve().as_uri()


def _drawn(tab) -> dict:
    return json.loads(tab.locator(".gradkit-predict .gradkit-figure").get_attribute("data-drawn"))


def _open(context, url: str):
    tab = context.new_page()
    tab.goto(url)
    tab.wait_for_selector("body[data-gk-site=ready]")
    return tab


def test_a_locked_guess_and_its_second_try_come_back_after_a_reload(browser, page_url) -> None:
    context = browser.new_context()
    try:
        tab = _open(context, page_url)
        assert _drawn(tab) == {"guess": "", "locked": False}
        box = tab.locator("input.gradkit-guess")
        box.fill("21")
        box.press("Enter")
        again = tab.locator("input.gradkit-second-guess")
        again.fill("22")
        again.press("Enter")
        kept = _drawn(tab)
        assert kept["locked"] and kept["second"] == "22"
        tab.reload()
        tab.wait_for_selector("body[data-gk-site=ready]")
        assert _drawn(tab) == kept  # the same lock, the same second try, the true value shown
        assert tab.locator("input.gradkit-guess").input_value() == "21"
        shown = " ".join(tab.locator(".gradkit-predict-result").inner_text().split())
        assert "true value 22 calls" in shown
    finally:
        context.close()
    fresh = browser.new_context()  # another profile: nothing kept
    try:
        assert _drawn(_open(fresh, page_url)) == {"guess": "", "locked": False}
    finally:
        fresh.close()


def test_each_predict_keeps_its_own_guess(browser, tmp_path) -> None:
    """Two Predicts of one origin (lessons 04 and 05 on one server): a guess locked in one is never
    taken back by the other, which opens fresh (its key is its question's id; a key by the scene
    sent first gave lesson 05 the lock of lesson 04, its true value on screen)."""
    first = Predict("07-calls-n10", compute=lambda: 22)
    second = Predict("05-wrong-secant", compute=lambda: 6.0)
    url_first = write_page([first], tmp_path / "first" / "page.html").resolve().as_uri()
    url_second = write_page([second], tmp_path / "second" / "page.html").resolve().as_uri()
    first.close()
    second.close()
    context = browser.new_context()
    try:
        tab = _open(context, url_first)
        box = tab.locator("input.gradkit-guess")
        box.fill("22")
        box.press("Enter")
        assert _drawn(tab)["locked"]
        other = _open(context, url_second)
        assert _drawn(other) == {"guess": "", "locked": False}
        tab.reload()
        tab.wait_for_selector("body[data-gk-site=ready]")
        assert _drawn(tab)["locked"] and _drawn(tab)["guess"] == "22"  # its own comes back
    finally:
        context.close()
