"""The gradkit widget base: one anywidget whose browser side draws what moves.

A gradkit widget is an :class:`anywidget.AnyWidget` (so an ipywidgets ``DOMWidget``: it composes in
``VBox``, works in Voila) whose ES module is ``static/base.js`` followed by one view file
``static/<view>.js``; the theme is ``static/gradkit.css`` (and :data:`THEME` for matplotlib).

Guide for a new widget (Quiz, Predict, JacobianBuilder, ExercisePanel, ZooHunt)
--------------------------------------------------------------------------------
Python side::

    class Quiz(GradkitWidget):
        css = "gradkit-quiz"            # root CSS hook (added with gradkit-widget)
        view = "generic"                # static/generic.js: controls + readouts + image, no overlay

        def __init__(self, ...):
            super().__init__()
            with self._building():     # a failing constructor closes what it opened
                self.choice_buttons = self.toggle("choice", ["a", "b"], label="answer",
                                                  css="gradkit-choice", value=None)
                self.check_button = self.button("check", "Check", css="gradkit-check")
                self.feedback_html = self.readout("feedback", "gradkit-feedback")
                self.choice_buttons.observe(lambda change: self._answered())
                self._layout("Quiz", "a question", [self.choice_buttons, self.check_button],
                             [self.feedback_html])

- Controls are Python handles onto the synced ``values`` dict (``.value``, ``.click()``,
  ``.observe(fn)``, ``.disabled``, ``.hidden``, ``.options``, ``_dom_classes``), made with
  :meth:`GradkitWidget.toggle`, :meth:`~GradkitWidget.dropdown`, :meth:`~GradkitWidget.slider`,
  :meth:`~GradkitWidget.text`, :meth:`~GradkitWidget.checkbox`, :meth:`~GradkitWidget.button`,
  and the shared eps / x rows :meth:`~GradkitWidget._make_eps_controls`,
  :meth:`~GradkitWidget._make_x_controls`. Every callback runs through :meth:`guard`: an exception
  is shown in ``error_area`` (CSS ``gradkit-error``), never lost; ``last_error`` keeps it.
- Readouts (:meth:`readout`) are HTML strings in ``readout_html``; ``.value`` reads and writes them.
- A picture: ``self._stage = Stage(self, (8.6, 3.8))``; draw on ``self._stage.figure`` with
  matplotlib; ``self._stage.redraw()`` re-renders the PNG once at the end of the current callback
  (``render_count`` counts renders). Artists marked animated (``artist.set_animated(True)``) stay
  out of the PNG: the browser view draws them from ``table`` / ``scene`` / ``exact``.
- ``busy``: set True while a long computation runs (the browser also shows the busy mark from a
  scene-changing control until Python acknowledges it in ``ack``).
- Control spec extras (``control.spec[...]``): ``scene=True`` (the kernel must answer: busy mark
  until it does), ``shown_key`` (a toggle shows only the options listed in ``values[key]``),
  ``set=[key, value]`` on a button (the browser sets ``values[key]`` itself, no kernel message;
  the button hides once it holds that value: EpsilonLab's reveal button).
- Each JSON trait must be NaN-free: pass dicts through :func:`json_safe` (NaN becomes null).
- Python tests drive everything through the handles; ``w.values``, ``w.readout_html``,
  ``w.render_count``, ``w.scene`` and ``w.table`` are what the browser gets.

Browser side (``static/<view>.js``), with the helpers of ``base.js``::

    VIEWS.myview = {
      init(ctx) {},                        // once
      paint(ctx) {                         // after every change; no kernel message needed
        const ax = ctx.axes("main");       // data -> CSS pixels (ax.px(x), ax.py(y))
        ctx.draw.line(ax, xs, ys, {color: "#D55E00", lw: 2});
        ctx.drawn.secant = [...];          // published as data-drawn on .gradkit-figure
        return {numeric: "<b>4.000</b>"};  // readouts (or null: Python's readout_html)
      },
    };

Also ``scene(ctx)``: called when a new static picture arrives (``scene_id`` changed), e.g. to
take the readouts that belong to it (``generic.js`` does). ``ctx.values`` is the local control
state, ``ctx.set(name, value, {scene})`` changes it, paints at once and syncs it to Python
(``model.save_changes``); Python's answer for a key never overwrites a newer local change (the
``__seq`` / ``ack`` handshake). The handshake: every browser change gets the next ``__seq``;
the browser sends its own state (never a copy of the model's, which an older kernel update
may have overwritten) with ``__seq`` and ``__changed`` (the keys it changed that Python has not
handled yet); :meth:`GradkitWidget.set_state` applies only those keys onto Python's values, and
Python's values carry the ``__seq`` they answer, so a key stays local in the browser while its
change is newer than that (or than ``ack``). The browser's latest user action always wins.
``ctx.table`` is the scene's precomputed float64 table (``table``
trait, layout in ``scene``), ``ctx.scene`` the scene dict, ``ctx.draw`` the canvas helpers
(``line``, ``markers``, ``xspan``, ``vline``, ``text``, ``yticks``), ``ctx.h`` a DOM helper,
``ctx.pyFormat(v, ".3g")`` Python's format() for e/f/g specs.

What a browser test can read on the ``.gradkit-figure`` element: ``data-drawn`` (JSON: what the
view drew, in data units and CSS pixels of the image; for kernel-drawn pictures the ``drawn``
dict Python put in ``scene``), ``data-values`` (the control state it was drawn for),
``data-scene`` (``scene_id``), ``data-renders`` (static renders so far) and ``data-axes`` (JSON
list, one entry per named Axes: ``name``, ``box`` [left, top, width, height] in CSS pixels of the
image, ``xlim``, ``ylim``, ``xscale``, ``yscale``). Wherever ``data-drawn`` has ``eps`` (a view
may publish the number or its label), base.js adds ``eps_value`` (the number) and ``eps_label``
(as the controls print it, e.g. ``1e-07``). The root element
gets the class ``gk-is-busy`` while the kernel works on a scene.
"""

