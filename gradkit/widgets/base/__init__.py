"""The base every gradkit widget builds on: the anywidget host, controls, the eps rule, tables.

Python side: :class:`GradkitWidget` (``host.py``, with what the page sends in ``page.py`` and
the answers saved for a page with no kernel in ``standin.py``), :class:`~.point.PointWidget` for
the widgets about one x (``point.py``, its x window in ``window.py``), the control handles
(``controls.py``) and makers (``rows.py``), the eps rule (``eps.py``), scene packing
(``tables.py``), the scene cache (``cache.py``, ``cache_entry.py``, ``cache_places.py``), what
``f`` may be (``functions.py``), f in a dtype (``floats.py``), gradcheck's entry-by-entry
comparison (``jacobians.py``), errors and re-runs (``guard.py``), work after the first picture
(``schedule.py``), the ES bundle (``bundle.py``). Browser side, beside them (``BASE_FILES`` in
``bundle.py``): ``host.js``, ``controls.js``, ``eps.js``, ``tables.js``, ``standin.js``,
``plot.js``, ``format.js``, ``theme.js``, ``matrix.js`` (a family lists it itself) and
``theme.css``. ``gradkit/widgets/README.md`` is the guide.
"""

from __future__ import annotations

from .controls import Control
from .guard import InputError
from .host import GradkitWidget

__all__ = ["Control", "GradkitWidget", "InputError"]
