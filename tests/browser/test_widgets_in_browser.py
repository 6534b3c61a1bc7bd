"""The main widgets driven through the page in Notebook 7, the way a learner drives them.

The browser draws what moves from a table torch computed ahead, so eps and dtype moves need no
kernel message. These tests check that from the outside: the picture and readouts change while
the kernel is busy; the numbers shown equal the kernel's torch values digit for digit; a fast drag
ends on the right picture; and after every click the picture (``data-drawn`` on the figure, and
the canvas pixels where it says it drew) matches the readouts.
"""

from __future__ import annotations

import json
import random

import pytest
from playwright.sync_api import expect
from widget_checks import (
    DTYPES,
    EPS_CSS,
    NUMERIC,
    SLOPE,
    check_slope_picture,
    click,
    click_toggle,
    grid_index,
    wait_drawn,
)

import harness as jp

pytestmark = pytest.mark.browser

WIDGETS = "_widgets.ipynb"  # written next to the lessons by conftest (EXTRA_NOTEBOOKS)


@pytest.fixture(scope="module")
def page(browser_context, servers):
    """``_widgets.ipynb`` (SlopeExplorer, EpsilonLab, FloatRuler, GradcheckLab) in Notebook 7."""
    with jp.notebook_run(browser_context, servers["notebook"], WIDGETS) as page:
        problems = jp.problems(page) + jp.output_problems(page)
        assert not problems, "\n".join(problems)
        assert page.widgets["rendered"] == page.widgets["expected"] > 0, page.widgets
        yield page


@pytest.fixture
def explorer(page):
    """The SlopeExplorer's root, scrolled into view, back at float64, central, eps 1e-3."""
    root = page.locator(SLOPE).first
    root.scroll_into_view_if_needed()
    jp.wait_quiet(page, 200)
    click_toggle(root, "gradkit-dtype", "float64")
    click_toggle(root, "gradkit-scheme", "central")
    jp.set_range(root, EPS_CSS, grid_index("0.001"))
    jp.wait_quiet(page, 200)
    yield root
    assert page.errors == [], f"uncaught JavaScript errors: {page.errors}"


def type_eps(page, explorer, text: str) -> None:
    """Type eps into the box, press Enter, and wait until the picture shows it (busy mark gone)."""
    box = explorer.locator("input.gradkit-eps-text").first
    box.fill(text)
    box.press("Enter")
    wait_drawn(
        page,
        explorer,
        lambda state: float(state["drawn"]["eps"]) == float(text) and not state["busy"],
        f"the picture did not show the typed eps {text}",
    )


def test_clicks_keep_picture_and_readouts_together(page, explorer) -> None:
    """÷10 / ×10 move 3 grid positions; dtype and scheme switch; after every click the picture
    matches the readouts (drawn data and pixels)."""
    start = check_slope_picture(explorer)
    index = int(start["sliders"][EPS_CSS]["value"])
    for css, move in (("gradkit-eps-down", -3), ("gradkit-eps-down", -3), ("gradkit-eps-up", 3)):
        click(page, explorer, css)
        state = check_slope_picture(explorer)
        now = int(state["sliders"][EPS_CSS]["value"])
        assert now == index + move, f"{css} moved eps from grid {index} to {now}"
        index = now
    for dtype in ("float32", "bfloat16", "float16", "float64"):
        click_toggle(explorer, "gradkit-dtype", dtype)
        jp.next_frame(page)
        assert check_slope_picture(explorer)["drawn"]["dtype"] == dtype
    click_toggle(explorer, "gradkit-scheme", "forward")
    jp.next_frame(page)
    state = jp.widget_state(explorer)
    assert (
        state["drawn"]["scheme"] == "forward"
        and "(f(x+eps) − f(x)) / eps" in (state["readouts"]["gradkit-numeric"])
    ), state["readouts"]["gradkit-numeric"]