from __future__ import annotations

import contextlib
import functools
import html
import io
import math
import traceback
import weakref
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import anywidget
import ipywidgets as widgets
import numpy as np
import torch
import traitlets
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .._args import (
    DTYPES,
    EPS_GRID,
    EPS_MAX,
    EPS_MIN,
    as_dtype,
    check_control_eps,
    snap_eps,
)
from .._args import check_x as _check_x
from ..numerics import unit_roundoff
from ..zoo import scalar_functions

__all__ = [
    "EPS_GRID",
    "THEME",
    "Control",
    "GradkitWidget",
    "InputError",
    "Readout",
    "Stage",
    "eps_label",
    "fmt",
    "fmt_eps",
    "fmt_plain",
]

STATIC = Path(__file__).parent / "static"

#: The theme for matplotlib; the same colours as the CSS variables of static/gradkit.css.
THEME: dict[str, str] = {
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "green": "#009E73",
    "pink": "#CC79A7",
    "orange": "#E69F00",
    "sky": "#56B4E9",
    "grey": "#777777",
    "ink": "#222222",
    "muted": "#555555",
    "error": "#B3261E",
    "pass": "#1B7F3B",
    "paper": "#FFFFFF",
    "line": "#D0D0D0",
    "font": "DejaVu Sans",
}

_DTYPE_TIPS = {
    name: f"{name}: {torch.finfo(dt).bits} bits, unit roundoff u = {unit_roundoff(dt):.2g}"
    + (" (gradcheck's dtype)" if name == "float64" else "")
    for name, dt in DTYPES.items()
}


_SMALLER, _LARGER = "make eps 10 times smaller", "make eps 10 times larger"


class InputError(ValueError):
    """A value typed into a control that cannot be used; shown without a traceback."""


# ------------------------------------------------------------------------------ formatting


def eps_label(index: int) -> str:
    """The grid eps at ``index`` exactly as the controls show it: ``1e-07``, ``0.001``."""
    return fmt_eps(EPS_GRID[index])


def fmt_eps(eps: float) -> str:
    """eps the way a learner types it: ``1e-06``, ``3.16e-07``, ``0.001``."""
    return f"{eps:.3g}"


def fmt_plain(value: float) -> str:
    """A number written out without exponent, e.g. 1e-06 -> 0.000001."""
    if not math.isfinite(value):
        return str(value)
    return np.format_float_positional(value, trim="-")


def fmt(value: float, spec: str = ".3g") -> str:
    """A number for a readout; NaN and inf spelled out (static/base.js pyFormat does the same)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return format(value, spec)


def readout_html(label: str, value: str, detail: str = "") -> str:
    """Label, value and a grey detail, the shared readout layout."""
    extra = f" <span class='gk-r-detail'>{detail}</span>" if detail else ""
    return f"<span class='gk-r-label'>{label}</span>&nbsp; <b>{value}</b>{extra}"


def parse_positive(text: str, name: str, lo: float, hi: float) -> float:
    """Parse a typed number such as ``1e-6``; raise InputError with a clear message otherwise."""
    cleaned = str(text).strip().replace("−", "-").replace(" ", "")
    try:
        value = float(cleaned)
    except ValueError:
        raise InputError(
            f"{name} must be a number written like 1e-6 or 0.001; “{html.escape(str(text))}” "
            "is not one"
        ) from None
    if not math.isfinite(value) or not lo <= value <= hi:
        raise InputError(f"{name} must be between {lo:g} and {hi:g}; got {cleaned}")
    return value


def check_eps(eps: object) -> float:
    """Validate an eps argument (a number in 1e-12 … 1)."""
    return check_control_eps(eps)


def check_x(x: object) -> float:
    """Validate an x argument (a finite number)."""
    return _check_x(x)


def dtype_value(dtype: torch.dtype | str, argument: str = "dtype") -> torch.dtype:
    """Validate a dtype given as torch.float32 or "float32"."""
    return as_dtype(dtype, argument)


def function_options(f: Callable | str | None, default: str) -> tuple[dict[str, Callable], str]:
    """The function menu: the built-in scalar functions, plus the learner's own f first.

    An ``autograd.Function`` subclass is used through its ``apply`` (its backward is the slope).
    """
    options = dict(scalar_functions())
    if f is None:
        return options, default
    if isinstance(f, str):
        if f not in options:
            raise ValueError(f"f={f!r} is not one of {list(options)}; or pass a function of x")
        return options, f
    if isinstance(f, type) and issubclass(f, torch.autograd.Function):
        return {f"your {f.__name__}": f.apply, **options}, f"your {f.__name__}"
    if not callable(f):
        raise TypeError(
            f"f must be a function of a tensor (e.g. torch.sin), got {type(f).__name__}"
        )
    owner = getattr(f, "__self__", None)
    if isinstance(owner, type) and issubclass(owner, torch.autograd.Function):
        return {f"your {owner.__name__}": f, **options}, f"your {owner.__name__}"
    name = getattr(f, "__name__", "") or ""
    label = "your f" if not name or name == "<lambda>" else f"your {name}"
    return {label: f, **options}, label


def json_safe(value: Any) -> Any:
    """``value`` with every NaN or infinite float replaced by None (JSON has no NaN)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if isinstance(value, np.ndarray):
        return json_safe(value.tolist())
    if isinstance(value, np.generic):
        return json_safe(value.item())
    return value


