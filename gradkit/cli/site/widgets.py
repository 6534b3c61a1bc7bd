"""Widgets in a static page: gradkit's live, from their saved state; any other, a short note.

A gradkit widget is an anywidget on ``gradkit/widgets/base`` (:func:`is_gradkit_widget`: its
saved state has an ES module and every trait of the browser contract, :data:`CONTRACT`). The
page plays only gradkit's own code: a saved ES module and stylesheet must be, character for
character, those of a widget class of the gradkit installed here (:func:`installed_modules`,
read by a fresh Python that runs no notebook code); the asset written is that installed text,
never the notebook's. A widget whose saved module is not one of them (changed, another
version's, another kit's) is shown as a note, and the export says so once per page
(:attr:`PageWidgets.foreign`); so is one whose saved text could run or load when its code
paints it (:func:`saved_markup`, :attr:`PageWidgets.tampered`: an event handler, a script, a
picture from elsewhere), which gradkit never saves. The page's policy stops such a thing too.

A live widget's view becomes a slot (``data-gk-model``) that ``loader.js`` fills by playing
the model; its ES module and stylesheet go once into ``assets/`` (:class:`Modules`, shared by
every page), its state and buffers into the page (:meth:`PageWidgets.page_json`). ipywidgets
boxes show their children the same way; ``HTML`` and ``HTMLMath`` values are published as an
output's HTML is (the one allow-list, :mod:`.safe_html`), a ``Label``'s as text; an ``Output``
widget shows its outputs; any other widget (a plain ipywidget, an anywidget of another kind)
shows :func:`note_html` instead of a control that could not work.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import html
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from .folder import ExportError
from .safe_html import runs_or_loads

__all__ = [
    "CONTRACT",
    "VIEW_MIME",
    "Modules",
    "PageWidgets",
    "installed_modules",
    "is_gradkit_widget",
    "note_html",
    "saved_markup",
]

#: The output type of a widget's view in a notebook.
VIEW_MIME = "application/vnd.jupyter.widget-view+json"
#: The synced traits every gradkit widget has (gradkit/widgets/base/host.py); its values' traits,
#: each under the name its spec lists (``spec["state"]``), come with them.
CONTRACT = ("spec", "control_state", "scene", "tables", "error", "busy")
_BOXES = {"BoxModel": "column", "VBoxModel": "column", "HBoxModel": "row", "GridBoxModel": "row"}
_TEXTS = {"HTMLModel", "HTMLMathModel", "LabelModel"}
_MAX_DEPTH = 8
#: Run by a fresh Python (``sys.argv[1]``: the folder this gradkit is imported from): every
#: widget class's ES module and stylesheet, as JSON. No notebook code runs there.
_LIST_MODULES = """\
import json, sys
sys.path[0] = sys.argv[1]
import gradkit.widgets as widgets
from gradkit.widgets.base.host import GradkitWidget
for name in widgets.__all__:
    getattr(widgets, name)
found, todo = [], [GradkitWidget]
while todo:
    cls = todo.pop()
    todo.extend(cls.__subclasses__())
    if cls.__dict__.get("view"):
        found.append([str(cls._esm), str(cls._css or "")])
json.dump(found, sys.stdout)
"""


@functools.cache
def installed_modules() -> frozenset[tuple[str, str]]:
    """The (ES module, stylesheet) of every widget class of the gradkit installed here.

    Read by a fresh Python of this interpreter, importing this very gradkit (the command line
    never imports the widgets itself): nothing a notebook ran can change them.

    Raises
    ------
    ExportError
        The widgets could not be imported (ipywidgets or anywidget missing): the reason.
    """
    root = str(Path(__file__).resolve().parents[3])
    done = subprocess.run(
        [sys.executable, "-c", _LIST_MODULES, root],
        cwd=root,  # never the notebook's folder: no file there can stand in for a module
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no reason given"])[-1]
        raise ExportError(
            f"a page has gradkit widgets, and gradkit's own widget code, which the page may play "
            f"alone, could not be read ({last[:300]}); install gradkit with its widgets "
            "(ipywidgets, anywidget) and export again. Nothing was written"
        )
    return frozenset((esm, css) for esm, css in json.loads(done.stdout))


def is_gradkit_widget(record: dict) -> bool:
    """Whether a saved widget is on gradkit's widget base (its page can play it with no kernel)."""
    state = record.get("state") or {}
    names = set(state) | {str(b.get("path", [""])[0]) for b in record.get("buffers") or []}
    spec = state.get("spec")
    if not state.get("_esm") or not isinstance(spec, dict):
        return False
    values = spec.get("state") or []
    return isinstance(values, list) and set(CONTRACT) | set(map(str, values)) <= names


def saved_markup(value: object) -> str | None:
    """The first piece of a widget's saved state that could run or load when its code paints
    it as HTML (:func:`~.safe_html.runs_or_loads`), or None: gradkit never saves one."""
    if isinstance(value, str):
        return runs_or_loads(value)
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    for item in items:
        if (found := saved_markup(item)) is not None:
            return found
    return None


