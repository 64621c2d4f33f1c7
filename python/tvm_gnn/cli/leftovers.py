# Licensed under the Apache License, Version 2.0.
"""A refused or failed run leaves no trace: no empty work dir, log file or ``previous-*`` folder.

A command creates its output folder and log file before it knows whether the run can start (a
lock must be held before anything is checked against what is there). :func:`tidy_on_failure`
notes what existed, and if the block raises, removes what the run created and left empty: empty
files and folders only, so a record measured before the failure is never touched.
"""

from __future__ import annotations

import contextlib
from pathlib import Path


def _missing_top(folder: Path) -> Path | None:
    """The highest ancestor of ``folder`` (itself included) that does not exist yet."""
    top = None
    for path in [folder, *folder.parents]:
        if path.exists():
            break
        top = path
    return top


def _is_empty(path: Path) -> bool:
    """A file of no bytes, or a folder holding nothing but such (a link is never empty)."""
    if path.is_symlink():
        return False
    if path.is_file():
        return path.stat().st_size == 0
    if path.is_dir():
        return all(_is_empty(p) for p in path.iterdir())
    return False


def _remove_empty(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        for p in path.iterdir():
            _remove_empty(p)
        path.rmdir()
    else:
        path.unlink()


@contextlib.contextmanager
def tidy_on_failure(folder):
    """Run the block; if it raises, remove what it created under ``folder`` that is empty (the
    folder itself, and the ancestors this run created, when nothing else is in them)."""
    folder = Path(folder)
    top = _missing_top(folder.absolute())
    before = set(folder.iterdir()) if top is None and folder.is_dir() else set()
    try:
        yield
    except BaseException:
        with contextlib.suppress(OSError):
            _tidy(folder, top, before)
        raise


def _tidy(folder: Path, top: Path | None, before: set) -> None:
    if not folder.is_dir():
        return
    for path in set(folder.iterdir()) - before:
        if _is_empty(path):
            _remove_empty(path)
    if top is None:
        return
    for path in [folder.absolute(), *folder.absolute().parents]:
        if any(path.iterdir()):
            break
        path.rmdir()
        if path == top:
            break