def test_busy_kernel_still_moves_eps_dtype_and_x(page, explorer, servers) -> None:
    """While a cell sleeps 5 s, ÷10, a dtype switch and two x steps still change the picture and
    readouts: no kernel message is on that path.

    ipykernel 7 still answers widget messages while a cell sleeps, so a sleeping cell alone
    proves nothing: for the clicks the kernel process is also stopped (SIGSTOP), and the page
    must receive no widget message from it meanwhile.
    """
    before = check_slope_picture(explorer)
    jp.kernel_start(page, "import time\ntime.sleep(5)")
    page.wait_for_function(
        "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status"
        " === 'busy'",
        timeout=10_000,
    )
    with jp.kernel_frozen(page, servers["notebook"]):
        jp.record_kernel_messages(page)
        click(page, explorer, "gradkit-eps-down")
        click_toggle(explorer, "gradkit-dtype", "float32")
        click(page, explorer, "gradkit-x-up")
        click(page, explorer, "gradkit-x-up")
        jp.next_frame(page)
        after = jp.widget_state(explorer)
        running = jp.kernel_started_code_running(page)
        received = jp.kernel_messages(page)
    assert running, "the sleeping cell had finished when the picture was checked: no proof"
    assert "comm_msg" not in received, f"widget messages came from the kernel: {received}"
    assert after["drawn"]["eps"] != before["drawn"]["eps"], "eps ÷10 did not reach the picture"
    assert after["drawn"]["dtype"] == "float32", "the dtype switch did not reach the picture"
    assert abs(after["drawn"]["x"] - before["drawn"]["x"] - 0.1) < 1e-9, "x steps did not reach it"
    assert after["pixels"] != before["pixels"], "the canvas did not change"
    assert after["readouts"] != before["readouts"], "the readouts did not change"
    check_slope_picture(explorer, after)
    # once the kernel is free, Python agrees with what the browser shows, and nothing reverts
    jp.wait_quiet(page, 300, 30_000)
    final = check_slope_picture(explorer)
    told = "print(f'{explorer.eps_slider.value:.3g}', explorer.dtype_buttons.value)"
    told = jp.kernel_execute(page, told)["stdout"]
    jp.kernel_execute(page, "explorer.x_slider.value = 2.0")  # back where the other tests start
    shown = (final["drawn"]["eps"], final["drawn"]["dtype"])
    assert shown == (after["drawn"]["eps"], "float32"), (
        f"after the kernel caught up the picture went from {after['drawn']['eps']} float32 back"
        f" to {shown}; Python has {told.strip()}"
    )
    assert told.split() == [after["drawn"]["eps"], "torch.float32"], told


def test_a_typed_eps_held_back_while_the_kernel_is_stopped_is_answered_once_in(
    page, explorer, servers
) -> None:
    """ipywidgets holds a change back while an earlier one waits for the kernel; a request is
    never held back. With the kernel stopped, ×10 goes out, the typed eps after it is held back,
    and its numbers_at request overtakes it: the request names the typed eps and x, so its
    answer is for them whatever the kernel holds; the picture shows the typed eps (torch's
    numbers), the busy mark goes, and once the change is in Python reads the same eps."""
    with jp.kernel_frozen(page, servers["notebook"]):
        click(page, explorer, "gradkit-eps-up")
        box = explorer.locator("input.gradkit-eps-text").first
        box.fill("3e-7")
        box.press("Enter")
        jp.next_frame(page)
        assert jp.widget_state(explorer)["busy"], "the page did not wait for the kernel's numbers"
    wait_drawn(
        page,
        explorer,
        lambda state: float(state["drawn"]["eps"]) == 3e-7 and not state["busy"],
        "the typed eps never reached the picture after the kernel went on",
    )
    check_slope_picture(explorer)
    told = jp.kernel_execute(page, "print(f'{explorer.eps_slider.value:.3g}')")["stdout"]
    assert told.strip() == "3e-07", told
    jp.kernel_execute(page, "explorer.eps_slider.value = 1e-3")  # back where the other tests start


def test_numbers_equal_the_kernels_torch_values(page, explorer) -> None:
    """For random grid positions and dtypes, the slope the browser prints is, digit for digit,
    the kernel's own ``numeric_slope`` (torch, in that dtype) formatted as the readout does."""
    from gradkit._args import EPS_GRID

    seed = random.randrange(10**6)
    rng = random.Random(seed)
    shown = []
    for _ in range(8):
        index, dtype = rng.randrange(len(EPS_GRID)), rng.choice(DTYPES)
        jp.set_range(explorer, EPS_CSS, index)
        click_toggle(explorer, "gradkit-dtype", dtype)
        jp.next_frame(page)
        state = check_slope_picture(explorer)
        match = NUMERIC.search(state["readouts"]["gradkit-numeric"])
        shown.append((index, dtype, match.group(1), match.group(2)))
    code = (
        "from gradkit.numerics import numeric_slope\n"
        "from gradkit._args import EPS_GRID\n"
        "import math\n"
        "def fmt(v, spec):  # as the page writes numbers (format.js pyFormat)\n"
        "    return 'NaN' if math.isnan(v) else ('∞' if v > 0 else '−∞') if math.isinf(v)"
        " else format(v, spec)\n"
        "for index, dtype in " + repr([(i, d) for i, d, _, _ in shown]) + ":\n"
        "    try:\n"
        "        v = numeric_slope(explorer.f, explorer.x_slider.value, EPS_GRID[index],"
        " dtype=dtype, scheme='central')\n"
        "    except ValueError:  # eps rounds to 0 in the dtype: no slope can be measured\n"
        "        v = float('nan')\n"
        "    print(fmt(v, '.3f'), fmt(v, '.15g'))\n"
    )
    kernel = jp.kernel_execute(page, code)["stdout"].split("\n")
    for (index, dtype, short, full), line in zip(shown, kernel, strict=False):
        assert [short, full] == line.split(), (
            f"seed {seed}: eps {EPS_GRID[index]:.3g} in {dtype}: browser shows {short} = {full},"
            f" the kernel's torch value is {line}"
        )


