"""Compute-ahead widgets and the browser/kernel state handshake, driven headless.

The browser's side of the handshake (static/base.js) sends ``values`` with ``__seq`` and
``__changed``; these tests send such updates the way the comm does (``set_state``) and check the
state Python ends in and what it sends back.
"""

from __future__ import annotations

import math
import random

import pytest
import torch

from gradkit._args import DTYPES, EPS_GRID, snap_eps
from gradkit.widgets import FloatRuler
from gradkit.widgets._ruler_table import FIELDS, ruler_cell


def _record_sent(widget) -> list[dict]:
    """Every state message the widget sends to the browser from now on."""
    sent: list[dict] = []
    original = widget._send

    def send(msg, buffers=None):
        sent.append(msg)
        return original(msg, buffers=buffers)

    widget._send = send
    return sent


def _browser_update(widget, local: dict, seq: int, changed: list[str]) -> None:
    """What static/base.js ctx.set sends: its local state, its seq and its unhandled keys."""
    widget.set_state({"values": {**local, "__seq": seq, "__changed": changed}})


# ------------------------------------------------------------------------------ the race


def test_a_stale_copy_in_a_later_message_never_undoes_a_newer_click(make):
    """÷10 then a dtype switch while the kernel is busy; the dtype message was built on an
    older copy of the state (a kernel echo with eps 0.001 arrived in between)."""
    w = make(FloatRuler, x=0.5, eps=1e-3, dtype="float64")
    start = dict(w.values)
    k = snap_eps(1e-3)
    sent = _record_sent(w)
    # 1. the ÷10 click: eps three grid steps down, its label and text box with it
    down = {"eps": k - 3, "eps_exact": None, "eps_label": "0.0001", "eps_text": "0.0001"}
    _browser_update(w, {**start, **down}, seq=1, changed=list(down))
    # 2. an older echo reached the browser model meanwhile; the dtype click carries that stale
    #    eps (0.001), but lists only the keys the browser changed and Python had not handled
    stale = {**start, "dtype": "float32"}
    _browser_update(w, stale, seq=2, changed=["dtype"])
    assert w.eps == 1e-4, f"the ÷10 click was lost: eps {w.eps} (want 0.0001)"
    assert w.dtype is torch.float32
    assert w.ack == 2
    assert w.values["eps_text"] == "0.0001" and w.values["eps_label"] == "0.0001"
    # what Python sent last for `values` is the newest state, never the stale eps
    last = [m["state"]["values"] for m in sent if "values" in m.get("state", {})][-1]
    assert last["eps"] == k - 3 and last["dtype"] == "float32", last
    assert "__changed" not in w.values


def test_an_older_whole_state_without_changed_keys_is_dropped(make):
    """A front end that sends the whole state: a message older than the last handled one is
    stale and changes nothing."""
    w = make(FloatRuler, x=0.5, eps=1e-3, dtype="float64")
    start = dict(w.values)
    k = snap_eps(1e-3)
    w.set_state({"values": {**start, "eps": k - 3, "eps_label": "0.0001", "__seq": 5}})
    assert w.eps == 1e-4 and w.ack == 5
    renders = w.render_count
    w.set_state({"values": {**start, "dtype": "float32", "__seq": 4}})  # older than ack 5
    assert w.eps == 1e-4, f"a stale message moved eps back to {w.eps}"
    assert w.dtype is torch.float64
    assert w.render_count == renders


def test_python_answers_carry_the_seq_they_answer(make):
    """The browser keeps a key local while its pending seq is newer than the __seq Python's
    values carry; Python's answer to seq n carries __seq n."""
    w = make(FloatRuler, x=0.5, eps=1e-3, dtype="float64")
    _browser_update(w, dict(w.values), seq=7, changed=[])
    assert w.values["__seq"] == 7 and w.ack == 7
    w.eps = 1e-5  # a change from Python keeps the seq it has seen
    assert w.values["__seq"] == 7


# ---------------------------------------------------------------------------- FloatRuler


def _ruler_cell_from_table(w, dtype: str, g: int) -> dict:
    """One cell of the FloatRuler table, read the way static/float_ruler.js reads it."""
    import numpy as np

    sc = w.scene
    table = np.frombuffer(w.table, dtype=np.float64)
    cell = sc["dtypes"].index(dtype) * sc["G"] + g
    numbers = dict(zip(sc["fields"], table[cell * sc["NF"] : (cell + 1) * sc["NF"]], strict=True))
    at, n = sc["view_at"][cell], sc["view_n"][cell]
    view = None if at < 0 else table[at : at + n].tolist()
    zat, zn = sc["zoom_at"][cell], sc["zoom_n"][cell]
    return {
        "numbers": numbers,
        "view": view,
        "zoom": table[zat : zat + zn].tolist(),
        "readouts": sc["readouts"][cell],
    }


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


