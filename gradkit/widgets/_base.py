"""What every gradkit widget shares: the error area, step buttons, eps input, figure lifecycle.

Figures are plain :class:`matplotlib.figure.Figure` objects drawn on an ipympl ``Canvas`` (a live
canvas in Notebook 7, JupyterLab and Voila). They never enter pyplot's registry, so the inline
backend cannot show them a second time, and ``plt.get_fignums()`` never grows. Re-running a
notebook cell closes the widgets that the cell's previous run created.
"""

from __future__ import annotations

import contextlib
import functools
import html
import io
import itertools
import math
import traceback
import warnings
import weakref
from collections.abc import Callable, Iterator, Sequence

import ipywidgets as widgets
import numpy as np
import torch
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..numerics import DTYPES, unit_roundoff
from ..zoo import scalar_functions

try:  # the live canvas; the figures fall back to PNG images without it
    from ipympl.backend_nbagg import Canvas as _IpymplCanvas
    from ipympl.backend_nbagg import FigureManager as _IpymplManager
except ImportError:  # pragma: no cover - ipympl is a dependency; tests force the fallback
    _IpymplCanvas = _IpymplManager = None

EPS_MIN, EPS_MAX = 1e-12, 1.0
_CONTROL_WIDTH = "340px"
_DESCRIPTION = {"description_width": "64px"}
_SLIDER = {"description_width": "30px"}
_figure_numbers = itertools.count(1)


class InputError(ValueError):
    """A value typed into a control that cannot be used; shown without a traceback."""


# ----------------------------------------------------------------------------------- figures


class _PngCanvas(FigureCanvasAgg):
    """Fallback without ipympl: every draw is pushed as a PNG into an ``ipywidgets.Image``."""

    def __init__(self, figure: Figure, image: widgets.Image) -> None:
        super().__init__(figure)
        self._image = image

    def draw_idle(self, *args, **kwargs) -> None:
        self.draw()

    def draw(self) -> None:
        super().draw()
        from PIL import Image

        with io.BytesIO() as png:
            Image.fromarray(np.asarray(self.buffer_rgba())).save(png, format="png")
            self._image.value = png.getvalue()