def test_drag_across_the_eps_track_ends_on_the_final_picture(page, explorer) -> None:
    """A 1-second drag from one end of the eps track to the other ends on the picture of the
    last eps (1), and stays there once the kernel has caught up."""
    jp.drag_range(page, explorer, EPS_CSS, seconds=1.0)
    jp.next_frame(page)
    state = check_slope_picture(explorer)
    slider = state["sliders"][EPS_CSS]
    assert slider["value"] == slider["max"], f"the drag ended at grid {slider}"
    history = [entry["drawn"]["eps"] for entry in jp.drawn_history(explorer) if entry["drawn"]]
    assert len(set(history[-20:])) > 3, f"the picture did not follow the drag: {history[-20:]}"
    jp.wait_quiet(page, 500, 30_000)
    final = check_slope_picture(explorer)
    assert final["drawn"]["eps"] == state["drawn"]["eps"], "the picture moved after the drag"
    told = jp.kernel_execute(page, "print(f'{explorer.eps_slider.value:.3g}')")["stdout"].strip()
    assert told == state["drawn"]["eps"], f"Python has eps {told}, the page {state['drawn']}"


def _picture_mismatch(state: dict) -> str:
    """How the drawn picture disagrees with the eps and dtype controls ("" when it agrees)."""
    drawn = state["drawn"] or {}
    if "eps" in drawn and EPS_CSS in state["sliders"]:
        label = state["sliders"][EPS_CSS]["label"]
        if jp.eps_text(drawn["eps"]) != label:
            return f"showed eps {jp.eps_text(drawn['eps'])} while the slider said {label}"
    dtype = state["pressed"].get("gradkit-dtype")
    if "dtype" in drawn and dtype and drawn["dtype"] != dtype:
        return f"was drawn in {drawn['dtype']} while {dtype} was pressed"
    return ""


@pytest.mark.parametrize(
    "css", ["gradkit-epsilon-lab", "gradkit-float-ruler", "gradkit-gradcheck-lab"]
)
def test_other_widgets_move_eps_and_dtype_in_the_browser(page, css: str) -> None:
    """EpsilonLab, FloatRuler, GradcheckLab: ÷10 and a dtype switch change the drawn picture,
    and what is drawn names the eps and dtype the controls show."""
    root = page.locator(f".{css}").first
    root.scroll_into_view_if_needed()
    jp.wait_quiet(page, 200)
    before = jp.widget_state(root)
    assert before["found"] and before["drawn"], f"{css}: no drawn data on its figure"
    moves = []
    if root.locator(".gradkit-eps-down").count():
        moves.append(("eps ÷10", lambda: click(page, root, "gradkit-eps-down")))
    target = next(d for d in ("float32", "float64") if d != before["pressed"].get("gradkit-dtype"))
    if root.locator(f".gradkit-dtype button[data-value='{target}']").count():
        moves.append((f"dtype {target}", lambda: click_toggle(root, "gradkit-dtype", target)))
    assert moves, f"{css}: neither an eps ÷10 button nor a dtype switch"
    for name, move in moves:
        previous = jp.widget_state(root)
        move()
        jp.next_frame(page)
        state = jp.widget_state(root)
        mismatch = _picture_mismatch(state)
        if mismatch or state["drawn"] == previous["drawn"]:
            # say whether the picture catches up later (after a kernel round trip) or never
            later = "never"
            for waited in range(1, 151):
                page.wait_for_timeout(100)
                again = jp.widget_state(root)
                if again["drawn"] != previous["drawn"] and not _picture_mismatch(again):
                    later = f"only {waited * 100} ms later (from the kernel, not the table)"
                    break
            pytest.fail(
                f"{css}, {name}: right after the click the picture "
                f"{mismatch or 'had not changed'}; it matched the controls {later}"
            )
    assert page.errors == []


def test_gradcheck_lab_float32_fails_with_cause_precision(page, check_dtype_switch) -> None:
    lab = page.locator(".gradkit-gradcheck-lab").first
    check_dtype_switch(lab)
    expect(lab.locator(".gradkit-error")).to_be_empty()


