"""JacobianBuilder's scene: what the page replays for one build (``jacobian.js`` draws it).

:func:`scene_of` and :func:`arrays_of` are the JSON and the tables of one build (every call of
gradcheck's slow mode, :mod:`.steps`); :func:`history_row` is its line in the table of every n
built; :func:`gradcheck_count` is torch's own count of gradcheck's calls on the same input.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch

from ..._args import GRADCHECK_DEFAULTS
from ...cost import count_calls
from ..base.jacobians import difference_ratio
from .steps import JacobianSteps

__all__ = ["arrays_of", "gradcheck_count", "history_row", "scene_of"]


def scene_of(label: str, r: JacobianSteps, counted: Any, history: list[dict]) -> dict:
    """The scene of a build: sizes, settings, gradcheck's count and the n's built."""
    return {
        "failed": False,
        "label": label,
        "n": r.n,
        "m": r.m,
        "steps": r.steps,
        "eps": r.eps,
        "atol": GRADCHECK_DEFAULTS["atol"],
        "rtol": GRADCHECK_DEFAULTS["rtol"],
        "gradcheck": None
        if counted is None
        else {"forward": counted.forward, "backward": counted.backward, "passed": counted.passed},
        "history": history,
    }


def arrays_of(r: JacobianSteps) -> dict[str, np.ndarray]:
    """The tables of a build: x, both Jacobians, the entries outside tolerance, calls and times."""
    numeric, analytic = r.numeric.numpy(), r.analytic.numpy()
    _, outside = difference_ratio(
        numeric, analytic, GRADCHECK_DEFAULTS["atol"], GRADCHECK_DEFAULTS["rtol"]
    )
    return {
        "x": r.x.numpy(),
        "numeric": numeric,
        "analytic": analytic,
        "outside": outside.astype(np.float64),
        "forward": np.array(r.forward_calls),
        "backward": np.array(r.backward_calls),
        "seconds": np.array(r.seconds),
    }


def history_row(r: JacobianSteps, counted: Any) -> dict:
    """The history row of one build: its n, its calls and time, gradcheck's count."""
    return {
        "n": r.n,
        "forward": r.forward_calls[-1],
        "backward": r.backward_calls[-1],
        "seconds": r.seconds[-1],
        "gradcheck_forward": None if counted is None else counted.forward,
        "gradcheck_backward": None if counted is None else counted.backward,
    }


def gradcheck_count(f: Callable, x: torch.Tensor, eps: float) -> Any:
    """torch.autograd.gradcheck's own calls on this input (None when gradcheck raises)."""
    try:
        return count_calls(f, (x.clone().requires_grad_(True),), eps=eps)
    except Exception:  # noqa: BLE001 - the page then shows the build's calls only
        return None
