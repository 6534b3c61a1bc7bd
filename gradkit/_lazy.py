"""Names a package imports on first use (PEP 562), so an import pays only for what it uses."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_attributes"]


def lazy_attributes(package: str, homes: Mapping[str, str], namespace: dict) -> Callable:
    """A module ``__getattr__`` for ``package`` that imports ``name`` from its module
    ``homes[name]`` (relative to ``package``) when first asked, and keeps it in ``namespace``
    (the package's ``globals()``), so later lookups are plain attribute reads. In a package's
    ``__init__``: ``__getattr__ = lazy_attributes(__name__, {"check": ".diagnosis"}, globals())``.
    """

    def attribute(name: str) -> Any:
        if name not in homes:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(homes[name], package), name)
        namespace[name] = value
        return value

    return attribute
