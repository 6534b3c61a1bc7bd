"""Every value a page can send is checked, bounded and normalised (sets as sets); a refusal is a
message in the error area and Python's value sent back, never a kernel traceback (issue 39)."""

from __future__ import annotations

import html

import pytest

from gradkit.widgets import EpsilonLab, GradcheckLab, SlopeExplorer
from gradkit.widgets.base import page
from tests.widgets.page_messages import page_sends


@pytest.fixture
def sent_back(monkeypatch):
    """What each widget sends back to the page: lists of traits (None: nothing)."""
    sent: list = []

    def watch(w):
        monkeypatch.setattr(
            w,
            "send_state",
            lambda key=None: sent.append(sorted(key)) if isinstance(key, list) else None,
        )
        return w

    watch.sent = sent
    return watch


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"eps": 3, "eps_exact": 10**400}, "eps_exact=a whole number of about 401 digits"),
        ({"eps": 3, "eps_exact": 2**60}, "a whole number past 2**53"),
        ({"x": 10**5000}, "x=a whole number of about 5001 digits"),
        ({"x": float("nan")}, "a number that is not finite"),
        ({"x": float("inf")}, "a number that is not finite"),
        ({"x": [1.0, 2.0]}, "the page sent x=[1.0, 2.0]: no position of the x slider"),
        ({"x": {"a": 1}}, "a dict, which no control sends"),
        ({"dtype": "f" * 5000}, "a text over 1000 characters"),
        ({"panels": [["curve"]]}, "a list, which no control sends"),
        (
            {"panels": ["curve"] * 200_000},
            "panels as a list of 200000 entries; a control sends at most 64",
        ),
        ({"panels": "curve"}, "must list some of ['curve', 'zoom'] (pick one or more)"),
        ({"panels": []}, "must list some of"),
        ({"step": 3}, ""),  # no such value: never applied, never an error
    ],
)
def test_a_value_no_control_sends_is_refused_with_a_message(make, sent_back, changes, said):
    w = sent_back(make(SlopeExplorer))
    before = dict(w.state)
    if "step" in changes:
        w.set_state({"step": 3})
        assert w.error == "" and sent_back.sent == []
        return
    page_sends(w, **changes)  # never raises
    assert said in html.unescape(w.error), w.error
    assert len(w.error) < 2000  # the message is short whatever was sent
    assert w.state == before
    assert sent_back.sent == [sorted(changes)]
    page_sends(w, eps=w.eps - 3)  # and the widget goes on
    assert w.error == ""


def test_sets_from_the_page_are_kept_as_sets(make, sent_back):
    """``panels`` and EpsilonLab's ``shown``: each entry once, in the widget's order, and the
    page is sent the set Python keeps."""
    w = sent_back(make(SlopeExplorer))
    page_sends(w, panels=["zoom", "curve", "zoom", "zoom"])
    assert w.state["panels"] == ["curve", "zoom"] and w.error == ""
    assert sent_back.sent == [["panels"]]
    sent_back.sent.clear()
    lab = sent_back(make(EpsilonLab))
    page_sends(lab, shown=["float32", "float64", "float32"])
    assert lab.shown == ["float64", "float32"] and lab.error == ""
    assert sent_back.sent == [["shown"]]
    sent_back.sent.clear()
    page_sends(lab, shown=["float64", "float128"])
    assert "must list some of ['float64', 'float32', 'float16', 'bfloat16']" in html.unescape(
        lab.error
    )
    assert lab.shown == ["float64", "float32"] and sent_back.sent == [["shown"]]


def test_an_error_text_is_escaped_once(make):
    w = make(GradcheckLab)
    page_sends(w, atol="<b>&")
    shown = w.error
    assert "“&lt;b&gt;&amp;”" in shown and "&amp;lt;" not in shown and "<b>&" not in shown


def test_a_check_that_fails_unexpectedly_is_a_message_not_a_traceback(make, sent_back, monkeypatch):
    w = sent_back(make(SlopeExplorer))

    def broken(key, value):
        raise RuntimeError("a check's own bug")

    monkeypatch.setattr(w, "check_page_value", broken)
    page_sends(w, dtype="float32")
    assert "could not check (RuntimeError)" in w.error
    assert w.state["dtype"] == "float64" and sent_back.sent == [["dtype"]]


def test_the_bounds_are_what_the_controls_need():
    assert page.MAX_PAGE_LIST >= 8 and page.MAX_PAGE_TEXT >= 100
    page.check_page_bounds("x", 2**53)
    page.check_page_bounds("panels", ["a"] * page.MAX_PAGE_LIST)
    with pytest.raises(page.InputError):
        page.check_page_bounds("panels", ["a"] * (page.MAX_PAGE_LIST + 1))
