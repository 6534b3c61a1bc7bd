"""gradkit/widgets/README.md cannot lie again: its example family runs in Python and in node, and
every file and name it gives in backticks exists in the code.

The example family (``SquareSlope``) is not part of gradkit: its ES file goes into a stand-in
``gradkit/widgets`` folder (the real ``base/`` linked in) that :func:`.bundle.bundle` reads for
the test, so the class is built exactly as a family in the package is.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from gradkit.widgets.base import bundle as bundle_module
from gradkit.widgets.base.tables import unpack
from tests.widgets.test_base import check_bundle

ROOT = Path(__file__).resolve().parents[2]
WIDGETS = ROOT / "gradkit" / "widgets"
GUIDE = WIDGETS / "README.md"
#: Where the guide's names may live (the guides themselves are not evidence).
CORPUS = ("gradkit", "tests", "tools", "benchmarks")
_CODE_SUFFIXES = {".py", ".js", ".mjs", ".css", ".json", ".toml"}
_PATH = re.compile(r"^[\w.<>*/-]+\.(?:py|js|mjs|css|json|toml|md)$|^[\w<>-]+/$")

needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


def code_blocks(text: str, language: str) -> list[str]:
    """The guide's fenced blocks in ``language``, in order."""
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.S | re.M)


def prose(text: str) -> str:
    """The guide without its fenced blocks (those are run, not looked up)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


def spans(text: str) -> list[str]:
    """Every ``code span`` of the prose, in order."""
    return re.findall(r"`([^`\n]+)`", prose(text))


def example_names(text: str) -> set[str]:
    """Names the guide's own example defines (its class, view, functions and files)."""
    blocks = "\n".join(code_blocks(text, "python") + code_blocks(text, "js"))
    defined = re.findall(r"(?:class|def|function|const)\s+(\w+)", blocks)
    return set(defined) | set(re.findall(r'view = "(\w+)"', blocks))


def example_folder(text: str) -> str:
    """The example family's folder, from its ``scripts``."""
    return re.search(r'scripts = \("(\w+)/', code_blocks(text, "python")[0]).group(1)


def _corpus() -> tuple[str, set[str]]:
    texts = [
        path.read_text(encoding="utf-8")
        for top in CORPUS
        for path in sorted((ROOT / top).rglob("*"))
        if path.suffix in _CODE_SUFFIXES
        and path.is_file()
        and ".axe" not in path.parts
        and path != Path(__file__).resolve()  # this file plants wrong names
    ]
    texts.append((ROOT / "Makefile").read_text(encoding="utf-8"))
    joined = "\n".join(texts)
    return joined, set(re.findall(r"[A-Za-z_]\w*", joined))


def missing_paths(text: str) -> list[str]:
    """Paths in backticks that name no file or folder: tried from the repository root, from
    ``gradkit/widgets``, and (a bare file name) anywhere in gradkit; ``<family>`` matches any."""
    folder = example_folder(text)
    out = []
    for span in spans(text):
        if not _PATH.match(span) or span.startswith(f"{folder}/"):
            continue
        pattern = re.sub(r"<[^>]+>", "*", span).rstrip("/").removeprefix("../")
        found = any(list(base.glob(pattern)) for base in (ROOT, WIDGETS))
        if not found and "/" not in pattern:
            found = any((ROOT / "gradkit").rglob(pattern))
        if not found:
            out.append(span)
    return out


def unknown_names(text: str, corpus: tuple[str, set[str]] | None = None) -> list[str]:
    """Names in backticks the code does not hold: a word (``track_x``) must be a whole word of
    the sources, a hyphenated one (``gk-is-busy``) a part of them; quoted text, ``<placeholders>``
    and the example's own names do not count."""
    joined, words = corpus or _corpus()
    own = example_names(text)
    out = []
    for span in spans(text):
        if _PATH.match(span):
            continue
        bare = re.sub(r"\"[^\"]*\"|'[^']*'|<[^>]+>", " ", span)
        for token in re.findall(r"[A-Za-z_][\w-]*\w|[A-Za-z_]", bare):
            known = token in joined if "-" in token else token in words
            if token.startswith("data-") and not known:  # data-foo-bar is dataset.fooBar
                camel = re.sub(r"-(\w)", lambda m: m.group(1).upper(), token[5:])
                known = f"dataset.{camel}" in joined
            if not known and token not in own and token not in out:
                out.append(token)
    return out


