"""Shared test setup: a headless matplotlib backend, no figure or widget survives a test."""

from __future__ import annotations

import os
import warnings

os.environ.setdefault("MPLBACKEND", "Agg")

import pytest
import torch

torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import sys

    if "matplotlib.pyplot" in sys.modules:
        import matplotlib.pyplot as plt

        plt.close("all")


@pytest.fixture
def make():
    """``make(cls, *args, **kwargs)`` builds a widget and closes it after the test."""
    built = []

    def build(cls, *args, **kwargs):
        w = cls(*args, **kwargs)
        built.append(w)
        return w

    yield build
    for w in built:
        w.close()


@pytest.fixture
def quiet_gradcheck():
    """Silence torch's 'not double precision' warning where a test provokes it on purpose."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield
