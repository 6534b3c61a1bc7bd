"""What a page with no kernel answers from: the kernel's answers to the moves one step away.

``gradkit export`` saves each widget's state; beside it go ``answers``, computed only then (a
family's :meth:`~RecordedAnswers.answers_ahead`): for each value one move away that needs a new
scene, that scene and the values Python changes along with it (``standin.js`` answers from them).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping

import numpy as np

from .tables import json_safe, pack

__all__ = ["RecordedAnswers", "packed_scene"]


def packed_scene(
    scene: dict,
    arrays: Mapping[str, np.ndarray] | None,
    *,
    key: object,
    scene_id: object,
    made_for: dict,
) -> tuple[dict, bytes]:
    """A scene as the page reads it: (JSON with its ``id``, ``key``, ``for`` and tables,
    buffer)."""
    taken = sorted({"id", "key", "tables", "for"} & set(scene))
    if taken:
        raise ValueError(
            f"a scene may not hold {taken}: send_scene writes them (give the family's own a "
            "name of its own, e.g. 'entry')"
        )
    buffer, layout = pack(arrays or {})
    payload = json_safe({**scene, "for": made_for})
    payload.update(id=scene_id, key=str(key), tables=layout)
    return payload, buffer


class RecordedAnswers:
    """The answers saved for a page with no kernel, mixed into :class:`~.host.GradkitWidget`."""

    def answers_ahead(self) -> list[dict]:
        """A family's hook: its :meth:`recorded_answer` for each move one step away that needs a
        new scene; default none."""
        return []

    def scene_without_kernel(self) -> dict | None:
        """A family's hook: the scene JSON a page with no kernel starts from where it differs from
        the kernel's (a hunt's every verdict); default None."""
        return None

    def recorded_answer(
        self,
        values: dict,
        scene: dict,
        arrays: Mapping[str, np.ndarray] | None,
        *,
        sets: dict | None = None,
    ) -> dict:
        """The kernel's answer to a page that sets ``values``: the scene it sends and the values
        ``sets`` it changes along with them."""
        sets = dict(sets or {})
        made_for = self.made_for({**self.state, **values, **sets})
        count = self.__dict__.get("_recorded", 0)  # answers recorded for this state so far
        self._recorded = count + 1
        key = ("recorded", self.css, tuple(sorted(json_safe(values).items())), count)
        payload, buffer = packed_scene(
            scene, arrays, key=key, scene_id=f"recorded-{count}", made_for=made_for
        )
        return {"state": json_safe(sets), "scene": payload, "tables": buffer}

    def _get_embed_state(self, drop_defaults: bool = False) -> dict:
        """The state ``ipywidgets`` saves for a page with no kernel, with ``answers`` beside it:
        :meth:`answers_ahead`, once per state shown (a failure records none)."""
        if self._closed:
            return super()._get_embed_state(drop_defaults=drop_defaults)
        now = repr((self.scene.get("key"), sorted(self.state.items())))
        if self.__dict__.get("_answers_for") != now:
            self._recorded = 0
            try:  # first: a family may send more of its scene
                self._answers = self.answers_ahead()
            except Exception:  # noqa: BLE001 - the page then refuses what it was not given
                self._answers = []
            self._answers_for = now
        answers = self._answers
        saved = super()._get_embed_state(drop_defaults=drop_defaults)
        scene = self.scene_without_kernel()
        if scene is not None:
            saved["state"]["scene"] = {**self.scene, **json_safe(scene)}
        if answers:
            saved["state"]["answers"] = [{**a, "tables": None} for a in answers]
            saved.setdefault("buffers", []).extend(
                {
                    "encoding": "base64",
                    "path": ["answers", k, "tables"],
                    "data": base64.standard_b64encode(a["tables"]).decode("ascii"),
                }
                for k, a in enumerate(answers)
            )
        return saved