def test_a_change_that_needs_a_new_scene_keeps_the_busy_mark_until_it_is_in(page, servers) -> None:
    """A typed atol needs a new scene from the kernel: each scene names the atol it was made for,
    and the page's busy mark stays until one for its atol has come (here: the kernel stopped,
    so the mark shows; then free, so it goes)."""
    lab = page.locator(".gradkit-gradcheck-lab").first
    lab.scroll_into_view_if_needed()
    jp.wait_quiet(page, 200)
    box = lab.locator("input.gradkit-atol").first
    with jp.kernel_frozen(page, servers["notebook"]):
        box.fill("0.001")
        box.press("Enter")
        jp.next_frame(page)
        assert jp.widget_state(lab)["busy"], "no busy mark while the kernel had not answered"
    page.wait_for_function(
        "(el) => !el.classList.contains('gk-is-busy')", arg=lab.element_handle(), timeout=30_000
    )
    told = jp.kernel_execute(page, "print(gradcheck_lab.atol_text.value)")["stdout"]
    assert told.strip() == "0.001", told
    jp.kernel_execute(page, "gradcheck_lab.atol_text.value = '1e-05'")  # back as it was


def test_typed_eps_off_the_grid_reaches_picture_and_readouts(page, explorer) -> None:
    """A typed eps off the grid (3e-7) goes to the kernel, which answers with exact values: the
    picture, the slider label and the readouts all show that eps."""
    type_eps(page, explorer, "3e-7")
    jp.wait_quiet(page, 200)
    check_slope_picture(explorer)


#: Run in the kernel: every comm message the SlopeExplorer's comm takes in (``up``) and sends
#: (``down``), as (method, the command's name or the traits it carries, number of buffers).
_WIRE_WATCH = """
_wire = {"up": [], "down": []}
def _wire_row(data, buffers):
    content = data.get("content") or {}
    name = content.get("name") if isinstance(content, dict) else None
    return (data.get("method"), name or sorted(data.get("state") or {}), len(buffers or []))
def _wire_in(msg, _handle=explorer._handle_msg):
    _wire["up"].append(_wire_row(msg["content"]["data"], msg.get("buffers")))
    return _handle(msg)
def _wire_out(data=None, metadata=None, buffers=None, _send=explorer.comm.send):
    _wire["down"].append(_wire_row(data or {}, buffers))
    return _send(data=data, metadata=metadata, buffers=buffers)
explorer.comm.on_msg(_wire_in)
explorer.comm.send = _wire_out
"""


def _wire(page) -> dict:
    """What went over the SlopeExplorer's comm since the last call (the kernel runs this after
    every message the page sent before it), and a fresh start."""
    code = "import json; print(json.dumps(_wire)); _wire['up'].clear(); _wire['down'].clear()"
    return json.loads(jp.kernel_execute(page, code)["stdout"])


def test_a_click_is_one_message_up_and_at_most_its_echo_back(page, explorer) -> None:
    """On the wire, as the issue measures it: an eps, dtype or x click is one update message up
    and at most ipywidgets' own echo back; a typed eps off the grid is that, one numbers_at
    command and one answer with one binary buffer (the numbers, packed as a scene's tables)."""
    jp.kernel_execute(page, _WIRE_WATCH)
    _wire(page)
    clicks = [
        ("eps ×10", lambda: click(page, explorer, "gradkit-eps-up")),
        ("dtype", lambda: click_toggle(explorer, "gradkit-dtype", "float32")),
        ("x +", lambda: click(page, explorer, "gradkit-x-up")),
        ("x −", lambda: click(page, explorer, "gradkit-x-down")),
    ]
    for what, act in clicks:
        act()
        jp.next_frame(page)
        wire = _wire(page)
        assert [row[0] for row in wire["up"]] == ["update"], (what, wire)
        assert [row[0] for row in wire["down"]] in ([], ["echo_update"]), (what, wire)
    type_eps(page, explorer, "7e-7")  # an eps no test asked before: the page keeps its answers
    wire = _wire(page)
    assert sorted(row[0] for row in wire["up"]) == ["custom", "update"], wire
    assert [row[1] for row in wire["up"] if row[0] == "custom"] == ["numbers_at"], wire
    commands = [row for row in wire["down"] if row[0] == "custom"]
    assert len(commands) == 1 and commands[0][2] == 1, wire  # one answer, one buffer
    assert len(wire["down"]) <= 2, wire  # and at most the echo of the update
    jp.kernel_execute(page, "explorer.comm.on_msg(explorer._handle_msg); del explorer.comm.send")
    jp.kernel_execute(
        page, "explorer.eps_slider.value = 1e-3; explorer.dtype_buttons.value = 'float64'"
    )
