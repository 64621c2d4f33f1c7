# Licensed under the Apache License, Version 2.0.
"""One writer a folder at a time, and no folder left half written by a run that was cut.

:func:`one_writer` holds a folder for a run: a lock file (``tvm-gnn.lock``) that names its holder
(pid, command, start time) and is locked with ``flock``, which the kernel releases when the
holder dies however it dies. A second writer stops at once with one line naming the holder; a
lock file left by a holder that is gone (``kill -9``, a crash) is stale, and the next run takes
it over, saying so.

:func:`unfinished` marks a folder while ``pack`` or ``unpack`` fills it: a folder that still
carries the mark was cut in the middle, and the next run of that command does it again whole
instead of skipping it; ``collect`` and the readers refuse it until then.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import sys
import time
from pathlib import Path

from .errors import DataError

logger = logging.getLogger(__name__)

LOCK_FILE = "tvm-gnn.lock"
UNFINISHED_FILE = ".tvm-gnn-unfinished"

#: lock files this process holds: the signal path removes them (``tvm_gnn.cli.signals``)
HELD: set[Path] = set()


class FolderBusyError(DataError):
    """Another run is writing the folder; the message names it."""


def _describe(text: str) -> str:
    try:
        who = json.loads(text)
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(who["started"]))
        return f"pid {who['pid']} ({who['command']}, since {when})"
    except (ValueError, KeyError, TypeError):
        return "another process"


@contextlib.contextmanager
def one_writer(folder, command: str | None = None):
    """Hold ``folder`` (created if missing) for the block; :class:`FolderBusyError` if another live
    process holds it. ``command`` names this run in the lock file (default: ``sys.argv``)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    with _hold(folder / LOCK_FILE, str(folder), command):
        yield folder


@contextlib.contextmanager
def one_writer_of(path, command: str | None = None):
    """Hold the output file ``path`` for the block (a lock file beside it,
    ``.NAME.tvm-gnn.lock``): two runs writing one file, such as two ``train --out``, stop the
    second at once instead of both writing it. Its folder is created if missing."""
    path = Path(path)
    if path.exists() and not path.is_file():  # a device or a pipe: nothing to replace or guard
        yield path
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    name = os.fsencode(path.name)  # a long name: its digest, so the lock's name stays legal
    name = path.name if len(name) <= 200 else hashlib.sha1(name).hexdigest()
    with _hold(path.parent / f".{name}.{LOCK_FILE}", str(path), command):
        yield path


@contextlib.contextmanager
def _hold(path: Path, what: str, command: str | None):
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _describe(os.read(fd, 4096).decode(errors="replace"))
            os.close(fd)
            raise FolderBusyError(
                f"{what} is being written by {holder}; wait for it to end or stop it, then "
                "run this again"
            ) from None
        try:  # the holder may have removed the file between our open and our lock: take anew
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    left = os.read(fd, 4096).decode(errors="replace")
    if left.strip():
        logger.warning("%s: took over the lock left by %s, which is gone", what, _describe(left))
    me = {"pid": os.getpid(), "command": command or " ".join(sys.argv), "started": time.time()}
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps(me).encode(), 0)
    HELD.add(path)
    try:
        yield
    finally:
        HELD.discard(path)
        path.unlink(missing_ok=True)
        os.close(fd)


def release_all() -> None:
    """Remove the lock files this process holds (a process stopping on a signal, which exits
    without unwinding; the kernel releases the locks themselves)."""
    for path in list(HELD):
        path.unlink(missing_ok=True)


@contextlib.contextmanager
def unfinished(folder, command: str):
    """Mark ``folder`` as being filled by ``command`` for the block; the mark stays if the block
    is cut (an error, a signal, a kill), so that :func:`was_cut` tells the next run."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / UNFINISHED_FILE).write_text(command + "\n")
    yield folder
    (folder / UNFINISHED_FILE).unlink()


def was_cut(folder) -> str | None:
    """The command whose run filling ``folder`` was cut (``pack``, ``unpack``), or None."""
    mark = Path(folder) / UNFINISHED_FILE
    if not mark.exists():
        return None
    return mark.read_text().strip() or "?"


def check_whole(folder) -> None:
    """:class:`~tvm_gnn.errors.DataError` if a ``pack`` or ``unpack`` of ``folder`` was cut."""
    command = was_cut(folder)
    if command is not None:
        raise DataError(
            f"{folder} was left half written by an interrupted `tvm-gnn {command}`; run "
            f"`tvm-gnn {command}` again to finish it"
        )
