"""Each learner's own order of a question's options (stable per user name and entry id).

Part of :mod:`gradkit.quiz_bank`. ``GRADKIT_QUIZ_ORDER=fixed`` keeps the file's order (tests).
"""

from __future__ import annotations

import getpass
import hashlib
import os
import random
from collections.abc import Sequence

__all__ = ["ORDER_VARIABLE", "learner_name", "option_order", "shuffled_options"]

#: Set to "fixed" to show options in the file's order (tests do); "shuffled" is the default.
ORDER_VARIABLE = "GRADKIT_QUIZ_ORDER"
_ORDERS = ("shuffled", "fixed")


def learner_name() -> str:
    """Who is learning: ``JUPYTERHUB_USER`` on a hub (where everyone is ``jovyan``), else the
    login name."""
    hub_user = os.environ.get("JUPYTERHUB_USER", "").strip()
    if hub_user:
        return hub_user
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no login name (some containers)
        return "learner"


def option_order() -> str:
    """ "fixed" when ``GRADKIT_QUIZ_ORDER=fixed`` is set, else "shuffled"."""
    value = os.environ.get(ORDER_VARIABLE, "").strip().lower() or "shuffled"
    if value not in _ORDERS:
        raise ValueError(
            f"environment variable {ORDER_VARIABLE}={value!r} is not one of {list(_ORDERS)}; "
            f"unset it or set {ORDER_VARIABLE}=fixed"
        )
    return value


def shuffled_options(
    options: Sequence[str], entry_id: str, user: str | None = None
) -> tuple[str, ...]:
    """The options in this learner's order.

    Parameters
    ----------
    options : sequence of str
        The options in the file's order.
    entry_id : str
        The quiz id; with the user name it picks the order.
    user : str, optional
        Default :func:`learner_name`.

    Returns
    -------
    tuple of str
        A permutation of ``options``: the same for the same user and id on every run, the
        file's order when ``GRADKIT_QUIZ_ORDER=fixed``.
    """
    options = tuple(options)
    if option_order() == "fixed":
        return options
    user = learner_name() if user is None else user
    # the random generator's start value: a hash of (user, id), stable across Python runs
    digest = hashlib.sha256(f"{user}\x00{entry_id}".encode()).digest()
    order = list(options)
    random.Random(int.from_bytes(digest[:8], "big")).shuffle(order)
    return tuple(order)