class Stage:
    """A figure on a live canvas, with blitting for the artists a control moves.

    ``redraw()`` after a change of axes, limits or static artists (a full draw, requested from the
    front end); ``refresh(layer)`` after a change of animated artists only: when a front end is
    connected and a full frame exists, it restores a cached background, draws the animated
    artists from ``layer`` up and sends the frame right away. Layers let a cursor (layer 1) move
    over curves (layer 0) without redrawing the curves: each layer's background is cached.
    """

    def __init__(self, figsize: tuple[float, float], *, use_ipympl: bool | None = None) -> None:
        self.figure = Figure(figsize=figsize, dpi=100, facecolor="white")
        self.layers: list[list] = []
        self._backgrounds: list = []
        self._full_pending = True
        ipympl = _IpymplCanvas is not None if use_ipympl is None else use_ipympl
        if ipympl:
            canvas = _IpymplCanvas(self.figure)
            with (
                warnings.catch_warnings()
            ):  # ipympl's Toolbar passes an argument traitlets dislikes
                warnings.filterwarnings(
                    "ignore", "Passing unrecognized arguments", DeprecationWarning
                )
                _IpymplManager(canvas, next(_figure_numbers))
            canvas.header_visible = False
            canvas.footer_visible = False
            canvas.resizable = False
            canvas.toolbar_position = "right"
            canvas.layout.min_width = f"{int(figsize[0] * 100)}px"
            self.widget: widgets.DOMWidget = canvas
        else:
            self.widget = widgets.Image(format="png")
            canvas = _PngCanvas(self.figure, self.widget)
        self.canvas = canvas
        canvas.mpl_connect("draw_event", self._on_draw)

    @property
    def animated(self) -> list:
        """Every animated artist, layer by layer."""
        return [a for layer in self.layers for a in layer]

    def animate(self, *artists, layer: int = 0) -> None:
        """Mark artists as animated: they are drawn over the cached background of their layer."""
        while len(self.layers) <= layer:
            self.layers.append([])
        for a in artists:
            a.set_animated(True)
            self.layers[layer].append(a)

    def _draw_layers(self, first: int) -> None:
        """Draw layers ``first``.. and cache the background under each later layer."""
        del self._backgrounds[first + 1 :]
        for k in range(first, len(self.layers)):
            if k > first:
                self._backgrounds.append(self.canvas.copy_from_bbox(self.figure.bbox))
            for a in sorted(self.layers[k], key=lambda a: a.get_zorder()):
                if a.get_visible():
                    self.figure.draw_artist(a)

    def _on_draw(self, event) -> None:
        if self.canvas.is_saving():
            self._backgrounds = []
            return
        self._backgrounds = [self.canvas.copy_from_bbox(self.figure.bbox)]
        self._draw_layers(0)
        self._full_pending = False

    @property
    def live(self) -> bool:
        """Whether a front end shows this canvas (ipympl sends 'initialized' when it does)."""
        return not getattr(self.canvas, "syncing_data_url", True)

    def redraw(self) -> None:
        """Ask for a full draw (axes, limits or static artists changed)."""
        self._backgrounds = []
        self._full_pending = True
        self.canvas.draw_idle()

    def refresh(self, layer: int = 0) -> None:
        """Show changed animated artists of ``layer`` and above: blit now, or ask for a draw."""
        if self._full_pending or len(self._backgrounds) <= layer or not self.live:
            self.canvas.draw_idle()
            return
        self.canvas.restore_region(self._backgrounds[layer])
        self._draw_layers(layer)
        self.canvas.blit(self.figure.bbox)

    def flush(self) -> None:
        """Render now whatever a front end would still have to ask for (tests, benchmarks)."""
        if self._full_pending or not self._backgrounds:
            self.canvas.draw()

    def png(self) -> bytes:
        """The figure as PNG bytes, the way it looks on the canvas."""
        with io.BytesIO() as buf:
            self.figure.savefig(buf, format="png", dpi=self.figure.dpi)
            return buf.getvalue()

    def close(self) -> None:
        """Close the canvas widget (and its toolbar) and free the figure."""
        manager = getattr(self.canvas, "manager", None)
        toolbar = getattr(manager, "toolbar", None)
        if isinstance(toolbar, widgets.Widget):
            _close_tree(toolbar)
        if isinstance(self.widget, widgets.Widget):
            _close_tree(self.widget)
        self.layers.clear()
        self._backgrounds = []
        self.figure.clear()


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


def _register(panel: Panel) -> None:
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


def _close_tree(widget: widgets.Widget) -> None:
    """Close a widget, its children, and the Layout and Style widgets each of them owns."""
    for child in getattr(widget, "children", ()):
        _close_tree(child)
    for part in ("layout", "style"):
        owned = getattr(widget, part, None)
        if isinstance(owned, widgets.Widget):
            owned.close()
    widget.close()


# ------------------------------------------------------------------------------ formatting


def fmt_eps(eps: float) -> str:
    """eps the way a learner types it: ``1e-06``, ``3.16e-07``, ``0.001``."""
    return f"{eps:.3g}"


def fmt_plain(value: float) -> str:
    """A number written out without exponent, e.g. 1e-06 -> 0.000001."""
    if not math.isfinite(value):
        return str(value)
    return np.format_float_positional(value, trim="-")


