"""The controls every widget builds the same way: toggles, drop-downs, sliders, buttons, and the
shared rows (dtype, scheme, eps with ÷10 / ×10 and a typed box).

Each maker registers a :class:`~.controls.Control` on the widget and sets the state trait of its
name (declared on the widget's class) to its first value; :meth:`~.host.GradkitWidget.layout`
sends the specs to the page.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import torch
import traitlets

from ..._args import DTYPES, EPS_MAX, EPS_MIN, WIDGET_SCHEMES
from ...numerics import unit_roundoff
from .controls import Control, Slider, grid_value
from .eps import eps_label, eps_of, eps_state

if TYPE_CHECKING:
    from .host import GradkitWidget

__all__ = [
    "DTYPE_TIPS",
    "EpsDtypeTraits",
    "button",
    "checkbox",
    "dropdown",
    "dtype_toggle",
    "eps_row",
    "scheme_toggle",
    "slider",
    "text",
    "toggle",
]

#: The tooltip of each dtype button: bits and unit roundoff.
DTYPE_TIPS: dict[str, str] = {
    name: f"{name}: {torch.finfo(dt).bits} bits, unit roundoff u = {unit_roundoff(dt):.2g}"
    + (" (gradcheck's dtype)" if name == "float64" else "")
    for name, dt in DTYPES.items()
}

#: The numeric slope of each scheme, and how its truncation error shrinks.
SCHEME_TIPS: dict[str, str] = {
    "central": "(f(x+eps) − f(x−eps)) / (2·eps): truncation error ∝ eps²",
    "forward": "(f(x+eps) − f(x)) / eps: truncation error ∝ eps",
}


def _spec(kind: str, name: str, label: str, css: str, **more: Any) -> dict:
    """The parts every labelled control's spec has, then its own."""
    return {"kind": kind, "name": name, "label": label, "css": css, **more}


def _step_buttons(w: GradkitWidget, parts: Sequence[dict], instead: str) -> None:
    """The down / up buttons beside a slider (``parts``: ``name``, ``css``, ``label``,
    ``tooltip``): the page moves by itself (``stepped`` in ``controls.js``); from Python,
    ``.click()`` raises a TypeError naming ``instead``, the value to set."""
    for part in parts:
        spec = {"kind": "button", "name": part["name"], "text": part["label"]}
        spec.update(css=part["css"], tooltip=part["tooltip"])
        click = _page_only(w, part["name"], [instead])
        w.add_control(Control(w, spec, click=click), has_value=False)


def toggle(  # noqa: PLR0913 - one keyword per part of the page's toggle spec
    w: GradkitWidget,
    name: str,
    options: Sequence[tuple[str, Any]] | Sequence[str],
    *,
    value: Any,
    label: str = "",
    css: str = "",
    tooltips: Sequence[str] = (),
    scene: bool = False,
    also: Mapping[str, Any] | None = None,
) -> Control:
    """Toggle buttons, one of several; options are labels or ``(label, value)`` pairs.

    ``also``: what a change of it in the page sets too (``{name: value}``, in the same message);
    Python's own changes follow the family's observers."""
    pairs = [o if isinstance(o, tuple) else (o, o) for o in options]
    spec = _spec("toggle", name, label, css, scene=scene, options=[p[0] for p in pairs])
    spec["tooltips"] = list(tooltips)
    if also:
        spec["also"] = dict(also)
    c = Control(w, spec, pairs)
    return w.add_control(c, None if value is None else c.to_state(value))


def dropdown(  # noqa: PLR0913 - one keyword per part of the page's drop-down spec
    w: GradkitWidget,
    name: str,
    options: Sequence[str],
    *,
    value: str,
    label: str = "",
    css: str = "",
    tooltip: str = "",
    kernel: bool = True,
    also: Mapping[str, Any] | None = None,
) -> Control:
    """A drop-down of labels; ``kernel``: choosing one needs the kernel (a new scene);
    ``also``: what a choice in the page sets too (``{name: value}``, in the same message: a new
    specimen clears the prediction); Python's own changes follow the family's observers."""
    spec = _spec("dropdown", name, label, css, tooltip=tooltip, options=list(options))
    spec.update(scene=kernel, kernel=kernel)
    if also:
        spec["also"] = dict(also)
    return w.add_control(Control(w, spec, [(o, o) for o in options]), value)