@pytest.mark.parametrize("x", [0.5, 0.1, -3.0])
def test_float_ruler_table_equals_torch_for_random_grid_positions(make, x):
    w = make(FloatRuler, x=x)
    seed = random.randrange(10**6)
    rng = random.Random(seed)
    for _ in range(12):
        g = rng.randrange(len(EPS_GRID))
        name = rng.choice(list(DTYPES))
        eps, dtype = EPS_GRID[g], DTYPES[name]
        got = _ruler_cell_from_table(w, name, g)
        n = got["numbers"]
        # torch, in the dtype: x stored, eps stored, x ± eps computed there
        x_t = torch.tensor(x, dtype=dtype)
        h = torch.tensor(eps, dtype=torch.float64).to(dtype)
        lower, upper = float(x_t - h), float(x_t + h)
        up = torch.nextafter(x_t, torch.tensor(math.inf, dtype=dtype))
        ulp = float(up.double() - float(x_t))
        where = f"seed {seed}, x {x}, eps {eps:g}, {name}"
        assert n["x"] == float(x_t), f"{where}: x {n['x']!r} vs torch {float(x_t)!r}"
        assert n["h"] == float(h), f"{where}: h {n['h']!r} vs torch {float(h)!r}"
        assert (n["lower"], n["upper"]) == (lower, upper), (
            f"{where}: table lands on {n['lower']!r}, {n['upper']!r}; torch {lower!r}, {upper!r}"
        )
        assert n["ulp"] == ulp, f"{where}: ulp {n['ulp']!r} vs torch {ulp!r}"
        assert n["ulps_between"] == (upper - float(x_t)) / ulp, where
        assert bool(n["underflow"]) == (float(h) == 0.0), where
        assert bool(n["collapsed"]) == (lower == float(x_t) == upper), where
        # the zoom ticks are the representable numbers next to x, in ulps
        for tick in got["zoom"]:
            value = torch.tensor(float(x_t) + tick * ulp, dtype=torch.float64)
            assert float(value.to(dtype).double()) == float(value), f"{where}: tick {tick}"
        # and the whole cell (ticks and readouts) is what the kernel shows at that state
        cell = ruler_cell(x, eps, dtype)
        assert got["view"] == cell["view_ticks"], where
        assert got["zoom"] == cell["zoom_ticks"], where
        assert got["readouts"] == cell["readouts"], where
        assert all(_same(n[f], cell["numbers"][f]) for f in FIELDS), where


def test_float_ruler_eps_and_dtype_moves_need_no_render(make):
    w = make(FloatRuler, x=0.5, eps=1e-6, dtype="float32")
    renders, scene_id, table = w.render_count, w.scene_id, w.table
    sent = _record_sent(w)
    for move in (
        lambda: w.eps_down.click(),
        lambda: w.eps_up.click(),
        lambda: setattr(w.dtype_buttons, "value", torch.float16),
        lambda: setattr(w.eps_slider, "value", 1e-3),
        lambda: setattr(w.dtype_buttons, "value", "bfloat16"),
    ):
        move()
        assert w.error_area.value == ""
        # the readouts Python shows are the table's for that cell
        g, name = int(w.values["eps"]), w.values["dtype"]
        cell = _ruler_cell_from_table(w, name, g)
        assert w.landing_readout.value == cell["readouts"]["landing"]
    assert w.render_count == renders, f"{w.render_count - renders} renders on eps/dtype moves"
    assert w.scene_id == scene_id and w.table == table
    assert not any("png" in m.get("state", {}) or "table" in m.get("state", {}) for m in sent)
    w.x_slider.value = 0.25  # a new x is a new scene: one render, a new table
    assert w.render_count == renders + 1 and w.scene["x"] == 0.25


def test_float_ruler_typed_eps_off_the_grid_sends_exact_cells(make):
    w = make(FloatRuler, x=0.5, eps=1e-6, dtype="float32")
    renders = w.render_count
    w.eps_text.value = "3e-7"
    assert w.eps == 3e-7
    ex = w.exact
    assert ex["eps"] == 3e-7 and set(ex["cells"]) == set(DTYPES)
    for name, dtype in DTYPES.items():
        cell = ruler_cell(0.5, 3e-7, dtype)
        assert ex["cells"][name]["readouts"] == cell["readouts"], name
    assert w.render_count == renders
    w.eps_slider.value = 1e-6
    assert w.exact == {}
