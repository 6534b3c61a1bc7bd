"""What a page with no kernel plays beyond the scene: the ``offline`` trait (``offline.js``).

A static page (``gradkit export``) plays a widget from its saved state alone. The scene covers
the moves one click away; this trait holds what else such a page can answer without Python:

- ``scenes``: whole scenes for other values of a control that needs a new scene in a notebook
  (another function of a menu, another n), each ``{"match": {name: value}, "scene", "tables"}``
  (:func:`packed_scene`); the page uses the one whose ``match`` is its state;
- ``resets``: ``{name: {other: value}}``, what Python changes when ``name`` changes (a new n starts
  at step 1; a new specimen clears the prediction), so the page does the same;
- the family's own (an exercise's hints, a hunt's verdicts).

Texts a page needs for a button (hints, a solution) are cheap and go in when the widget is built.
Scenes and verdicts cost torch work no notebook needs (its kernel answers), so they are computed
only when the widget's state is taken for a page without a kernel: ``ipywidgets`` asks each
widget for that state (``get_manager_state``, which ``gradkit export`` calls when a lesson has
run, and ``ipywidgets.embed``), and :class:`OfflinePlay` computes them then
(:meth:`~OfflinePlay.offline_ahead`, a family's hook).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .tables import json_safe, pack

__all__ = ["OfflinePlay", "packed_scene"]


def packed_scene(
    scene: dict, arrays: Mapping[str, np.ndarray] | None, *, key: object, scene_id: object
) -> tuple[dict, bytes]:
    """A scene as the page reads it: (JSON with its ``id``, ``key`` and table layout, buffer)."""
    taken = sorted({"id", "key", "tables"} & set(scene))
    if taken:
        raise ValueError(
            f"a scene may not hold {taken}: send_scene writes them (give the family's own a "
            "name of its own, e.g. 'entry')"
        )
    buffer, layout = pack(arrays or {})
    payload = json_safe(scene)
    payload.update(id=scene_id, key=str(key), tables=layout)
    return payload, buffer


class OfflinePlay:
    """The ``offline`` trait's Python side, mixed into :class:`~.host.GradkitWidget`."""

    def offline_ahead(self) -> dict:
        """What a page with no kernel needs beyond the scene, computed for it (a family's hook):
        ``{"scenes": [...], "resets": {...}, ...}`` as the module says; default nothing."""
        return {}

    def scene_without_kernel(self) -> dict | None:
        """The scene JSON a page with no kernel starts from where it differs from the kernel's
        (a hunt's every verdict, an exercise's words for a page that cannot check code), with
        the same tables; default None: the kernel's own. A family's hook, read when the state
        is saved for such a page (:meth:`_get_embed_state`)."""
        return None

    def offline_scene(self, match: dict, scene: dict, arrays: Mapping[str, np.ndarray]) -> dict:
        """One entry of ``scenes``: the scene a page with no kernel shows for state ``match``."""
        count = len(self.__dict__.setdefault("_offline_scenes", []))
        key = ("offline", self.css, tuple(sorted(match.items())), count)
        payload, buffer = packed_scene(scene, arrays, key=key, scene_id=f"offline-{count}")
        self._offline_scenes.append(key)
        return {"match": json_safe(match), "scene": payload, "tables": buffer}

    def add_offline(self, **parts: Any) -> None:
        """Put ``parts`` (hints, words, resets) into the ``offline`` trait for good (what
        :meth:`prepare_offline` computes comes and goes with the state)."""
        self._offline_built = {**self.__dict__.get("_offline_built", {}), **parts}
        self.offline = {**self.offline, **parts}

    def prepare_offline(self) -> dict:
        """Compute :meth:`offline_ahead` into the ``offline`` trait (once per state shown).

        A failure leaves the trait as it was: the page then says what needs a running notebook.
        Returns the trait.
        """
        if self._closed:
            return self.offline
        now = repr((self.scene.get("key"), sorted(self.state.items())))
        if self.__dict__.get("_offline_for") == now:
            return self.offline
        self._offline_scenes = []
        try:
            ahead = self.offline_ahead()
        except Exception:  # noqa: BLE001 - the page then refuses what it was not given
            ahead = {}
        self._offline_for = now
        self.offline = {**self.__dict__.get("_offline_built", {}), **ahead}
        return self.offline

    def _get_embed_state(self, drop_defaults: bool = False) -> dict:
        """The state ``ipywidgets`` saves for a page with no kernel, after
        :meth:`prepare_offline`."""
        self.prepare_offline()
        state = super()._get_embed_state(drop_defaults=drop_defaults)
        if not self._closed:
            scene = self.scene_without_kernel()
            if scene is not None:
                state["state"]["scene"] = {**self.scene, **json_safe(scene)}
        return state