def is_custom_function(f: Callable) -> bool:
    """Whether ``f`` is an ``autograd.Function``'s ``apply`` (its backward gives the slope)."""
    owner = getattr(f, "__self__", None)
    return isinstance(owner, type) and issubclass(owner, torch.autograd.Function)


# ------------------------------------------------------------------------- re-run bookkeeping

_BY_CELL: dict[str, tuple[str, list[weakref.ref]]] = {}


def _cell_context() -> tuple[str, str, Sequence[str]] | None:
    """(cell id, execution message id, deleted cell ids) of the running notebook cell, if any."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipywidgets
        return None
    ip = get_ipython()
    kernel = getattr(ip, "kernel", None)
    if kernel is None or not hasattr(kernel, "get_parent"):
        return None
    try:
        parent = kernel.get_parent("shell") or {}
    except Exception:  # noqa: BLE001 - an unusual kernel: no bookkeeping
        return None
    metadata = parent.get("metadata") or {}
    cell = metadata.get("cellId")
    run = (parent.get("header") or {}).get("msg_id")
    if not cell or not run:
        return None
    return str(cell), str(run), tuple(metadata.get("deletedCells") or ())


def _register(panel: Any) -> None:
    """Close what this cell's previous run created (and what deleted cells created)."""
    context = _cell_context()
    if context is None:
        return
    cell, run, deleted = context
    for gone in deleted:
        _close_refs(_BY_CELL.pop(gone, ("", []))[1])
    previous = _BY_CELL.get(cell)
    if previous is None or previous[0] != run:
        if previous is not None:
            _close_refs(previous[1])
        _BY_CELL[cell] = (run, [])
    _BY_CELL[cell][1].append(weakref.ref(panel))


def _close_refs(refs: list[weakref.ref]) -> None:
    for ref in refs:
        panel = ref()
        if panel is not None:
            panel.close()


# ------------------------------------------------------------------------------ error area


class _GuardMixin:
    """guard / show_error / clear_error (the error area of every widget)."""

    _depth = 0
    _closed = False

    def _set_error_html(self, value: str) -> None:
        raise NotImplementedError

    def _error_html(self) -> str:
        raise NotImplementedError

    def _after_outermost(self) -> None:
        """Hook run when the outermost guarded callback ends."""

    def guard(self, fn: Callable) -> Callable:
        """Wrap a callback: its errors go to the error area instead of being lost.

        The outermost callback of a change clears the area first; callbacks it triggers only add
        errors, so an inner error is never wiped by an outer success.
        """

        @functools.wraps(fn)
        def run(*args, **kwargs):
            if self._closed:
                return None
            if self._depth == 0:
                self.clear_error()
            self._depth += 1
            try:
                return fn(*args, **kwargs)
            except Exception as error:  # noqa: BLE001 - shown to the learner, never lost
                self.show_error(error)
                return None
            finally:
                self._depth -= 1
                if self._depth == 0 and not self._closed:
                    self._after_outermost()

        return run

    def show_error(self, error: BaseException) -> None:
        """Show a short message for ``error`` in the error area."""
        self.last_error = error
        self.last_traceback = "".join(
            traceback.format_exception(type(error), error, error.__traceback__)
        )
        lines = str(error).strip().splitlines()
        first = lines[0] if lines else ""
        if len(first) > 300:
            first = first[:297] + "…"
        if isinstance(error, InputError):  # a typing slip or a domain message: it says it all
            message, details = first, ""
        else:
            message = f"{type(error).__name__}: {html.escape(first)}"
            details = (
                "<details><summary>traceback</summary>"
                f"<pre>{html.escape(self.last_traceback)}</pre></details>"
            )
        self._set_error_html(
            "<div role='alert' class='gk-alert' style='color:#B3261E;border-left:4px solid "
            "#B3261E;padding:2px 8px;margin:4px 0'>"
            f"<b>Could not update:</b> {message}"
            "<br><span class='gk-r-detail'>The widget still works: change a control to go on."
            f"</span>{details}</div>"
        )

    def clear_error(self) -> None:
        """Empty the error area."""
        if self._error_html():
            self._set_error_html("")


