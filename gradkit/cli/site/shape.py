"""What a notebook must hold before a page is made of it: nbformat 4's shape, checked in full.

:func:`check_notebook` raises :class:`NotebookShapeError` with the first thing wrong, in words a
learner can act on (``cell 3 is a string, not a cell``), so a broken notebook is one line, never
a traceback. It checks every part a page reads: the cells and their sources, tags,
attachments and outputs, and the saved widget state; and the whole tree, for text that is not
Unicode (a lone surrogate, which cannot be written as UTF-8) and nesting deeper than
:data:`MAX_DEPTH` levels. nbformat's own validation is not used: importing its schemas takes
seconds, and on some broken notebooks (a cell that is a string) it fails with a TypeError of its
own instead of saying what is wrong.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["MAX_DEPTH", "NotebookShapeError", "check_notebook"]

#: The deepest nesting of lists and objects a notebook may have (real ones stay under 20).
MAX_DEPTH = 100
_WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
_VIEW = "application/vnd.jupyter.widget-view+json"
_SURROGATE = re.compile("[\ud800-\udfff]")
_OUTPUTS = ("stream", "display_data", "execute_result", "error")


class NotebookShapeError(ValueError):
    """What is wrong with a notebook, in words (where, and what was found)."""


def _kind(value: Any) -> str:
    """What a JSON value is, in words."""
    if isinstance(value, bool) or value is None:
        return "true/false" if value is not None else "null"
    names = {dict: "an object", list: "a list", str: "a string", int: "a number", float: "a number"}
    return names.get(type(value), type(value).__name__)


def _expect(value: Any, kind: type | tuple[type, ...], where: str, what: str) -> Any:
    if not isinstance(value, kind) or isinstance(value, bool):
        raise NotebookShapeError(f"{where} is {_kind(value)}, not {what}")
    return value


def _text(value: Any, where: str) -> None:
    """A multiline string of nbformat: a string, or a list of strings."""
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        return
    _expect(value, str, where, "text (a string or a list of strings)")


def _tree(notebook: Any) -> None:
    """No text that is not Unicode, no nesting deeper than :data:`MAX_DEPTH`."""
    stack = [(notebook, 0)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise NotebookShapeError(f"its JSON is nested more than {MAX_DEPTH} levels deep")
        if isinstance(value, str):
            found = _SURROGATE.search(value)
            if found:
                code = f"\\u{ord(found.group()):04x}"
                raise NotebookShapeError(
                    f"it holds text that is not Unicode (a lone surrogate, {code}, near "
                    f"{value[max(0, found.start() - 20) : found.start()]!r})"
                )
        elif isinstance(value, dict):
            stack.extend((item, depth + 1) for pair in value.items() for item in pair)
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)


def _output(output: Any, where: str) -> None:
    _expect(output, dict, where, "an output (an object)")
    kind = output.get("output_type")
    if kind not in _OUTPUTS:
        known = ", ".join(_OUTPUTS)
        raise NotebookShapeError(f"{where} has output_type {kind!r}; it is one of {known}")
    if kind == "stream":
        _text(output.get("text", ""), f"{where}: its text")
    elif kind == "error":
        trace = _expect(output.get("traceback", []), list, f"{where}: its traceback", "a list")
        for line in trace:
            _expect(line, str, f"{where}: a traceback line", "a string")
    else:
        data = _expect(output.get("data", {}), dict, f"{where}: its data", "an object")
        for mime, value in data.items():
            if mime == _VIEW:
                view = _expect(value, dict, f"{where}: its widget view", "an object")
                _expect(view.get("model_id", ""), str, f"{where}: its model_id", "a string")
            elif not mime.endswith("json"):
                _text(value, f"{where}: its {mime}")
    _expect(output.get("metadata", {}), dict, f"{where}: its metadata", "an object")


def _cell(cell: Any, where: str) -> None:
    _expect(cell, dict, where, "a cell (an object)")
    kind = cell.get("cell_type")
    if kind not in ("markdown", "code", "raw"):
        raise NotebookShapeError(f"{where} has cell_type {kind!r}; a cell is markdown, code or raw")
    _text(cell.get("source", ""), f"{where}: its source")
    metadata = _expect(cell.get("metadata", {}), dict, f"{where}: its metadata", "an object")
    tags = _expect(metadata.get("tags", []), list, f"{where}: its tags", "a list")
    for tag in tags:
        _expect(tag, str, f"{where}: a tag", "a string")
    attachments = _expect(cell.get("attachments", {}), dict, f"{where}: attachments", "an object")
    for name, bundle in attachments.items():
        bundle = _expect(bundle, dict, f"{where}: attachment {name}", "an object")
        for mime, data in bundle.items():
            _text(data, f"{where}: attachment {name} ({mime})")
    if kind == "code":
        outputs = _expect(cell.get("outputs", []), list, f"{where}: its outputs", "a list")
        for k, output in enumerate(outputs, 1):
            _output(output, f"{where}, output {k}")


def _widget(record: Any, where: str) -> None:
    """One saved widget, as :mod:`.widgets` reads it."""
    _expect(record, dict, where, "an object")
    state = _expect(record.get("state", {}), dict, f"{where}: its state", "an object")
    _expect(record.get("model_name", ""), str, f"{where}: its model_name", "a string")
    for hook in _expect(state.get("_dom_classes", []), list, f"{where}: _dom_classes", "a list"):
        _expect(hook, str, f"{where}: a _dom_classes entry", "a string")
    _expect(state.get("children", []), list, f"{where}: its children", "a list")
    outputs = _expect(state.get("outputs", []), list, f"{where}: its outputs", "a list")
    for k, output in enumerate(outputs, 1):
        _output(output, f"{where}, output {k}")
    for buffer in _expect(record.get("buffers", []), list, f"{where}: its buffers", "a list"):
        buffer = _expect(buffer, dict, f"{where}: a buffer", "an object")
        _expect(buffer.get("path"), list, f"{where}: a buffer's path", "a list")
        data = _expect(buffer.get("data", ""), str, f"{where}: a buffer's data", "a string")
        if buffer.get("encoding") == "hex" and not re.fullmatch(r"(?:[0-9a-fA-F]{2})*", data):
            raise NotebookShapeError(f"{where}: a buffer's data is not hex, as its encoding says")


def check_notebook(notebook: Any) -> None:
    """Raise :class:`NotebookShapeError` unless ``notebook`` (parsed JSON) is a notebook a page
    can be made of; the message says where and what (``cell 3: its metadata is a list, ...``).
    """
    _tree(notebook)
    _expect(notebook, dict, "its top level", "an object")
    metadata = _expect(notebook.get("metadata", {}), dict, "its metadata", "an object")
    widgets = _expect(metadata.get("widgets", {}), dict, "metadata.widgets", "an object")
    saved = _expect(widgets.get(_WIDGET_STATE, {}), dict, "its widget state", "an object")
    records = _expect(saved.get("state", {}), dict, "its widget state", "an object")
    for model_id, record in records.items():
        _widget(record, f"widget {model_id}")
    for k, cell in enumerate(_expect(notebook.get("cells"), list, "its cells", "a list"), 1):
        _cell(cell, f"cell {k}")
