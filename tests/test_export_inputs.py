"""``gradkit export`` refuses bad input: exit status 2, one message naming the argument and the
fix, and nothing written outside SITE (nor in it, for a refusal). Each case runs on a small
notebook that already ran (no kernel)."""

from __future__ import annotations

import errno
import json
import os
import tempfile
from pathlib import Path

import pytest
from folders import tree

from gradkit import cli

NOTEBOOK = {
    "nbformat": 4,
    "nbformat_minor": 5,
    "metadata": {},
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": "# Lesson 1: hello\n\nSay hello."},
        {
            "cell_type": "code",
            "execution_count": 1,
            "metadata": {},
            "source": "print('hello')",
            "outputs": [{"output_type": "stream", "name": "stdout", "text": "hello\n"}],
        },
    ],
}


@pytest.fixture
def world(tmp_path) -> Path:
    """A folder with a lesson (``lessons/01_hello.ipynb``) and a file of the learner's own."""
    (tmp_path / "lessons").mkdir()
    (tmp_path / "lessons" / "01_hello.ipynb").write_text(json.dumps(NOTEBOOK), encoding="utf-8")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "thesis.txt").write_text("the learner's thesis\n")
    return tmp_path


def _refused(capsys, world: Path, *argv: str, message: str) -> str:
    """Run the command; it must exit 2 with ``message`` and leave ``world`` as it was."""
    before = tree(world)
    status = cli.main(["export", *argv])
    _out, err = capsys.readouterr()
    assert status == 2, err
    assert message in err, err
    assert err.startswith("gradkit export: error: ") and "Traceback" not in err
    assert tree(world) == before
    return err


def test_a_path_that_is_not_a_notebook_is_refused(world, capsys):
    (world / "notes.txt").write_text("not a notebook")
    lesson = world / "lessons" / "01_hello.ipynb"
    site = str(world / "site")
    fix = "give lesson notebooks, e.g. gradkit export notebooks --out site"
    _refused(
        capsys,
        world,
        str(world / "notes.txt"),
        "--out",
        site,
        message=f"PATH {world / 'notes.txt'} is not a notebook (.ipynb) or a folder of "
        f"notebooks; {fix}",
    )
    _refused(
        capsys,
        world,
        str(lesson),
        str(world / "missing.ipynb"),
        "--out",
        site,
        message=f"PATH {world / 'missing.ipynb'} does not exist",
    )
    empty = world / "outside"
    _refused(
        capsys,
        world,
        str(empty),
        "--out",
        site,
        message=f"PATH {empty} is a folder with no notebooks (.ipynb) in it",
    )
    (world / "broken.ipynb").write_text("{ not json")
    _refused(
        capsys,
        world,
        str(world / "broken.ipynb"),
        "--out",
        site,
        message=f"PATH {world / 'broken.ipynb'} is not a readable notebook (",
    )


def test_two_notebooks_with_one_name_are_refused(world, capsys):
    (world / "more").mkdir()
    (world / "more" / "01_hello.ipynb").write_text(json.dumps(NOTEBOOK))
    _refused(
        capsys,
        world,
        str(world / "lessons"),
        str(world / "more"),
        "--out",
        str(world / "s"),
        message="PATH: two notebooks are named 01_hello.ipynb",
    )


def test_out_that_is_a_file_or_a_link_is_refused(world, capsys):
    lesson = str(world / "lessons")
    mine = world / "site.html"
    mine.write_text("mine")
    _refused(
        capsys,
        world,
        lesson,
        "--out",
        str(mine),
        message=f"--out {mine} is a file; give a folder for the site",
    )
    (world / "site").symlink_to(world / "outside")
    _refused(
        capsys,
        world,
        lesson,
        "--out",
        str(world / "site"),
        "--force",
        message=f"--out {world / 'site'} is a symbolic link (to {world / 'outside'}); "
        "gradkit export never writes through a link",
    )
    _refused(
        capsys,
        world,
        lesson,
        "--out",
        str(mine / "site"),
        message=f"cannot be created: {mine} is a file, not a folder",
    )