# --------------------------------------------------------------------------------- handles


class _Handle:
    """What every Python handle onto a browser-side part has: CSS classes and a description."""

    def __init__(self, owner: GradkitWidget, name: str, css: str, description: str = "") -> None:
        self._owner = owner
        self.name = name
        self.description = description
        self._dom_classes: tuple[str, ...] = (css,) if css else ()

    def add_class(self, css: str) -> None:
        """Add a CSS class (kept for API compatibility; the browser side uses the spec's)."""
        self._dom_classes = (*self._dom_classes, css)


class Readout(_Handle):
    """A readout line (CSS class ``gradkit-readout`` plus its own); ``.value`` is its HTML."""

    def __init__(self, owner: GradkitWidget, name: str, css: str) -> None:
        super().__init__(owner, name, css)
        self._dom_classes = ("gradkit-readout", css)

    @property
    def value(self) -> str:
        """The HTML shown."""
        return self._owner.readout_html.get(self.name, "")

    @value.setter
    def value(self, html_text: str) -> None:
        if self.value != html_text:
            self._owner.readout_html = {**self._owner.readout_html, self.name: html_text}


class ErrorArea(_Handle):
    """The widget's error area (CSS ``gradkit-error``); ``.value`` is its HTML, empty when fine."""

    def __init__(self, owner: GradkitWidget) -> None:
        super().__init__(owner, "error", "gradkit-error")

    @property
    def value(self) -> str:
        """The HTML shown (empty when all is well)."""
        return self._owner.error

    @value.setter
    def value(self, html_text: str) -> None:
        self._owner.error = html_text


class Control(_Handle):
    """A control drawn by the browser; ``.value`` reads and writes the synced state.

    ``options`` is a list of (label, value) pairs for toggles and dropdowns: the browser sees the
    labels, Python the values (e.g. torch dtypes).
    """

    def __init__(
        self,
        owner: GradkitWidget,
        name: str,
        kind: str,
        *,
        css: str,
        description: str = "",
        tooltip: str = "",
        options: Sequence[tuple[str, Any]] = (),
        **spec: Any,
    ) -> None:
        super().__init__(owner, name, css, description)
        self.kind = kind
        self.tooltip = tooltip
        self._options = list(options)
        self.spec: dict[str, Any] = {
            "name": name,
            "kind": kind,
            "css": css,
            "label": description,
            "tooltip": tooltip,
            **spec,
        }
        if options:
            self.spec["options"] = [label for label, _ in self._options]
        for key in ("min", "max", "step"):
            if key in spec:
                setattr(self, key, spec[key])

    # ------------------------------------------------------------------------------- value
    @property
    def options(self) -> tuple:
        """The option labels (toggles and dropdowns)."""
        return tuple(label for label, _ in self._options)

    def _to_python(self, raw: Any) -> Any:
        for label, value in self._options:
            if label == raw:
                return value
        return raw

    def _to_raw(self, value: Any) -> Any:
        if not self._options:
            return value
        for label, option in self._options:
            if option is value or label == value:
                return label
        for label, option in self._options:
            if not isinstance(option, torch.dtype) and option == value:
                return label
        raise ValueError(f"{self.name}: {value!r} is not one of {self.options}")

    @property
    def value(self) -> Any:
        """The current value (a Python value such as a torch dtype for the dtype buttons)."""
        return self._to_python(self._owner.values.get(self.name))

    @value.setter
    def value(self, value: Any) -> None:
        raw = self._to_raw(value)
        if self.kind == "slider":
            raw = float(min(self.max, max(self.min, float(raw))))
        self._owner._set_values({self.name: raw})

    # ------------------------------------------------------------------------ behaviour
    def observe(self, handler: Callable[[dict], None], names: str = "value") -> None:
        """Call ``handler({"name", "old", "new", "owner"})`` when the value changes."""
        self._owner._listen(self.name, handler, owner=self)

    def on_click(self, handler: Callable[[Control], None]) -> None:
        """Call ``handler(self)`` when the button is clicked (in the browser or by ``click()``)."""
        self._owner._listen_click(self.name, lambda: handler(self))

    def click(self) -> None:
        """Click the button, as the browser would."""
        self._owner._dispatch_click(self.name)

    def _state(self) -> dict:
        return self._owner.control_state.get(self.name, {})

    def _set_state(self, **changes: Any) -> None:
        state = {**self._state(), **changes}
        self._owner.control_state = {**self._owner.control_state, self.name: state}

    @property
    def disabled(self) -> bool:
        """Whether the control is greyed out."""
        return bool(self._state().get("disabled", False))

    @disabled.setter
    def disabled(self, value: bool) -> None:
        self._set_state(disabled=bool(value))

    @property
    def hidden(self) -> bool:
        """Whether the control is hidden."""
        return bool(self._state().get("hidden", False))

    @hidden.setter
    def hidden(self, value: bool) -> None:
        self._set_state(hidden=bool(value))