def fmt(value: float, spec: str = ".3g") -> str:
    """A number for a readout; NaN and inf spelled out."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    return format(value, spec)


def parse_positive(text: str, name: str, lo: float, hi: float) -> float:
    """Parse a typed number such as ``1e-6``; raise InputError with a clear message otherwise."""
    cleaned = text.strip().replace("−", "-").replace(" ", "")
    try:
        value = float(cleaned)
    except ValueError:
        raise InputError(
            f"{name} must be a number written like 1e-6 or 0.001; “{html.escape(text)}” is not one"
        ) from None
    if not math.isfinite(value) or not lo <= value <= hi:
        raise InputError(f"{name} must be between {lo:g} and {hi:g}; got {cleaned}")
    return value


def check_eps(eps: object) -> float:
    """Validate an eps argument (a number in 1e-12 … 1)."""
    if isinstance(eps, bool) or not isinstance(eps, (int, float)):
        raise TypeError(f"eps must be a number such as 1e-6, got {type(eps).__name__}")
    if not EPS_MIN <= float(eps) <= EPS_MAX:
        raise ValueError(f"eps must be between {EPS_MIN:g} and {EPS_MAX:g}, got {eps!r}")
    return float(eps)


def check_x(x: object) -> float:
    """Validate an x argument (a finite number)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise TypeError(f"x must be a finite number such as 2.0, got {x!r}")
    return float(x)


def readout(*classes: str) -> widgets.HTML:
    """An HTML readout with the ``gradkit-readout`` class."""
    w = widgets.HTML(value="")
    w.add_class("gradkit-readout")
    for c in classes:
        w.add_class(c)
    return w


def readout_html(label: str, value: str, detail: str = "") -> str:
    """Label, value and a grey detail, the shared readout layout."""
    extra = f" <span style='color:#555'>{detail}</span>" if detail else ""
    return f"<span style='color:#444'>{label}</span>&nbsp; <b>{value}</b>{extra}"


def step_button(label: str, tooltip: str, css: str) -> widgets.Button:
    """A small button next to a slider (arrow keys do not reach sliders in Notebook 7)."""
    b = widgets.Button(description=label, tooltip=tooltip, layout=widgets.Layout(width="54px"))
    b.add_class(css)
    return b


def dtype_value(dtype: torch.dtype | str, argument: str = "dtype") -> torch.dtype:
    """Validate a dtype given as torch.float32 or "float32"."""
    if isinstance(dtype, str) and dtype in DTYPES:
        return DTYPES[dtype]
    if isinstance(dtype, torch.dtype) and dtype in DTYPES.values():
        return dtype
    raise ValueError(f"{argument}={dtype!r} is not one of {list(DTYPES)}; pass e.g. torch.float32")


def dtype_buttons(value: torch.dtype, description: str = "dtype") -> widgets.ToggleButtons:
    """float64 / float32 / float16 / bfloat16, with the unit roundoff in each tooltip."""
    tips = []
    for name, dt in DTYPES.items():
        bits = torch.finfo(dt).bits
        tips.append(f"{name}: {bits} bits, unit roundoff u = {unit_roundoff(dt):.2g}")
    tips[0] += " (gradcheck's dtype)"
    w = widgets.ToggleButtons(
        options=list(DTYPES.items()),
        value=value,
        description=description,
        tooltips=tips,
        style={**_DESCRIPTION, "button_width": "80px"},
    )
    w.add_class("gradkit-dtype")
    return w


def function_options(f: Callable | str | None, default: str) -> tuple[dict[str, Callable], str]:
    """The function menu: the built-in scalar functions, plus the learner's own f first."""
    options = dict(scalar_functions())
    if f is None:
        return options, default
    if isinstance(f, str):
        if f not in options:
            raise ValueError(f"f={f!r} is not one of {list(options)}; or pass a function of x")
        return options, f
    if not callable(f):
        raise TypeError(
            f"f must be a function of a tensor (e.g. torch.sin), got {type(f).__name__}"
        )
    name = getattr(f, "__name__", "") or ""
    label = "your f" if not name or name == "<lambda>" else f"your {name}"
    return {label: f, **options}, label


# ----------------------------------------------------------------------------------- panel


