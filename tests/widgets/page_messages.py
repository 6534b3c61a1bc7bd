"""What a page sends a widget, as ipywidgets and anywidget deliver it (no browser needed)."""

from __future__ import annotations

from typing import Any

from gradkit.widgets.base.tables import unpack


def page_sends(w, **changes: Any) -> None:
    """The page changed these values: ipywidgets sends each one's own trait, nothing else."""
    w.set_state(dict(changes))


def page_asks(w, name: str, msg: Any = None, *, with_buffers: bool = False) -> Any:
    """The page's ``experimental.invoke(name, msg)``, through anywidget's own command handler;
    returns the response it sends back (with ``with_buffers``: and its buffers)."""
    answers: list = []
    w.send = lambda content, buffers=None: answers.append((content, buffers or []))
    try:
        w._handle_custom_msg(
            {"id": "test", "kind": "anywidget-command", "name": name, "msg": msg or {}}, []
        )
    finally:
        del w.send
    ((answer, buffers),) = answers
    assert answer["id"] == "test" and answer["kind"] == "anywidget-command-response", answer
    return (answer["response"], buffers) if with_buffers else answer["response"]


def numbers_asked(w, request: dict | None = None, **changes: Any) -> tuple[dict, dict]:
    """The page asks ``numbers_at`` (for the typed eps it shows, or ``request``, with
    ``changes``): the answer's JSON and its arrays, unpacked from the command's buffer."""
    request = {**(request or w.request_here()), **changes}
    answer, buffers = page_asks(w, "numbers_at", request, with_buffers=True)
    if "tables" not in answer:
        return answer, {}
    return answer, unpack(bytes(buffers[0]), answer["tables"])


def page_clicks(w, name: str) -> Any:
    """The page pressed button ``name`` (one that needs the kernel)."""
    return page_asks(w, "press_button", {"name": name})
