"""Compute-ahead widgets and the browser/kernel state handshake, driven headless.

The browser's side of the handshake (static/base.js) sends ``values`` with ``__seq`` and
``__changed``; these tests send such updates the way the comm does (``set_state``) and check the
state Python ends in and what it sends back.
"""

from __future__ import annotations

import random

import pytest
import torch

from gradkit._args import DTYPES, EPS_GRID


def _record_sent(widget) -> list[dict]:
    """Every state message the widget sends to the browser from now on."""
    sent: list[dict] = []
    original = widget._send

    def send(msg, buffers=None):
        sent.append(msg)
        return original(msg, buffers=buffers)

    widget._send = send
    return sent


# -------------------------------------------------------------------------- GradcheckLab


def test_gradcheck_lab_publishes_eps_dtype_and_highlighted_cells(make, quiet_gradcheck):
    from gradkit.widgets import GradcheckLab

    w = make(GradcheckLab, "WrongSquareFn")
    drawn = w.exact["state"]["drawn"]  # the current state, as the kernel computed it
    assert drawn["eps"] == 1e-6 and drawn["eps_label"] == "1e-06"
    assert drawn["dtype"] == "float64"
    r, c = w.report.worst.index
    assert drawn["worst_cell"] == [r, c]
    # WrongSquareFn's backward is 1.5x too large: both diagonal cells fail, nothing else
    assert sorted(drawn["failing_cells"]) == [[0, 0], [1, 1]], drawn["failing_cells"]
    assert drawn["shape"] == [2, 2]
    w.function_dropdown.value = "SquareFn"
    w.eps_down.click()
    drawn = w.exact["state"]["drawn"]
    assert drawn["failing_cells"] == [] and drawn["eps_label"] == "1e-07"
    assert drawn["eps"] == w.eps == 1e-7


@pytest.mark.parametrize(
    ("name", "start"),
    [("SquareFn", "float64"), ("WrongSquareFn", "float64"), ("MatmulFn", "float64"),
     ("TransposedMatmulFn", "float32")],
)  # fmt: skip
def test_gradcheck_lab_states_ahead_equal_torchs_check(make, quiet_gradcheck, name, start):
    """For random states computed ahead (batched engine), the verdict, cause and readouts equal
    gradkit.check (torch's slow gradcheck) at that eps and dtype, on the Function's own inputs
    cast to that dtype (never on inputs already rounded to the dtype the lab started in)."""
    from gradkit import check
    from gradkit.widgets import GradcheckLab
    from gradkit.widgets._lab_readouts import report_readouts as _report_readouts
    from gradkit.widgets._lab_target import cast_inputs as _cast

    w = make(GradcheckLab, name, dtype=start)
    ahead = w.scene["ahead"]
    assert ahead, f"{name}: nothing computed ahead"
    label, fn, _, entry = w._target()
    raw = entry.make_input()
    seed = random.randrange(10**6)
    rng = random.Random(seed)
    for key in rng.sample(sorted(ahead), min(6, len(ahead))):
        dtype, g = key.split(":")
        eps = EPS_GRID[int(g)]
        report = check(fn, _cast(raw, DTYPES[dtype]), eps=eps, atol=1e-5, rtol=1e-3)
        state = ahead[key]
        where = f"seed {seed}, {name} at eps {eps:g} in {dtype}"
        assert state["drawn"]["passed"] == report.passed, where
        assert state["drawn"]["cause"] == report.cause, where
        readouts, _ = _report_readouts(label, report)
        for part in ("verdict", "explanation", "worst"):  # the numbers too
            assert state["readouts"][part] == readouts[part], (where, part)
        assert state["drawn"]["eps"] == eps and state["drawn"]["dtype"] == dtype, where


def test_gradcheck_lab_moves_within_the_table_need_no_render(make, quiet_gradcheck):
    from gradkit.widgets import GradcheckLab

    w = make(GradcheckLab, "SquareFn")
    renders, scene = w.render_count, w.scene
    sent = _record_sent(w)
    moves = 0
    for move in (
        lambda: w.eps_down.click(),
        lambda: setattr(w.dtype_buttons, "value", torch.float32),
        lambda: w.eps_up.click(),
        lambda: setattr(w.dtype_buttons, "value", torch.float64),
    ):
        move()
        key = f"{w.values['dtype']}:{w.values['eps']}"
        if key not in scene["ahead"]:
            continue
        moves += 1
        # Python's readouts (torch's check) equal the state the browser drew from the table
        assert w.verdict_html.value == scene["ahead"][key]["readouts"]["verdict"], key
    assert moves >= 2, "the ÷10 and dtype moves were not computed ahead"
    assert w.render_count == renders, f"{w.render_count - renders} renders on table moves"
    assert w.scene is scene or w.scene == scene
    assert not any("png" in m.get("state", {}) for m in sent)
    w.function_dropdown.value = "WrongSquareFn"  # a new scene: one render, a new table
    assert w.render_count == renders + 1 and w.scene["key"][0] == "WrongSquareFn"
