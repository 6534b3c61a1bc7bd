"""What a page with no kernel answers from: the kernel's answers to the moves one step away.

``gradkit export`` saves each widget's state for the static site: ``ipywidgets`` asks each
widget for it (``get_manager_state``, :meth:`RecordedAnswers._get_embed_state`). Beside the
state go ``answers``: for each value of a control that needs a new scene one move away (another
function of the menu, another n), the scene Python sends for it, with its tables and the values
Python changes along with it (a new n starts at step 1). The site's model (``standin.js``)
answers the page from them as the kernel would, and the page greys a control out, saying why,
exactly where they hold no answer. They cost torch work no notebook needs (its kernel answers),
so they are computed only when the state is saved for such a page, by a family's hook
(:meth:`~RecordedAnswers.answers_ahead`); a family whose saved scene differs for such a page
says how (:meth:`~RecordedAnswers.scene_without_kernel`).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping

import numpy as np

from .tables import json_safe, pack

__all__ = ["RecordedAnswers", "packed_scene"]


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


class RecordedAnswers:
    """The answers saved for a page with no kernel, mixed into :class:`~.host.GradkitWidget`."""

    def answers_ahead(self) -> list[dict]:
        """A family's hook: the kernel's answers to the moves one step away that need a new
        scene, each made by :meth:`recorded_answer`; default none."""
        return []

    def scene_without_kernel(self) -> dict | None:
        """The scene JSON a page with no kernel starts from where it differs from the kernel's
        (a hunt's every verdict, an exercise's words for a page that cannot check code), with
        the same tables; default None: the kernel's own. A family's hook."""
        return None

    def recorded_answer(
        self,
        values: dict,
        scene: dict,
        arrays: Mapping[str, np.ndarray] | None,
        *,
        sets: dict | None = None,
    ) -> dict:
        """The kernel's answer to a page that sets ``values``: the scene it sends (JSON and
        arrays, made for the state those values lead to) and the values ``sets`` it changes
        along with them."""
        sets = dict(sets or {})
        made_for = self.made_for({**self.state, **values, **sets})
        count = len(self.__dict__.setdefault("_recorded", []))
        key = ("recorded", self.css, tuple(sorted(json_safe(values).items())), count)
        payload, buffer = packed_scene(
            {**scene, "for": made_for}, arrays, key=key, scene_id=f"recorded-{count}"
        )
        self._recorded.append(key)
        return {"state": json_safe(sets), "scene": payload, "tables": buffer}

    def answers_for_page(self) -> list[dict]:
        """:meth:`answers_ahead`, computed once per state shown. A failure records none: the
        page then greys out what needs the kernel."""
        if self._closed:
            return []
        now = repr((self.scene.get("key"), sorted(self.state.items())))
        if self.__dict__.get("_answers_for") == now:
            return self._answers
        self._recorded = []
        try:
            answers = self.answers_ahead()
        except Exception:  # noqa: BLE001 - the page then refuses what it was not given
            answers = []
        self._answers_for, self._answers = now, answers
        return answers

    def _get_embed_state(self, drop_defaults: bool = False) -> dict:
        """The state ``ipywidgets`` saves for a page with no kernel, with ``answers`` beside it
        (their tables as buffers, as a scene's) and the scene such a page starts from."""
        answers = self.answers_for_page()  # first: a family may send more of its scene
        saved = super()._get_embed_state(drop_defaults=drop_defaults)
        if self._closed:
            return saved
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
