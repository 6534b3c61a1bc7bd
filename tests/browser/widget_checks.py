"""Checks shared by the browser tests that drive gradkit widgets (Notebook 7 and Voila)."""

from __future__ import annotations

import re

import torch

import harness as jp

__all__ = [
    "DTYPES",
    "EPS_CSS",
    "NUMERIC",
    "SLOPE",
    "check_slope_picture",
    "click",
    "click_toggle",
    "grid_index",
    "wait_drawn",
]

SLOPE = ".gradkit-slope-explorer"
DTYPES = ("float64", "float32", "float16", "bfloat16")
EPS_CSS = "gradkit-eps"
#: The evaluation points' colour (the light palette's vermillion, #C24E00) within antialiasing.
RED = (194, 78, 0)
NUMERIC = re.compile(r"numeric slope\s+(\S+)\s+=\s+(\S+),")


def grid_index(label: str) -> int:
    """Index of the eps grid value ``label`` (as the controls show it, e.g. ``"1e-06"``)."""
    from gradkit._args import EPS_GRID

    return next(i for i, eps in enumerate(EPS_GRID) if f"{eps:.3g}" == label)


def click_toggle(root, css: str, value: str) -> None:
    root.locator(f".{css} button[data-value='{value}']").first.click()


def click(page, root, css: str) -> None:
    root.locator(f".{css}").first.click()
    jp.next_frame(page)


def check_slope_picture(root, state: dict | None = None) -> dict:
    """The SlopeExplorer's picture matches its readouts and controls; returns the state.

    From the drawn data: the eps and dtype drawn are the ones the slider label, the eps readout
    and the pressed dtype button show; the numeric slope drawn is the one the readout prints;
    the evaluation points drawn are x ± eps rounded to the dtype. From the pixels: the canvas is
    vermillion where the zoom panel's evaluation points are said to be drawn.
    """
    state = state or jp.widget_state(root)
    drawn, readouts = state["drawn"], state["readouts"]
    assert state["found"] and drawn, f"no drawn data on the SlopeExplorer's figure: {state}"
    label = state["sliders"][EPS_CSS]["label"]
    assert float(drawn["eps"]) == float(label), (
        f"picture drawn for eps {drawn['eps']}, slider {label}"
    )
    shown_eps = re.match(r"eps\s+(\S+)", readouts["gradkit-eps-readout"]).group(1)
    assert shown_eps == label, f"eps readout {shown_eps}, slider {label}"
    dtype = state["pressed"]["gradkit-dtype"]
    assert drawn["dtype"] == dtype, f"picture drawn in {drawn['dtype']}, {dtype} pressed"
    numeric_text = readouts["gradkit-numeric"]
    assert f"in {dtype}" in numeric_text, numeric_text
    match = NUMERIC.search(numeric_text)
    assert match, f"numeric readout not understood: {numeric_text!r}"
    full = format(drawn["numeric"], ".15g") if drawn["numeric"] is not None else "NaN"
    assert match.group(2) == full, f"readout {match.group(2)}, picture's slope {full}"
    # the evaluation points drawn are fl(x + eps) in the dtype (x and eps stored in it first)
    torch_dtype = getattr(torch, dtype)
    x = torch.tensor(float(drawn["x"]), dtype=torch_dtype)  # the state holds x's position
    plus = float(x + torch.tensor(float(label), dtype=torch.float64).to(torch_dtype))
    assert drawn["points"][0][0] == plus, (
        f"picture's evaluation point {drawn['points'][0][0]!r}, x + eps in {dtype} is {plus!r}"
    )
    # the canvas shows the zoom panel's evaluation points where data-drawn says it drew them
    if drawn["numeric"] is not None:
        pixels = [jp.canvas_pixel(root, px, py) for px, py in drawn["zoom_points_px"]]
        red = [
            p
            for p in pixels
            if p[3] > 200 and all(abs(c - r) <= 60 for c, r in zip(p[:3], RED, strict=True))
        ]
        assert red, f"no vermillion point on the canvas at {drawn['zoom_points_px']}: {pixels}"
    return state


def wait_drawn(page, root, test, what: str, timeout_s: float = 30.0) -> dict:
    """Poll the widget's state until ``test(state)`` holds; returns that state."""
    state = jp.widget_state(root)
    for _ in range(int(timeout_s * 10)):
        if state["drawn"] and test(state):
            return state
        page.wait_for_timeout(100)
        state = jp.widget_state(root)
    raise AssertionError(f"{what} within {timeout_s:.0f} s; the widget shows {state['drawn']}")
