"""What a page sends a widget, as ipywidgets and anywidget deliver it (no browser needed)."""

from __future__ import annotations

from typing import Any


def page_sends(w, **changes: Any) -> None:
    """The page changed these values: ipywidgets sends each one's own trait, nothing else."""
    w.set_state({w.spec["values"][key]: value for key, value in changes.items()})


def page_asks(w, name: str, msg: Any = None) -> Any:
    """The page's ``experimental.invoke(name, msg)``, through anywidget's own command handler;
    returns the response it sends back."""
    answers: list = []
    w.send = lambda content, buffers=None: answers.append(content)
    try:
        w._handle_custom_msg(
            {"id": "test", "kind": "anywidget-command", "name": name, "msg": msg or {}}, []
        )
    finally:
        del w.send
    (answer,) = answers
    assert answer["id"] == "test" and answer["kind"] == "anywidget-command-response", answer
    return answer["response"]


def page_clicks(w, name: str) -> Any:
    """The page pressed button ``name`` (one that needs the kernel)."""
    return page_asks(w, "press_button", {"name": name})