def widget_name(record: dict | None) -> str:
    """A widget's name for a learner: its class, as its title or root CSS hook names it.

    A gradkit widget's spec title (``SlopeExplorer``), else its root hook
    (``gradkit-float-ruler`` -> ``FloatRuler``), else the ipywidgets model (``IntSlider``).
    """
    state = (record or {}).get("state") or {}
    spec = state.get("spec") if isinstance(state.get("spec"), dict) else {}
    if isinstance(spec.get("title"), str) and spec["title"].strip():
        return spec["title"].strip()
    for hook in state.get("_dom_classes") or []:
        if hook.startswith("gradkit-") and hook != "gradkit-widget":
            return "".join(part.title() for part in hook.split("-")[1:])
    model = str((record or {}).get("model_name") or state.get("_model_name") or "")
    return model.removesuffix("Model") if model and model != "AnyModel" else "This widget"


def note_html(name: str) -> str:
    """The static line shown where a widget needs a running notebook."""
    return (
        f'<div class="gk-site-note" role="note"><b>{html.escape(name)}</b> needs a running '
        "notebook: open this lesson in Jupyter (see the top of the page) to use it.</div>"
    )


class Modules:
    """The widgets' ES modules and stylesheets, one asset file each, shared by every page."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def add(self, esm: str, css: str) -> str:
        """Register a module; returns its key (a hash of its text: same module, same file)."""
        key = hashlib.sha256(f"{esm}\0{css}".encode()).hexdigest()[:12]
        name = self.path(key)
        if name not in self.files:
            payload = json.dumps({"esm": esm, "css": css})
            self.files[name] = (
                "// A gradkit widget's ES module and stylesheet, written by gradkit export: a\n"
                "// classic script (it loads from file:// too); assets/loader.js imports it.\n"
                "(globalThis.gradkitSiteModules = globalThis.gradkitSiteModules || {})"
                f"[{json.dumps(key)}] = {payload};\n"
            ).encode()
        return key

    def path(self, key: str) -> str:
        """The asset file of a module key."""
        return f"assets/widget-{key}.js"


class PageWidgets:
    """The widgets of one page: slots, boxes and notes as HTML; the models the page plays."""

    def __init__(
        self,
        saved: dict[str, dict],
        modules: Modules,
        outputs: Callable[[dict], str],
        installed: Callable[[], frozenset[tuple[str, str]]] | None = None,
    ) -> None:
        self.saved, self.modules, self.outputs = saved, modules, outputs
        #: () -> the code a live widget may have (default :func:`installed_modules`, asked only
        #: when a page has a widget on the contract)
        self.installed = installed or (lambda: installed_modules())
        self.models: dict[str, dict] = {}
        self.live: list[str] = []
        self.notes: list[str] = []
        #: The gradkit-like widgets shown as a note because their code is not gradkit's own.
        self.foreign: list[str] = []
        #: The gradkit widgets shown as a note because their saved text could run or load
        #: (``name: what``, see :func:`saved_markup`).
        self.tampered: list[str] = []

    def view_html(self, model_id: str, depth: int = 0) -> str:
        """The HTML for one widget view (``model_id`` from a widget-view output)."""
        model_id = model_id.removeprefix("IPY_MODEL_")
        record = self.saved.get(model_id)
        if record is None or depth > _MAX_DEPTH:
            return self._note(record)
        if is_gradkit_widget(record):
            return self._slot(model_id, record)
        state, model = record.get("state") or {}, record.get("model_name") or ""
        if model in _BOXES:
            inner = "".join(self.view_html(str(c), depth + 1) for c in state.get("children", []))
            return f'<div class="gk-site-box gk-site-{_BOXES[model]}">{inner}</div>'
        if model in _TEXTS:
            value = str(state.get("value", ""))
            if model == "LabelModel":
                return f'<div class="gk-site-text">{html.escape(value)}</div>'
            shown = {"output_type": "display_data", "data": {"text/html": value}}
            return f'<div class="gk-site-text">{self.outputs(shown)}</div>'
        if model == "OutputModel":
            return "".join(self.outputs(out) for out in state.get("outputs", []))
        return self._note(record)

    def _note(self, record: dict | None) -> str:
        name = widget_name(record)
        self.notes.append(name)
        return note_html(name)

    def _slot(self, model_id: str, record: dict) -> str:
        state = dict(record["state"])
        code = (str(state.pop("_esm")), str(state.pop("_css", "") or ""))
        if code not in self.installed():
            self.foreign.append(widget_name(record))
            return self._note(record)
        if (found := saved_markup(state)) is not None:
            self.tampered.append(f"{widget_name(record)}: {found}")
            return self._note(record)
        key = self.modules.add(*code)  # equal to the installed text, character for character
        buffers = [[list(b["path"]), _base64(b)] for b in record.get("buffers") or []]
        self.models[model_id] = {"module": key, "state": state, "buffers": buffers}
        name = widget_name(record)
        self.live.append(name)
        return (
            f'<div class="gk-site-widget" data-gk-model="{html.escape(model_id)}" '
            f'data-gk-name="{html.escape(name)}"><p class="gk-site-loading">{html.escape(name)} '
            "loads here (it needs JavaScript).</p></div>"
        )

    def scripts(self) -> list[str]:
        """The asset files of the modules this page uses, in first-use order."""
        keys = dict.fromkeys(m["module"] for m in self.models.values())
        return [self.modules.path(key) for key in keys]

    def page_json(self) -> str:
        """The models as JSON safe inside ``<script type="application/json">``."""
        text = json.dumps({"models": self.models}, separators=(",", ":"), allow_nan=False)
        return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _base64(buffer: dict) -> str:
    """A saved buffer as base64 (the widget state schema allows base64 or hex)."""
    data = str(buffer.get("data", ""))
    if buffer.get("encoding") == "hex":
        return base64.b64encode(bytes.fromhex(data)).decode("ascii")
    return data