def slider(  # noqa: PLR0913 - one keyword per part of the page's slider spec
    w: GradkitWidget,
    name: str,
    *,
    value: float,
    origin: float,
    step: float,
    lo: int,
    hi: int,
    label: str = "",
    css: str = "",
    tooltip: str = "",
    scene: bool = True,
    continuous: bool = True,
    steps: tuple[dict, dict] | None = None,
    fmt: str = ".6g",
) -> Control:
    """A slider over ``origin + k * step`` for whole k in lo … hi: its state trait holds the
    position k (starting at the one nearest ``value``), the page shows ``spec["values"]``.

    ``steps``: optional (down, up) buttons ``{name, css, label, tooltip}`` moving one step.
    """
    grid = {"origin": origin, "step": step}
    spec = _spec("slider", name, label, css, tooltip=tooltip, **grid, lo=lo, hi=hi, scene=scene)
    spec.update(continuous=continuous, short=True, format=fmt)
    # the page shows a position's value from this list and never makes the sum itself
    spec["values"] = [grid_value(grid, k) for k in range(lo, hi + 1)]
    made = Slider(w, spec)
    w.add_control(made, made.to_state(value))
    if steps is not None:
        spec["down"], spec["up"] = steps
        _step_buttons(w, steps, name)
    return made


def text(
    w: GradkitWidget,
    name: str,
    *,
    value: str,
    label: str = "",
    css: str = "",
    tooltip: str = "",
    placeholder: str = "",
) -> Control:
    """A text box (sent on Enter or when it loses focus); Python reads the text, so what it
    shows comes in a new scene."""
    spec = _spec("text", name, label, css, tooltip=tooltip, placeholder=placeholder)
    spec.update(kernel=True, scene=True)
    return w.add_control(Control(w, spec), value)


def checkbox(
    w: GradkitWidget, name: str, *, value: bool, text: str, css: str = "", tooltip: str = ""
) -> Control:
    """A check box with its text."""
    spec = {"kind": "checkbox", "name": name, "text": text, "css": css, "tooltip": tooltip}
    return w.add_control(Control(w, spec), bool(value))


def button(  # noqa: PLR0913 - one keyword per form of the page's button spec
    w: GradkitWidget,
    name: str,
    text: str,
    *,
    css: str = "",
    tooltip: str = "",
    sets: tuple[str, Any] | None = None,
    unsets: tuple[list, dict[str, Any]] | None = None,
    pressed_text: str | None = None,
    counts: tuple[str, int] | None = None,
    texts: Mapping[int, str] | None = None,
    by_page: Sequence[str] = (),
) -> Control:
    """A button: a click goes to the kernel (``on_click``), or the page makes the change itself
    in one of these forms (Python sets the values instead: ``.click()`` raises a TypeError saying
    which).

    - ``sets=(key, value)``: sets that state; the button hides once it holds. With
      ``unsets=(value, also)`` it is a toggle (``aria-pressed``): pressed again it sets the list
      ``value`` and each key of ``also`` whose state is not in that list to its fallback;
      ``pressed_text`` is its label while pressed.
    - ``counts=(key, last)``: a counter of the declared whole-number trait ``key``, from 0 up to
      ``last`` (then disabled); ``texts={count: label}`` is its label at those counts.
    - ``by_page=(key, ...)``: the family's view presses it (``view.press(ctx, name)``), setting
      those values.
    """
    forms = [f for f, given in (("sets", sets), ("counts", counts), ("by_page", by_page)) if given]
    if len(forms) > 1:
        raise ValueError(f"button {name!r}: give one of sets=, counts= and by_page=, not {forms}")
    if unsets is not None and sets is None:
        raise ValueError(f"button {name!r}: unsets= needs sets= (the value it toggles from)")
    if pressed_text is not None and unsets is None:
        raise ValueError(f"button {name!r}: pressed_text= is for a toggle (give unsets= too)")
    if texts is not None and counts is None:
        raise ValueError(f"button {name!r}: texts= is for a counter (give counts= too)")
    spec = {"kind": "button", "name": name, "text": text, "css": css, "tooltip": tooltip}
    spec["kernel"] = not forms
    if sets is not None:
        spec["set"] = list(sets)
    if unsets is not None:
        spec["unset"] = [list(unsets[0]), dict(unsets[1])]
    if pressed_text is not None:
        spec["pressed_text"] = pressed_text
    if counts is not None:
        return _counter(w, spec, counts, texts or {})
    if by_page:
        spec["by_page"] = True
    keys = list(by_page) or ([sets[0]] if sets is not None else [])
    click = _page_only(w, spec["name"], keys) if keys else None
    return w.add_control(Control(w, spec, click=click), has_value=False)