@pytest.fixture
def guide_family(tmp_path, monkeypatch):
    """The guide's family, defined from its Python block, its ES file in a stand-in widgets
    folder; returns (namespace, the stand-in folder)."""
    text = GUIDE.read_text(encoding="utf-8")
    folder = example_folder(text)
    widgets = tmp_path / "widgets"
    (widgets / folder).mkdir(parents=True)
    (widgets / "base").symlink_to(WIDGETS / "base", target_is_directory=True)
    shutil.copy(WIDGETS / "package.json", widgets / "package.json")
    script = re.search(r'scripts = \("([^"]+)",\)', code_blocks(text, "python")[0]).group(1)
    (widgets / script).write_text(code_blocks(text, "js")[0], encoding="utf-8")
    monkeypatch.setattr(bundle_module, "WIDGETS", widgets)
    bundle_module.bundle.cache_clear()
    namespace: dict = {}
    exec(compile(code_blocks(text, "python")[0], f"{GUIDE}: the family", "exec"), namespace)
    yield namespace, widgets
    bundle_module.bundle.cache_clear()


def test_the_guide_has_its_family_and_the_lines_that_drive_it():
    text = GUIDE.read_text(encoding="utf-8")
    assert len(code_blocks(text, "python")) == 2 and len(code_blocks(text, "js")) == 1
    for heading in ("## Checklist: add a control", "## Checklist: add a family"):
        assert heading in text


def test_the_guides_family_runs_as_its_lines_say(guide_family):
    namespace, _ = guide_family
    drive = code_blocks(GUIDE.read_text(encoding="utf-8"), "python")[1]
    exec(compile(drive, f"{GUIDE}: driving it", "exec"), namespace)
    assert namespace["w"].closed


@needs_node
def test_the_guides_family_bundles_into_one_module_that_parses(guide_family):
    namespace, _ = guide_family
    family = next(v for v in namespace.values() if getattr(v, "view", None) == "squareView")
    source = family._esm
    assert "export const squareView" not in source and "const squareView" in source
    check_bundle(source, need_node=True)


_PAINT = """
import { readFileSync } from "node:fs";
import { decodeTables } from "./base/tables.js";
import { shownValue } from "./base/controls.js";
const sent = JSON.parse(readFileSync(0, "utf-8"));
const family = await import(sent.module);
const bytes = Buffer.from(sent.tables, "base64");
const tables = decodeTables(new Uint8Array(bytes), sent.scene.tables);
const { tables: layout, ...meta } = sent.exact.answer;
const answer = new Uint8Array(Buffer.from(sent.exact.buffer, "base64"));
const exact = { ...meta, tables: decodeTables(answer, layout) };
const shown = sent.states.map((state) => {
  const typed = state.eps_exact == null ? null : exact;
  const ctx = { state, scene: sent.scene, tables, exact: typed, panels: () => [],
    value(name) { return shownValue(sent.controls, name, this.state[name]); } };
  const view = family[sent.view];
  const found = view.find(ctx); // as host.js paints: the record, then the picture
  const got = found && view.paint(ctx, found, { size: [0, 0] });
  return got && { readouts: got.readouts, drawn: got.drawn };
});
console.log(JSON.stringify(shown));
"""


@needs_node
def test_the_guides_page_half_reads_what_python_sent(guide_family):
    """The view's lookup gives Python's number for a state on the tables, another x and dtype
    in the window, a typed eps (from ``exact``); null for an x beyond the window."""
    namespace, widgets = guide_family
    w = namespace["SquareSlope"](x=1.0, dtype="float32")
    try:
        arrays = unpack(w.tables, w.scene["tables"])["slopes"]
        start = w.scene["window"][0]
        dtypes = w.scene["dtypes"]
        grid = {**w.state}
        moved = {**w.state, "x": 1, "dtype": "float64"}  # one position up: x = 1.5
        beyond = {**w.state, "x": 9}
        w.eps_slider.value = 3e-7
        typed = dict(w.state)
        answer, buffers = w.numbers_at(w.request_here(), [])  # what the page gets for it
        expected = [
            arrays[-start, dtypes.index("float32"), grid["eps"]],
            arrays[1 - start, dtypes.index("float64"), moved["eps"]],
            None,
            unpack(buffers[0], answer["tables"])["slopes"][0, dtypes.index("float32"), 0],
        ]
        sent = {
            "module": "./" + w.scripts[0],
            "view": w.view,
            "scene": w.scene,
            "controls": w.spec["controls"],
            "tables": base64.b64encode(w.tables).decode(),
            "exact": {"answer": answer, "buffer": base64.b64encode(buffers[0]).decode()},
            "states": [grid, moved, beyond, typed],
        }
    finally:
        w.close()
    (widgets / "paint.mjs").write_text(_PAINT, encoding="utf-8")
    done = subprocess.run(
        ["node", str(widgets / "paint.mjs")],
        input=json.dumps(sent),
        text=True,
        capture_output=True,
        check=False,
        cwd=widgets,
    )
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout)
    assert [s and s["drawn"]["slope"] for s in shown] == [
        None if v is None else float(v) for v in expected
    ]
    assert "numeric slope" in shown[0]["readouts"]["numeric"]


