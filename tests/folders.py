"""What a folder holds, to show a command wrote nothing it should not have."""

from __future__ import annotations

import os
from pathlib import Path


def tree(folder: Path) -> dict[str, str]:
    """Every entry under ``folder`` by relative path: 'link -> target' for a symbolic link (never
    followed), 'dir' for a folder, else the file's bytes (as latin-1 text)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        key = str(path.relative_to(folder))
        if path.is_symlink():
            found[key] = f"link -> {os.readlink(path)}"
        elif path.is_dir():
            found[key] = "dir"
        else:
            found[key] = path.read_bytes().decode("latin-1")
    return found