def test_a_folder_that_is_not_empty_is_refused_without_force(world, capsys):
    site = world / "site"
    site.mkdir()
    (site / "notes.md").write_text("my notes")
    _refused(
        capsys,
        world,
        str(world / "lessons"),
        "--out",
        str(site),
        message=f"--out {site} is not empty (notes.md); choose a new or empty folder, or "
        "pass --force",
    )


def test_force_writes_the_site_and_never_deletes_what_was_there(world, capsys):
    site = world / "site"
    (site / "assets").mkdir(parents=True)
    (site / "notes.md").write_text("my notes")
    (site / "assets" / "logo.svg").write_text("<svg/>")
    (site / "index.html").symlink_to(world / "outside" / "thesis.txt")
    outside = tree(world / "outside")
    assert cli.main(["export", str(world / "lessons"), "--out", str(site), "--force"]) == 0
    capsys.readouterr()
    assert (site / "notes.md").read_text() == "my notes"
    assert (site / "assets" / "logo.svg").read_text() == "<svg/>"
    index = site / "index.html"
    assert not index.is_symlink() and "Lesson 1: hello" in index.read_text()
    assert (site / "01_hello.html").is_file() and (site / "assets" / "loader.js").is_file()
    assert tree(world / "outside") == outside


def test_force_never_writes_through_a_linked_assets_folder(world, capsys):
    site = world / "site"
    site.mkdir()
    (site / "assets").symlink_to(world / "outside")
    _refused(
        capsys,
        world,
        str(world / "lessons"),
        "--out",
        str(site),
        "--force",
        message=f"--out {site} holds assets as a symbolic link, where the site keeps its "
        "scripts and styles; move it away",
    )


def test_an_unwritable_out_is_refused_before_any_work(world, capsys, monkeypatch):
    # root ignores permission bits, so the refusal the file system would give is simulated
    site, parent = world / "site", world / "ro"
    site.mkdir()
    parent.mkdir()
    monkeypatch.setattr(os, "access", lambda path, mode: Path(path) not in (site, parent))
    _refused(
        capsys,
        world,
        str(world / "lessons"),
        "--out",
        str(site),
        message=f"--out {site} is read-only; choose a folder you can write to",
    )
    deep = parent / "new" / "site"
    _refused(
        capsys,
        world,
        str(world / "lessons"),
        "--out",
        str(deep),
        message=f"--out {deep} cannot be created: {parent} is read-only",
    )


def test_a_write_that_fails_halfway_is_a_clean_usage_error(world, capsys, monkeypatch):
    def read_only(*_args, **_kwargs):
        raise PermissionError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(tempfile, "mkstemp", read_only)
    site = world / "site"
    before = {k: v for k, v in tree(world).items() if not k.startswith("site")}
    status = cli.main(["export", str(world / "lessons"), "--out", str(site)])
    err = capsys.readouterr().err
    assert status == 2 and "Traceback" not in err
    assert f"gradkit export: error: --out {site}: could not write" in err
    assert "Read-only file system; choose a folder you can write to" in err
    assert {k: v for k, v in tree(world).items() if not k.startswith("site")} == before


def test_a_name_too_long_for_the_file_system_is_refused_before_any_page(world, capsys):
    """A 240-character name: its page would be written (first as a temporary name) past the
    file system's 255 bytes, after the pages before it; refused first, naming the notebook.
    planted: export_site not calling check_name_lengths fails it."""
    long = world / "lessons" / f"{'a' * 240}.ipynb"
    long.write_text(json.dumps(NOTEBOOK), encoding="utf-8")
    site = world / "site"
    err = _refused(
        capsys, world, str(world / "lessons"), "--out", str(site), message=f"PATH {long}: its page"
    )
    assert "would be a file name of 245 bytes, and the file system of --out" in err
    assert "rename the notebook to a name of at most 236 bytes. Nothing was written" in err


def test_a_site_its_disk_has_no_room_for_is_refused_before_any_page(world, capsys, monkeypatch):
    """planted: export_site not calling check_room fails it."""
    import shutil

    usage = shutil.disk_usage(world)
    monkeypatch.setattr(shutil, "disk_usage", lambda _path: usage._replace(free=1000))
    site = world / "site"
    _refused(
        capsys,
        world,
        str(world / "lessons"),
        "--out",
        str(site),
        message=f"--out {site}: the site is 0.0 MiB and its disk has 0.0 MiB free; free some",
    )
