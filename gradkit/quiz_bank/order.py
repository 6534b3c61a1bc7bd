"""Each learner's own order of a question's options (stable per user name and entry id).

Part of :mod:`gradkit.quiz_bank`. ``GRADKIT_QUIZ_ORDER=fixed`` keeps the file's order (tests).

The page shuffles a quiz's options itself (``seededOrder`` in ``practice/feedback.js``) from one
number Python sends, :func:`order_seed`; :func:`seeded_order` is the same shuffle in Python, so
both sides show the same order (a shared fixture checks it). Where the quiz's place in its lesson
sequence is known (``quizzes``: the ids in lesson order), the number is chosen so that over the
course the right option takes every position equally often, in the learner's own order: no
learner finds the answer in one place more often than in another.
"""

from __future__ import annotations

import getpass
import hashlib
import os
from collections.abc import Sequence

__all__ = [
    "ORDER_VARIABLE",
    "answer_place",
    "learner_name",
    "option_order",
    "order_seed",
    "seeded_order",
    "shuffled_options",
]

#: Set to "fixed" to show options in the file's order (tests do); "shuffled" is the default.
ORDER_VARIABLE = "GRADKIT_QUIZ_ORDER"
_ORDERS = ("shuffled", "fixed")
_MASK = 0xFFFFFFFF


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


def seeded_order(n: int, seed: int | None) -> list[int]:
    """The order a page shows ``n`` options in: a permutation of ``0 … n-1``.

    The shuffle of ``seededOrder`` in ``practice/feedback.js``, step for step (Fisher–Yates
    driven by mulberry32, in 32-bit arithmetic); ``None``: the order as given.
    """
    order = list(range(n))
    if seed is None:
        return order
    state = seed & _MASK

    def draw() -> float:
        nonlocal state
        state = (state + 0x6D2B79F5) & _MASK
        t = ((state ^ (state >> 15)) * (state | 1)) & _MASK
        t ^= (t + ((t ^ (t >> 7)) * (t | 61))) & _MASK
        return ((t ^ (t >> 14)) & _MASK) / 4294967296

    for i in range(n - 1, 0, -1):
        j = int(draw() * (i + 1))
        order[i], order[j] = order[j], order[i]
    return order


def _hash(*parts: str) -> int:
    """A 32-bit number from text, stable across Python runs and machines."""
    return int.from_bytes(hashlib.sha256("\x00".join(parts).encode()).digest()[:4], "big")


def answer_place(
    entry_id: str,
    n: int,
    quizzes: Sequence[str],
    user: str | None = None,
    *,
    sizes: Sequence[int] | None = None,
) -> int:
    """Where the right option sits (0 … n-1) for this learner.

    Over the quizzes of ``quizzes`` (the ids in lesson order) with ``n`` options, the places
    are dealt like a shuffled deck holding each place equally often (0, 1, … n-1, 0, 1, …, in
    the learner's own shuffle): every place takes its share, in an order no one can guess from
    the quizzes before. ``sizes`` gives each quiz's number of options (default: all ``n``).
    """
    quizzes = list(quizzes)
    if entry_id not in quizzes:
        raise ValueError(f"quiz {entry_id!r} is not among the quizzes given: {quizzes}")
    sizes = [n] * len(quizzes) if sizes is None else list(sizes)
    alike = [q for q, size in zip(quizzes, sizes, strict=True) if size == n]
    who = learner_name() if user is None else user
    deck = [k % n for k in range(len(alike))]
    dealt = [deck[i] for i in seeded_order(len(deck), _hash(who, "places", str(n)))]
    return dealt[alike.index(entry_id)]


def order_seed(
    entry_id: str,
    user: str | None = None,
    *,
    n: int | None = None,
    quizzes: Sequence[str] | None = None,
    sizes: Sequence[int] | None = None,
) -> int | None:
    """The number the page shuffles a quiz's options with (None: the file's order, when
    ``GRADKIT_QUIZ_ORDER=fixed``).

    The same for one learner and quiz on every run, different between learners. Given the
    number of options ``n`` and the ``quizzes`` in lesson order (with ``sizes``, each one's
    number of options), it is the first number from the learner's own that puts the right
    option (listed first) at :func:`answer_place`.
    """
    if option_order() == "fixed":
        return None
    who = learner_name() if user is None else user
    seed = _hash(who, entry_id)
    if n is None or quizzes is None or n < 2:
        return seed
    place = answer_place(entry_id, n, quizzes, who, sizes=sizes)
    while seeded_order(n, seed).index(0) != place:  # about n tries
        seed = (seed + 1) & _MASK
    return seed


def shuffled_options(
    options: Sequence[str],
    entry_id: str,
    user: str | None = None,
    *,
    quizzes: Sequence[str] | None = None,
    sizes: Sequence[int] | None = None,
) -> tuple[str, ...]:
    """The options in this learner's order, as the page shows them.

    Parameters
    ----------
    options : sequence of str
        The options in the file's order (the right one first).
    entry_id : str
        The quiz id; with the user name it picks the order.
    user : str, optional
        Default :func:`learner_name`.
    quizzes : sequence of str, optional
        Every quiz id in lesson order (a bank's ``quizzes``): the right option's place then
        takes every position in turn over them (:func:`answer_place`).
    sizes : sequence of int, optional
        Each of ``quizzes``' number of options (default: all as many as ``options``).

    Returns
    -------
    tuple of str
        A permutation of ``options``: the same for the same user and id on every run, the
        file's order when ``GRADKIT_QUIZ_ORDER=fixed``.
    """
    options = tuple(options)
    seed = order_seed(entry_id, user, n=len(options), quizzes=quizzes, sizes=sizes)
    return tuple(options[i] for i in seeded_order(len(options), seed))
