"""The lessons as a static site whose widgets still move: ``gradkit export``.

Each lesson is executed (or taken as executed) and written as ``SITE/NN_name.html``, with
``SITE/index.html`` listing the lessons; every script and style the pages need is written into
``SITE/assets/`` from files beside this module, so the site works from ``file://`` with no
network and from any static host:

- ``assets/site.css``: the pages' look (``site.css``) and pygments' colours for code;
- ``assets/loader.js`` (``loader.js``): plays the anywidget model for each gradkit widget from
  the state saved in the page (no widget manager, no require.js, no network);
- ``assets/widget-<hash>.js``: one per widget module (its ES module and stylesheet).

Modules: :mod:`.notebooks` (find, read, execute), :mod:`.cells` (markdown, code, outputs),
:mod:`.math` (formulas as SVG), :mod:`.widgets` (live slots and notes), :mod:`.pages` (page
and index HTML), :mod:`.folder` (the checks on ``--out`` and the writing),
:mod:`.export` (:func:`export_site`).

It lives inside :mod:`gradkit.cli` because it uses nothing from gradkit but the command line's
lesson files (the widgets run only in the kernel that executes the lessons).
"""

from .export import ExportSummary, export_site, render_lesson
from .folder import ExportError
from .pages import OFFLINE_NOTE

__all__ = ["OFFLINE_NOTE", "ExportError", "ExportSummary", "export_site", "render_lesson"]