def test_every_code_span_of_the_guide_sits_on_one_line():
    """A span broken across lines would escape the checks below."""
    lines = prose(GUIDE.read_text(encoding="utf-8")).splitlines()
    assert [line for line in lines if line.count("`") % 2] == []


def test_every_file_the_guide_names_exists():
    assert missing_paths(GUIDE.read_text(encoding="utf-8")) == []


def test_every_name_the_guide_gives_is_in_the_code():
    assert unknown_names(GUIDE.read_text(encoding="utf-8")) == []


def test_a_planted_wrong_name_or_file_is_caught():
    text = GUIDE.read_text(encoding="utf-8")
    planted = (
        text + "\nCall `point_row` and `_new_function`, in `base/pointer.py`; `gk-is-bussy`.\n"
    )
    corpus = _corpus()
    before = unknown_names(text, corpus)
    assert [n for n in unknown_names(planted, corpus) if n not in before] == [
        "point_row",
        "_new_function",
        "gk-is-bussy",
    ]
    assert [p for p in missing_paths(planted) if p not in missing_paths(text)] == [
        "base/pointer.py"
    ]


@needs_node
def test_the_painter_the_guide_lists_is_the_painter():
    """The drawing calls named under ``painter`` are exactly what ``makePainter`` hands a view
    (besides its canvas and its helpers)."""
    text = GUIDE.read_text(encoding="utf-8")
    listed = re.search(r"`painter` \(([^;]*);", prose(text).replace("\n", " ")).group(1)
    named = re.findall(r"`(\w+)`", listed)
    probe = (
        'import { makePainter } from "./gradkit/widgets/base/plot.js";\n'
        "console.log(JSON.stringify(Object.keys(makePainter({}))));\n"
    )
    done = subprocess.run(
        ["node", "--input-type=module"],
        input=probe,
        text=True,
        capture_output=True,
        check=False,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    helpers = {"g", "clipped"}  # the canvas and the clipping helper: no drawing call
    assert sorted(named) == sorted(set(json.loads(done.stdout)) - helpers)


def families() -> list[str]:
    """The family subpackages of gradkit/widgets (every folder with an ``__init__.py`` but
    ``base``)."""
    return sorted(
        p.name for p in WIDGETS.iterdir() if (p / "__init__.py").exists() and p.name != "base"
    )


@pytest.mark.parametrize("family", families())
def test_every_family_has_what_the_family_checklist_asks(family):
    """The checklist is what the families already have: a class in ``_HOMES`` and ``__all__``
    whose ES files sit beside it, a row in the guide, tests in both languages and a fixture
    maker."""
    import importlib

    from gradkit import widgets
    from tools import js_fixtures

    classes = [name for name, home in widgets._HOMES.items() if home == f".{family}"]
    assert classes and set(classes) <= set(widgets.__all__)
    for name in classes:
        cls = getattr(importlib.import_module(f"gradkit.widgets.{family}"), name)
        assert cls.scripts and all((WIDGETS / s).is_file() for s in cls.scripts), name
        assert cls.scripts[-1].startswith(f"{family}/"), name
    assert f"| `{family}/` |" in GUIDE.read_text(encoding="utf-8")
    assert (ROOT / "tests" / "widgets" / f"test_{family}.py").is_file()
    assert (ROOT / "tests" / "js" / f"{family}.test.mjs").is_file()
    assert f"{family}.json" in js_fixtures.FIXTURE_MAKERS


def test_the_control_kinds_and_makers_the_guide_lists_are_the_codes():
    """The "add a control" checklist names every kind the page builds (``KINDS`` in
    controls.js) and makers that ``base/rows.py`` exports."""
    from gradkit.widgets.base import rows

    text = re.sub(r"\s+", " ", prose(GUIDE.read_text(encoding="utf-8")))
    listed = re.search(r"\(`KINDS` in `base/controls\.js`: ([^)]*)\)", text).group(1)
    source = (WIDGETS / "base" / "controls.js").read_text(encoding="utf-8")
    kinds = re.search(r"const KINDS = \{(.*?)\};", source, re.S).group(1)
    assert sorted(re.findall(r"`(\w+)`", listed)) == sorted(re.findall(r"(\w+):", kinds))
    makers = re.search(r"a maker of `base/rows\.py` \(([^;]*);([^)]*)\)", text)
    assert makers, "the checklist's makers"
    for name in re.findall(r"`(\w+)`", makers.group(1) + makers.group(2)):
        assert name in rows.__all__ or name in ("point_rows", "PointWidget"), name
