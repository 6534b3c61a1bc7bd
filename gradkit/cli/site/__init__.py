"""The lessons as a static site whose widgets still move: ``gradkit export``.

Each lesson is executed (or taken as executed) and written as ``SITE/NN_name.html``, with
``SITE/index.html`` listing the lessons; every script and style the pages need is written into
``SITE/assets/`` from files beside this module, so the site works from ``file://`` with no
network and from any static host:

- ``assets/site.css``: the pages' look (``site.css``) and pygments' colours for code;
- ``assets/loader.js`` (``loader.js``): plays the anywidget model for each gradkit widget from
  the state saved in the page (no widget manager, no require.js, no network);
- ``assets/widget-<hash>.js``: one per widget module (its ES module and stylesheet).

Modules: :mod:`.notebooks` (find, read, execute), :mod:`.shape` (a notebook's shape, checked
before anything runs), :mod:`.cells` (code, outputs), :mod:`.markdown` (the text, its images),
:mod:`.safe_html` (the HTML an author wrote, cleaned as Jupyter's view cleans it),
:mod:`.highlight` (code), :mod:`.math` (formulas as SVG), :mod:`.widgets` (live slots and
notes), :mod:`.pages` (page and index HTML), :mod:`.folder` (the checks on ``--out`` and the
writing), :mod:`.export` (:func:`export_site`).

What a page publishes is the lesson's, nothing more, and it runs only gradkit's own code: HTML
from the notebook (markdown, outputs, HTML widgets) without scripts or event handlers, formulas
without style or links, images only from the notebook's own folder (one on the internet is a
link), widget code only when it is the installed gradkit's (:mod:`.widgets`), every notebook
name URL-encoded in links, and a Content-Security-Policy in every page that stops what the
cleaning might miss (:mod:`.pages`). A broken notebook, two pages of one name, a page name too
long for ``--out``'s file system, a site its disk has no room for or a cell past ``--timeout``
stops the export with one line, before anything is written.

It lives inside :mod:`gradkit.cli` because it uses nothing from gradkit but the command line's
lesson files (the widgets run only in the kernel that executes the lessons).
"""

from .export import ExportSummary, export_site, render_lesson
from .folder import ExportError
from .pages import OFFLINE_NOTE

__all__ = ["OFFLINE_NOTE", "ExportError", "ExportSummary", "export_site", "render_lesson"]