def _counter(w: GradkitWidget, spec: dict, counts: tuple[str, int], texts: Mapping) -> Control:
    key, last = counts
    if isinstance(last, bool) or not isinstance(last, int) or last < 0:
        raise ValueError(f"button {spec['name']!r}: counts=(key, last) needs a whole last >= 0")
    wrong = [
        k for k in texts if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k <= last
    ]
    if wrong:
        raise ValueError(f"button {spec['name']!r}: texts= keys must be counts 0 … {last}: {wrong}")
    spec["count"] = [key, last]
    spec["texts"] = {str(k): str(v) for k, v in texts.items()}  # JSON's keys are texts
    w.start_value(key, 0, "count")
    return w.add_control(
        Control(w, spec, click=_page_only(w, spec["name"], [key])), has_value=False
    )


def _page_only(
    w: GradkitWidget, name: str, keys: Sequence[str], what: str = "a button the page presses"
) -> Callable[..., None]:
    """``.click()`` of a button only the page presses, or the setter of a box only the page
    reads (the rule has one copy, the page's: ``buttonPress`` or ``stepped`` in
    ``controls.js``, ``parseEps`` in ``eps.js``, the view's ``press``): a TypeError naming the
    values Python sets instead."""
    values = " and ".join(f"w.{key}" for key in keys)
    words = f"{name!r} is {what}; from Python set {values} instead"

    def refuse(*_args: Any) -> None:
        raise TypeError(f"{type(w).__name__}: {words}")

    return refuse


def dtype_toggle(w: GradkitWidget, value: torch.dtype, label: str = "dtype") -> Control:
    """float64 / float32 / float16 / bfloat16, each with its unit roundoff in the tooltip."""
    tips = [DTYPE_TIPS[n] for n in DTYPES]
    return toggle(
        w,
        "dtype",
        list(DTYPES.items()),
        value=value,
        label=label,
        css="gradkit-dtype",
        tooltips=tips,
    )


def scheme_toggle(w: GradkitWidget, value: str) -> Control:
    """central / forward, each with its formula in the tooltip."""
    tips = [SCHEME_TIPS[s] for s in WIDGET_SCHEMES]
    return toggle(
        w,
        "scheme",
        list(WIDGET_SCHEMES),
        value=value,
        label="scheme",
        css="gradkit-scheme",
        tooltips=tips,
    )


class EpsDtypeTraits(traitlets.HasTraits):
    """The values of the eps row (:func:`eps_row`) and the dtype buttons (:func:`dtype_toggle`),
    for a widget class that shows them (mixed in after :class:`~.host.GradkitWidget`)."""

    eps = traitlets.Int(
        help="eps's position on the grid EPS_GRID (a typed eps off the grid: the nearest)"
    ).tag(sync=True, state=True)
    eps_exact = traitlets.Float(
        None, allow_none=True, help="a typed eps off the grid, exactly; None on the grid"
    ).tag(sync=True, state=True)
    dtype = traitlets.Enum(
        list(DTYPES), "float64", help="the dtype's name (the torch dtype: dtype_buttons.value)"
    ).tag(sync=True, state=True)


def eps_row(w: GradkitWidget, eps: float) -> tuple[Control, Control]:
    """eps on the grid with ÷10 / ×10 (``eps_down``, ``eps_up``) and a typed box.

    The page moves along the grid and reads typed text by itself (``eps.js``); a typed eps off
    the grid is kept exactly (the value ``eps_exact``) and measured by the kernel. Returns
    (slider, text box): the slider's ``.value`` is the float eps (set, any eps in range, kept
    exactly: :func:`~.eps.eps_state`), the box's the eps as it prints.
    """
    down = {"css": "gradkit-eps-down", "label": "÷10", "tooltip": "make eps 10 times smaller"}
    up = {"css": "gradkit-eps-up", "label": "×10", "tooltip": "make eps 10 times larger"}
    tip = f"the nudge eps, on a log scale ({EPS_MIN:g} … {EPS_MAX:g})"
    spec = _spec("grid", "eps", "eps", "gradkit-eps", tooltip=tip, short=True, aria="eps")
    spec.update(down=down, up=up)

    def write(value: float) -> None:
        w.update_state(eps_state(value))

    state = eps_state(eps)
    made = Control(w, spec, read=lambda: eps_of(w.state), write=write)
    w.add_control(made, state["eps"])
    w.start_value("eps_exact", state["eps_exact"])
    instead = "eps_slider.value"
    _step_buttons(w, [{"name": "eps_down", **down}, {"name": "eps_up", **up}], instead)
    tip = "type eps (e.g. 1e-6) and press Enter"
    box = _spec("text", "eps_text", "type eps", "gradkit-eps-text", tooltip=tip, parse="eps")
    box["placeholder"] = "e.g. 1e-6"
    typed = _page_only(w, "eps_text", [instead], "a box the page reads")
    shown = Control(w, box, read=lambda: eps_label(eps_of(w.state)), write=typed)
    return made, w.add_control(shown, has_value=False)
