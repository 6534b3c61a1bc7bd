"""The old widget layer's last rules (GradcheckLab and JacobianBuilder moved to the new base:
tests/widgets/test_lab.py and test_jacobian.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from gradkit.widgets import _base, _theme


def test_no_module_uses_ipympl():
    root = Path(_base.__file__).parents[1]
    for path in [*root.glob("widgets/*.py"), *root.glob("plots/*.py")]:
        assert "import ipympl" not in path.read_text() and "from ipympl" not in path.read_text()
    assert "ipympl" not in sys.modules or "gradkit.widgets" not in str(
        sys.modules["ipympl"].__dict__.get("__spec__")
    )


def test_theme_colours_are_the_css_variables():
    css_text = (Path(_base.__file__).parent / "static" / "gradkit.css").read_text()
    for name, value in _theme.THEME.items():
        if value.startswith("#"):
            assert f"--gk-{name}: {value};" in css_text, name
