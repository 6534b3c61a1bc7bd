"""The teacher's summary as a page to look at: one bar per item, the share right at the first try.

Self-contained HTML with inline SVG (no script, no network), written by ``gradkit course summary
--out FOLDER``. It names no learner unless the summary was made with names.
"""

from __future__ import annotations

import html

from .._palette import PALETTE
from .summary import Stuck, lesson_sections

__all__ = ["summary_html"]

_BAR = 320


def _row(s: Stuck, y: int) -> str:
    good = round(_BAR * s.share)
    wrong = ", ".join(f"{w} ×{n}" for w, n in s.wrong) or "none"
    note = f"wrong: {wrong}" + (f" · stuck: {', '.join(s.learners)}" if s.learners else "")
    label = f"{s.right} of {s.total} ({s.share:.0%})"
    return (
        f"<text x='0' y='{y + 14}'>{html.escape(s.key)}</text>"
        f"<rect x='240' y='{y}' width='{_BAR}' height='18' fill='{PALETTE['grid']}'><title>"
        f"{html.escape(s.key)}: {html.escape(label)}</title></rect>"
        f"<rect x='240' y='{y}' width='{good}' height='18' fill='{PALETTE['blue']}'/>"
        f"<rect x='{240 + good}' y='{y}' width='{_BAR - good}' height='18' "
        f"fill='{PALETTE['vermillion']}'/>"
        f"<text x='{250 + _BAR}' y='{y + 14}'>{html.escape(f'{label} · {note}')}</text>"
    )


def summary_html(summary: dict[str, list[Stuck]], assignment: str) -> str:
    """The page: per lesson and kind, a bar per item (blue: right first, orange: not)."""
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>Where the class is stuck: {html.escape(assignment)}</title>",
        f"<style>body{{font:15px system-ui,sans-serif;margin:2em;color:{PALETTE['ink']}}}"
        f"svg text{{font:13px system-ui,sans-serif;fill:{PALETTE['ink']}}}</style></head><body>",
        f"<h1>Where the class is stuck: {html.escape(assignment)}</h1>",
        "<p>Blue: right (or passing) at the first try; orange-red: not yet.</p>",
    ]
    if not summary:
        parts.append("<p>No submissions in the gradebook yet.</p>")
    for notebook, items in summary.items():
        parts.append(f"<h2>Lesson {html.escape(notebook)}</h2>")
        for head, chosen in lesson_sections(items):
            height = 26 * len(chosen)
            rows = "".join(_row(s, 26 * k) for k, s in enumerate(chosen))
            parts.append(
                f"<h3>{html.escape(head)}</h3><svg role='img' width='1100' height='{height}' "
                f"aria-label='{html.escape(head)}'>{rows}</svg>"
            )
    parts.append("</body></html>")
    return "\n".join(parts)
