"""Widget build time: kernel time from the constructor to the first picture, and to fully built.

The page draws everything from tables the kernel sends; the kernel's work is building them. For
each widget as the lessons build it: the constructor alone (what the first picture waits for:
work after the first picture is deferred, ``gradkit.widgets.base.schedule.deferring``), and the
deferred rest (the x positions around the current one, the lab's states one click away). The
anchor, measured in the same run, is the naive way to show one picture: a new matplotlib figure
rendered to PNG the way the inline backend does (``print_figure(..., bbox_inches="tight")``).
Goal: every first picture within 250 ms of kernel time (p95), in a warm kernel (the first widget
of a fresh process also pays torch's one-off start-up: the first autograd call, a GC pass). The
scene cache is off here: the figures are torch's work (``benchmarks.classroom`` times the cache).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable

import torch
from IPython.core.pylabtools import print_figure
from matplotlib.figure import Figure

import gradkit.widgets
from gradkit.widgets.base.schedule import deferring, run_pending

from . import Row, summarize

__all__ = ["run"]

FIRST_PICTURE_MS = 250.0
_ANCHOR = "new matplotlib figure + inline PNG"

#: How the lessons build the widgets that need arguments; any other widget of
#: ``gradkit.widgets.__all__`` (a new family's too) is built with none.
ARGUMENTS: dict[str, tuple[tuple, dict]] = {
    "EpsilonLab": ((), {"f": "x³", "x": 0.5}),
    "ExercisePanel": (("cube",), {}),
    "GradcheckLab": (("WrongSquareFn",), {}),
    "Quiz": (("03-bfloat16-collapse",), {}),
    "Predict": (("03-float32-slope",), {"compute": lambda: 1.0}),
}


def _case(name: str) -> tuple[str, Callable[[], object]]:
    """(``name(arguments)`` as written, a maker) for the widget class ``name``."""
    args, kwargs = ARGUMENTS.get(name, ((), {}))
    shown = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items() if not callable(v)]
    cls = getattr(gradkit.widgets, name)
    return f"{name}({', '.join(shown)})", lambda: cls(*args, **kwargs)


#: Every widget, as the lessons build it.
CASES: list[tuple[str, Callable[[], object]]] = [_case(n) for n in gradkit.widgets.__all__]


def _naive_picture() -> None:
    fig = Figure(figsize=(8.6, 3.8), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    t = torch.linspace(0.5, 3.5, 200, dtype=torch.float64)
    ax.plot(t.numpy(), (t * t).numpy())
    ax.set_title("f(x) = x² near 2")
    print_figure(fig, "png", bbox_inches="tight")


def _builds(make: Callable[[], object], repeat: int) -> tuple[list[float], list[float]]:
    """(first picture, the deferred rest) in ms, ``repeat`` builds after one warm-up build."""
    first, rest = [], []
    for i in range(repeat + 1):
        with deferring(True):
            start = time.perf_counter()
            widget = make()
            built = time.perf_counter()
            run_pending()
            done = time.perf_counter()
        widget.close()
        if i:  # the first build warms this widget's code paths up
            first.append((built - start) * 1000)
            rest.append((done - built) * 1000)
    return first, rest


def _row(name: str, samples: list[float], anchor: list[float], goal: bool) -> Row:
    median, p95 = summarize(samples)
    a_median, a_p95 = summarize(anchor)
    aim = f"p95 <= {FIRST_PICTURE_MS:g} ms" if goal else "(after the picture)"
    met = p95 <= FIRST_PICTURE_MS if goal else None
    return Row("widgets", name, median, p95, _ANCHOR, a_median, a_p95, aim, met)


def run(full: bool, device: str) -> list[Row]:
    """Median and p95 of 5 builds per widget (20 with ``full``), beside the naive anchor.

    ``device`` is ignored: widgets build in the kernel, on the CPU.
    """
    del device
    repeat = 20 if full else 5
    cache = os.environ.get("GRADKIT_CACHE")
    os.environ["GRADKIT_CACHE"] = "off"  # torch's work itself (the classroom suite times the cache)
    try:
        return _run(repeat)
    finally:
        if cache is None:
            os.environ.pop("GRADKIT_CACHE")
        else:
            os.environ["GRADKIT_CACHE"] = cache


def _run(repeat: int) -> list[Row]:
    _naive_picture()  # warm matplotlib up, as the widgets were
    anchor = []
    for _ in range(repeat):
        start = time.perf_counter()
        _naive_picture()
        anchor.append((time.perf_counter() - start) * 1000)
    rows = []
    for name, make in CASES:
        first, rest = _builds(make, repeat)
        rows.append(_row(f"{name}: first picture", first, anchor, True))
        if max(rest) > 1.0:  # some widgets defer nothing
            rows.append(_row(f"{name}: the rest", rest, anchor, False))
    return rows