class Panel(widgets.VBox):
    """Base of the gradkit widgets: header, controls column, readouts, error area, figure.

    Every callback runs through :meth:`guard`: an exception is shown as a short message in
    ``error_area`` (and kept in ``last_error``) instead of being lost; the widget keeps working.
    """

    css = "gradkit-panel"

    def __init__(self) -> None:
        super().__init__()
        self.add_class("gradkit-widget")
        self.add_class(self.css)
        self.error_area = widgets.HTML(value="")
        self.error_area.add_class("gradkit-error")
        self.last_error: BaseException | None = None
        self.last_traceback = ""
        self._closed = False
        self._stage: Stage | None = None
        self._syncing = False
        self._depth = 0
        _register(self)

    # --------------------------------------------------------------------- figure & layout

    @property
    def figure(self) -> Figure | None:
        """The matplotlib Figure (None for widgets without one)."""
        return self._stage.figure if self._stage is not None else None

    def _assemble(
        self,
        title: str,
        hint: str,
        controls: Sequence[widgets.Widget],
        readouts: Sequence[widgets.Widget],
    ) -> None:
        header = widgets.HTML(
            f"<b style='font-size:1.05em'>{html.escape(title)}</b>"
            f"<span style='color:#555'> — {hint}</span>"
        )
        column = widgets.VBox(
            list(controls),
            layout=widgets.Layout(min_width="320px", flex="0 0 auto", padding="0 16px 0 0"),
        )
        column.add_class("gradkit-controls")
        shown = widgets.VBox(
            list(readouts), layout=widgets.Layout(min_width="260px", flex="1 1 300px")
        )
        shown.add_class("gradkit-readouts")
        row = widgets.HBox(
            [column, shown], layout=widgets.Layout(flex_flow="row wrap", align_items="flex-start")
        )
        children = [header, row, self.error_area]
        if self._stage is not None:
            children.append(self._stage.widget)
        self.children = children

    # --------------------------------------------------------------------------- errors

    def guard(self, fn: Callable) -> Callable:
        """Wrap a callback: its errors go to the error area instead of being lost.

        The outermost callback of a change clears the area first; callbacks it triggers
        (a button that moves a slider, a slider that updates a text box) only add errors, so an
        inner error is never wiped by an outer success.
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
        if isinstance(error, InputError):  # a typing slip: the message says it all
            message, details = first, ""
        else:
            message = f"{type(error).__name__}: {html.escape(first)}"
            details = (
                "<details><summary>traceback</summary><pre style='font-size:11px;"
                f"white-space:pre-wrap'>{html.escape(self.last_traceback)}</pre></details>"
            )
        self.error_area.value = (
            "<div role='alert' style='color:#B3261E;border-left:4px solid #B3261E;"
            "padding:2px 8px;margin:4px 0'>"
            f"<b>Could not update:</b> {message}"
            "<br><span style='color:#555'>The widget still works: change a control to go on."
            f"</span>{details}</div>"
        )

    def clear_error(self) -> None:
        """Empty the error area."""
        if self.error_area.value:
            self.error_area.value = ""

    # ---------------------------------------------------------------------- shared controls

    def _observe(self, widget: widgets.Widget, fn: Callable, name: str = "value") -> None:
        widget.observe(self.guard(lambda change: fn()), names=name)

    def _click(self, button: widgets.Button, fn: Callable) -> None:
        button.on_click(self.guard(lambda _button: fn()))

    def _make_eps_controls(
        self, eps: float, on_change: Callable[[], None], *, continuous: bool = True
    ) -> list[widgets.Widget]:
        """eps slider (log scale) with ÷10 / ×10 buttons and a text box for typing eps."""
        eps = check_eps(eps)
        self.eps_slider = widgets.FloatLogSlider(
            value=float(eps),
            base=10,
            min=math.log10(EPS_MIN),
            max=math.log10(EPS_MAX),
            step=0.2,
            description="eps",
            readout_format=".1e",
            continuous_update=continuous,
            tooltip="the nudge eps, on a log scale (1e-12 … 1)",
            style=_SLIDER,
            layout=widgets.Layout(width="290px"),
        )
        self.eps_slider.add_class("gradkit-eps")
        self.eps_down = step_button("÷10", "make eps 10 times smaller", "gradkit-eps-down")
        self.eps_up = step_button("×10", "make eps 10 times larger", "gradkit-eps-up")
        self.eps_text = widgets.Text(
            value=fmt_eps(float(eps)),
            description="type eps",
            continuous_update=False,
            placeholder="e.g. 1e-6",
            tooltip="type eps (e.g. 1e-6) and press Enter",
            style=_DESCRIPTION,
            layout=widgets.Layout(width="200px"),
        )
        self.eps_text.add_class("gradkit-eps-text")

        def slider_moved() -> None:
            self._syncing = True
            try:
                self.eps_text.value = fmt_eps(self.eps_slider.value)
            finally:
                self._syncing = False
            on_change()

        def typed() -> None:
            if self._syncing:
                return
            self.eps_slider.value = parse_positive(self.eps_text.value, "eps", EPS_MIN, EPS_MAX)

        def scale(factor: float) -> None:
            value = float(f"{self.eps_slider.value * factor:.12g}")
            self.eps_slider.value = min(EPS_MAX, max(EPS_MIN, value))

        self._observe(self.eps_slider, slider_moved)
        self._observe(self.eps_text, typed)
        self._click(self.eps_down, lambda: scale(0.1))
        self._click(self.eps_up, lambda: scale(10.0))
        return [
            widgets.HBox([self.eps_down, self.eps_slider, self.eps_up]),
            self.eps_text,
        ]

    def _make_x_controls(
        self,
        x: float,
        on_change: Callable[[], None],
        *,
        lo: float,
        hi: float,
        step: float,
        continuous: bool = True,
        tooltip: str = "where the slope is measured",
    ) -> widgets.HBox:
        """x slider with − / + step buttons (the slider's readout can be typed into too)."""
        x = check_x(x)
        lo, hi = min(lo, math.floor(x) - 1), max(hi, math.ceil(x) + 1)
        self.x_slider = widgets.FloatSlider(
            value=float(x),
            min=lo,
            max=hi,
            step=step,
            description="x",
            readout_format=".3g",
            continuous_update=continuous,
            style=_SLIDER,
            tooltip=tooltip,
            layout=widgets.Layout(width="290px"),
        )
        self.x_slider.add_class("gradkit-x")
        self.x_down = step_button("−", f"move x down by {step:g}", "gradkit-x-down")
        self.x_up = step_button("+", f"move x up by {step:g}", "gradkit-x-up")

        def nudge(sign: int) -> None:
            s = self.x_slider
            s.value = min(s.max, max(s.min, round(s.value + sign * s.step, 10)))

        self._observe(self.x_slider, on_change)
        self._click(self.x_down, lambda: nudge(-1))
        self._click(self.x_up, lambda: nudge(1))
        return widgets.HBox([self.x_down, self.x_slider, self.x_up])

    # ------------------------------------------------------------------------- lifecycle

    @contextlib.contextmanager
    def _building(self) -> Iterator[None]:
        """A constructor that fails closes what it opened, then raises."""
        try:
            yield
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Close the figure and every control; plt.get_fignums() is never touched."""
        if getattr(self, "_closed", True):
            return
        self._closed = True
        if getattr(self, "_stage", None) is not None:
            self._stage.close()
        for child in list(self.children):
            _close_tree(child)
        # controls made before a constructor failed are not children yet
        for value in list(vars(self).values()):
            if isinstance(value, widgets.Widget) and value is not self:
                _close_tree(value)
        for part in (self.layout,):
            part.close()
        super().close()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` ran."""
        return self._closed