class _EpsSlider(Control):
    """The eps control: a position on EPS_GRID, or an exact typed eps off the grid."""

    @property
    def value(self) -> float:
        """eps, exactly as shown (a grid value, or the typed one)."""
        exact = self._owner.values.get("eps_exact")
        return float(exact) if exact is not None else EPS_GRID[self._owner.values["eps"]]

    @value.setter
    def value(self, eps: float) -> None:
        eps = min(EPS_MAX, max(EPS_MIN, float(eps)))
        self._owner._set_values({"eps": snap_eps(eps), "eps_exact": None})

    @property
    def index(self) -> int:
        """The grid position."""
        return int(self._owner.values["eps"])


class _EpsStep(Control):
    """÷10 / ×10: three grid positions down or up (a button that moves the eps control)."""

    def __init__(self, owner: GradkitWidget, name: str, css: str, sign: int, **kw: Any) -> None:
        super().__init__(owner, name, "step", css=css, **kw)
        self._sign = sign

    def click(self) -> None:
        """Move eps one decade (three grid positions), as the browser does."""
        w = self._owner
        index = min(len(EPS_GRID) - 1, max(0, int(w.values["eps"]) + 3 * self._sign))
        w._set_values({"eps": index, "eps_exact": None})


# ----------------------------------------------------------------------------------- stage


class Stage:
    """A matplotlib Figure (Agg, never in pyplot) sent to the browser as a PNG plus transforms.

    ``redraw()`` asks for a new PNG (rendered once when the current callback ends); artists marked
    animated are left out of it (the browser draws those). ``axes`` names the Axes whose
    data-to-pixel maps the browser needs.
    """

    def __init__(self, owner: GradkitWidget, figsize: tuple[float, float]) -> None:
        self.owner = owner
        self.figure = Figure(figsize=figsize, dpi=100, facecolor="white")
        self.canvas = FigureCanvasAgg(self.figure)
        self.axes: dict[str, Any] = {}
        self._dirty = True

    def redraw(self) -> None:
        """Ask for a new static image (sent when the current callback ends)."""
        self._dirty = True
        if self.owner._depth == 0:
            self.flush()

    refresh = redraw

    def flush(self) -> None:
        """Render now if a redraw is pending."""
        if self._dirty:
            self.render()

    def transforms(self) -> list[dict]:
        """For each named Axes: its pixel box (left, top, width, height), limits and scales."""
        height = self.figure.bbox.height
        out = []
        for name, ax in self.axes.items():
            box = ax.get_window_extent()
            out.append(
                {
                    "name": name,
                    "box": [box.x0, height - box.y1, box.width, box.height],
                    "xlim": [float(v) for v in ax.get_xlim()],
                    "ylim": [float(v) for v in ax.get_ylim()],
                    "xscale": ax.get_xscale(),
                    "yscale": ax.get_yscale(),
                }
            )
        return out

    def png(self) -> bytes:
        """Render the static layer (animated artists left out) and return it as PNG bytes."""
        from PIL import Image

        self.canvas.draw()
        with io.BytesIO() as buf:
            Image.fromarray(np.asarray(self.canvas.buffer_rgba())).save(
                buf, format="png", compress_level=1
            )
            return buf.getvalue()

    def render(self) -> None:
        """Send a new static image and transforms to the browser (counted in render_count)."""
        self._dirty = False
        png = self.png()
        w = self.owner
        with w.hold_sync():
            w.png = png
            w.axes = self.transforms()
            w.size = [int(self.figure.bbox.width), int(self.figure.bbox.height)]
            w.render_count += 1
            w.scene_id += 1

    def close(self) -> None:
        """Let the figure go (it was never in pyplot, so nothing else holds it)."""
        self.axes.clear()


# ------------------------------------------------------------------------------ the widget


def _module_source(view: str) -> str:
    parts = [(STATIC / "base.js").read_text(encoding="utf-8")]
    parts.append((STATIC / f"{view}.js").read_text(encoding="utf-8"))
    parts.append("export default { render };\n")
    return "\n".join(parts)


