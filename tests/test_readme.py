"""The README's promises: its tour runs and prints what its comments say; its links resolve."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_readme_shows_the_two_commands_first():
    first_block = re.search(r"```bash\n(.*?)```", README, re.S).group(1)
    assert first_block.splitlines()[0].startswith("make notebook")
    assert first_block.splitlines()[1].startswith("make test")


def test_api_tour_runs_and_matches_its_comments():
    tour = README.split("## A tour of the API", 1)[1]
    code = re.search(r"```python\n(.*?)```", tour, re.S).group(1)
    assert len(code.strip().splitlines()) <= 10
    out = io.StringIO()
    namespace: dict = {}
    with contextlib.redirect_stdout(out):
        exec(code, namespace)
    assert out.getvalue().startswith("analytic is 1.5x numeric on every entry")
    assert namespace["report"].cause == "bug"
    gradkit, torch = namespace["gradkit"], namespace["torch"]
    assert f"{gradkit.numeric_slope(lambda v: v * v, 2.0, 1e-3):.13f}".startswith("3.9999999999996")
    float32_slope = gradkit.numeric_slope(lambda v: v * v, 0.5, 1e-6, dtype=torch.float32)
    assert f"{float32_slope:.4f}" == "1.0133"
    assert f"{gradkit.sweep(lambda v: v**3, 0.5)['float32'].optimal_eps:.3g}" == "0.00155"


def test_local_links_and_images_exist():
    for target in re.findall(r"\]\(([^)#]+)\)", README):
        if not target.startswith("http"):
            assert (ROOT / target).exists(), target


def test_ci_calls_the_readme_test_command():
    assert "make test" in (ROOT / ".ci" / "run").read_text()