class GradkitWidget(_GuardMixin, anywidget.AnyWidget):
    """Base of the gradkit widgets: controls, readouts, error area, picture, busy mark.

    See the module docstring for the guide. Subclasses set ``css`` (the root CSS hook) and
    ``view`` (the file ``static/<view>.js``).
    """

    css = "gradkit-panel"
    view = "generic"
    _css = (STATIC / "gradkit.css").read_text(encoding="utf-8")

    view_name = traitlets.Unicode("generic").tag(sync=True)
    title = traitlets.Unicode("").tag(sync=True)
    hint = traitlets.Unicode("").tag(sync=True)
    alt = traitlets.Unicode("").tag(sync=True)
    controls = traitlets.List().tag(sync=True)
    control_state = traitlets.Dict().tag(sync=True)
    values = traitlets.Dict().tag(sync=True)
    readouts = traitlets.List().tag(sync=True)
    readout_html = traitlets.Dict().tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)
    busy = traitlets.Bool(False).tag(sync=True)
    ack = traitlets.Int(0).tag(sync=True)
    png = traitlets.Bytes(b"").tag(sync=True)
    axes = traitlets.List().tag(sync=True)
    size = traitlets.List([0, 0]).tag(sync=True)
    table = traitlets.Bytes(b"").tag(sync=True)
    scene = traitlets.Dict().tag(sync=True)
    scene_id = traitlets.Int(0).tag(sync=True)
    render_count = traitlets.Int(0).tag(sync=True)
    exact = traitlets.Dict().tag(sync=True)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # only classes that name their view (anywidget's add_traits also subclasses)
        wanted = "view" in cls.__dict__ or "_esm" not in cls.__dict__
        if wanted and not isinstance(cls.__dict__.get("_esm"), traitlets.TraitType):
            cls._esm = _module_source(cls.view)

    def __init__(self) -> None:
        self._listeners: dict[str, list[Callable]] = {}
        self._click_listeners: dict[str, list[Callable]] = {}
        self._handles: dict[str, Control] = {}
        self.last_error: BaseException | None = None
        self.last_traceback = ""
        self._closed = False
        self._depth = 0
        self._stage: Stage | None = None
        self._syncing = False
        super().__init__(view_name=self.view)
        self.add_class("gradkit-widget")
        self.add_class(self.css)
        self.error_area = ErrorArea(self)
        self.on_msg(self._on_message)
        _register(self)

    # ----------------------------------------------------------------------- error area
    def _set_error_html(self, value: str) -> None:
        self.error = value

    def _error_html(self) -> str:
        return self.error

    def _after_outermost(self) -> None:
        if self._stage is not None:
            self._stage.flush()

    # ------------------------------------------------------------------------ building
    def _add(self, control: Control) -> Control:
        self._handles[control.name] = control
        return control

    def toggle(
        self,
        name: str,
        options: Sequence[tuple[str, Any]] | Sequence[str],
        *,
        value: Any,
        label: str = "",
        css: str = "",
        tooltips: Sequence[str] = (),
        scene: bool = False,
    ) -> Control:
        """Toggle buttons (one of several)."""
        pairs = [o if isinstance(o, tuple) else (o, o) for o in options]
        c = Control(self, name, "toggle", css=css, description=label, options=pairs,
                    tooltips=list(tooltips), scene=scene)  # fmt: skip
        self._add(c)
        self.values = {**self.values, name: c._to_raw(value) if value is not None else None}
        return c

    def dropdown(
        self, name: str, options: Sequence[str], *, value: str, label: str = "", css: str = "",
        tooltip: str = "", scene: bool = True,
    ) -> Control:  # fmt: skip
        """A drop-down menu of labels."""
        c = Control(self, name, "dropdown", css=css, description=label, tooltip=tooltip,
                    options=[(o, o) for o in options], scene=scene)  # fmt: skip
        self._add(c)
        self.values = {**self.values, name: value}
        return c

    def slider(  # noqa: PLR0913 - mirrors ipywidgets slider keywords
        self, name: str, *, value: float, lo: float, hi: float, step: float, label: str = "",
        css: str = "", tooltip: str = "", scene: bool = True, continuous: bool = True,
        down: dict | None = None, up: dict | None = None,
    ) -> Control:  # fmt: skip
        """A number slider (with optional step buttons ``down`` / ``up``: {css, label, tooltip})."""
        c = Control(self, name, "slider", css=css, description=label, tooltip=tooltip,
                    min=lo, max=hi, step=step, scene=scene, continuous=continuous,
                    down=down, up=up, short=True, format=".3g")  # fmt: skip
        self._add(c)
        self.values = {**self.values, name: float(value)}
        return c

    def text(
        self, name: str, *, value: str, label: str = "", css: str = "", tooltip: str = "",
        placeholder: str = "",
    ) -> Control:  # fmt: skip
        """A text box (sent on Enter or when it loses focus)."""
        c = Control(self, name, "text", css=css, description=label, tooltip=tooltip,
                    placeholder=placeholder)  # fmt: skip
        self._add(c)
        self.values = {**self.values, name: value}
        return c

    def checkbox(
        self, name: str, *, value: bool, text: str, css: str = "", tooltip: str = "",
        scene: bool = False,
    ) -> Control:  # fmt: skip
        """A check box with a text."""
        c = Control(self, name, "checkbox", css=css, tooltip=tooltip, text=text, scene=scene)
        c.description = text
        self._add(c)
        self.values = {**self.values, name: bool(value)}
        return c

    def button(self, name: str, text: str, *, css: str = "", tooltip: str = "") -> Control:
        """A button; ``.click()`` from Python or a click in the browser runs its listeners."""
        c = Control(self, name, "button", css=css, tooltip=tooltip, text=text)
        c.description = text
        return self._add(c)

    def readout(self, name: str, css: str) -> Readout:
        """A readout line."""
        r = Readout(self, name, css)
        self.readouts = [*self.readouts, {"name": name, "css": css}]
        return r

    def make_dtype_buttons(
        self, value: torch.dtype, label: str = "dtype", *, scene: bool = False
    ) -> Control:
        """float64 / float32 / float16 / bfloat16, with the unit roundoff in each tooltip."""
        return self.toggle(
            "dtype",
            list(DTYPES.items()),
            value=value,
            label=label,
            css="gradkit-dtype",
            tooltips=[_DTYPE_TIPS[n] for n in DTYPES],
            scene=scene,
        )

    def _make_eps_controls(self, eps: float, on_change: Callable[[], None]) -> list[Control]:
        """eps on EPS_GRID with ÷10 / ×10 (three grid steps) and a text box for typing eps.

        A typed eps on the grid moves the slider; one off the grid is kept exactly
        (``values["eps_exact"]``) and computed by the kernel.
        """
        eps = check_eps(eps)
        index = snap_eps(eps)
        on_grid = EPS_GRID[index] == eps
        self.eps_slider = _EpsSlider(
            self, "eps", "grid", css="gradkit-eps", description="eps",
            tooltip="the nudge eps, on a log scale (1e-12 … 1)",
            labels=[eps_label(k) for k in range(len(EPS_GRID))], steps=3, short=True,
            aria="eps",
            down={"css": "gradkit-eps-down", "label": "÷10", "tooltip": _SMALLER},
            up={"css": "gradkit-eps-up", "label": "×10", "tooltip": _LARGER},
        )  # fmt: skip
        self._add(self.eps_slider)
        self.eps_down = _EpsStep(self, "eps_down", "gradkit-eps-down", -1, description="÷10",
                                 tooltip="make eps 10 times smaller")  # fmt: skip
        self.eps_up = _EpsStep(self, "eps_up", "gradkit-eps-up", 1, description="×10",
                               tooltip="make eps 10 times larger")  # fmt: skip
        self.values = {
            **self.values,
            "eps": index,
            "eps_exact": None if on_grid else eps,
            "eps_label": fmt_eps(eps),
        }
        self.eps_text = self.text(
            "eps_text", value=fmt_eps(eps), label="type eps", css="gradkit-eps-text",
            tooltip="type eps (e.g. 1e-6) and press Enter", placeholder="e.g. 1e-6",
        )  # fmt: skip

        def moved(change: dict) -> None:
            self._syncing = True
            try:
                self._set_values({"eps_text": fmt_eps(self.eps), "eps_label": fmt_eps(self.eps)})
            finally:
                self._syncing = False
            on_change()

        def typed(change: dict) -> None:
            if self._syncing:
                return
            value = parse_positive(self.eps_text.value, "eps", EPS_MIN, EPS_MAX)
            k = snap_eps(value)
            exact = None if math.isclose(EPS_GRID[k], value, rel_tol=1e-12) else value
            self._set_values({"eps": k, "eps_exact": exact, "eps_label": fmt_eps(value)})

        self._listen("eps", moved)
        self._listen("eps_text", typed)
        return [self.eps_slider, self.eps_text]

    def _make_x_controls(
        self, x: float, on_change: Callable[[], None], *, lo: float, hi: float, step: float,
        continuous: bool = True, tooltip: str = "where the slope is measured",
    ) -> Control:  # fmt: skip
        """x slider with − / + step buttons."""
        x = check_x(x)
        lo, hi = min(lo, math.floor(x) - 1), max(hi, math.ceil(x) + 1)
        self.x_slider = self.slider(
            "x", value=x, lo=lo, hi=hi, step=step, label="x", css="gradkit-x", tooltip=tooltip,
            continuous=continuous,
            down={"css": "gradkit-x-down", "label": "−", "tooltip": f"move x down by {step:g}"},
            up={"css": "gradkit-x-up", "label": "+", "tooltip": f"move x up by {step:g}"},
        )  # fmt: skip
        self.x_down = _XStep(self, "x_down", "gradkit-x-down", -1, description="−",
                             tooltip=f"move x down by {step:g}")  # fmt: skip
        self.x_up = _XStep(self, "x_up", "gradkit-x-up", 1, description="+",
                           tooltip=f"move x up by {step:g}")  # fmt: skip
        self._listen("x", lambda change: on_change())
        return self.x_slider

    def _layout(
        self, title: str, hint: str, controls: Sequence[Control], readouts: Sequence[Readout]
    ) -> None:
        """Send the controls (in this order) and the readouts to the browser."""
        self.title, self.hint = title, hint
        self.controls = [c.spec for c in controls]
        order = [r.name for r in readouts]
        by_name = {r["name"]: r for r in self.readouts}
        self.readouts = [by_name[n] for n in order]

    # ------------------------------------------------------------------------ state flow
    @property
    def eps(self) -> float:
        """eps exactly as shown (a grid value or the typed one)."""
        exact = self.values.get("eps_exact")
        return float(exact) if exact is not None else EPS_GRID[int(self.values["eps"])]

    @eps.setter
    def eps(self, value: float) -> None:
        value = check_eps(value)
        k = snap_eps(value)
        exact = None if EPS_GRID[k] == value else value
        self._set_values({"eps": k, "eps_exact": exact})

    def _set_values(self, changes: dict) -> None:
        self.values = {**self.values, **changes}

    def _listen(self, name: str, fn: Callable[[dict], None], owner: Any = None) -> None:
        self._listeners.setdefault(name, []).append((fn, owner))

    def _listen_click(self, name: str, fn: Callable[[], None]) -> None:
        self._click_listeners.setdefault(name, []).append(fn)

    @traitlets.observe("values")
    def _values_changed(self, change: dict) -> None:
        old, new = change["old"] or {}, change["new"] or {}
        names = []
        for key, value in new.items():
            if key == "__seq" or (key in old and old[key] == value):
                continue
            name = "eps" if key == "eps_exact" else key
            if name not in names:
                names.append(name)
        # one change, one outcome: the error area is cleared once, the picture rendered once
        # at the end, and only then the browser's change is acknowledged (busy mark off)
        outermost = self._depth == 0
        if outermost:
            self.clear_error()
        self._depth += 1
        try:
            for name in names:
                for fn, owner in self._listeners.get(name, []):
                    handle = self._handles.get(name)
                    event = {
                        "name": "value",
                        "old": old.get(name),
                        "new": handle.value if handle is not None else new.get(name),
                        "owner": owner,
                    }
                    self.guard(fn)(event)
        finally:
            self._depth -= 1
            if outermost and not self._closed:
                self._after_outermost()
                seq = new.get("__seq")
                if isinstance(seq, int) and seq > self.ack:
                    self.ack = seq

    def set_state(self, sync_data: dict) -> None:
        """A state update from the browser; ``values`` is merged so the latest user action wins.

        The browser sends its whole control state with ``__seq`` (its change counter) and
        ``__changed`` (the keys it changed that Python has not handled yet). Only those keys are
        applied onto Python's current values: a stale copy of any other key (built before a
        newer Python or browser change reached that browser) can never undo a newer change. A
        message without ``__changed`` (an older front end) is applied whole, unless its
        ``__seq`` is not newer than the last one handled (``ack``): then it is stale and dropped.
        """
        values = sync_data.get("values") if isinstance(sync_data, dict) else None
        if isinstance(values, dict) and "__seq" in values:
            sync_data = {**sync_data, "values": self._merge_browser_values(values)}
        super().set_state(sync_data)

    def _merge_browser_values(self, incoming: dict) -> dict:
        """Python's values with the browser's changed keys applied (see :meth:`set_state`)."""
        seq = incoming.get("__seq")
        changed = incoming.get("__changed")
        current = dict(self.values)
        if not isinstance(seq, int):
            return current
        if isinstance(changed, list):
            keys = [k for k in changed if isinstance(k, str) and k in incoming]
        elif seq > self.ack:
            keys = [k for k in incoming if k not in ("__seq", "__changed")]
        else:  # an older whole state: every key in it is stale
            keys = []
        merged = {**current, **{k: incoming[k] for k in keys}}
        merged["__seq"] = max(seq, int(current.get("__seq") or 0))
        return merged

    def _dispatch_click(self, name: str) -> None:
        outermost = self._depth == 0
        if outermost:
            self.clear_error()
        self._depth += 1
        try:
            for fn in self._click_listeners.get(name, []):
                self.guard(fn)()
        finally:
            self._depth -= 1
            if outermost and not self._closed:
                self._after_outermost()

    def _on_message(self, _widget: Any, content: dict, _buffers: list) -> None:
        if not isinstance(content, dict) or content.get("type") != "click":
            return
        try:
            self._dispatch_click(str(content.get("name")))
        finally:
            seq = content.get("seq")
            if isinstance(seq, int) and seq > self.ack:
                self.ack = seq

    # ------------------------------------------------------------------------- lifecycle
    @property
    def figure(self) -> Figure | None:
        """The matplotlib Figure of the static layer (None for widgets without one)."""
        return self._stage.figure if self._stage is not None else None

    @contextlib.contextmanager
    def _building(self) -> Iterator[None]:
        """A constructor that fails closes what it opened, then raises."""
        try:
            self._depth += 1  # renders wait until the constructor is done
            yield
        except BaseException:
            self.close()
            raise
        finally:
            self._depth -= 1
        if self._stage is not None:
            self._stage.flush()

    def close(self) -> None:
        """Close the widget and free its figure; plt.get_fignums() is never touched."""
        if self.__dict__.get("_closed", True):
            return
        self._closed = True
        if self._stage is not None:
            self._stage.close()
        layout = getattr(self, "layout", None)
        super().close()
        if isinstance(layout, widgets.Widget):
            layout.close()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ran."""
        return self._closed


class _XStep(Control):
    """− / +: move the x slider by one step (a button that moves the x control)."""

    def __init__(self, owner: GradkitWidget, name: str, css: str, sign: int, **kw: Any) -> None:
        super().__init__(owner, name, "step", css=css, **kw)
        self._sign = sign

    def click(self) -> None:
        """Move x one step, as the browser does."""
        s = self._owner.x_slider
        s.value = min(s.max, max(s.min, round(s.value + self._sign * s.step, 10)))
